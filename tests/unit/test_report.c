/*
 * test_report.c: a report's text, JSON and recipients, from a claim that
 * robot_report_next() gave for the quickstart's regression (two series of
 * the demo tree's dd job, tests/data/report-claim.json), and follow-ups
 * and subscriptions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reporters/recipients.h"
#include "reporters/report.h"
#include "reporters/subscribe.h"
#include "robot/core/buf.h"
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

/* Everything the tests render, in order, as a line of FNV-1a hashes per
 * render (its subject, body, JSON and outbox): held against
 * tests/data/report-golden.txt at the end, written from report.c before
 * its renderer read typed views, so that it renders the same bytes. */
static struct buf golden;
static size_t nrendered;

static unsigned long long
fnv(const char *s)
{
	unsigned long long h = 1469598103934665603ULL;

	for (; s != NULL && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static bool
render(json_t *c, const struct report_config *conf, struct report_out *out)
{
	struct view_doc d = {0};
	struct store_claim claim;
	char *doc, *outbox, err[256];
	bool ok = store_claim_decode(&d, c, &claim, err, sizeof err) &&
		  report_render(&claim, conf, out);

	view_release(&d);
	if (!ok)
		return false;
	doc = json_dumps(out->doc, JSON_SORT_KEYS | JSON_INDENT(1));
	outbox = json_dumps(out->outbox, JSON_SORT_KEYS | JSON_INDENT(1));
	buf_addf(&golden,
		 "render %zu: subject %016llx body %016llx doc %016llx "
		 "outbox %016llx\n",
		 ++nrendered, fnv(out->subject), fnv(out->body), fnv(doc),
		 fnv(outbox));
	if (getenv("TEST_REPORT_SHOW") != NULL &&
	    (size_t)atoi(getenv("TEST_REPORT_SHOW")) == nrendered)
		fprintf(stderr, "%s\n%s%s\n%s\n", out->subject, out->body, doc,
			outbox);
	free(doc);
	free(outbox);
	return true;
}

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	struct buf b;
	char chunk[4096];
	size_t n;

	if (f == NULL)
		return NULL;
	buf_init(&b);
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_add(&b, chunk, n);
	fclose(f);
	return buf_detach(&b);
}

/* Last: all the above rendered the same bytes as before. */
static void
test_golden(void)
{
	char path[4096], *want;

	snprintf(path, sizeof path, "%s/tests/data/report-golden.txt",
		 tap_source_dir());
	if (getenv("TEST_REPORT_WRITE") != NULL) {
		FILE *f = fopen(path, "w");

		if (f != NULL) {
			fputs(golden.data, f);
			fclose(f);
		}
	}
	want = slurp(path);
	CHECK(want != NULL);
	if (want != NULL && strcmp(want, golden.data) != 0) {
		size_t i = 0;

		while (want[i] && want[i] == golden.data[i])
			i++;
		tap_diag("differs at byte %zu: got \"%.120s\" "
			 "(TEST_REPORT_SHOW=N "
			 "prints render N)",
			 i, golden.data + i);
	}
	CHECK(want != NULL && strcmp(want, golden.data) == 0);
	free(want);
	buf_release(&golden);
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

	CHECK(render(c, &cfg, &out));
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
	CHECK(strstr(out.body, "test machine: local (2 CPUs, 23.5G memory)\n"
			       "parameters: ") != NULL);
	CHECK(strstr(out.body, "  cpu: ") == NULL); /* none registered */
	CHECK(strstr(out.body,
		     "parameters: disk=3LOOP_1G fs=xfs nr_threads=1dd "
		     "runtime=5s sc_dirty_ratio=40 bs=1M") != NULL);
	/* The headline, then each series with LKP's table as stored. */
	CHECK(strstr(out.body, "   -85.2%     0.0014    6+3  regression   "
			       "dd.write_bytes_per_sec\n") != NULL);
	/* The KPI's means, in units. */
	CHECK(strstr(out.body, "(dd-write/1M-3LOOP_1G-xfs-1dd-5s-10/local)\n"
			       "                                         "
			       "6.99 GB/s -> 1.03 GB/s\n") != NULL);
	CHECK(strstr(out.body, "found at") == NULL);
	CHECK(strstr(out.body,
		     json_string_value(json_object_get(
			     json_array_get(json_object_get(c, "pairs"), 1),
			     "table"))) != NULL);
	CHECK(strstr(out.body, "The job file (save it as job-2.yaml):\n\n"
			       "suite: dd-write\n") != NULL);
	CHECK(strstr(out.body, "  robot submit job-2.yaml --tree demo "
			       "--tbox-group local --repeat 6 \\\n") != NULL);
	/* what the commands need, said where they are (issue 55) */
	CHECK(strstr(out.body,
		     "To reproduce:\n\n  # robot where "
		     "scripts/quickstart set it up (on PATH") != NULL);
	/* each regression it reports linked (issue 55: only the first
	 * was) */
	CHECK(strstr(out.body,
		     "Details: http://robot.example.org/regressions/1\n"
		     "         http://robot.example.org/regressions/2\n") !=
	      NULL);
	CHECK(strstr(out.body,
		     "| Reported-by: robot <robot@robot.example.org>\n"
		     "| Closes: http://robot.example.org/regressions/1\n"
		     "| Closes: http://robot.example.org/regressions/2\n") !=
	      NULL);
	CHECK(narrow(out.body));
	CHECK_STR(json_string_value(json_object_get(out.doc, "kind")),
		  "report");
	CHECK_INT(json_array_size(json_object_get(out.doc, "findings")), 2);
	CHECK_INT(json_array_size(json_object_get(out.doc, "series")), 2);
	CHECK_INT(
		json_integer_value(json_object_get(
			json_array_get(json_object_get(out.doc, "findings"), 0),
			"base_runs")),
		6);
	CHECK_INT(
		json_integer_value(json_object_get(
			json_array_get(json_object_get(out.doc, "findings"), 0),
			"head_runs")),
		3);
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

#define HEAD    "d539ac2631e0d2c4d41b3e0e0bd0f5c7a1b2c3d4"
#define BASE    "7e5035bd9ef7cc41cdc36f6549965f59304d6d49"
#define CULPRIT "b6aefd0a216cea179940c3a7b847a05c82084076"

/* A finding of a branch's history (found_by "change point"): the
 * headline says so with its segments' means, instead of the pair's
 * means, and a note says what a change point is; the JSON carries how
 * it was found and the segments. */
static void
test_report_change_point(void)
{
	json_t *c = claim(),
	       *f = json_array_get(json_object_get(c, "findings"), 0);
	struct report_out out;
	json_t *j;

	json_object_set_new(f, "found_by", json_string("change point"));
	json_object_set_new(
		f, "history",
		json_pack("{s:i, s:i, s:{s:i, s:i, s:i, s:f}, s:{s:i, s:i, "
			  "s:i, s:f}}",
			  "index", 4, "points", 9, "before", "from", 0, "to", 4,
			  "runs", 24, "mean", 1e8, "after", "from", 4, "to", 9,
			  "runs", 30, "mean", 9.5e7));
	CHECK(render(c, &cfg, &out));
	CHECK(strstr(out.body,
		     "(dd-write/1M-3LOOP_1G-xfs-1dd-5s-10/local)\n"
		     "                                         "
		     "a change point of the branch's history, 9 "
		     "commits\n"
		     "                                         "
		     "100 MB/s over 4 commits -> 95 MB/s over 5\n") != NULL);
	CHECK(strstr(out.body, "6.99 GB/s -> 1.03 GB/s") == NULL);
	CHECK(strstr(out.body, "(A change point of a branch's history: where "
			       "the level") != NULL);
	CHECK(narrow(out.body));
	j = json_array_get(json_object_get(out.doc, "findings"), 0);
	CHECK_STR(json_string_value(json_object_get(j, "found_by")),
		  "change point");
	CHECK_INT(json_integer_value(json_object_get(
			  json_object_get(j, "history"), "points")),
		  9);
	report_out_release(&out);
	json_decref(c);

	/* A pair's finding has no such note. */
	c = claim();
	CHECK(render(c, &cfg, &out));
	CHECK(strstr(out.body, "A change point of a branch's history") == NULL);
	report_out_release(&out);
	json_decref(c);
}

/* The claim as robot_report_next() gives it for a push of several
 * commits: found at HEAD against BASE.  With bisected, the bisection
 * found CULPRIT (its pair against its parent, BASE, is pair 99); else it
 * ended with reason, and the claim is about the range. */
static json_t *
pushed(bool bisected, const char *reason)
{
	json_t *c = claim(), *f, *p, *cp = json_array();
	json_t *head = json_pack("{s:s, s:s, s:s}", "sha", HEAD, "subject",
				 "net: tidy a header", "author",
				 "Net Person <net@example.org>");
	size_t i;

	json_array_foreach(json_object_get(c, "pairs"), i, p)
	{
		json_t *q = json_deep_copy(p);

		json_object_set_new(q, "pair", json_integer(99 + (int)i));
		json_array_append_new(cp, q);
		json_object_set_new(p, "head", json_string(HEAD));
	}
	json_array_foreach(json_object_get(c, "findings"), i, f)
	{
		json_object_set_new(f, "head", json_string(HEAD));
		json_object_set(f, "head_info", head);
		json_object_set_new(
			f, "bisection",
			bisected
				? json_pack("{s:s, s:i, s:o, s:i, s:{s:s, s:s, "
					    "s:f, s:f}}",
					    "state", "bisected", "steps", 4,
					    "parent",
					    json_deep_copy(json_array_get(
						    json_object_get(c, "bases"),
						    0)),
					    "pair", 99 + (int)i, "kpi", "kpi",
					    "dd.write_bytes_per_sec", "verdict",
					    "regression", "change_pct", -80.04,
					    "p_value", 0.0021)
				: json_pack("{s:s, s:s}", "state", "failed",
					    "reason", reason));
	}
	json_object_set_new(json_object_get(c, "commit"), "author",
			    json_string("A Developer <dev@example.org>"));
	json_object_set_new(json_object_get(c, "tree_info"), "mail_author",
			    json_true());
	if (bisected) {
		json_object_set_new(c, "culprit_pairs", cp);
	} else {
		json_t *commits = json_array();

		for (int k = 0; k < 20; k++)
			json_array_append_new(
				commits,
				json_pack("{s:s, s:s}", "sha",
					  k == 0 ? HEAD : CULPRIT, "subject",
					  k == 0 ? "net: tidy a header"
						 : "mm: something"));
		json_decref(cp);
		json_object_set_new(c, "culprit", json_false());
		json_object_set_new(
			c, "range",
			json_pack("{s:o, s:O, s:i, s:o}", "base",
				  json_deep_copy(json_array_get(
					  json_object_get(c, "bases"), 0)),
				  "head", head, "count", 25, "commits",
				  commits));
		json_object_set(c, "commit", head);
	}
	json_decref(head);
	return c;
}

/* A push of several commits, bisected: the report names the first bad
 * commit against its parent, says where it was found, shows that pair's
 * table before the head's, and goes to the culprit's author only. */
static void
test_report_bisected(void)
{
	json_t *c = pushed(true, NULL), *f;
	struct report_out out;
	size_t i;

	CHECK(render(c, &cfg, &out));
	CHECK_STR(out.subject, "[robot] [demo:master] [mm/page-writeback] "
			       "b6aefd0a21: dd.write_bytes_per_sec -80.0% "
			       "regression and 1 more");
	CHECK(strstr(out.body, "robot noticed a -80.0% regression of "
			       "dd.write_bytes_per_sec on:\n\ncommit: " CULPRIT
			       "\n") != NULL);
	CHECK(strstr(out.body, "author: A Developer <dev@example.org>\n") !=
	      NULL);
	CHECK(strstr(out.body, "parent: " BASE) != NULL);
	CHECK(strstr(out.body, "found at d539ac2631 (\"net: tidy a header\"), "
			       "tested against 7e5035bd9e; bisected in 4 "
			       "steps\n") != NULL);
	CHECK(strstr(out.body, "   -80.0%     0.0021    6+3  regression   "
			       "dd.write_bytes_per_sec\n") != NULL);
	CHECK(strstr(out.body, "-85.2% from 7e5035bd9e to d539ac2631 (6+3 "
			       "runs)\n") != NULL);
	/* The first bad commit's table, then the head's. */
	CHECK(strstr(out.body, "  " BASE " (\"Initial demo kernel: default "
			       "writeback\")\n  " CULPRIT) != NULL);
	CHECK(strstr(out.body, "  " BASE " (\"Initial demo kernel: default "
			       "writeback\")\n  " HEAD
			       " (\"net: tidy a header\")") != NULL);
	CHECK(strstr(out.body, CULPRIT) < strstr(out.body, "  " HEAD " ("));
	CHECK(strstr(out.body, "| Reported-by: robot") != NULL);
	CHECK(strstr(out.body, "commit: " HEAD) == NULL);
	CHECK(narrow(out.body));
	CHECK(has(out.outbox, "mail", "dev@example.org"));
	CHECK(!has(out.outbox, "mail", "net@example.org"));
	CHECK_INT(json_array_size(json_object_get(out.doc, "series")), 4);
	f = json_array_get(json_object_get(out.doc, "findings"), 0);
	CHECK_STR(json_string_value(json_object_get(
			  json_object_get(f, "culprit"), "commit")),
		  CULPRIT);
	CHECK_STR(json_string_value(json_object_get(f, "head")), HEAD);
	CHECK(json_is_true(json_object_get(out.doc, "culprit")));
	report_out_release(&out);
	/* Bisected to the head itself: found at this commit. */
	json_array_foreach(json_object_get(c, "findings"), i, f)
	{
		json_object_set_new(f, "head", json_string(CULPRIT));
	}
	CHECK(render(c, &cfg, &out));
	CHECK(strstr(out.body, "found at this commit, tested against "
			       "7e5035bd9e; bisected in 4 steps\n") != NULL);
	report_out_release(&out);
	json_decref(c);
}

/* A bisection that failed: the report is about the range, says why,
 * lists its commits, names no subsystem, asks no tags, mails no author. */
static void
test_report_range(void)
{
	json_t *c = pushed(false, "every commit left was skipped");
	struct report_out out;

	CHECK(render(c, &cfg, &out));
	CHECK_STR(out.subject, "[robot] [demo:master] 7e5035bd9e..d539ac2631 "
			       "(25 commits): dd.write_bytes_per_sec -85.2% "
			       "regression and 1 more");
	CHECK(strstr(out.body, "in a range:\n\nbase: " BASE) != NULL);
	CHECK(strstr(out.body, "head: " HEAD " (\"net: tidy a header\")") !=
	      NULL);
	CHECK(strstr(out.body,
		     "The bisection could not name the commit at "
		     "fault: every commit left was skipped.") != NULL);
	CHECK(strstr(out.body, "The range's 25 commits, newest first:\n\n"
			       "  d539ac2631 net: tidy a header\n"
			       "  b6aefd0a21 mm: something\n") != NULL);
	CHECK(strstr(out.body, "  and 5 more\n") != NULL);
	CHECK(strstr(out.body, "Reported-by") == NULL);
	CHECK(strstr(out.body, "Closes:") == NULL);
	CHECK(strstr(out.body, "author:") == NULL);
	CHECK(narrow(out.body));
	CHECK(!has(out.outbox, "mail", "dev@example.org"));
	CHECK(!has(out.outbox, "mail", "net@example.org"));
	CHECK(json_is_false(json_object_get(out.doc, "culprit")));
	CHECK_INT(json_integer_value(json_object_get(
			  json_object_get(out.doc, "range"), "count")),
		  25);
	report_out_release(&out);
	json_decref(c);
	/* Still running at the deadline: the first bad commit follows. */
	c = pushed(false, NULL);
	json_object_set_new(json_array_get(json_object_get(c, "findings"), 0),
			    "bisection",
			    json_pack("{s:s}", "state", "running"));
	CHECK(render(c, &cfg, &out));
	CHECK(strstr(out.body, "is still running; the first bad commit\nwill "
			       "follow in this thread.") != NULL);
	report_out_release(&out);
	json_decref(c);
}

/* A note for the lab's operators goes to them only. */
static void
test_note(void)
{
	static const char *const ops[] = {"mail", "ops@example.org", "webhook",
					  "http://127.0.0.1:9/ops", NULL};
	struct report_config oc = cfg;
	json_t *c = json_pack(
		"{s:s, s:i, s:{s:s, s:s, s:[s], s:s, s:i, s:s}}", "kind",
		"note", "id", 7, "note", "kind", "noisy", "series",
		"dd-write/x/lab", "boxes", "loud", "kpi",
		"dd.write_bytes_per_sec", "pair", 3, "message",
		"too noisy on box loud for this job (dd-write/x/lab): "
		"dd.write_bytes_per_sec varies by ±36% between identical "
		"runs; a 2% change would need more than 1000 runs a side "
		"(the cap is 4)");
	struct report_out out;

	oc.operators = ops;
	CHECK(render(c, &oc, &out));
	CHECK_STR(out.subject,
		  "[robot] [lab] too noisy on loud: dd-write/x/lab");
	CHECK(strstr(out.body, "too noisy on box loud for this job") != NULL);
	CHECK(strstr(out.body, "http://robot.example.org/lab") != NULL);
	CHECK(narrow(out.body));
	CHECK_INT(json_array_size(out.outbox), 2);
	CHECK(has(out.outbox, "mail", "ops@example.org"));
	CHECK(has(out.outbox, "webhook", "http://127.0.0.1:9/ops"));
	CHECK(!has(out.outbox, "webhook", "http://127.0.0.1:9/hook"));
	CHECK_STR(json_string_value(json_object_get(out.doc, "kind")), "note");
	report_out_release(&out);
	/* No operators in the settings: nobody is mailed. */
	CHECK(render(c, &cfg, &out));
	CHECK_INT(json_array_size(out.outbox), 0);
	report_out_release(&out);
	/* Told once a day per box: the day's other jobs on it are named. */
	json_object_set_new(
		json_object_get(c, "note"), "also",
		json_pack("[s, s]", "dd-write/y/lab", "dd-write/z/lab"));
	CHECK(render(c, &oc, &out));
	CHECK_STR(out.subject,
		  "[robot] [lab] too noisy on loud: dd-write/x/lab and 2 more");
	CHECK(strstr(out.body, "It was too noisy for 2 other jobs too:\n"
			       "  dd-write/y/lab\n  dd-write/z/lab\n") != NULL);
	CHECK(narrow(out.body));
	report_out_release(&out);
	json_object_del(json_object_get(c, "note"), "also");
	/* Each kind says what it is: a box that changed is not noisy. */
	json_object_set_new(json_object_get(c, "note"), "kind",
			    json_string("suspect"));
	CHECK(render(c, &oc, &out));
	CHECK_STR(out.subject, "[robot] [lab] loud changed: dd-write/x/lab");
	CHECK(strstr(out.body, "the box changed") != NULL);
	CHECK(strstr(out.body, "vary too much") == NULL);
	CHECK(narrow(out.body));
	report_out_release(&out);
	json_object_set_new(json_object_get(c, "note"), "kind",
			    json_string("power-cycle"));
	CHECK(render(c, &oc, &out));
	CHECK_STR(out.subject,
		  "[robot] [lab] loud power-cycled: dd-write/x/lab");
	CHECK(strstr(out.body, "a box did not come back") != NULL);
	CHECK(narrow(out.body));
	CHECK_INT(json_array_size(out.outbox), 2);
	report_out_release(&out);
	/* A mute that expired (robot_mutes_expire()) is no noisy box. */
	json_object_set_new(json_object_get(c, "note"), "kind",
			    json_string("mute"));
	CHECK(render(c, &oc, &out));
	CHECK_STR(out.subject, "[robot] [lab] a mute expired: dd-write/x/lab");
	CHECK(strstr(out.body, "a mute expired") != NULL);
	CHECK(strstr(out.body, "vary too much") == NULL);
	CHECK(narrow(out.body));
	report_out_release(&out);
	json_decref(c);
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
	CHECK(render(c, &cfg, &out));
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

	/* The author's address as git read it (%ae), never a <...> that
	 * sits in the name (issue 61). */
	json_object_set_new(
		json_object_get(c, "commit"), "author",
		json_string("Dev <dev@example.org> <boss@example.org>"));
	json_object_set_new(json_object_get(c, "commit"), "email",
			    json_string("dev@example.org"));
	CHECK(render(c, &cfg, &out));
	CHECK(has(out.outbox, "mail", "dev@example.org"));
	CHECK(!has(out.outbox, "mail", "boss@example.org"));
	report_out_release(&out);
	json_object_del(json_object_get(c, "commit"), "email");
	json_object_set_new(json_object_get(c, "commit"), "author",
			    json_string("A Developer <dev@example.org>"));

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
	CHECK(render(c, &cfg, &out));
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

	CHECK(render(c, &cfg, &out));
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
	CHECK(!render(c, &cfg, &out));
	json_decref(c);
}

static void
test_subscription_check(void)
{
	json_t *s = json_pack("{s:s, s:s, s:s}", "email", "Dev@Example.ORG",
			      "tree", "linux*", "min_change", "5%");
	json_t *f;

	CHECK(subscribe_check(s) == NULL);
	CHECK_STR(json_string_value(json_object_get(s, "email")),
		  "dev@example.org");
	CHECK(json_number_value(json_object_get(s, "min_change")) == 5);
	json_decref(s);
	s = json_pack("{s:s, s:s, s:i, s:b, s:b, s:s}", "email",
		      "dev@example.org\r\nBcc: x@y", "tree", "has space",
		      "min_change", -1, "regressions", 0, "improvements", 0,
		      "colour", "red");
	f = subscribe_check(s);
	CHECK_INT(json_array_size(f), 5);
	json_decref(f);
	json_decref(s);
	s = json_string("x");
	f = subscribe_check(s);
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

/* The machine as the box registered it: its CPU, kernel and disks under
 * "test machine:", a long /proc/version wrapped under 90 columns. */
static void
test_report_machine(void)
{
	json_t *c = claim(), *pairs = json_object_get(c, "pairs");
	json_t *f = json_object_get(json_array_get(pairs, 0), "facts");
	struct report_out out;

	CHECK(json_is_object(f));
	json_object_set_new(f, "cpu_model",
			    json_string("Intel(R) Xeon(R) Gold 6346 CPU @ "
					"3.10GHz"));
	json_object_set_new(f, "kernel", json_string("6.1.0-27-amd64"));
	json_object_set_new(
		f, "proc_version",
		json_string("Linux version 6.1.0-27-amd64 "
			    "(debian-kernel@lists.debian.org) (gcc-12 (Debian "
			    "12.2.0-14) 12.2.0, GNU ld (GNU Binutils for "
			    "Debian) 2.40) #1 SMP PREEMPT_DYNAMIC Debian "
			    "6.1.115-1 (2024-11-01)"));
	json_object_set_new(f, "disks",
			    json_pack("[ss]", "sda: Samsung SSD 870, 932G",
				      "vda: virtio_blk, 100G"));
	CHECK(render(c, &cfg, &out));
	CHECK(strstr(out.body,
		     "test machine: local (2 CPUs, 23.5G memory)\n"
		     "  cpu: Intel(R) Xeon(R) Gold 6346 CPU @ 3.10GHz\n"
		     "  kernel: 6.1.0-27-amd64\n"
		     "  /proc/version: Linux version 6.1.0-27-amd64 "
		     "(debian-kernel@lists.debian.org) (gcc-12\n"
		     "    (Debian 12.2.0-14) 12.2.0, GNU ld (GNU Binutils for "
		     "Debian) 2.40) #1 SMP\n"
		     "    PREEMPT_DYNAMIC Debian 6.1.115-1 (2024-11-01)\n"
		     "  disks: sda: Samsung SSD 870, 932G; vda: virtio_blk, "
		     "100G\n") != NULL);
	CHECK(narrow(out.body));
	report_out_release(&out);
	json_decref(c);
}

/* Facts that do not fit what a box registers (as a box's from before
 * robotd checked them: cpus a text) are left out, and the report is
 * still made. */
static void
test_report_machine_odd_facts(void)
{
	json_t *c = claim(), *pairs = json_object_get(c, "pairs");
	json_t *f = json_object_get(json_array_get(pairs, 0), "facts");
	struct report_out out;

	json_object_set_new(f, "cpus", json_string("two"));
	json_object_set_new(f, "cpu_model", json_string("Some CPU"));
	CHECK(render(c, &cfg, &out));
	CHECK(strstr(out.body, "test machine: local\n") != NULL);
	CHECK(strstr(out.body, "Some CPU") == NULL);
	report_out_release(&out);
	json_decref(c);
}

/* A box whose hook booted the commit's kernel (the kernel hook): that
 * kernel is the one the mail names, the box's own is its host's, QEMU
 * without KVM is flagged, and what the hook said that is not printable
 * is left out. */
static void
test_report_machine_booted(void)
{
	json_t *c = claim(),
	       *pair = json_array_get(json_object_get(c, "pairs"), 0);
	json_t *f = json_object_get(pair, "facts");
	struct report_out out;

	json_object_set_new(f, "kernel", json_string("6.18.44-fc"));
	json_object_set_new(f, "proc_version",
			    json_string("Linux version 6.18.44-fc"));
	json_object_set_new(
		pair, "provision",
		json_pack("{ssssss}", "kernel", "6.1.192-robot-d35fee1b6483",
			  "backend", "qemu-tcg", "tcg", "not for performance"));
	CHECK(render(c, &cfg, &out));
	CHECK(strstr(out.body,
		     "test machine: local (2 CPUs, 23.5G memory)\n"
		     "  kernel: 6.1.192-robot-d35fee1b6483 (the commit's, "
		     "booted by the box's hook: qemu-tcg)\n"
		     "  warning: QEMU without KVM (TCG): the runs' figures are "
		     "not performance figures\n"
		     "  host kernel: 6.18.44-fc\n"
		     "  host /proc/version: Linux version 6.18.44-fc\n") !=
	      NULL);
	CHECK(narrow(out.body));
	report_out_release(&out);

	json_object_set_new(pair, "provision",
			    json_pack("{ss}", "kernel", "6.1\033[31m"));
	CHECK(render(c, &cfg, &out));
	CHECK(strstr(out.body, "\033") == NULL &&
	      strstr(out.body, "  kernel: 6.18.44-fc\n") != NULL &&
	      strstr(out.body, "TCG") == NULL);
	report_out_release(&out);

	/* A hook that only tunes the box (the demo tree's): robot-box
	 * records the box's own release, which is no booted kernel. */
	json_object_set_new(pair, "provision",
			    json_pack("{ss}", "kernel", "6.18.44-fc"));
	CHECK(render(c, &cfg, &out));
	CHECK(strstr(out.body,
		     "  kernel: 6.18.44-fc\n"
		     "  /proc/version: Linux version 6.18.44-fc\n") != NULL &&
	      strstr(out.body, "booted") == NULL);
	report_out_release(&out);
	json_decref(c);
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_report_text),
		TAP_CASE(test_report_machine),
		TAP_CASE(test_report_machine_booted),
		TAP_CASE(test_report_change_point),
		TAP_CASE(test_report_bisected),
		TAP_CASE(test_report_range),
		TAP_CASE(test_recipients),
		TAP_CASE(test_followup),
		TAP_CASE(test_note),
		TAP_CASE(test_subscription_check),
		TAP_CASE(test_subsystem_and_glob),
		TAP_CASE(test_report_machine_odd_facts), /* (last: the golden
							 * lines before stay) */
		TAP_CASE(test_golden),
		{NULL, NULL}};

	buf_init(&golden);
	return tap_run(cases);
}
