/*
 * report.c: a report's text and JSON (report.h): a commit's report, a
 * thread's follow-up, a lab note.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/emit.h"
#include "reporters/recipients.h"
#include "reporters/report.h"
#include "robot/analysis/series.h"
#include "robot/analysis/units.h"
#include "robot/core/buf.h"
#include "robot/core/docload.h"
#include "robot/core/errlist.h"
#include "robot/core/node.h"
#include "robot/core/num.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

#define REPORT_COLUMNS 90 /* the widest line, but LKP's tables */
#define REPORT_RULE                                                            \
	"====================================================================" \
	"=="                                                                   \
	"==================="

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

/* The commit's first 10 hex digits, as 0-day names it. */
static void
short_sha(char *buf, size_t len, const char *sha)
{
	snprintf(buf, len, "%.10s", sha ? sha : "?");
}

void
report_wrap(struct buf *b, const char *words, size_t *col, size_t indent)
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
		report_wrap(b, q, &col, indent);
		free(q);
	}
}

/* The link to a regression's page. */
static char *
regression_url(const struct report_config *cfg, json_int_t id)
{
	return xasprintf("%s/regressions/%lld", cfg->public_url, (long long)id);
}

/* "key: text" of the machine, under "test machine:", wrapped under 90
 * columns. */
static void
add_machine_line(struct buf *b, const char *key, const char *text)
{
	size_t col = 2 + strlen(key) + 2;

	buf_addf(b, "  %s: ", key);
	report_wrap(b, text, &col, 4);
	buf_addc(b, '\n');
}

/* A string of the hook's worth printing: printable ASCII, not too long
 * (what the box took from its hook's output, else NULL). */
static const char *
hook_said(json_t *provision, const char *key)
{
	const char *v = str(provision, key);

	if (v == NULL || *v == '\0' || strlen(v) > 128)
		return NULL;
	for (const char *p = v; *p != '\0'; p++)
		if (*p < 0x20 || *p > 0x7e)
			return NULL;
	return v;
}

/* "test machine: local (2 CPUs, 23.5G memory)" from a box's facts, and
 * what the box said of itself at registration: its CPU's model, the
 * kernel it runs, its disks.  When the box's hook booted a kernel of
 * its own for the runs (the commit's), that kernel is the one named,
 * the box's own is its host's, and runs in QEMU without KVM are
 * flagged as no performance figures. */
static void
add_machine(struct buf *b, json_t *pair)
{
	json_t *f = json_object_get(pair, "facts"), *disks, *d;
	json_t *prov = json_object_get(pair, "provision");
	double mem = num(f, "memory");
	const char *group = str(pair, "tbox_group"), *cpu, *kernel, *version;
	const char *booted = hook_said(prov, "kernel");
	const char *backend = hook_said(prov, "backend");
	struct buf list;
	size_t i;

	buf_addf(b, "test machine: %s", group ? group : "?");
	if (json_is_integer(json_object_get(f, "cpus")) && isfinite(mem))
		buf_addf(b, " (%lld CPUs, %.1fG memory)",
			 (long long)json_integer_value(
				 json_object_get(f, "cpus")),
			 mem / (1024.0 * 1024 * 1024));
	buf_addc(b, '\n');
	if ((cpu = str(f, "cpu_model")) != NULL)
		add_machine_line(b, "cpu", cpu);
	kernel = str(f, "kernel");
	version = str(f, "proc_version");
	/* robot-box records the box's own release when the hook names
	 * none (a hook that only tunes the box): no kernel was booted. */
	if (booted != NULL && kernel != NULL && strcmp(booted, kernel) == 0)
		booted = NULL;
	if (booted != NULL) {
		char *text = xasprintf("%s (the commit's, booted by the box's "
				       "hook%s%s)",
				       booted, backend ? ": " : "",
				       backend ? backend : "");

		add_machine_line(b, "kernel", text);
		free(text);
	}
	if (json_object_get(prov, "tcg") != NULL)
		add_machine_line(
			b, "warning",
			"QEMU without KVM (TCG): the runs' figures are "
			"not performance figures");
	if (kernel != NULL)
		add_machine_line(b, booted ? "host kernel" : "kernel", kernel);
	if (version != NULL)
		add_machine_line(
			b, booted ? "host /proc/version" : "/proc/version",
			version);
	disks = json_object_get(f, "disks");
	buf_init(&list);
	json_array_foreach(disks, i, d)
	{
		if (json_is_string(d))
			buf_addf(&list, "%s%s", list.len > 0 ? "; " : "",
				 json_string_value(d));
	}
	if (list.len > 0)
		add_machine_line(b, "disks", list.data);
	buf_release(&list);
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

/* "6+3": the ok runs of each side, or the smaller count when the sides'
 * are not known (a record from before they were kept). */
static void
runs_text(char *buf, size_t len, json_t *o)
{
	json_t *b = json_object_get(o, "base_runs");
	json_t *h = json_object_get(o, "head_runs");

	if (json_is_integer(b) && json_is_integer(h))
		snprintf(buf, len, "%lld+%lld",
			 (long long)json_integer_value(b),
			 (long long)json_integer_value(h));
	else
		snprintf(buf, len, "%lld",
			 (long long)json_integer_value(
				 json_object_get(o, "runs")));
}

/* The KPI's metric in a pair's comparison, or NULL. */
static json_t *
kpi_metric(json_t *pair, const char *kpi)
{
	json_t *m;
	size_t i;

	json_array_foreach(
		json_object_get(json_object_get(pair, "comparison"), "metrics"),
		i, m)
	{
		if (kpi != NULL && str(m, "metric") != NULL &&
		    strcmp(str(m, "metric"), kpi) == 0)
			return m;
	}
	return NULL;
}

/* The pair of the claim's pairs (key: "pairs" or "culprit_pairs") with
 * id pair, or NULL. */
static json_t *
pair_of(json_t *claim, const char *key, json_int_t pair)
{
	json_t *p;
	size_t i;

	json_array_foreach(json_object_get(claim, key), i, p)
	{
		if (json_integer_value(json_object_get(p, "pair")) == pair)
			return p;
	}
	return NULL;
}

/* What a finding says of the commit a report names: its change, p and
 * runs there.  For a first bad commit a bisection found, its pair
 * against its parent (cpair); else the finding's own. */
struct at_fault {
	double change, p;
	char runs[32];
	json_t *pair; /* the pair that shows it, or NULL */
};

static void
at_fault(json_t *claim, json_t *f, struct at_fault *a)
{
	json_t *bis = json_object_get(f, "bisection");
	json_t *cpair =
		pair_of(claim, "culprit_pairs",
			json_integer_value(json_object_get(bis, "pair")));
	json_t *k = json_object_get(bis, "kpi");

	if (json_is_true(json_object_get(claim, "culprit")) && cpair != NULL &&
	    json_is_object(k)) {
		a->change = num(k, "change_pct");
		a->p = num(k, "p_value");
		runs_text(a->runs, sizeof a->runs, cpair);
		a->pair = cpair;
		return;
	}
	a->change = num(f, "change_pct");
	a->p = num(f, "p_value");
	runs_text(a->runs, sizeof a->runs, f);
	a->pair = pair_of(claim, "pairs",
			  json_integer_value(json_object_get(f, "pair")));
}

/* "5.95 GB/s -> 1.11 GB/s": the KPI's means in a pair, in units. */
static bool
means_text(char *buf, size_t len, json_t *pair, const char *kpi)
{
	json_t *m = kpi_metric(pair, kpi);
	char b[32], h[32];

	if (m == NULL || !isfinite(num(json_object_get(m, "base"), "mean")) ||
	    !isfinite(num(json_object_get(m, "head"), "mean")))
		return false;
	unit_si(b, sizeof b, num(json_object_get(m, "base"), "mean"),
		unit_of(kpi));
	unit_si(h, sizeof h, num(json_object_get(m, "head"), "mean"),
		unit_of(kpi));
	snprintf(buf, len, "%s -> %s", b, h);
	return true;
}

/* A change point's (found_by "change point"): "100 MB/s over 6 commits
 * -> 95 MB/s over 5", the means of the history's segments around it. */
static bool
history_text(char *buf, size_t len, json_t *f)
{
	json_t *h = json_object_get(f, "history");
	json_t *before = json_object_get(h, "before");
	json_t *after = json_object_get(h, "after");
	const char *kpi = str(f, "kpi");
	char b[32], a[32];

	if (!json_is_object(before) || !json_is_object(after) || kpi == NULL)
		return false;
	unit_si(b, sizeof b, num(before, "mean"), unit_of(kpi));
	unit_si(a, sizeof a, num(after, "mean"), unit_of(kpi));
	snprintf(buf, len, "%s over %lld commits -> %s over %lld", b,
		 (long long)(num(before, "to") - num(before, "from")), a,
		 (long long)(num(after, "to") - num(after, "from")));
	return true;
}

/* Whether one of the findings is a change point of a branch's
 * history. */
static bool
any_change_point(json_t *findings)
{
	json_t *f;
	size_t i;

	json_array_foreach(findings, i, f)
	{
		if (str(f, "found_by") != NULL &&
		    strcmp(str(f, "found_by"), "change point") == 0)
			return true;
	}
	return false;
}

/* The headline: each finding's change, p, runs a side and verdict at the
 * commit named, with its KPI's means; and, for a first bad commit that a
 * bisection found, the change at the head where it was found.  A change
 * point of a branch's history says so, with the means of its segments. */
static void
add_headline(struct buf *b, json_t *claim, json_t *findings)
{
	json_t *f;
	size_t i;

	buf_adds(b, "   change          p   runs  verdict      KPI\n");
	json_array_foreach(findings, i, f)
	{
		struct at_fault a;
		char c[32], p[32], means[160];

		at_fault(claim, f, &a);
		num_pct(c, sizeof c, a.change, "?");
		if (isfinite(a.p))
			snprintf(p, sizeof p, "%.2g", a.p);
		else
			snprintf(p, sizeof p, "-");
		buf_addf(b, "%9s  %9s  %5s  %-11s  %s\n", c, p, a.runs,
			 str(f, "kind") ? str(f, "kind") : "?",
			 str(f, "kpi") ? str(f, "kpi") : "?");
		buf_addf(b, "%41s(%s)\n", "", str(f, "series"));
		if (str(f, "found_by") != NULL &&
		    strcmp(str(f, "found_by"), "change point") == 0 &&
		    history_text(means, sizeof means, f)) {
			buf_addf(b,
				 "%41sa change point of the branch's history, "
				 "%lld commits\n",
				 "",
				 (long long)num(json_object_get(f, "history"),
						"points"));
			buf_addf(b, "%41s%s\n", "", means);
		} else if (means_text(means, sizeof means, a.pair,
				      str(f, "kpi")))
			buf_addf(b, "%41s%s\n", "", means);
		if (a.pair != NULL &&
		    json_integer_value(json_object_get(a.pair, "pair")) !=
			    json_integer_value(json_object_get(f, "pair"))) {
			char hc[32], hr[32], sha[16], base[16];

			num_pct(hc, sizeof hc, num(f, "change_pct"), "?");
			runs_text(hr, sizeof hr, f);
			short_sha(sha, sizeof sha, str(f, "head"));
			short_sha(base, sizeof base, str(f, "base"));
			buf_addf(b, "%41s%s from %s to %s (%s runs)\n", "", hc,
				 base, sha, hr);
		}
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

/* The commit sha as the claim knows it (sha, subject, author), or NULL. */
static json_t *
commit_of(json_t *claim, const char *sha)
{
	json_t *f, *c, *bis;
	size_t i;

	if (sha == NULL)
		return NULL;
#define SAME(o)                                                                \
	((o) != NULL && str(o, "sha") != NULL &&                               \
	 strcmp(str(o, "sha"), sha) == 0)
	if (SAME(json_object_get(claim, "commit")))
		return json_object_get(claim, "commit");
	json_array_foreach(json_object_get(claim, "findings"), i, f)
	{
		bis = json_object_get(f, "bisection");
		if (SAME(json_object_get(f, "head_info")))
			return json_object_get(f, "head_info");
		if (SAME(json_object_get(f, "base_info")))
			return json_object_get(f, "base_info");
		if (SAME(json_object_get(bis, "parent")))
			return json_object_get(bis, "parent");
	}
	json_array_foreach(json_object_get(claim, "bases"), i, c)
	{
		if (SAME(c))
			return c;
	}
#undef SAME
	return NULL;
}

/* A commit line: sha ("subject"), or the sha alone when it is unknown. */
static void
add_commit_sha(struct buf *b, json_t *claim, const char *sha, size_t col,
	       size_t indent)
{
	json_t *c = commit_of(claim, sha);

	if (c != NULL)
		add_commit(b, c, col, indent);
	else
		buf_adds(b, sha ? sha : "?");
}

/* One pair's section: series, machine, parameters, commits, LKP's table,
 * and unless brief the job file and the commands (job file n of
 * nfiles). */
static void
add_pair(struct buf *b, json_t *claim, json_t *pair, bool brief, size_t n,
	 size_t nfiles)
{
	json_t *job = json_object_get(json_object_get(pair, "job"), "job");
	const char *table = str(pair, "table");
	char *yaml = job_yaml(pair), *tc = series_testcase(str(pair, "series"));
	char *file = nfiles > 1 ? xasprintf("job-%zu.yaml", n + 1)
				: xstrdup("job.yaml");

	buf_adds(b, REPORT_RULE "\n");
	buf_addf(b, "testcase/path_params/tbox_group:\n  %s\n\n",
		 str(pair, "series"));
	buf_addf(b, "testcase: %s\n", tc);
	add_machine(b, pair);
	if (json_is_object(job))
		add_parameters(b, job);
	buf_adds(b, "\ncommit:\n  ");
	add_commit_sha(b, claim, str(pair, "base"), 2, 4);
	buf_adds(b, "\n  ");
	add_commit_sha(b, claim, str(pair, "head"), 2, 4);
	buf_adds(b, "\n\n");
	if (table != NULL)
		buf_adds(b, table);
	buf_addc(b, '\n');
	if (brief) {
		free(yaml);
		free(tc);
		free(file);
		return;
	}
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

/* A new object of src's members keys (NULL-ended) that it has. */
static json_t *
pick(json_t *src, const char *const *keys)
{
	json_t *o = json_object();

	for (size_t i = 0; keys[i] != NULL; i++)
		if (json_object_get(src, keys[i]) != NULL)
			json_object_set(o, keys[i],
					json_object_get(src, keys[i]));
	return o;
}

static json_t *
finding_json(json_t *claim, json_t *f, const struct report_config *cfg)
{
	json_int_t id = json_integer_value(json_object_get(f, "id"));
	char *url = regression_url(cfg, id);
	struct at_fault a;
	json_t *o;

	static const char *const keys[] = {
		"kind",    "found_by", "series",    "kpi",       "change_pct",
		"p_value", "runs",     "base_runs", "head_runs", "head",
		"base",    "history",  NULL};

	at_fault(claim, f, &a);
	o = pick(f, keys);
	json_object_set_new(o, "regression", json_integer(id));
	json_object_set_new(o, "url", json_string(url));
	/* The first bad commit's own figures against its parent. */
	if (a.pair != NULL &&
	    json_integer_value(json_object_get(a.pair, "pair")) !=
		    json_integer_value(json_object_get(f, "pair")))
		json_object_set_new(
			o, "culprit",
			json_pack("{s:O?, s:O?, s:f, s:o?, s:O?, s:O?}",
				  "commit", json_object_get(a.pair, "head"),
				  "parent", json_object_get(a.pair, "base"),
				  "change_pct", a.change, "p_value",
				  isfinite(a.p) ? json_real(a.p) : NULL,
				  "base_runs",
				  json_object_get(a.pair, "base_runs"),
				  "head_runs",
				  json_object_get(a.pair, "head_runs")));
	free(url);
	return o;
}

/* "[robot] [demo:master] [mm] b6aefd0a21: ", or for a range
 * "[robot] [demo:master] 7e5035bd9e..d539ac2631 (7 commits): ". */
static void
add_subject_prefix(struct buf *b, json_t *claim, const char *branch)
{
	const char *tree = str(claim, "tree");
	json_t *range = json_object_get(claim, "range");
	char *sub = report_subsystem(
		str(json_object_get(claim, "commit"), "subject"));
	char sha[16], base[16];

	short_sha(sha, sizeof sha,
		  str(json_object_get(claim, "commit"), "sha"));
	buf_adds(b, "[robot] ");
	if (tree != NULL)
		buf_addf(b, "[%s%s%s] ", tree, branch ? ":" : "",
			 branch ? branch : "");
	if (json_is_object(range)) {
		short_sha(base, sizeof base,
			  str(json_object_get(range, "base"), "sha"));
		buf_addf(b, "%s..%s (%lld commit%s): ", base, sha,
			 (long long)json_integer_value(
				 json_object_get(range, "count")),
			 json_integer_value(json_object_get(range, "count")) ==
					 1
				 ? ""
				 : "s");
	} else {
		if (sub != NULL)
			buf_addf(b, "[%s] ", sub);
		buf_addf(b, "%s: ", sha);
	}
	free(sub);
}

/* Why a range is reported without the commit at fault: its first
 * finding's bisection, how it ended or that it runs still. */
static void
add_range_reason(struct buf *b, json_t *first)
{
	json_t *bis = json_object_get(first, "bisection");
	const char *state = str(bis, "state"), *reason = str(bis, "reason");
	size_t col = 0;
	char *t;

	if (state == NULL)
		t = xstrdup("The commit at fault is not known: robot does "
			    "not bisect this tree's regressions.");
	else if (strcmp(state, "running") == 0)
		t = xstrdup("The bisection that looks for the commit at fault "
			    "is still running; the first bad commit will "
			    "follow in this thread.");
	else
		t = xasprintf("The bisection could not name the commit at "
			      "fault: %s.",
			      reason ? reason : state);
	report_wrap(b, t, &col, 0);
	buf_addc(b, '\n');
	free(t);
}

/* A range's commits, newest first: at most 20, then how many more. */
static void
add_range_commits(struct buf *b, json_t *range)
{
	json_t *c;
	size_t i;
	long long n = json_integer_value(json_object_get(range, "count"));

	buf_addf(b, "\nThe range's %lld commit%s, newest first:\n\n", n,
		 n == 1 ? "" : "s");
	json_array_foreach(json_object_get(range, "commits"), i, c)
	{
		char sha[16];
		size_t col;

		short_sha(sha, sizeof sha, str(c, "sha"));
		buf_addf(b, "  %s ", sha);
		col = 13;
		if (str(c, "subject") != NULL)
			report_wrap(b, str(c, "subject"), &col, 13);
		buf_addc(b, '\n');
	}
	if (n > (long long)json_array_size(json_object_get(range, "commits")))
		buf_addf(b, "  and %lld more\n",
			 n - (long long)json_array_size(
				     json_object_get(range, "commits")));
}

/* Where a first bad commit was found: "found at d539ac2631 ("net: tidy a
 * header"), tested against 7e5035bd9e; bisected in 4 steps", or "found at
 * this commit, ..." when the head was the first bad commit. */
static void
add_found_at(struct buf *b, json_t *claim, json_t *first)
{
	json_t *bis = json_object_get(first, "bisection");
	json_t *head = json_object_get(first, "head_info");
	char sha[16], base[16];
	size_t col = 0;
	struct buf t;

	if (str(bis, "state") == NULL || strcmp(str(bis, "state"), "bisected"))
		return;
	short_sha(sha, sizeof sha, str(first, "head"));
	short_sha(base, sizeof base, str(first, "base"));
	buf_init(&t);
	if (str(json_object_get(claim, "commit"), "sha") != NULL &&
	    str(first, "head") != NULL &&
	    strcmp(str(json_object_get(claim, "commit"), "sha"),
		   str(first, "head")) == 0)
		buf_adds(&t, "found at this commit");
	else {
		buf_addf(&t, "found at %s", sha);
		if (str(head, "subject") != NULL)
			buf_addf(&t, " (\"%s\")", str(head, "subject"));
	}
	buf_addf(&t, ", tested against %s; bisected in %lld step%s", base,
		 (long long)json_integer_value(json_object_get(bis, "steps")),
		 json_integer_value(json_object_get(bis, "steps")) == 1 ? ""
									: "s");
	/* a follower: the range was walked on another series, this one
	 * only confirmed the first bad commit (docs/bisect.md) */
	if (str(bis, "lead_series") != NULL)
		buf_addf(&t, " on %s", str(bis, "lead_series"));
	buf_addc(&t, '\0');
	report_wrap(b, t.data, &col, 0);
	buf_addc(b, '\n');
	buf_release(&t);
}

/* The pairs a report shows: the first bad commit against its parent,
 * then the heads against their bases; *nfull, the first ones shown in
 * full (with the job file and the commands): the commit at fault's. */
static json_t *
report_pairs(json_t *claim, size_t *nfull)
{
	json_t *all = json_array(), *p;
	size_t i;

	if (json_is_true(json_object_get(claim, "culprit")))
		json_array_foreach(json_object_get(claim, "culprit_pairs"), i,
				   p)
		{
			json_array_append(all, p);
		}
	*nfull = json_array_size(all);
	json_array_foreach(json_object_get(claim, "pairs"), i, p)
	{
		json_array_append(all, p);
	}
	if (*nfull == 0)
		*nfull = json_array_size(all);
	return all;
}

static bool
render_report(json_t *claim, const struct report_config *cfg,
	      struct report_out *out)
{
	json_t *findings = json_object_get(claim, "findings");
	json_t *first = json_array_get(findings, 0), *commit, *thread;
	json_t *range = json_object_get(claim, "range"), *pairs, *p, *f;
	bool is_range = json_is_object(range);
	const char *author, *branch, *kind, *tree = str(claim, "tree");
	struct at_fault a;
	struct buf b;
	char c[32];
	char *url, *headline;
	size_t i, nfull, nmore = json_array_size(findings) - 1;

	if (first == NULL || !json_is_array(json_object_get(claim, "pairs")))
		return false;
	commit = json_object_get(claim, "commit");
	thread = json_object_get(claim, "thread");
	branch = str(first, "branch");
	kind = str(first, "kind");
	author = str(commit, "author");
	url = regression_url(cfg,
			     json_integer_value(json_object_get(first, "id")));
	at_fault(claim, first, &a);
	num_pct(c, sizeof c, a.change, "?");
	pairs = report_pairs(claim, &nfull);

	/* A reply in the thread of the same commit told before; the first
	 * bad commit after its range report is a report of its own there. */
	buf_init(&b);
	if (json_is_object(thread) &&
	    json_array_size(json_object_get(claim, "events")) == 0)
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
	if (is_range) {
		buf_addf(&b, "robot noticed a %s %s of %s in a range:\n\n", c,
			 kind, str(first, "kpi"));
		buf_adds(&b, "base: ");
		add_commit(&b, json_object_get(range, "base"), 6, 6);
		buf_adds(&b, "\nhead: ");
		add_commit(&b, json_object_get(range, "head"), 6, 6);
		buf_addc(&b, '\n');
	} else {
		buf_addf(&b, "robot noticed a %s %s of %s on:\n\n", c, kind,
			 str(first, "kpi"));
		buf_adds(&b, "commit: ");
		add_commit(&b, commit, 8, 8);
		buf_addc(&b, '\n');
		if (author != NULL)
			buf_addf(&b, "author: %s\n", author);
	}
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
	if (!is_range) {
		/* The first bad commit against its parent; a head against
		 * its base. */
		bool bisected =
			a.pair != NULL &&
			json_integer_value(json_object_get(a.pair, "pair")) !=
				json_integer_value(
					json_object_get(first, "pair"));

		buf_adds(&b, bisected ? "parent: " : "base: ");
		add_commit_sha(&b, claim,
			       bisected ? str(a.pair, "base")
					: str(first, "base"),
			       bisected ? 8 : 6, bisected ? 8 : 6);
		buf_addc(&b, '\n');
		if (bisected) {
			buf_addc(&b, '\n');
			add_found_at(&b, claim, first);
		}
	} else {
		buf_addc(&b, '\n');
		add_range_reason(&b, first);
		add_range_commits(&b, range);
	}
	buf_addc(&b, '\n');
	if (json_array_size(findings) > 1)
		buf_addf(&b, "In all, %zu KPIs changed:\n\n",
			 json_array_size(findings));
	add_headline(&b, claim, findings);
	buf_adds(&b, "\n(The robust test: a trimmed Welch test on the logs of "
		     "the runs' values, each\nside measured again until the "
		     "verdict was final; p is its two-sided p-value;\nruns are "
		     "the ok runs of the base and of the head.)\n");
	if (any_change_point(findings))
		buf_adds(&b, "(A change point of a branch's history: where "
			     "the level of the KPI's runs\nalong the branch's "
			     "tested commits changed, by a rank test over "
			     "every\nrun, the search for the place accounted "
			     "for; change is between the\nmeans of the commits "
			     "before and after it, p the test's, runs those "
			     "of\neach side.  It may be a creep of steps each "
			     "too small for one head's\npair, or a change that "
			     "came in through the branch's base.)\n");
	buf_addc(&b, '\n');
	json_array_foreach(pairs, i, p)
	{
		if (i == nfull)
			buf_adds(&b, "Where it was found, the head against "
				     "its base:\n\n");
		add_pair(&b, claim, p, i >= nfull, i, nfull);
	}
	buf_adds(&b, REPORT_RULE "\n\n");
	buf_addf(&b, "Details: %s\n", url);
	if (!is_range) {
		buf_adds(&b,
			 "\nIf you fix the issue in a separate patch/commit "
			 "(i.e. not just a new version of\nthe same "
			 "patch/commit), kindly add following tags\n");
		buf_addf(&b, "| Reported-by: robot <%s>\n", cfg->mail_from);
		buf_addf(&b, "| Closes: %s\n", url);
	}
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
			     "commit", commit, "base",
			     commit_of(claim, is_range || a.pair == NULL
						      ? str(first, "base")
						      : str(a.pair, "base")),
			     "findings", "series", "url", url);
	if (is_range)
		json_object_set(out->doc, "range", range);
	json_object_set_new(out->doc, "culprit", json_boolean(!is_range));
	free(headline);
	json_array_foreach(findings, i, f)
	{
		json_array_append_new(json_object_get(out->doc, "findings"),
				      finding_json(claim, f, cfg));
	}
	json_array_foreach(pairs, i, p)
	{
		static const char *const keys[] = {
			"series",     "tbox_group", "base",      "head",
			"runs",       "base_runs",  "head_runs", "table",
			"comparison", NULL};

		json_array_append_new(json_object_get(out->doc, "series"),
				      pick(p, keys));
	}
	out->outbox = recipients_of(claim, cfg->fixed);
	json_decref(pairs);
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
		num_pct(c, sizeof c, num(e, "change_pct"), "?");
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
		} else {
			buf_addf(&b, "  is fixed at %s", sha);
			if (str(head, "subject") != NULL)
				buf_addf(&b, " (\"%s\")", str(head, "subject"));
			buf_adds(&b, ": the KPI is back at the base's level\n");
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

		num_pct(c, sizeof c, num(first, "change_pct"), "?");
		headline = xasprintf("%s %s %s: %s", str(first, "kpi"), c,
				     str(first, "finding"),
				     strcmp(str(first, "kind"), "still") == 0
					     ? "still there"
					     : "fixed");
		json_object_set_new(out->doc, "headline",
				    json_string(headline));
		free(headline);
	}
	free(url);
	out->outbox = json_array();
	json_array_foreach(json_object_get(claim, "recipients"), i, r)
	{
		recipients_add(out->outbox, "mail", json_string_value(r));
	}
	recipients_fixed(out->outbox, cfg->fixed);
	return true;
}

/* A note for the lab's operators: a box too noisy for a job, a box that
 * changed under us (suspect), or one that went silent and was
 * power-cycled.  It goes to them only (cfg->operators), never to
 * maintainers. */
static bool
render_note(json_t *claim, const struct report_config *cfg,
	    struct report_out *out)
{
	json_t *n = json_object_get(claim, "note"), *bx;
	const char *msg = str(n, "message"), *kind = str(n, "kind");
	const char *what, *intro, *after;
	struct buf b, boxes;
	size_t i, col = 0;

	if (msg == NULL || str(n, "series") == NULL)
		return false;
	if (kind != NULL && strcmp(kind, "suspect") == 0) {
		what = "changed";
		intro = "a box's own runs moved while the commit stayed the "
			"same: the box changed.";
		after = "The box takes no work until `robot box reset` puts "
			"it back; what it\nmeasured since the change is "
			"measured again on other boxes before\nanything is "
			"reported.\n\n";
	} else if (kind != NULL && strcmp(kind, "power-cycle") == 0) {
		what = "power-cycled";
		intro = "a box did not come back.";
		after = "Its run goes to another box, or to this one when it "
			"is back. A box\nthat comes back is power-cycled "
			"again only after it went silent again.\n\n";
	} else {
		what = "too noisy";
		intro = "robot could not decide a comparison: its runs vary "
			"too much.";
		after = "The comparison stays inconclusive, and no "
			"maintainer was mailed about it.\nA box whose "
			"identical runs spread this much may have other "
			"load, throttle,\nor have a failing disk; or the job "
			"may be too short for it.\n\n";
	}
	buf_init(&boxes);
	json_array_foreach(json_object_get(n, "boxes"), i, bx)
	{
		if (json_is_string(bx))
			buf_addf(&boxes, "%s%s", boxes.len ? ", " : "",
				 json_string_value(bx));
	}
	buf_addc(&boxes, '\0');
	if (strcmp(what, "too noisy") == 0)
		out->subject = xasprintf("[robot] [lab] too noisy on %s: %s",
					 boxes.data[0] ? boxes.data : "a box",
					 str(n, "series"));
	else
		out->subject = xasprintf("[robot] [lab] %s %s: %s",
					 boxes.data[0] ? boxes.data : "a box",
					 what, str(n, "series"));
	buf_init(&b);
	buf_addf(&b, "Hello,\n\n%s\n\n", intro);
	report_wrap(&b, msg, &col, 0);
	buf_addf(&b, "\n\n%s", after);
	buf_addf(&b, "The lab: %s/lab\n\n", cfg->public_url);
	buf_adds(&b, "(robot mails this to the lab's operators: operator_mail "
		     "in robotd's settings.)\n");
	out->body = buf_detach(&b);
	out->doc = json_pack(
		"{s:i, s:s, s:s, s:O?, s:O?, s:O?, s:O?, s:s, "
		"s:O?}",
		"version", 1, "kind", "note", "subject", out->subject, "series",
		json_object_get(n, "series"), "boxes",
		json_object_get(n, "boxes"), "kpi", json_object_get(n, "kpi"),
		"pair", json_object_get(n, "pair"), "message", msg, "created",
		json_object_get(n, "created"));
	out->outbox = json_array();
	for (i = 0; cfg->operators != NULL && cfg->operators[i] != NULL &&
		    cfg->operators[i + 1] != NULL;
	     i += 2)
		recipients_add(out->outbox, cfg->operators[i],
			       cfg->operators[i + 1]);
	buf_release(&boxes);
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
	if (kind != NULL && strcmp(kind, "note") == 0 &&
	    render_note(claim, cfg, out) && out->doc != NULL)
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
