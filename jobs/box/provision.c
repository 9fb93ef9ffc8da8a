/*
 * provision.c: the provisioning hook.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jobs/box/child.h"
#include "jobs/box/provision.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

static char *
slurp(const char *path, size_t max)
{
	char *buf = xmalloc(max + 1);
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	n = fd == -1 ? -1 : read(fd, buf, max);
	if (fd != -1)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

/* The hook's stderr, relayed to the box's log line by line as it comes:
 * a kernel build takes many minutes. */
struct relay {
	const char *path;
	off_t done; /* bytes relayed */
};

static void
relay_lines(void *arg)
{
	struct relay *r = arg;
	char buf[8192], *line, *nl;
	ssize_t n;
	int fd = open(r->path, O_RDONLY | O_CLOEXEC);

	if (fd == -1)
		return;
	while ((n = pread(fd, buf, sizeof buf - 1, r->done)) > 0) {
		buf[n] = '\0';
		for (line = buf; (nl = strchr(line, '\n')) != NULL;
		     line = nl + 1) {
			*nl = '\0';
			log_info("hook: %s", line);
		}
		if (line == buf) {
			/* A line the hook is still writing waits for its
			 * end; one longer than buf is cut. */
			if (n < (ssize_t)sizeof buf - 1)
				break;
			log_info("hook: %s", buf);
			line = buf + n;
		}
		r->done += line - buf;
	}
	close(fd);
}

/* Starts the hook with argv, its stdout and stderr to the files out and
 * err, in the environment the contract gives it (docs/box.md). */
static bool
hook_spawn(const struct boxconf *bc, char *const argv[], const char *out,
	   const char *err, struct child *c)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);

	setenv("ROBOT_BOX", bc->name, 1);
	setenv("ROBOT_WORKDIR", bc->workdir, 1);
	/* The hook that runs the job runs this program in its VM: the
	 * program at its path, even once a rebuild or an upgrade replaced
	 * it there (Linux then says "PATH (deleted)"). */
	if (n > 0) {
		static const char deleted[] = " (deleted)";
		size_t k = sizeof deleted - 1;

		self[n] = '\0';
		if ((size_t)n > k && strcmp(self + n - k, deleted) == 0)
			self[n - k] = '\0';
		setenv("ROBOT_BOX_PROGRAM", self, 1);
	}
	return child_spawn(c, "provisioning hook", argv, out, err, NULL);
}

/* Waits for the hook (at most hook_timeout), relaying its stderr to the
 * log as it comes; whether it ended with status 0. */
static bool
hook_wait(const struct boxconf *bc, struct child *c, const char *err,
	  bool *timed_out)
{
	struct relay r = {err, 0};
	bool ok = child_wait_tick(c, bc->hook_timeout, timed_out, relay_lines,
				  &r) &&
		  child_succeeded(c);

	relay_lines(&r);
	return ok;
}

json_t *
provision_run(const struct boxconf *bc, const char *tree, const char *commit,
	      const char *job, const char *result, const char *rundir,
	      json_t *outputs, char **err, bool *job_fault)
{
	json_t *p = json_object();
	struct utsname u;
	char *out, *errp, *text, *line, *save;
	struct child c;
	bool timed_out, ok;

	if (uname(&u) == 0)
		json_object_set_new(p, "kernel", json_string(u.release));
	json_object_set_new(p, "hook",
			    bc->hook ? json_string(bc->hook) : json_null());
	if (bc->hook == NULL) {
		if (commit != NULL)
			json_object_set_new(
				p, "note",
				json_string("no provisioning hook: the box ran "
					    "its own kernel and settings, not "
					    "the commit"));
		return p;
	}
	out = xasprintf("%s/provision.out", rundir);
	errp = xasprintf("%s/provision.err", rundir);
	{
		char *argv[] = {bc->hook,
				(char *)(tree ? tree : ""),
				(char *)(commit ? commit : ""),
				(char *)job,
				(char *)result,
				NULL};

		if (!hook_spawn(bc, argv, out, errp, &c)) {
			*err = xasprintf("cannot start the provisioning hook "
					 "'%s'",
					 bc->hook);
			json_decref(p);
			free(out);
			free(errp);
			return NULL;
		}
	}
	ok = hook_wait(bc, &c, errp, &timed_out);
	text = slurp(out, 64 * 1024);
	{
		char *e = slurp(errp, 64 * 1024), *both;

		both = xasprintf("%s%s", text, e);
		json_object_set_new(outputs, "provision",
				    rjson_string_lossy(both, strlen(both)));
		free(both);
		free(e);
	}
	if (!ok) {
		char *how = child_exit_text(&c), *words = child_last_words(&c);

		*job_fault = !timed_out && WIFEXITED(c.status) &&
			     WEXITSTATUS(c.status) == PROVISION_JOB_FAULT;
		if (*job_fault)
			*err = xasprintf("cannot provision %s%s%s (the hook "
					 "blames the commit, not the box)",
					 commit ? commit : "the box",
					 words ? ": " : "", words ? words : "");
		else if (timed_out)
			*err = xasprintf("provisioning %s took over %.0f s "
					 "(hook_timeout)",
					 commit ? commit : "the box",
					 bc->hook_timeout);
		else
			*err = xasprintf(
				"provisioning %s failed: the hook %s%s%s",
				commit ? commit : "the box", how,
				words ? ": " : "", words ? words : "");
		free(how);
		free(words);
		json_decref(p);
		p = NULL;
	} else {
		for (line = strtok_r(text, "\n", &save); line != NULL;
		     line = strtok_r(NULL, "\n", &save)) {
			char *sep = strstr(line, ": ");

			if (sep == NULL || sep == line)
				continue;
			*sep = '\0';
			json_object_set_new(
				p, line,
				rjson_string_lossy(sep + 2, strlen(sep + 2)));
		}
	}
	child_release(&c);
	free(text);
	free(out);
	free(errp);
	return p;
}

bool
provision_after(const struct boxconf *bc, const char *tree, const char *commit)
{
	char *out, *errp, *text, *line, *save;
	char *argv[] = {bc->hook, "--after", (char *)(tree ? tree : ""),
			(char *)(commit ? commit : ""), NULL};
	struct child c;
	bool timed_out, ok;

	if (bc->hook == NULL || !bc->hook_after)
		return true;
	out = xasprintf("%s/after.out", bc->workdir);
	errp = xasprintf("%s/after.err", bc->workdir);
	log_info("after the run: %s --after %s %s", bc->hook, argv[2], argv[3]);
	if (!hook_spawn(bc, argv, out, errp, &c)) {
		log_warnx("cannot start the hook '%s' after the run", bc->hook);
		free(out);
		free(errp);
		return false;
	}
	ok = hook_wait(bc, &c, errp, &timed_out);
	text = slurp(out, 64 * 1024);
	for (line = strtok_r(text, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save))
		log_info("hook --after: %s", line);
	if (!ok) {
		char *how = child_exit_text(&c), *words = child_last_words(&c);

		if (timed_out)
			log_warnx("the hook after the run took over %.0f s "
				  "(hook_timeout)",
				  bc->hook_timeout);
		else
			log_warnx("the hook after the run %s%s%s", how,
				  words ? ": " : "", words ? words : "");
		free(how);
		free(words);
	}
	child_release(&c);
	free(text);
	free(out);
	free(errp);
	return ok;
}
