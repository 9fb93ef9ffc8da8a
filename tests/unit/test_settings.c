/*
 * test_settings.c: robotd's settings: the file, good and bad, and flags.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "robot/core/buf.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/settings.h"
#include "tap.h"

/* Loads text as a configuration; the errors joined in *errs. */
static bool
load(const char *text, struct settings *c, char **errs)
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
	settings_defaults(c);
	errlist_init(&el);
	ok = settings_load(path, c, &el);
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
	struct settings c;

	settings_defaults(&c);
	CHECK_STR(c.listen_addr, "127.0.0.1");
	CHECK_INT(c.listen_port, 8420);
	CHECK(c.db == NULL);
	CHECK_INT(c.lease_seconds, 120);
	CHECK_INT(c.max_attempts, 3);
	CHECK_INT(c.broken_after, 3);
	CHECK_INT(c.long_poll, 30);
	CHECK_INT(c.reference_every, 3600);
	settings_release(&c);
}

static void
test_a_file(void)
{
	struct settings c;
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
	settings_release(&c);
	CHECK(load("", &c, &errs)); /* empty: the defaults */
	CHECK_INT(c.listen_port, 8420);
	free(errs);
	settings_release(&c);
}

static void
test_every_error_at_once(void)
{
	struct settings c;
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
	settings_release(&c);
}

static void
test_malformed_files(void)
{
	struct settings c;
	struct errlist el;
	char *errs;

	CHECK(!load("listen: [unclosed\n", &c, &errs));
	CHECK(errs[0] != '\0');
	free(errs);
	settings_release(&c);
	CHECK(!load("- a list\n- not a mapping\n", &c, &errs));
	CHECK(strstr(errs, "a mapping of keys") != NULL);
	free(errs);
	settings_release(&c);
	settings_defaults(&c);
	errlist_init(&el);
	CHECK(!settings_load("/nonexistent/robotd.yaml", &c, &el));
	CHECK_INT(el.nerrors, 1);
	errlist_release(&el);
	settings_release(&c);
}

/* Sets listen from text; whether it was taken. */
static bool
set_listen(struct settings *c, const char *text)
{
	char *why;
	bool ok = settings_set(c, "listen", text, &why);

	free(why);
	return ok;
}

static void
test_listen_forms(void)
{
	struct settings c;

	settings_defaults(&c);
	CHECK(set_listen(&c, "10.0.0.1:80"));
	CHECK_STR(c.listen_addr, "10.0.0.1");
	CHECK_INT(c.listen_port, 80);
	CHECK(set_listen(&c, ":81"));
	CHECK_INT(c.listen_port, 81);
	CHECK(set_listen(&c, "82"));
	CHECK_INT(c.listen_port, 82);
	CHECK(!set_listen(&c, "host:99999"));
	CHECK(!set_listen(&c, "host:"));
	CHECK(!set_listen(&c, "host:8x"));
	settings_release(&c);
}

static void
test_flags_and_reload(void)
{
	struct settings live, fresh;
	char *why, *names;

	settings_defaults(&live);
	settings_defaults(&fresh);
	CHECK(!settings_set(&live, "state_dir", "relative", &why));
	CHECK_STR(why, "an absolute path is expected");
	free(why);
	CHECK(!settings_set(&live, "no_such", "1", &why));
	free(why);
	CHECK(settings_set(&fresh, "lease_seconds", "7", &why));
	CHECK(settings_set(&fresh, "db_pool", "9", &why));
	CHECK(settings_set(&fresh, "tbox_group", "lab", &why));
	/* Reloadable settings change; the others are named. */
	CHECK_INT(settings_reload(&live, &fresh, &names), 1);
	CHECK_STR(names, "db_pool");
	free(names);
	CHECK_INT(live.lease_seconds, 7);
	CHECK_INT(live.db_pool, 8);
	CHECK_STR(live.tbox_group, "lab");
	settings_release(&live);
	settings_release(&fresh);
}

/* examples/robotd.yaml has every setting, at its default where it is
 * not commented out: it loads, and changes nothing. */
static void
test_example_file(void)
{
	struct settings d, c;
	struct errlist el;
	char path[4096];

	snprintf(path, sizeof path, "%s/examples/robotd.yaml",
		 tap_source_dir());
	settings_defaults(&d);
	settings_defaults(&c);
	errlist_init(&el);
	CHECK(settings_load(path, &c, &el));
	CHECK_INT(el.n, 0);
	CHECK_INT(c.lease_seconds, d.lease_seconds);
	CHECK_INT(c.lease_max_life, d.lease_max_life);
	CHECK_INT(c.max_runs, d.max_runs);
	CHECK_INT(c.compare_max_running, d.compare_max_running);
	CHECK_INT(c.compare_max_values, d.compare_max_values);
	CHECK_INT(c.report_bisect_wait, d.report_bisect_wait);
	CHECK_INT(c.report_window, d.report_window);
	CHECK_INT(c.reference_every, d.reference_every);
	CHECK_INT(c.smtp_starttls, 0);
	CHECK_STR(c.mail_from, d.mail_from);
	CHECK(c.smtp == NULL && c.webhook == NULL);
	CHECK(c.operator_mail == NULL && c.power_cycle == NULL);
	/* every setting is in it, set or commented out */
	{
		struct buf b;
		const char *name, *text;

		buf_init(&b);
		CHECK(buf_add_file(&b, path, 1 << 20));
		text = b.data;
		for (size_t i = 0; (name = settings_name(i)) != NULL; i++) {
			char *set = xasprintf("\n%s:", name);
			char *off = xasprintf("\n# %s:", name);

			if (strstr(text, set) == NULL &&
			    strstr(text, off) == NULL) {
				tap_diag("examples/robotd.yaml lacks %s", name);
				CHECK(false);
			}
			free(set);
			free(off);
		}
		buf_release(&b);
	}
	errlist_release(&el);
	settings_release(&c);
	settings_release(&d);
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
		TAP_CASE(test_flags_and_reload),
		TAP_CASE(test_example_file),
		{NULL, NULL},
	};

	return tap_run(cases);
}
