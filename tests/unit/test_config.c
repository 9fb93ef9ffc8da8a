/*
 * test_config.c: robotd's configuration file, good and bad.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "robot/daemon/settings.h"
#include "tap.h"

/* Loads text as a configuration; the errors joined in *errs. */
static bool
load(const char *text, struct config *c, char **errs)
{
	char path[] = "/tmp/robot-config-XXXXXX";
	int fd = mkstemp(path);
	struct errlist el;
	bool ok;
	FILE *fp;
	char *buf = NULL;
	size_t len = 0;

	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		return false;
	close(fd);
	config_defaults(c);
	errlist_init(&el);
	ok = config_load(path, c, &el);
	fp = open_memstream(&buf, &len);
	errlist_print(&el, fp);
	fclose(fp);
	*errs = buf;
	errlist_release(&el);
	unlink(path);
	return ok;
}

static void
test_defaults(void)
{
	struct config c;

	config_defaults(&c);
	CHECK_STR(c.listen_addr, "127.0.0.1");
	CHECK_INT(c.listen_port, 8420);
	CHECK(c.db == NULL);
	CHECK_INT(c.lease_seconds, 120);
	CHECK_INT(c.max_attempts, 3);
	CHECK_INT(c.broken_after, 3);
	CHECK_INT(c.long_poll, 30);
	config_release(&c);
}

static void
test_a_file(void)
{
	struct config c;
	char *errs;

	CHECK(load("listen: 0.0.0.0:9000\nstate_dir: /srv/robot\n"
		   "db: host=/run/pg dbname=robot\nlease_seconds: 60\n"
		   "max_attempts: 5\ntbox_group: lab-xfs\n",
		   &c, &errs));
	CHECK_STR(errs, "");
	CHECK_STR(c.listen_addr, "0.0.0.0");
	CHECK_INT(c.listen_port, 9000);
	CHECK_STR(c.state_dir, "/srv/robot");
	CHECK_STR(c.db, "host=/run/pg dbname=robot");
	CHECK_INT(c.lease_seconds, 60);
	CHECK_INT(c.max_attempts, 5);
	CHECK_STR(c.tbox_group, "lab-xfs");
	free(errs);
	config_release(&c);
	CHECK(load("", &c, &errs)); /* empty: the defaults */
	CHECK_INT(c.listen_port, 8420);
	free(errs);
	config_release(&c);
}

static void
test_every_error_at_once(void)
{
	struct config c;
	char *errs;

	CHECK(!load("lease_secs: 10\nlisten: here\nmax_attempts: 0\n"
		    "state_dir: relative\ndb_pool: [1, 2]\n",
		    &c, &errs));
	CHECK(strstr(errs, ":1: unknown key 'lease_secs' (did you mean "
			   "'lease_seconds'?)") != NULL);
	CHECK(strstr(errs, ":2: listen: ADDR:PORT is expected") != NULL);
	CHECK(strstr(errs, ":3: max_attempts: a whole number from 1") != NULL);
	CHECK(strstr(errs, ":4: state_dir: an absolute path") != NULL);
	CHECK(strstr(errs, ":5: db_pool: a whole number") != NULL);
	free(errs);
	config_release(&c);
}

static void
test_malformed_files(void)
{
	struct config c;
	struct errlist el;
	char *errs;

	CHECK(!load("listen: [unclosed\n", &c, &errs));
	CHECK(errs[0] != '\0');
	free(errs);
	config_release(&c);
	CHECK(!load("- a list\n- not a mapping\n", &c, &errs));
	CHECK(strstr(errs, "a mapping of keys") != NULL);
	free(errs);
	config_release(&c);
	config_defaults(&c);
	errlist_init(&el);
	CHECK(!config_load("/nonexistent/robotd.yaml", &c, &el));
	CHECK_INT(el.nerrors, 1);
	errlist_release(&el);
	config_release(&c);
}

static void
test_listen_forms(void)
{
	struct config c;

	config_defaults(&c);
	CHECK(config_set_listen(&c, "10.0.0.1:80"));
	CHECK_STR(c.listen_addr, "10.0.0.1");
	CHECK_INT(c.listen_port, 80);
	CHECK(config_set_listen(&c, ":81"));
	CHECK_INT(c.listen_port, 81);
	CHECK(config_set_listen(&c, "82"));
	CHECK_INT(c.listen_port, 82);
	CHECK(!config_set_listen(&c, "host:99999"));
	CHECK(!config_set_listen(&c, "host:"));
	CHECK(!config_set_listen(&c, "host:8x"));
	config_release(&c);
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_defaults),
		TAP_CASE(test_a_file),
		TAP_CASE(test_every_error_at_once),
		TAP_CASE(test_malformed_files),
		TAP_CASE(test_listen_forms),
		{NULL, NULL},
	};

	return tap_run(cases);
}
