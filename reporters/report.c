/*
 * report.c: a report's text, JSON and recipients (report.h).
 */
#include <ctype.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/emit.h"
#include "reporters/mail.h"
#include "reporters/report.h"
#include "robot/core/buf.h"
#include "robot/core/docload.h"
#include "robot/core/errlist.h"
#include "robot/core/node.h"
#include "robot/core/rjson.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

#define REPORT_COLUMNS 90 /* the widest line, but LKP's tables */
#define REPORT_RULE                                                            \
	"====================================================================" \
	"=="                                                                   \
	"==================="

bool
report_glob(const char *glob, const char *s)
{
	return glob == NULL || (s != NULL && fnmatch(glob, s, 0) == 0);
}

char *
report_subsystem(const char *subject)
{
	const char *colon = subject ? strstr(subject, ": ") : NULL;
	size_t n;

	if (colon == NULL)
		return NULL;
	n = (size_t)(colon - subject);
	if (n == 0 || n > 40)
		return NULL;
	/* One word: "Revert \"xfs: x\"" has none. */
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)subject[i] <= 0x20 || subject[i] == 0x7f ||
		    subject[i] == '"' || subject[i] == '[' || subject[i] == ']')
			return NULL;
	return xstrndup(subject, n);
}

static const char *
str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static double
num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* "-85.1%", or "?" for no change known. */
static void
pct(char *buf, size_t len, double v)
{
	if (isfinite(v))
		snprintf(buf, len, "%+.1f%%", v);
	else
		snprintf(buf, len, "?");
}

/* The commit's first 10 hex digits, as 0-day names it. */
static void
short_sha(char *buf, size_t len, const char *sha)
{
	snprintf(buf, len, "%.10s", sha ? sha : "?");
}

/* Appends words to b, wrapped before REPORT_COLUMNS: *col is the column
 * the line is at, indent the one a new line starts at. */
static void
add_wrapped(struct buf *b, const char *words, size_t *col, size_t indent)
{
	for (const char *p = words; *p;) {
		size_t n = strcspn(p, " ");

		if (*col > indent && *col + 1 + n > REPORT_COLUMNS) {
			buf_addf(b, "\n%*s", (int)indent, "");
			*col = indent;
		} else if (p != words) {
			buf_addc(b, ' ');
			(*col)++;
		}
		buf_add(b, p, n);
		*col += n;
		p += n;
		while (*p == ' ')
			p++;
	}
}

/* `sha ("subject")`, as 0-day's commit lines, at column col; wrapped
 * under 90 columns, a new line at indent. */
static void
add_commit(struct buf *b, json_t *c, size_t col, size_t indent)
{
	const char *subject = str(c, "subject");
	const char *sha = str(c, "sha") ? str(c, "sha") : "?";

	buf_adds(b, sha);
	col += strlen(sha);
	if (subject != NULL) {
		char *q = xasprintf("(\"%s\")", subject);

		if (col + 1 + strlen(q) > REPORT_COLUMNS) {
			buf_addf(b, "\n%*s", (int)indent, "");
			col = indent;
		} else {
			buf_addc(b, ' ');
			col++;
		}
		add_wrapped(b, q, &col, indent);
		free(q);
	}
}

/* The testcase of a series: its part before the first '/'. */
static char *
testcase_of(const char *series)
{
	return xstrndup(series, strcspn(series, "/"));
}

/* The link to a regression's page. */
static char *
regression_url(const struct report_config *cfg, json_int_t id)
{
	return xasprintf("%s/regressions/%lld", cfg->public_url, (long long)id);
}

/* "local (2 CPUs, 23.5G memory)" from a box's facts. */
static void
add_machine(struct buf *b, json_t *pair)
{
	json_t *f = json_object_get(pair, "facts");
	double mem = num(f, "memory");
	const char *group = str(pair, "tbox_group");

	buf_addf(b, "test machine: %s", group ? group : "?");
	if (json_is_integer(json_object_get(f, "cpus")) && isfinite(mem))
		buf_addf(b, " (%lld CPUs, %.1fG memory)",
			 (long long)json_integer_value(
				 json_object_get(f, "cpus")),
			 mem / (1024.0 * 1024 * 1024));
	buf_addc(b, '\n');
}

/* Keys of an atomic job that are not its parameters. */
static bool
not_a_parameter(const char *key)
{
	static const char *const keys[] = {"suite",   "testcase", "category",
					   "repeat",  "commit",   "tree",
					   "mail_to", "mail_cc",  NULL};

	for (size_t i = 0; keys[i] != NULL; i++)
		if (strcmp(key, keys[i]) == 0)
			return true;
	return strncmp(key, "need_", 5) == 0;
}

static void
add_param(struct buf *line, struct buf *b, const char *key, json_t *v)
{
	char *text;

	if (json_is_string(v))
		text = xasprintf("%s=%s", key, json_string_value(v));
	else if (json_is_integer(v))
		text = xasprintf("%s=%lld", key,
				 (long long)json_integer_value(v));
	else if (json_is_real(v))
		text = xasprintf("%s=%g", key, json_real_value(v));
	else if (json_is_boolean(v))
		text = xasprintf("%s=%s", key,
				 json_is_true(v) ? "true" : "false");
	else
		return;
	if (line->len > 0 && line->len + 1 + strlen(text) > 88) {
		buf_add(b, line->data, line->len);
		buf_adds(b, "\n           ");
		buf_reset(line);
	}
	if (line->len > 0)
		buf_addc(line, ' ');
	buf_adds(line, text);
	free(text);
}

/* "parameters: bs=1M disk=3LOOP_1G fs=xfs ...": the job's settings,
 * nested ones by their own name, wrapped under 90 columns. */
static void
add_parameters(struct buf *b, json_t *job)
{
	struct buf line;
	const char *key, *k2;
	json_t *v, *v2;

	buf_init(&line);
	buf_adds(b, "parameters: ");
	json_object_foreach(job, key, v)
	{
		if (not_a_parameter(key))
			continue;
		if (json_is_object(v)) {
			json_object_foreach(v, k2, v2)
			{
				add_param(&line, b, k2, v2);
			}
		} else
			add_param(&line, b, key, v);
	}
	buf_add(b, line.data, line.len);
	buf_addc(b, '\n');
	buf_release(&line);
}

/* The atomic job as the YAML file to submit again (its commit left out:
 * the commands name both). */
static char *
job_yaml(json_t *pair)
{
	json_t *job = json_deep_copy(
		json_object_get(json_object_get(pair, "job"), "job"));
	char *text, *yaml = NULL;
	struct errlist el;
	struct node *n;

	if (!json_is_object(job)) {
		json_decref(job);
		return NULL;
	}
	json_object_del(job, "commit");
	json_object_del(job, "tree");
	json_object_del(job, "repeat");
	text = rjson_dumps(job, JSON_COMPACT | JSON_PRESERVE_ORDER);
	errlist_init(&el);
	/* The documents: the job is the one. */
	n = docload_json("job", text, strlen(text), &el);
	if (n != NULL && n->kind == NODE_SEQ && n->nitems == 1)
		yaml = emit_yaml(n->items[0], NULL);
	node_free(n);
	errlist_release(&el);
	free(text);
	json_decref(job);
	return yaml;
}

/* The headline: each finding's change, p, runs and verdict. */
static void
add_headline(struct buf *b, json_t *findings)
{
	json_t *f;
	size_t i;

	buf_adds(b, "   change          p  runs  verdict      KPI\n");
	json_array_foreach(findings, i, f)
	{
		char c[32], p[32];

		pct(c, sizeof c, num(f, "change_pct"));
		if (isfinite(num(f, "p_value")))
			snprintf(p, sizeof p, "%.2g", num(f, "p_value"));
		else
			snprintf(p, sizeof p, "-");
		buf_addf(b, "%9s  %9s  %4lld  %-11s  %s\n", c, p,
			 (long long)json_integer_value(
				 json_object_get(f, "runs")),
			 str(f, "kind") ? str(f, "kind") : "?",
			 str(f, "kpi") ? str(f, "kpi") : "?");
		buf_addf(b, "%40s(%s)\n", "", str(f, "series"));
	}
}

/* The commands that reproduce one pair: robot submit, and robot-box by
 * hand. */
static void
add_reproduce(struct buf *b, json_t *claim, json_t *pair, const char *file)
{
	const char *tree = str(claim, "tree"), *group = str(pair, "tbox_group");
	long long runs = json_integer_value(json_object_get(pair, "runs"));

	buf_adds(b, "To reproduce:\n\n");
	buf_addf(b, "  robot submit %s", file);
	if (tree != NULL)
		buf_addf(b, " --tree %s", tree);
	if (group != NULL)
		buf_addf(b, " --tbox-group %s", group);
	buf_addf(b, " --repeat %lld \\\n", runs > 0 ? runs : 3);
	buf_addf(b, "      --commit %s \\\n      --commit %s\n",
		 str(pair, "base"), str(pair, "head"));
	buf_adds(b, "\n  # or by hand, as root, on a test box whose "
		    "provisioning hook runs commits:\n");
	for (int side = 0; side < 2; side++)
		buf_addf(b,
			 "  robot-box run --config box.yaml%s%s --repeat %lld "
			 "--json \\\n      --commit %s %s > %s.json\n",
			 tree ? " --tree " : "", tree ? tree : "",
			 runs > 0 ? runs : 3,
			 str(pair, side == 0 ? "base" : "head"), file,
			 side == 0 ? "base" : "head");
	buf_adds(b, "  robot compare --base base.json --head head.json\n\n");
}

/* One pair's section: series, machine, parameters, commits, LKP's table,
 * the job file and the commands. */
static void
add_pair(struct buf *b, json_t *claim, json_t *pair, size_t n, size_t npairs)
{
	json_t *job = json_object_get(json_object_get(pair, "job"), "job");
	json_t *bases = json_object_get(claim, "bases"), *c, *base = NULL;
	const char *table = str(pair, "table");
	char *yaml = job_yaml(pair), *tc = testcase_of(str(pair, "series"));
	char *file = npairs > 1 ? xasprintf("job-%zu.yaml", n + 1)
				: xstrdup("job.yaml");
	size_t i;

	buf_adds(b, REPORT_RULE "\n");
	buf_addf(b, "testcase/path_params/tbox_group:\n  %s\n\n",
		 str(pair, "series"));
	buf_addf(b, "testcase: %s\n", tc);
	add_machine(b, pair);
	if (json_is_object(job))
		add_parameters(b, job);
	buf_adds(b, "\ncommit:\n  ");
	json_array_foreach(bases, i, c)
	{
		if (str(c, "sha") &&
		    strcmp(str(c, "sha"), str(pair, "base")) == 0)
			base = c;
	}
	if (base != NULL)
		add_commit(b, base, 2, 4);
	else
		buf_adds(b, str(pair, "base"));
	buf_adds(b, "\n  ");
	add_commit(b, json_object_get(claim, "commit"), 2, 4);
	buf_adds(b, "\n\n");
	if (table != NULL)
		buf_adds(b, table);
	buf_addc(b, '\n');
	if (yaml != NULL) {
		buf_addf(b, "The job file (save it as %s):\n\n", file);
		buf_adds(b, yaml);
		buf_addc(b, '\n');
	}
	add_reproduce(b, claim, pair, file);
	free(yaml);
	free(tc);
	free(file);
}

static json_t *
finding_json(json_t *f, const struct report_config *cfg)
{
	json_int_t id = json_integer_value(json_object_get(f, "id"));
	char *url = regression_url(cfg, id);
	json_t *o = json_pack(
		"{s:I, s:O?, s:O?, s:O?, s:O?, s:O?, s:O?, s:s}", "regression",
		id, "kind", json_object_get(f, "kind"), "series",
		json_object_get(f, "series"), "kpi", json_object_get(f, "kpi"),
		"change_pct", json_object_get(f, "change_pct"), "p_value",
		json_object_get(f, "p_value"), "runs",
		json_object_get(f, "runs"), "url", url);

	free(url);
	return o;
}

static void
outbox_add(json_t *outbox, const char *channel, const char *recipient)
{
	json_t *o;
	size_t i;

	json_array_foreach(outbox, i, o)
	{
		if (strcmp(str(o, "channel"), channel) == 0 &&
		    strcmp(str(o, "recipient"), recipient) == 0)
			return;
	}
	json_array_append_new(outbox,
			      json_pack("{s:s, s:s}", "channel", channel,
					"recipient", recipient));
}

/* The addresses of a job's mail_to or mail_cc (a string, or a list). */
/* The recipients every report has (a webhook's URL, ...). */
static void
outbox_fixed(json_t *outbox, const struct report_config *cfg)
{
	for (size_t i = 0; cfg->fixed != NULL && cfg->fixed[i] != NULL &&
			   cfg->fixed[i + 1] != NULL;
	     i += 2)
		outbox_add(outbox, cfg->fixed[i], cfg->fixed[i + 1]);
}

static void
outbox_job_mail(json_t *outbox, json_t *v)
{
	json_t *x;
	size_t i;

	if (json_is_string(v)) {
		char *a = mail_address_of(json_string_value(v));

		if (a != NULL)
			outbox_add(outbox, "mail", a);
		free(a);
		return;
	}
	json_array_foreach(v, i, x)
	{
		outbox_job_mail(outbox, x);
	}
}

/* Whether subscription s wants finding f of tree. */
static bool
wants(json_t *s, const char *tree, json_t *f)
{
	const char *kind = str(f, "kind");
	char *tc = testcase_of(str(f, "series"));
	double change = num(f, "change_pct"), min = num(s, "min_change");
	bool ok;

	ok = json_is_true(json_object_get(s, strcmp(kind, "improvement") == 0
						     ? "improvements"
						     : "regressions")) &&
	     report_glob(str(s, "tree"), tree) &&
	     report_glob(str(s, "branch"), str(f, "branch")) &&
	     report_glob(str(s, "testcase"), tc) &&
	     report_glob(str(s, "metric"), str(f, "kpi")) &&
	     (!isfinite(min) || (isfinite(change) && fabs(change) >= min));
	free(tc);
	return ok;
}

/* A report's recipients: matching subscribers, the jobs' mail_to and
 * mail_cc and the tree's author switch (for regressions only), and the
 * webhooks. */
static json_t *
report_recipients(json_t *claim, const struct report_config *cfg)
{
	json_t *outbox = json_array(), *s, *f, *p;
	json_t *findings = json_object_get(claim, "findings");
	const char *tree = str(claim, "tree");
	bool regressed = false;
	size_t i, k;

	json_array_foreach(findings, i, f)
	{
		regressed =
			regressed || strcmp(str(f, "kind"), "regression") == 0;
	}
	json_array_foreach(json_object_get(claim, "subscribers"), i, s)
	{
		json_array_foreach(findings, k, f)
		{
			if (wants(s, tree, f)) {
				outbox_add(outbox, "mail", str(s, "email"));
				break;
			}
		}
	}
	json_array_foreach(json_object_get(claim, "pairs"), i, p)
	{
		json_t *job = json_object_get(json_object_get(p, "job"), "job");

		if (!regressed)
			break;
		outbox_job_mail(outbox, json_object_get(job, "mail_to"));
		outbox_job_mail(outbox, json_object_get(job, "mail_cc"));
	}
	if (regressed &&
	    json_is_true(json_object_get(json_object_get(claim, "tree_info"),
					 "mail_author"))) {
		const char *who =
			str(json_object_get(claim, "commit"), "author");
		char *a = mail_address_of(who != NULL ? who : "");

		if (a != NULL)
			outbox_add(outbox, "mail", a);
		free(a);
	}
	outbox_fixed(outbox, cfg);
	return outbox;
}

/* "[robot] [demo:master] [mm] b6aefd0a21: " */
static void
add_subject_prefix(struct buf *b, json_t *claim, const char *branch)
{
	const char *tree = str(claim, "tree");
	char *sub = report_subsystem(
		str(json_object_get(claim, "commit"), "subject"));
	char sha[16];

	short_sha(sha, sizeof sha,
		  str(json_object_get(claim, "commit"), "sha"));
	buf_adds(b, "[robot] ");
	if (tree != NULL)
		buf_addf(b, "[%s%s%s] ", tree, branch ? ":" : "",
			 branch ? branch : "");
	if (sub != NULL)
		buf_addf(b, "[%s] ", sub);
	buf_addf(b, "%s: ", sha);
	free(sub);
}

static bool
render_report(json_t *claim, const struct report_config *cfg,
	      struct report_out *out)
{
	json_t *findings = json_object_get(claim, "findings");
	json_t *first = json_array_get(findings, 0), *commit, *thread;
	json_t *pairs = json_object_get(claim, "pairs"), *p, *f, *jf;
	const char *author, *branch, *kind, *tree = str(claim, "tree");
	struct buf b;
	char c[32];
	char *url, *headline;
	size_t i, nmore = json_array_size(findings) - 1;

	if (first == NULL || !json_is_array(pairs))
		return false;
	commit = json_object_get(claim, "commit");
	thread = json_object_get(claim, "thread");
	branch = str(first, "branch");
	kind = str(first, "kind");
	author = str(commit, "author");
	url = regression_url(cfg,
			     json_integer_value(json_object_get(first, "id")));
	pct(c, sizeof c, num(first, "change_pct"));

	buf_init(&b);
	if (json_is_object(thread))
		buf_addf(&b, "Re: %s", str(thread, "subject"));
	else {
		add_subject_prefix(&b, claim, branch);
		buf_addf(&b, "%s %s %s", str(first, "kpi"), c, kind);
		if (nmore > 0)
			buf_addf(&b, " and %zu more", nmore);
	}
	out->subject = buf_detach(&b);

	buf_init(&b);
	buf_adds(&b, "Hello,\n\n");
	buf_addf(&b, "robot noticed a %s %s of %s on:\n\n", c, kind,
		 str(first, "kpi"));
	buf_adds(&b, "commit: ");
	add_commit(&b, commit, 8, 8);
	buf_addc(&b, '\n');
	if (author != NULL)
		buf_addf(&b, "author: %s\n", author);
	if (tree != NULL) {
		const char *turl =
			str(json_object_get(claim, "tree_info"), "url");

		buf_addf(&b, "tree: %s", tree);
		if (turl != NULL)
			buf_addf(&b, " (%s)", turl);
		if (branch != NULL)
			buf_addf(&b, ", branch %s", branch);
		buf_addc(&b, '\n');
	}
	buf_adds(&b, "base: ");
	jf = json_array_get(json_object_get(claim, "bases"), 0);
	if (jf != NULL)
		add_commit(&b, jf, 6, 6);
	else
		buf_adds(&b, str(first, "base"));
	buf_adds(&b, "\n\n");
	if (json_array_size(findings) > 1)
		buf_addf(&b, "In all, %zu KPIs changed:\n\n",
			 json_array_size(findings));
	add_headline(&b, findings);
	buf_adds(&b, "\n(The robust test: a trimmed Welch test on the logs of "
		     "the runs' values, each\nside measured again until the "
		     "verdict was final; p is its two-sided p-value.)\n\n");
	json_array_foreach(pairs, i, p)
	{
		add_pair(&b, claim, p, i, json_array_size(pairs));
	}
	buf_adds(&b, REPORT_RULE "\n\n");
	buf_addf(&b, "Details: %s\n\n", url);
	buf_adds(&b, "If you fix the issue in a separate patch/commit (i.e. "
		     "not just a new version of\nthe same patch/commit), "
		     "kindly add following tags\n");
	buf_addf(&b, "| Reported-by: robot <%s>\n", cfg->mail_from);
	buf_addf(&b, "| Closes: %s\n", url);
	out->body = buf_detach(&b);

	headline = nmore > 0
			   ? xasprintf("%s %s %s and %zu more",
				       str(first, "kpi"), c, kind, nmore)
			   : xasprintf("%s %s %s", str(first, "kpi"), c, kind);
	out->doc = json_pack("{s:i, s:s, s:O?, s:s?, s:s, s:s, s:O?, s:O?, "
			     "s:[], s:[], s:s}",
			     "version", 1, "kind", "report", "tree",
			     json_object_get(claim, "tree"), "branch", branch,
			     "subject", out->subject, "headline", headline,
			     "commit", commit, "base", jf, "findings", "series",
			     "url", url);
	free(headline);
	json_array_foreach(findings, i, f)
	{
		json_array_append_new(json_object_get(out->doc, "findings"),
				      finding_json(f, cfg));
	}
	json_array_foreach(pairs, i, p)
	{
		json_array_append_new(
			json_object_get(out->doc, "series"),
			json_pack("{s:O?, s:O?, s:O?, s:O?, s:O?, s:O?, s:O?}",
				  "series", json_object_get(p, "series"),
				  "tbox_group",
				  json_object_get(p, "tbox_group"), "base",
				  json_object_get(p, "base"), "head",
				  json_object_get(p, "head"), "runs",
				  json_object_get(p, "runs"), "table",
				  json_object_get(p, "table"), "comparison",
				  json_object_get(p, "comparison")));
	}
	out->outbox = report_recipients(claim, cfg);
	free(url);
	return true;
}

static bool
render_followup(json_t *claim, const struct report_config *cfg,
		struct report_out *out)
{
	json_t *thread = json_object_get(claim, "thread"), *e, *r;
	json_t *news = json_object_get(claim, "news");
	struct buf b;
	char *url = NULL;
	size_t i;

	if (!json_is_object(thread) || json_array_size(news) == 0)
		return false;
	out->subject = xasprintf("Re: %s", str(thread, "subject"));
	buf_init(&b);
	buf_adds(&b, "Hello,\n\nnews of what robot reported for\n");
	add_commit(&b, json_object_get(claim, "commit"), 0, 2);
	buf_adds(&b, ":\n\n");
	out->doc = json_pack(
		"{s:i, s:s, s:O?, s:O?, s:s, s:O?, s:[]}", "version", 1, "kind",
		"followup", "tree", json_object_get(claim, "tree"), "branch",
		json_object_get(claim, "branch"), "subject", out->subject,
		"commit", json_object_get(claim, "commit"), "news");
	json_array_foreach(news, i, e)
	{
		const char *kind = str(e, "kind");
		json_t *head = json_object_get(e, "head");
		char c[32], sha[16];

		free(url);
		url = regression_url(cfg, json_integer_value(json_object_get(
						  e, "regression")));
		pct(c, sizeof c, num(e, "change_pct"));
		short_sha(sha, sizeof sha, str(head, "sha"));
		buf_addf(&b, "- the %s %s of %s\n  (%s)\n", c,
			 str(e, "finding"), str(e, "kpi"), str(e, "series"));
		if (strcmp(kind, "still") == 0) {
			buf_addf(&b, "  is still there at %s", sha);
			if (str(head, "subject") != NULL)
				buf_addf(&b, " (\"%s\")", str(head, "subject"));
			buf_addf(&b, ": %s with %lld runs a side\n", c,
				 (long long)json_integer_value(
					 json_object_get(e, "runs")));
		} else if (strcmp(kind, "fixed") == 0) {
			buf_addf(&b, "  is fixed at %s", sha);
			if (str(head, "subject") != NULL)
				buf_addf(&b, " (\"%s\")", str(head, "subject"));
			buf_adds(&b, ": the KPI is back at the base's level\n");
		} else {
			buf_addf(&b, "  is bisected to %s", sha);
			if (str(head, "subject") != NULL)
				buf_addf(&b, " (\"%s\")", str(head, "subject"));
			buf_adds(&b, "\n");
			if (str(head, "author") != NULL)
				buf_addf(&b, "  by %s\n", str(head, "author"));
			buf_adds(&b,
				 "  the first bad commit, confirmed against "
				 "its parent: the steps are on its page\n");
		}
		buf_addf(&b, "  %s\n\n", url);
		r = json_pack("{s:s, s:O?, s:O?, s:O?, s:O?, s:O?, s:s}",
			      "kind", kind, "regression",
			      json_object_get(e, "regression"), "series",
			      json_object_get(e, "series"), "kpi",
			      json_object_get(e, "kpi"), "change_pct",
			      json_object_get(e, "change_pct"), "head", head,
			      "url", url);
		json_array_append_new(json_object_get(out->doc, "news"), r);
	}
	out->body = buf_detach(&b);
	json_object_set_new(out->doc, "url", json_string(url));
	{
		json_t *first = json_array_get(news, 0);
		char c[32], *headline;

		pct(c, sizeof c, num(first, "change_pct"));
		headline = xasprintf("%s %s %s: %s", str(first, "kpi"), c,
				     str(first, "finding"),
				     strcmp(str(first, "kind"), "still") == 0
					     ? "still there"
				     : strcmp(str(first, "kind"), "fixed") == 0
					     ? "fixed"
					     : "bisected");
		json_object_set_new(out->doc, "headline",
				    json_string(headline));
		free(headline);
	}
	free(url);
	out->outbox = json_array();
	json_array_foreach(json_object_get(claim, "recipients"), i, r)
	{
		outbox_add(out->outbox, "mail", json_string_value(r));
	}
	outbox_fixed(out->outbox, cfg);
	return true;
}

bool
report_render(json_t *claim, const struct report_config *cfg,
	      struct report_out *out)
{
	const char *kind = str(claim, "kind");

	memset(out, 0, sizeof *out);
	if (kind != NULL && strcmp(kind, "report") == 0 &&
	    render_report(claim, cfg, out) && out->doc != NULL)
		return true;
	if (kind != NULL && strcmp(kind, "followup") == 0 &&
	    render_followup(claim, cfg, out) && out->doc != NULL)
		return true;
	report_out_release(out);
	return false;
}

void
report_out_release(struct report_out *out)
{
	free(out->subject);
	free(out->body);
	json_decref(out->doc);
	json_decref(out->outbox);
	memset(out, 0, sizeof *out);
}

char *
report_confirmation(const struct report_config *cfg, json_t *sub,
		    const char *link, char **subject)
{
	static const char *const filters[] = {"tree", "branch", "testcase",
					      "metric", NULL};
	struct buf b;
	bool regressions = !json_is_false(json_object_get(sub, "regressions"));
	bool improvements = json_is_true(json_object_get(sub, "improvements"));
	double min = num(sub, "min_change");

	struct buf what;
	size_t col = 0;

	*subject = xstrdup("[robot] confirm your subscription to robot's "
			   "reports");
	buf_init(&what);
	buf_addf(&what,
		 "someone, maybe you, asked robot (%s) to mail %s its "
		 "reports of ",
		 cfg->public_url, str(sub, "email"));
	buf_addf(&what, "%s%s%s", regressions ? "regressions" : "",
		 regressions && improvements ? " and " : "",
		 improvements ? "improvements" : "");
	for (size_t i = 0; filters[i] != NULL; i++)
		if (str(sub, filters[i]) != NULL)
			buf_addf(&what, ", %s %s", filters[i],
				 str(sub, filters[i]));
	if (isfinite(min) && min > 0)
		buf_addf(&what, ", of at least %g%%", min);
	buf_addc(&what, '\0');
	buf_init(&b);
	buf_adds(&b, "Hello,\n\n");
	add_wrapped(&b, what.data, &col, 0);
	buf_release(&what);
	buf_adds(&b, ".\n\nTo confirm, open this link within a week:\n\n  ");
	buf_adds(&b, link);
	buf_adds(&b, "\n\nIf you did not ask for this, do nothing: robot "
		     "sends no other mail to an\naddress before it is "
		     "confirmed.\n");
	return buf_detach(&b);
}

json_t *
report_subscription_check(json_t *sub)
{
	static const char *const globs[] = {"tree", "branch", "testcase",
					    "metric", NULL};
	static const char *const known[] = {
		"email",       "tree",         "branch",
		"testcase",    "metric",       "min_change",
		"regressions", "improvements", NULL};
	json_t *faults = json_array(), *v;
	const char *key, *e;

	if (!json_is_object(sub)) {
		json_array_append_new(faults,
				      json_string("the body is a JSON object"));
		return faults;
	}
	json_object_foreach(sub, key, v)
	{
		bool ok = false;

		for (size_t i = 0; known[i] != NULL; i++)
			ok = ok || strcmp(key, known[i]) == 0;
		if (!ok) {
			char *q = str_printable(key, strlen(key), 40);

			json_array_append_new(
				faults, json_sprintf("unknown member '%s' (a "
						     "subscription has email, "
						     "tree, branch, testcase, "
						     "metric, min_change, "
						     "regressions, "
						     "improvements)",
						     q));
			free(q);
		}
	}
	e = str(sub, "email");
	if (e == NULL)
		json_array_append_new(faults,
				      json_string("email is the address to "
						  "mail, a string"));
	else if (mail_address_check(e) != NULL)
		json_array_append_new(
			faults,
			json_sprintf("email: %s", mail_address_check(e)));
	else {
		char *l = xstrdup(e);

		for (char *c = l; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		json_object_set_new(sub, "email", json_string(l));
		free(l);
	}
	for (size_t i = 0; globs[i] != NULL; i++) {
		const char *g;
		bool ok = true;

		v = json_object_get(sub, globs[i]);
		if (v == NULL || json_is_null(v))
			continue;
		g = json_string_value(v);
		for (const char *c = g; ok && c != NULL && *c; c++)
			ok = *c > 0x20 && *c < 0x7f;
		if (g == NULL || !ok || strlen(g) == 0 || strlen(g) > 200)
			json_array_append_new(
				faults, json_sprintf("%s is a glob of 1 to 200 "
						     "printable characters "
						     "without spaces",
						     globs[i]));
	}
	v = json_object_get(sub, "min_change");
	if (json_is_string(v)) {
		const char *t = json_string_value(v);
		char *end;
		double d = strtod(t, &end);

		if (end != t && (strcmp(end, "%") == 0 || *end == '\0'))
			json_object_set_new(sub, "min_change", json_real(d));
		v = json_object_get(sub, "min_change");
	}
	if (v != NULL && !json_is_null(v) &&
	    (!json_is_number(v) || !(json_number_value(v) >= 0) ||
	     json_number_value(v) > 10000))
		json_array_append_new(faults,
				      json_string("min_change is a percentage "
						  "from 0 to 10000: 5 or "
						  "\"5%\""));
	for (int i = 0; i < 2; i++) {
		const char *k = i == 0 ? "regressions" : "improvements";

		v = json_object_get(sub, k);
		if (v != NULL && !json_is_boolean(v))
			json_array_append_new(
				faults, json_sprintf("%s is true or false", k));
	}
	if (json_is_false(json_object_get(sub, "regressions")) &&
	    !json_is_true(json_object_get(sub, "improvements")))
		json_array_append_new(faults,
				      json_string("a subscription to neither "
						  "regressions nor "
						  "improvements gets nothing"));
	if (json_array_size(faults) == 0) {
		json_decref(faults);
		return NULL;
	}
	return faults;
}
