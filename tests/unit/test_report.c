/*
 * test_report.c: a report's text, JSON and recipients, from a claim that
 * robot_report_next() gave for the quickstart's regression (two series of
 * the demo tree's dd job, tests/data/report-claim.json), and follow-ups
 * and subscriptions.
 */
#include <stdlib.h>
#include <string.h>

#include "reporters/report.h"
#include "tap.h"

static const char *const fixed[] = {"webhook", "http://127.0.0.1:9/hook", NULL};
static const struct report_config cfg = {"http://robot.example.org",
					 "robot@robot.example.org", fixed};

static json_t *
claim(void)
{
	char path[4096];
	json_t *c;

	snprintf(path, sizeof path, "%s/tests/data/report-claim.json",
		 tap_source_dir());
	c = json_load_file(path, 0, NULL);
	CHECK(c != NULL);
	return c;
}

/* Whether every line is at most 90 columns, but LKP's tables (from a
 * line holding "%stddev" to the blank line after). */
static bool
narrow(const char *text)
{
	bool table = false;

	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");

		if (strstr(p, "%stddev") != NULL &&
		    strstr(p, "%stddev") < p + n)
			table = true;
		else if (n == 0)
			table = false;
		/* The table's commit header comes before its %stddev line:
		 * two lines of hex and dashes. */
		if (!table && n > 90 && p[0] != '-' &&
		    strspn(p, "0123456789abcdef ") != n) {
			tap_diag("too wide: %.*s", (int)n, p);
			return false;
		}
		p += n;
		if (*p == '\n')
			p++;
	}
	return true;
}

static void
test_report_text(void)
{
	json_t *c = claim();
	struct report_out out;

	CHECK(report_render(c, &cfg, &out));
	CHECK_STR(out.subject, "[robot] [demo:master] [mm/page-writeback] "
			       "b6aefd0a21: dd.write_bytes_per_sec -85.2% "
			       "regression and 1 more");
	CHECK(strstr(out.body, "robot noticed a -85.2% regression of "
			       "dd.write_bytes_per_sec on:\n\ncommit: "
			       "b6aefd0a216cea179940c3a7b847a05c82084076\n"
			       "        (\"mm/page-writeback: cap dirty memory "
			       "at 8 MiB\")\n") != NULL);
	CHECK(strstr(out.body, "base: 7e5035bd9ef7cc41cdc36f6549965f59304d6d49 "
			       "(\"Initial demo kernel: default "
			       "writeback\")\n") != NULL);
	CHECK(strstr(out.body, "test machine: local (2 CPUs, 23.5G memory)") !=
	      NULL);
	CHECK(strstr(out.body,
		     "parameters: disk=3LOOP_1G fs=xfs nr_threads=1dd "
		     "runtime=5s sc_dirty_ratio=40 bs=1M") != NULL);
	/* The headline, then each series with LKP's table as stored. */
	CHECK(strstr(out.body, "   -85.2%     0.0014     3  regression   "
			       "dd.write_bytes_per_sec\n") != NULL);
	CHECK(strstr(out.body,
		     json_string_value(json_object_get(
			     json_array_get(json_object_get(c, "pairs"), 1),
			     "table"))) != NULL);
	CHECK(strstr(out.body, "The job file (save it as job-2.yaml):\n\n"
			       "suite: dd-write\n") != NULL);
	CHECK(strstr(out.body, "  robot submit job-2.yaml --tree demo "
			       "--tbox-group local --repeat 6 \\\n") != NULL);
	CHECK(strstr(out.body,
		     "| Reported-by: robot <robot@robot.example.org>\n"
		     "| Closes: http://robot.example.org/"
		     "regressions/1\n") != NULL);
	CHECK(narrow(out.body));
	CHECK_STR(json_string_value(json_object_get(out.doc, "kind")),
		  "report");
	CHECK_INT(json_array_size(json_object_get(out.doc, "findings")), 2);
	CHECK_INT(json_array_size(json_object_get(out.doc, "series")), 2);
	/* No subscribers: the webhook alone. */
	CHECK_INT(json_array_size(out.outbox), 1);
	report_out_release(&out);
	json_decref(c);
}

static json_t *
sub(const char *email, const char *tree, double min, bool regressions,
    bool improvements)
{
	return json_pack("{s:s, s:s?, s:n, s:n, s:n, s:f, s:b, s:b}", "email",
			 email, "tree", tree, "branch", "testcase", "metric",
			 "min_change", min, "regressions", regressions,
			 "improvements", improvements);
}

static bool
has(json_t *outbox, const char *channel, const char *recipient)
{
	json_t *o;
	size_t i;

	json_array_foreach(outbox, i, o)
	{
		if (strcmp(json_string_value(json_object_get(o, "channel")),
			   channel) == 0 &&
		    strcmp(json_string_value(json_object_get(o, "recipient")),
			   recipient) == 0)
			return true;
	}
	return false;
}

static void
test_recipients(void)
{
	json_t *c = claim(), *subs = json_array(), *job;
	struct report_out out;

	json_array_append_new(subs,
			      sub("all@example.org", NULL, 0, true, false));
	json_array_append_new(subs,
			      sub("demo@example.org", "d*", 5, true, false));
	json_array_append_new(
		subs, sub("other@example.org", "linux", 0, true, false));
	json_array_append_new(subs,
			      sub("big@example.org", NULL, 90, true, false));
	json_array_append_new(subs,
			      sub("better@example.org", NULL, 0, false, true));
	json_array_append_new(subs, sub("all@example.org", "demo", 0, true,
					false)); /* twice: once */
	json_object_set_new(c, "subscribers", subs);
	job = json_object_get(
		json_object_get(json_array_get(json_object_get(c, "pairs"), 0),
				"job"),
		"job");
	json_object_set_new(job, "mail_to",
			    json_pack("[s, s]",
				      "Fs Maintainer <fs@example.org>",
				      "not an address"));
	json_object_set_new(json_object_get(c, "commit"), "author",
			    json_string("A Developer <dev@example.org>"));
	json_object_set_new(json_object_get(c, "tree_info"), "mail_author",
			    json_true());
	CHECK(report_render(c, &cfg, &out));
	CHECK(has(out.outbox, "mail", "all@example.org"));
	CHECK(has(out.outbox, "mail", "demo@example.org"));
	CHECK(!has(out.outbox, "mail", "other@example.org"));
	CHECK(!has(out.outbox, "mail", "big@example.org"));
	CHECK(!has(out.outbox, "mail", "better@example.org"));
	CHECK(has(out.outbox, "mail", "fs@example.org"));
	CHECK(has(out.outbox, "mail", "dev@example.org"));
	CHECK(has(out.outbox, "webhook", "http://127.0.0.1:9/hook"));
	CHECK_INT(json_array_size(out.outbox), 5);
	report_out_release(&out);

	/* Improvements go only to those who ask for them: not to mail_to,
	 * not to the author. */
	{
		json_t *f;
		size_t i;

		json_array_foreach(json_object_get(c, "findings"), i, f)
		{
			json_object_set_new(f, "kind",
					    json_string("improvement"));
			json_object_set_new(f, "change_pct", json_real(12.5));
		}
	}
	CHECK(report_render(c, &cfg, &out));
	CHECK(has(out.outbox, "mail", "better@example.org"));
	CHECK(!has(out.outbox, "mail", "all@example.org"));
	CHECK(!has(out.outbox, "mail", "fs@example.org"));
	CHECK(!has(out.outbox, "mail", "dev@example.org"));
	CHECK(strstr(out.subject, "+12.5% improvement and 1 more") != NULL);
	report_out_release(&out);
	json_decref(c);
}

static void
test_followup(void)
{
	json_t *c = json_pack(
		"{s:s, s:s, s:s, s:{s:s, s:s}, s:{s:i, s:s, s:s}, s:[], s:[i], "
		"s:[{s:i, s:s, s:i, s:s, s:s, s:s, s:f, s:f, s:i, s:{s:s, "
		"s:s}}],"
		" s:[s]}",
		"kind", "followup", "tree", "demo", "branch", "master",
		"commit", "sha", "b6aefd0a216cea179940c3a7b847a05c82084076",
		"subject", "mm: cap", "thread", "id", 1, "message_id",
		"<robot.1.b6aefd0a216c@example.org>", "subject",
		"[robot] [demo:master] [mm] b6aefd0a21: x -85.2% regression",
		"regressions", "events", 7, "news", "id", 7, "kind", "fixed",
		"regression", 3, "finding", "regression", "series",
		"dd-write/x/local", "kpi", "dd.write_bytes_per_sec",
		"change_pct", -85.2, "p_value", 0.001, "runs", 6, "head", "sha",
		"0123456789abcdef0123456789abcdef01234567", "subject",
		"Revert \"mm: cap\"", "recipients", "dev@example.org");
	struct report_out out;

	CHECK(report_render(c, &cfg, &out));
	CHECK_STR(out.subject, "Re: [robot] [demo:master] [mm] b6aefd0a21: x "
			       "-85.2% regression");
	CHECK(strstr(out.body, "is fixed at 0123456789 (\"Revert \"mm: "
			       "cap\"\")") != NULL);
	CHECK(strstr(out.body, "http://robot.example.org/regressions/3") !=
	      NULL);
	CHECK(has(out.outbox, "mail", "dev@example.org"));
	CHECK_STR(json_string_value(json_object_get(out.doc, "kind")),
		  "followup");
	report_out_release(&out);
	json_decref(c);
	/* Not a claim. */
	c = json_pack("{s:s}", "kind", "nonsense");
	CHECK(!report_render(c, &cfg, &out));
	json_decref(c);
}

static void
test_subscription_check(void)
{
	json_t *s = json_pack("{s:s, s:s, s:s}", "email", "Dev@Example.ORG",
			      "tree", "linux*", "min_change", "5%");
	json_t *f;

	CHECK(report_subscription_check(s) == NULL);
	CHECK_STR(json_string_value(json_object_get(s, "email")),
		  "dev@example.org");
	CHECK(json_number_value(json_object_get(s, "min_change")) == 5);
	json_decref(s);
	s = json_pack("{s:s, s:s, s:i, s:b, s:b, s:s}", "email",
		      "dev@example.org\r\nBcc: x@y", "tree", "has space",
		      "min_change", -1, "regressions", 0, "improvements", 0,
		      "colour", "red");
	f = report_subscription_check(s);
	CHECK_INT(json_array_size(f), 5);
	json_decref(f);
	json_decref(s);
	s = json_string("x");
	f = report_subscription_check(s);
	CHECK_INT(json_array_size(f), 1);
	json_decref(f);
	json_decref(s);
}

static void
test_subsystem_and_glob(void)
{
	char *s = report_subsystem("xfs: introduce writeback context");

	CHECK_STR(s, "xfs");
	free(s);
	s = report_subsystem("mm/page-writeback: cap dirty memory");
	CHECK_STR(s, "mm/page-writeback");
	free(s);
	CHECK(report_subsystem("Revert \"xfs: x\"") == NULL);
	CHECK(report_subsystem("no colon here") == NULL);
	CHECK(report_subsystem("a <b>: c") == NULL);
	s = report_subsystem("caf\xc3\xa9<b>: c");
	CHECK_STR(s, "caf\xc3\xa9<b>");
	free(s);
	CHECK(report_subsystem("[PATCH] x: y") == NULL);
	CHECK(report_glob(NULL, "anything"));
	CHECK(report_glob("dd-*", "dd-write"));
	CHECK(!report_glob("dd-*", "fsmark"));
	CHECK(!report_glob("x", NULL));
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_report_text),
		TAP_CASE(test_recipients),
		TAP_CASE(test_followup),
		TAP_CASE(test_subscription_check),
		TAP_CASE(test_subsystem_and_glob),
		{NULL, NULL}};

	return tap_run(cases);
}
