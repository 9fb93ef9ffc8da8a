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
#include "robot/analysis/comparison.h"
#include "robot/analysis/series.h"
#include "robot/analysis/units.h"
#include "robot/core/buf.h"
#include "robot/core/docload.h"
#include "robot/core/errlist.h"
#include "robot/core/node.h"
#include "robot/core/num.h"
#include "robot/core/rjson.h"
#include "robot/core/view.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/store/boxes.h"
#include "robot/daemon/store/reports.h"
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
add_commit(struct buf *b, const struct store_commit_info *c, size_t col,
	   size_t indent)
{
	const char *subject = c != NULL ? c->subject : NULL;
	const char *sha = c != NULL && c->sha != NULL ? c->sha : "?";

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
	const char *v = rjson_get_str(provision, key);

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
add_machine(struct buf *b, const struct store_claim_pair *pair)
{
	/* (a box's facts were checked when it registered; facts that do
	 * not decode, as a box's from before those checks, are left out) */
	json_t *prov = (json_t *)pair->provision;
	struct view_doc d = {0};
	struct store_box_facts f;
	const char *group = pair->tbox_group;
	const char *booted = hook_said(prov, "kernel");
	const char *backend = hook_said(prov, "backend");
	char err[256];
	struct buf list;

	if (pair->facts == NULL ||
	    !view_decode(&d, &store_box_facts_view, (json_t *)pair->facts, &f,
			 err, sizeof err)) {
		memset(&f, 0, sizeof f);
		f.memory = NAN;
	}
	buf_addf(b, "test machine: %s", group ? group : "?");
	if (f.cpus > 0 && isfinite(f.memory))
		buf_addf(b, " (%lld CPUs, %.1fG memory)", f.cpus,
			 f.memory / (1024.0 * 1024 * 1024));
	buf_addc(b, '\n');
	if (f.cpu_model != NULL)
		add_machine_line(b, "cpu", f.cpu_model);
	/* robot-box records the box's own release when the hook names
	 * none (a hook that only tunes the box): no kernel was booted. */
	if (booted != NULL && f.kernel != NULL && strcmp(booted, f.kernel) == 0)
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
	if (f.kernel != NULL)
		add_machine_line(b, booted ? "host kernel" : "kernel",
				 f.kernel);
	if (f.proc_version != NULL)
		add_machine_line(
			b, booted ? "host /proc/version" : "/proc/version",
			f.proc_version);
	buf_init(&list);
	for (size_t i = 0; i < f.ndisks; i++)
		if (f.disks[i] != NULL)
			buf_addf(&list, "%s%s", list.len > 0 ? "; " : "",
				 f.disks[i]);
	if (list.len > 0)
		add_machine_line(b, "disks", list.data);
	buf_release(&list);
	view_release(&d);
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
job_yaml(const struct store_claim_pair *pair)
{
	json_t *job = json_deep_copy(json_object_get(pair->job, "job"));
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
 * are not known (a record from before they were kept: 0). */
static void
runs_text(char *buf, size_t len, long long base_runs, long long head_runs,
	  long long runs)
{
	if (base_runs > 0 && head_runs > 0)
		snprintf(buf, len, "%lld+%lld", base_runs, head_runs);
	else
		snprintf(buf, len, "%lld", runs);
}

/* The pair of ps (n of them) with id pair, or NULL. */
static const struct store_claim_pair *
pair_of(const struct store_claim_pair *ps, size_t n, long long pair)
{
	for (size_t i = 0; i < n; i++)
		if (ps[i].pair == pair)
			return &ps[i];
	return NULL;
}

/* What a finding says of the commit a report names: its change, p and
 * runs there.  For a first bad commit a bisection found, its pair
 * against its parent (cpair); else the finding's own. */
struct at_fault {
	double change, p;
	char runs[48];
	const struct store_claim_pair *pair; /* that shows it, or NULL */
};

static void
at_fault(const struct store_claim *claim, const struct store_claim_finding *f,
	 struct at_fault *a)
{
	const struct store_claim_bisection *bis = &f->bisection;
	const struct store_claim_pair *cpair =
		pair_of(claim->culprit_pairs, claim->nculprit_pairs, bis->pair);

	if (claim->culprit && cpair != NULL && json_is_object(bis->kpi_json)) {
		a->change = bis->kpi.change_pct;
		a->p = bis->kpi.p_value;
		runs_text(a->runs, sizeof a->runs, cpair->base_runs,
			  cpair->head_runs, cpair->runs);
		a->pair = cpair;
		return;
	}
	a->change = f->change_pct;
	a->p = f->p_value;
	runs_text(a->runs, sizeof a->runs, f->base_runs, f->head_runs, f->runs);
	a->pair = pair_of(claim->pairs, claim->npairs, f->pair);
}

/* "5.95 GB/s -> 1.11 GB/s": the KPI's means in a pair, in units. */
static bool
means_text(char *buf, size_t len, const struct store_claim_pair *pair,
	   const char *kpi)
{
	struct comparison *c =
		pair != NULL ? comparison_from_json((json_t *)pair->comparison)
			     : NULL;
	const struct comparison_metric *m = NULL;
	char b[32], h[32];

	for (size_t i = 0; c != NULL && kpi != NULL && i < c->nmetrics; i++)
		if (c->metrics[i].name != NULL &&
		    strcmp(c->metrics[i].name, kpi) == 0)
			m = &c->metrics[i];
	if (m == NULL || !isfinite(m->r.base.mean) ||
	    !isfinite(m->r.head.mean)) {
		comparison_free(c);
		return false;
	}
	unit_si(b, sizeof b, m->r.base.mean, unit_of(kpi));
	unit_si(h, sizeof h, m->r.head.mean, unit_of(kpi));
	snprintf(buf, len, "%s -> %s", b, h);
	comparison_free(c);
	return true;
}

/* Whether f is a change point of a branch's history. */
static bool
is_change_point(const struct store_claim_finding *f)
{
	return f->found_by != NULL && strcmp(f->found_by, "change point") == 0;
}

/* A change point's (found_by "change point"): "100 MB/s over 6 commits
 * -> 95 MB/s over 5", the means of the history's segments around it. */
static bool
history_text(char *buf, size_t len, const struct store_claim_finding *f)
{
	const struct store_claim_history *h = &f->history;
	char b[32], a[32];

	if (!json_is_object(h->before_json) || !json_is_object(h->after_json) ||
	    f->kpi == NULL)
		return false;
	unit_si(b, sizeof b, h->before.mean, unit_of(f->kpi));
	unit_si(a, sizeof a, h->after.mean, unit_of(f->kpi));
	snprintf(buf, len, "%s over %lld commits -> %s over %lld", b,
		 h->before.to - h->before.from, a, h->after.to - h->after.from);
	return true;
}

/* Whether one of the findings is a change point of a branch's
 * history. */
static bool
any_change_point(const struct store_claim *claim)
{
	for (size_t i = 0; i < claim->nfindings; i++)
		if (is_change_point(&claim->findings[i]))
			return true;
	return false;
}

/* The headline: each finding's change, p, runs a side and verdict at the
 * commit named, with its KPI's means; and, for a first bad commit that a
 * bisection found, the change at the head where it was found.  A change
 * point of a branch's history says so, with the means of its segments. */
static void
add_headline(struct buf *b, const struct store_claim *claim)
{
	buf_adds(b, "   change          p   runs  verdict      KPI\n");
	for (size_t i = 0; i < claim->nfindings; i++) {
		const struct store_claim_finding *f = &claim->findings[i];
		struct at_fault a;
		char c[32], p[32], means[160];

		at_fault(claim, f, &a);
		num_pct(c, sizeof c, a.change, "?");
		if (isfinite(a.p))
			snprintf(p, sizeof p, "%.2g", a.p);
		else
			snprintf(p, sizeof p, "-");
		buf_addf(b, "%9s  %9s  %5s  %-11s  %s\n", c, p, a.runs,
			 f->kind ? f->kind : "?", f->kpi ? f->kpi : "?");
		buf_addf(b, "%41s(%s)\n", "", f->series);
		if (is_change_point(f) &&
		    history_text(means, sizeof means, f)) {
			buf_addf(b,
				 "%41sa change point of the branch's history, "
				 "%lld commits\n",
				 "", f->history.points);
			buf_addf(b, "%41s%s\n", "", means);
		} else if (means_text(means, sizeof means, a.pair, f->kpi))
			buf_addf(b, "%41s%s\n", "", means);
		if (a.pair != NULL && a.pair->pair != f->pair) {
			char hc[32], hr[48], sha[16], base[16];

			num_pct(hc, sizeof hc, f->change_pct, "?");
			runs_text(hr, sizeof hr, f->base_runs, f->head_runs,
				  f->runs);
			short_sha(sha, sizeof sha, f->head);
			short_sha(base, sizeof base, f->base);
			buf_addf(b, "%41s%s from %s to %s (%s runs)\n", "", hc,
				 base, sha, hr);
		}
	}
}

/* The commands that reproduce one pair: robot submit, and robot-box by
 * hand. */
static void
add_reproduce(struct buf *b, const struct store_claim *claim,
	      const struct store_claim_pair *pair, const char *file)
{
	const char *tree = claim->tree, *group = pair->tbox_group;
	long long runs = pair->runs;

	buf_adds(b, "To reproduce:\n\n");
	/* what the commands need, as a shell comment: they run as printed */
	buf_adds(b, "  # robot where scripts/quickstart set it up (on PATH, "
		    "its server and a token\n  # in ~/.config/robot/config); "
		    "elsewhere add --server URL --token T\n");
	buf_addf(b, "  robot submit %s", file);
	if (tree != NULL)
		buf_addf(b, " --tree %s", tree);
	if (group != NULL)
		buf_addf(b, " --tbox-group %s", group);
	buf_addf(b, " --repeat %lld \\\n", runs > 0 ? runs : 3);
	buf_addf(b, "      --commit %s \\\n      --commit %s\n", pair->base,
		 pair->head);
	buf_adds(b, "\n  # or by hand, as root, on a test box whose "
		    "provisioning hook runs commits:\n");
	for (int side = 0; side < 2; side++)
		buf_addf(b,
			 "  robot-box run --config box.yaml%s%s --repeat %lld "
			 "--json \\\n      --commit %s %s > %s.json\n",
			 tree ? " --tree " : "", tree ? tree : "",
			 runs > 0 ? runs : 3,
			 side == 0 ? pair->base : pair->head, file,
			 side == 0 ? "base" : "head");
	buf_adds(b, "  robot compare --base base.json --head head.json\n\n");
}

/* The commit sha as the claim knows it (sha, subject, author), or NULL. */
static const struct store_commit_info *
commit_of(const struct store_claim *claim, const char *sha)
{
#define SAME(c) ((c)->sha != NULL && strcmp((c)->sha, sha) == 0)
	if (sha == NULL)
		return NULL;
	if (SAME(&claim->commit))
		return &claim->commit;
	for (size_t i = 0; i < claim->nfindings; i++) {
		const struct store_claim_finding *f = &claim->findings[i];

		if (SAME(&f->head_info))
			return &f->head_info;
		if (SAME(&f->base_info))
			return &f->base_info;
		if (SAME(&f->bisection.parent))
			return &f->bisection.parent;
	}
	for (size_t i = 0; i < claim->nbases; i++)
		if (SAME(&claim->bases[i]))
			return &claim->bases[i];
#undef SAME
	return NULL;
}

/* A commit as the webhook's JSON has it, or NULL. */
static json_t *
commit_json(const struct store_commit_info *c)
{
	if (c == NULL)
		return NULL;
	return json_pack("{s:s?, s:s?, s:s?, s:s?}", "sha", c->sha, "subject",
			 c->subject, "author", c->author, "date", c->date);
}

/* A commit line: sha ("subject"), or the sha alone when it is unknown. */
static void
add_commit_sha(struct buf *b, const struct store_claim *claim, const char *sha,
	       size_t col, size_t indent)
{
	const struct store_commit_info *c = commit_of(claim, sha);

	if (c != NULL)
		add_commit(b, c, col, indent);
	else
		buf_adds(b, sha ? sha : "?");
}

/* One pair's section: series, machine, parameters, commits, LKP's table,
 * and unless brief the job file and the commands (job file n of
 * nfiles). */
static void
add_pair(struct buf *b, const struct store_claim *claim,
	 const struct store_claim_pair *pair, bool brief, size_t n,
	 size_t nfiles)
{
	json_t *job = json_object_get(pair->job, "job");
	const char *table = pair->table;
	char *yaml = job_yaml(pair), *tc = series_testcase(pair->series);
	char *file = nfiles > 1 ? xasprintf("job-%zu.yaml", n + 1)
				: xstrdup("job.yaml");

	buf_adds(b, REPORT_RULE "\n");
	buf_addf(b, "testcase/path_params/tbox_group:\n  %s\n\n", pair->series);
	buf_addf(b, "testcase: %s\n", tc);
	add_machine(b, pair);
	if (json_is_object(job))
		add_parameters(b, job);
	buf_adds(b, "\ncommit:\n  ");
	add_commit_sha(b, claim, pair->base, 2, 4);
	buf_adds(b, "\n  ");
	add_commit_sha(b, claim, pair->head, 2, 4);
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
finding_json(const struct store_claim *claim,
	     const struct store_claim_finding *f,
	     const struct report_config *cfg)
{
	char *url = regression_url(cfg, f->id);
	struct at_fault a;
	json_t *o;

	static const char *const keys[] = {
		"kind",    "found_by", "series",    "kpi",       "change_pct",
		"p_value", "runs",     "base_runs", "head_runs", "head",
		"base",    "history",  NULL};

	at_fault(claim, f, &a);
	o = pick((json_t *)f->json, keys);
	json_object_set_new(o, "regression", json_integer(f->id));
	json_object_set_new(o, "url", json_string(url));
	/* The first bad commit's own figures against its parent. */
	if (a.pair != NULL && a.pair->pair != f->pair)
		json_object_set_new(
			o, "culprit",
			json_pack("{s:s?, s:s?, s:f, s:o?, s:o?, s:o?}",
				  "commit", a.pair->head, "parent",
				  a.pair->base, "change_pct", a.change,
				  "p_value",
				  isfinite(a.p) ? json_real(a.p) : NULL,
				  "base_runs",
				  a.pair->base_runs > 0
					  ? json_integer(a.pair->base_runs)
					  : NULL,
				  "head_runs",
				  a.pair->head_runs > 0
					  ? json_integer(a.pair->head_runs)
					  : NULL));
	free(url);
	return o;
}

/* "[robot] [demo:master] [mm] b6aefd0a21: ", or for a range
 * "[robot] [demo:master] 7e5035bd9e..d539ac2631 (7 commits): ". */
static void
add_subject_prefix(struct buf *b, const struct store_claim *claim,
		   const char *branch)
{
	char *sub = report_subsystem(claim->commit.subject);
	char sha[16], base[16];

	short_sha(sha, sizeof sha, claim->commit.sha);
	buf_adds(b, "[robot] ");
	if (claim->tree != NULL)
		buf_addf(b, "[%s%s%s] ", claim->tree, branch ? ":" : "",
			 branch ? branch : "");
	if (json_is_object(claim->range_json)) {
		short_sha(base, sizeof base, claim->range.base.sha);
		buf_addf(b, "%s..%s (%lld commit%s): ", base, sha,
			 claim->range.count,
			 claim->range.count == 1 ? "" : "s");
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
add_range_reason(struct buf *b, const struct store_claim_finding *first)
{
	const char *state = first->bisection.state;
	const char *reason = first->bisection.reason;
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
add_range_commits(struct buf *b, const struct store_claim_range *range)
{
	long long n = range->count;

	buf_addf(b, "\nThe range's %lld commit%s, newest first:\n\n", n,
		 n == 1 ? "" : "s");
	for (size_t i = 0; i < range->ncommits; i++) {
		char sha[16];
		size_t col;

		short_sha(sha, sizeof sha, range->commits[i].sha);
		buf_addf(b, "  %s ", sha);
		col = 13;
		if (range->commits[i].subject != NULL)
			report_wrap(b, range->commits[i].subject, &col, 13);
		buf_addc(b, '\n');
	}
	if (n > (long long)range->ncommits)
		buf_addf(b, "  and %lld more\n",
			 n - (long long)range->ncommits);
}

/* Where a first bad commit was found: "found at d539ac2631 ("net: tidy a
 * header"), tested against 7e5035bd9e; bisected in 4 steps", or "found at
 * this commit, ..." when the head was the first bad commit. */
static void
add_found_at(struct buf *b, const struct store_claim *claim,
	     const struct store_claim_finding *first)
{
	const struct store_claim_bisection *bis = &first->bisection;
	char sha[16], base[16];
	size_t col = 0;
	struct buf t;

	if (bis->state == NULL || strcmp(bis->state, "bisected"))
		return;
	short_sha(sha, sizeof sha, first->head);
	short_sha(base, sizeof base, first->base);
	buf_init(&t);
	if (claim->commit.sha != NULL && first->head != NULL &&
	    strcmp(claim->commit.sha, first->head) == 0)
		buf_adds(&t, "found at this commit");
	else {
		buf_addf(&t, "found at %s", sha);
		if (first->head_info.subject != NULL)
			buf_addf(&t, " (\"%s\")", first->head_info.subject);
	}
	buf_addf(&t, ", tested against %s; bisected in %lld step%s", base,
		 bis->steps, bis->steps == 1 ? "" : "s");
	/* a follower: the range was walked on another series, this one
	 * only confirmed the first bad commit (docs/bisect.md) */
	if (bis->lead_series != NULL)
		buf_addf(&t, " on %s", bis->lead_series);
	buf_addc(&t, '\0');
	report_wrap(b, t.data, &col, 0);
	buf_addc(b, '\n');
	buf_release(&t);
}

/* The pairs a report shows: the first bad commit against its parent,
 * then the heads against their bases (*n of them, the caller frees the
 * list); *nfull, the first ones shown in full (with the job file and the
 * commands): the commit at fault's. */
static const struct store_claim_pair **
report_pairs(const struct store_claim *claim, size_t *n, size_t *nfull)
{
	const struct store_claim_pair **all =
		xcalloc(claim->nculprit_pairs + claim->npairs + 1, sizeof *all);

	*n = 0;
	for (size_t i = 0; claim->culprit && i < claim->nculprit_pairs; i++)
		all[(*n)++] = &claim->culprit_pairs[i];
	*nfull = *n;
	for (size_t i = 0; i < claim->npairs; i++)
		all[(*n)++] = &claim->pairs[i];
	if (*nfull == 0)
		*nfull = *n;
	return all;
}

/* The report's subject: a reply in the thread of the same commit told
 * before (the first bad commit after its range report is a report of
 * its own there), else the prefix and the headline. */
static char *
report_subject(const struct store_claim *claim, const char *headline)
{
	struct buf b;

	buf_init(&b);
	if (json_is_object(claim->thread_json) &&
	    json_array_size(claim->events_json) == 0)
		buf_addf(&b, "Re: %s", claim->thread.subject);
	else {
		add_subject_prefix(&b, claim, claim->findings[0].branch);
		buf_adds(&b, headline);
	}
	return buf_detach(&b);
}

/* Where: the commit (or the range), its author, the tree, and the base
 * or the parent it was measured against, with how it was bisected or
 * why not. */
static void
report_where(struct buf *b, const struct store_claim *claim,
	     const struct at_fault *a, const char *change)
{
	const struct store_claim_finding *first = &claim->findings[0];
	bool is_range = json_is_object(claim->range_json);

	if (is_range) {
		buf_addf(b, "robot noticed a %s %s of %s in a range:\n\n",
			 change, first->kind, first->kpi);
		buf_adds(b, "base: ");
		add_commit(b, &claim->range.base, 6, 6);
		buf_adds(b, "\nhead: ");
		add_commit(b, &claim->range.head, 6, 6);
		buf_addc(b, '\n');
	} else {
		buf_addf(b, "robot noticed a %s %s of %s on:\n\n", change,
			 first->kind, first->kpi);
		buf_adds(b, "commit: ");
		add_commit(b, &claim->commit, 8, 8);
		buf_addc(b, '\n');
		if (claim->commit.author != NULL)
			buf_addf(b, "author: %s\n", claim->commit.author);
	}
	if (claim->tree != NULL) {
		buf_addf(b, "tree: %s", claim->tree);
		if (claim->tree_info.url != NULL)
			buf_addf(b, " (%s)", claim->tree_info.url);
		if (first->branch != NULL)
			buf_addf(b, ", branch %s", first->branch);
		buf_addc(b, '\n');
	}
	if (!is_range) {
		/* The first bad commit against its parent; a head against
		 * its base. */
		bool bisected = a->pair != NULL && a->pair->pair != first->pair;

		buf_adds(b, bisected ? "parent: " : "base: ");
		add_commit_sha(b, claim, bisected ? a->pair->base : first->base,
			       bisected ? 8 : 6, bisected ? 8 : 6);
		buf_addc(b, '\n');
		if (bisected) {
			buf_addc(b, '\n');
			add_found_at(b, claim, first);
		}
	} else {
		buf_addc(b, '\n');
		add_range_reason(b, first);
		add_range_commits(b, &claim->range);
	}
	buf_addc(b, '\n');
}

/* The report's text. */
static char *
report_body(const struct store_claim *claim, const struct report_config *cfg,
	    const struct at_fault *a, const char *change, const char *url)
{
	const struct store_claim_pair **pairs;
	size_t n, nfull;
	struct buf b;

	buf_init(&b);
	buf_adds(&b, "Hello,\n\n");
	report_where(&b, claim, a, change);
	if (claim->nfindings > 1)
		buf_addf(&b, "In all, %zu KPIs changed:\n\n", claim->nfindings);
	add_headline(&b, claim);
	buf_adds(&b, "\n(The robust test: a trimmed Welch test on the logs of "
		     "the runs' values, each\nside measured again until the "
		     "verdict was final; p is its two-sided p-value;\nruns are "
		     "the ok runs of the base and of the head.)\n");
	if (any_change_point(claim))
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
	pairs = report_pairs(claim, &n, &nfull);
	for (size_t i = 0; i < n; i++) {
		if (i == nfull)
			buf_adds(&b, "Where it was found, the head against "
				     "its base:\n\n");
		add_pair(&b, claim, pairs[i], i >= nfull, i, nfull);
	}
	free(pairs);
	buf_adds(&b, REPORT_RULE "\n\n");
	/* each regression it reports (url: the first's) */
	buf_addf(&b, "Details: %s\n", url);
	for (size_t i = 1; i < claim->nfindings; i++) {
		char *more = regression_url(cfg, claim->findings[i].id);

		buf_addf(&b, "         %s\n", more);
		free(more);
	}
	if (!json_is_object(claim->range_json)) {
		buf_adds(&b,
			 "\nIf you fix the issue in a separate patch/commit "
			 "(i.e. not just a new version of\nthe same "
			 "patch/commit), kindly add following tags\n");
		buf_addf(&b, "| Reported-by: robot <%s>\n", cfg->mail_from);
		for (size_t i = 0; i < claim->nfindings; i++) {
			char *each = regression_url(cfg, claim->findings[i].id);

			buf_addf(&b, "| Closes: %s\n", each);
			free(each);
		}
	}
	return buf_detach(&b);
}

/* The report's JSON, for webhooks (docs/reports.md). */
static json_t *
report_doc(const struct store_claim *claim, const struct report_config *cfg,
	   const struct at_fault *a, const char *subject, const char *headline,
	   const char *url)
{
	const struct store_claim_finding *first = &claim->findings[0];
	bool is_range = json_is_object(claim->range_json);
	const struct store_claim_pair **pairs;
	size_t n, nfull;
	json_t *findings = json_array(), *series = json_array(), *doc;

	static const char *const keys[] = {
		"series",    "tbox_group", "base",  "head",       "runs",
		"base_runs", "head_runs",  "table", "comparison", NULL};

	for (size_t i = 0; i < claim->nfindings; i++)
		json_array_append_new(
			findings,
			finding_json(claim, &claim->findings[i], cfg));
	pairs = report_pairs(claim, &n, &nfull);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(series,
				      pick((json_t *)pairs[i]->json, keys));
	free(pairs);
	doc = json_pack(
		"{s:i, s:s, s:O?, s:s?, s:s, s:s, s:O?, s:o?, s:o, s:o, s:s, "
		"s:b}",
		"version", 1, "kind", "report", "tree", claim->tree_json,
		"branch", first->branch, "subject", subject, "headline",
		headline, "commit", claim->commit_json, "base",
		commit_json(commit_of(claim, is_range || a->pair == NULL
						     ? first->base
						     : a->pair->base)),
		"findings", findings, "series", series, "url", url, "culprit",
		!is_range);
	/* a range's, as it was told (none for the commit at fault) */
	if (doc != NULL && is_range)
		json_object_set(doc, "range", (json_t *)claim->range_json);
	return doc;
}

static bool
render_report(const struct store_claim *claim, const struct report_config *cfg,
	      struct report_out *out)
{
	const struct store_claim_finding *first;
	struct at_fault a;
	char c[32], *url, *headline;
	size_t nmore;

	if (claim->nfindings == 0 || !json_is_array(claim->pairs_json))
		return false;
	first = &claim->findings[0];
	nmore = claim->nfindings - 1;
	url = regression_url(cfg, first->id);
	at_fault(claim, first, &a);
	num_pct(c, sizeof c, a.change, "?");
	headline = nmore > 0
			   ? xasprintf("%s %s %s and %zu more", first->kpi, c,
				       first->kind, nmore)
			   : xasprintf("%s %s %s", first->kpi, c, first->kind);
	out->subject = report_subject(claim, headline);
	out->body = report_body(claim, cfg, &a, c, url);
	out->doc = report_doc(claim, cfg, &a, out->subject, headline, url);
	out->outbox = recipients_of(claim, cfg->fixed);
	free(headline);
	free(url);
	return true;
}

static bool
render_followup(const struct store_claim *claim,
		const struct report_config *cfg, struct report_out *out)
{
	struct buf b;
	char *url = NULL;
	json_t *news;

	if (!json_is_object(claim->thread_json) || claim->nnews == 0)
		return false;
	news = json_array();
	out->subject = xasprintf("Re: %s", claim->thread.subject);
	buf_init(&b);
	buf_adds(&b, "Hello,\n\nnews of what robot reported for\n");
	add_commit(&b, &claim->commit, 0, 2);
	buf_adds(&b, ":\n\n");
	out->doc =
		json_pack("{s:i, s:s, s:O?, s:O?, s:s, s:O?, s:O}", "version",
			  1, "kind", "followup", "tree", claim->tree_json,
			  "branch", claim->branch_json, "subject", out->subject,
			  "commit", claim->commit_json, "news", news);
	for (size_t i = 0; i < claim->nnews; i++) {
		const struct store_claim_news *e = &claim->news[i];
		char c[32], sha[16];

		free(url);
		url = regression_url(cfg, e->regression);
		num_pct(c, sizeof c, e->change_pct, "?");
		short_sha(sha, sizeof sha, e->head.sha);
		buf_addf(&b, "- the %s %s of %s\n  (%s)\n", c, e->finding,
			 e->kpi, e->series);
		if (strcmp(e->kind, "still") == 0) {
			buf_addf(&b, "  is still there at %s", sha);
			if (e->head.subject != NULL)
				buf_addf(&b, " (\"%s\")", e->head.subject);
			buf_addf(&b, ": %s with %lld runs a side\n", c,
				 e->runs);
		} else {
			buf_addf(&b, "  is fixed at %s", sha);
			if (e->head.subject != NULL)
				buf_addf(&b, " (\"%s\")", e->head.subject);
			buf_adds(&b, ": the KPI is back at the base's level\n");
		}
		buf_addf(&b, "  %s\n\n", url);
		json_array_append_new(
			news,
			json_pack("{s:s, s:O?, s:O?, s:O?, s:O?, s:O?, s:s}",
				  "kind", e->kind, "regression",
				  e->regression_json, "series", e->series_json,
				  "kpi", e->kpi_json, "change_pct",
				  e->change_pct_json, "head", e->head_json,
				  "url", url));
	}
	out->body = buf_detach(&b);
	json_object_set_new(out->doc, "url", json_string(url));
	{
		const struct store_claim_news *first = &claim->news[0];
		char c[32], *headline;

		num_pct(c, sizeof c, first->change_pct, "?");
		headline = xasprintf(
			"%s %s %s: %s", first->kpi, c, first->finding,
			strcmp(first->kind, "still") == 0 ? "still there"
							  : "fixed");
		json_object_set_new(out->doc, "headline",
				    json_string(headline));
		free(headline);
	}
	free(url);
	json_decref(news);
	out->outbox = json_array();
	for (size_t i = 0; i < claim->nrecipients; i++)
		recipients_add(out->outbox, "mail", claim->recipients[i]);
	recipients_fixed(out->outbox, cfg->fixed);
	return true;
}

/* A note for the lab's operators: a box too noisy for a job, a box that
 * changed under us (suspect), or one that went silent and was
 * power-cycled.  It goes to them only (cfg->operators), never to
 * maintainers. */
static bool
render_note(const struct store_claim *claim, const struct report_config *cfg,
	    struct report_out *out)
{
	const struct store_claim_note *n = &claim->note;
	const char *msg = n->message, *kind = n->kind;
	const char *what, *intro, *after;
	struct buf b, boxes;
	size_t col = 0;

	if (msg == NULL || n->series == NULL)
		return false;
	if (kind != NULL && strcmp(kind, "suspect") == 0) {
		what = "changed";
		intro = "a box's own runs moved while the commit stayed the "
			"same: the box changed.";
		after = "The box takes no work until `robot box reset` puts "
			"it back; what it\nmeasured since the change is "
			"measured again on other boxes before\nanything is "
			"reported.\n\n";
	} else if (kind != NULL && strcmp(kind, "mute") == 0) {
		what = "a mute expired";
		intro = "a mute expired: the findings it matches are mailed "
			"again from now on.";
		after = "The findings made while it held stay muted: "
			"recorded and shown on their\npages, not mailed. "
			"robot mute makes it again (docs/reports.md).\n\n";
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
	for (size_t i = 0; i < n->nboxes; i++)
		if (n->boxes[i] != NULL)
			buf_addf(&boxes, "%s%s", boxes.len ? ", " : "",
				 n->boxes[i]);
	buf_addc(&boxes, '\0');
	if (strcmp(what, "too noisy") == 0 && n->nalso > 0)
		out->subject = xasprintf(
			"[robot] [lab] too noisy on %s: %s and %zu more",
			boxes.data[0] ? boxes.data : "a box", n->series,
			n->nalso);
	else if (strcmp(what, "too noisy") == 0)
		out->subject = xasprintf("[robot] [lab] too noisy on %s: %s",
					 boxes.data[0] ? boxes.data : "a box",
					 n->series);
	else if (strcmp(what, "a mute expired") == 0)
		out->subject = xasprintf("[robot] [lab] a mute expired: %s",
					 n->series);
	else
		out->subject = xasprintf("[robot] [lab] %s %s: %s",
					 boxes.data[0] ? boxes.data : "a box",
					 what, n->series);
	buf_init(&b);
	buf_addf(&b, "Hello,\n\n%s\n\n", intro);
	report_wrap(&b, msg, &col, 0);
	if (n->nalso > 0) {
		/* (told once a day per box: the day's other jobs here) */
		buf_addf(&b, "\n\nIt was too noisy for %zu other job%s too:",
			 n->nalso, n->nalso == 1 ? "" : "s");
		for (size_t i = 0; i < n->nalso && i < 20; i++)
			buf_addf(&b, "\n  %s", n->also[i] ? n->also[i] : "?");
		if (n->nalso > 20)
			buf_addf(&b, "\n  and %zu more", n->nalso - 20);
	}
	buf_addf(&b, "\n\n%s", after);
	buf_addf(&b, "The lab: %s/lab\n\n", cfg->public_url);
	buf_adds(&b, "(robot mails this to the lab's operators: operator_mail "
		     "in robotd's settings.)\n");
	out->body = buf_detach(&b);
	out->doc = json_pack(
		"{s:i, s:s, s:s, s:s, s:O?, s:O?, s:O?, s:s, s:O?}", "version",
		1, "kind", "note", "subject", out->subject, "series", n->series,
		"boxes", n->boxes_json, "kpi", n->kpi_json, "pair",
		n->pair_json, "message", msg, "created", n->created_json);
	out->outbox = json_array();
	for (size_t i = 0;
	     cfg->operators != NULL && cfg->operators[i] != NULL &&
	     cfg->operators[i + 1] != NULL;
	     i += 2)
		recipients_add(out->outbox, cfg->operators[i],
			       cfg->operators[i + 1]);
	buf_release(&boxes);
	return true;
}

bool
report_render(const struct store_claim *claim, const struct report_config *cfg,
	      struct report_out *out)
{
	const char *kind = claim->kind;
	bool ok = false;

	memset(out, 0, sizeof *out);
	if (kind != NULL && strcmp(kind, "report") == 0)
		ok = render_report(claim, cfg, out);
	else if (kind != NULL && strcmp(kind, "followup") == 0)
		ok = render_followup(claim, cfg, out);
	else if (kind != NULL && strcmp(kind, "note") == 0)
		ok = render_note(claim, cfg, out);
	if (ok && out->doc != NULL)
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
