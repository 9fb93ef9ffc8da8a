/*
 * test_fsm.c: a state machine's table and setter (robot/core/fsm.h):
 * the state set, the change logged at debug level and not when it stays,
 * a value that is no state (a hole in the table, or past its end)
 * refused by stopping the program.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "robot/core/fsm.h"
#include "robot/core/log.h"
#include "tap.h"

enum light_state {
	LIGHT_OFF,
	LIGHT_BROKEN, /* no name: no state */
	LIGHT_ON,
};
static const char *const light_states[] = {
	[LIGHT_OFF] = "off",
	[LIGHT_ON] = "on",
};
static const struct fsm light_fsm = FSM("light", light_states, LIGHT_ON);

struct light {
	enum light_state state;
};

/* Runs FSM_SET on a light in a child, stderr to a pipe: its exit
 * status, and what it logged in out. */
static int
set_in_child(enum light_state from, int to, char *out, size_t len)
{
	int fd[2], status;
	ssize_t n, got = 0;
	pid_t pid;

	if (pipe(fd) == -1 || (pid = fork()) == -1)
		return -1;
	if (pid == 0) {
		struct light l = {from};

		dup2(fd[1], 2);
		close(fd[0]);
		log_init("test", LOG_LEVEL_DEBUG);
		FSM_SET(&light_fsm, l.state, to, "light %d", 7);
		fprintf(stderr, "now %d\n", (int)l.state);
		_exit(0);
	}
	close(fd[1]);
	while ((n = read(fd[0], out + got, len - 1 - (size_t)got)) > 0)
		got += n;
	out[got] = '\0';
	close(fd[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void
test_set_and_log(void)
{
	char out[512];

	CHECK_INT(set_in_child(LIGHT_OFF, LIGHT_ON, out, sizeof out), 0);
	CHECK(strstr(out, "light 7: off -> on") != NULL);
	CHECK(strstr(out, "now 2") != NULL);
	/* no change: nothing said */
	CHECK_INT(set_in_child(LIGHT_ON, LIGHT_ON, out, sizeof out), 0);
	CHECK(strstr(out, "->") == NULL && strstr(out, "now 2") != NULL);
}

static void
test_no_state_refused(void)
{
	char out[512];

	CHECK(set_in_child(LIGHT_OFF, LIGHT_BROKEN, out, sizeof out) != 0);
	CHECK(strstr(out, "light: 1 is no state") != NULL);
	CHECK(strstr(out, "now") == NULL);
	CHECK(set_in_child(LIGHT_OFF, 9, out, sizeof out) != 0);
	CHECK(strstr(out, "light: 9 is no state") != NULL);
	CHECK(set_in_child(LIGHT_OFF, -1, out, sizeof out) != 0);
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_set_and_log),
		TAP_CASE(test_no_state_refused),
		{NULL, NULL},
	};

	return tap_run(cases);
}
