/*
 * compare.c: the compare command.
 *
 * Result documents come from files or directories (every *.json below
 * them), grouped by series (key and box group).  Each series that both
 * sides have is compared; failed and incomplete runs are left out and
 * counted on stderr.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/catalog.h"
#include "jobs/sysctl.h"
#include "robot/analysis/comparison.h"
#include "robot/analysis/direction.h"
#include "robot/analysis/noise.h"
#include "robot/analysis/result.h"
#include "robot/analysis/series.h"
#include "robot/analysis/table.h"
#include "robot/core/buf.h"
#include "robot/core/client.h"
#include "robot/core/errlist.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/cli/cli.h"
#include "robot/cli/commands.h"
#include "robot/core/banned.h"

static const char compare_usage[] =
	"usage: robot compare [--json] [--method robust|lkp] [--all]\n"
	"                     --base FILE|DIR... --head FILE|DIR...\n"
	"       robot compare [options] [--server URL] --series KEY\n"
	"                     --base SHA --head SHA\n"
	"\n"
	"Compares the runs of two commits, series by series, and prints\n"
	"LKP's table of the metrics that changed.\n"
	"  --base, --head  result documents (files, or directories of\n"
	"                  *.json); repeat them or list several paths\n"
	"  --series KEY    robotd compares the runs of KEY/TBOX_GROUP it "
	"holds\n"
	"                  instead: --base and --head are commits\n"
	"  --server URL    robotd (else $ROBOT_SERVER, else server: in\n"
	"                  ~/.config/robot/config)\n"
	"  --method M      robust (default): a test with 0.3% false\n"
	"                  alarms per metric (measured, docs/statistics.md);\n"
	"                  lkp: LKP's changed rule\n"
	"  --all           every metric, not only those that changed\n"
	"  --kpi-only      the workload's own rows of the table only (no "
	"monitors)\n"
	"  --json          the comparison as JSON (every metric)\n"
	"  --min-effect P  the smallest change that counts, in % (2, or 2%)\n"
	"  --directions F  more metric directions, before the built-in\n"
	"                  ones (format: robot/directions; files only)\n"
	"  --history FILE|DIR...  earlier runs of the same series (result\n"
	"                  documents): each commit's runs among them tell\n"
	"                  the KPIs' noise, which the comparison weighs with\n"
	"                  its own (docs/statistics.md; files only)\n";

/* "  4e159150a9 ("subject") (base)": the subject when the runs' provision
 * told it (robot-box's hook prints "subject: ..."), cleaned for a
 * terminal. */
static void
print_commit(const char *commit, const char *subject, const char *side)
{
	printf("  %.10s", commit ? commit : "-");
	if (subject != NULL) {
		char *p = str_printable(subject, strlen(subject), 80);

		printf(" (\"%s\")", p);
		free(p);
	}
	printf(" (%s)\n", side);
}

/* The commit's subject, as the run's provisioning told it, or NULL. */
static const char *
run_subject(json_t *run)
{
	return json_string_value(
		json_object_get(json_object_get(run, "provision"), "subject"));
}

/* The vm.* tunables a run had ({"vm/dirty_bytes": "8388608"}): the job's
 * sysctl settings and those its provisioning set ("tunable vm.x: v"),
 * from its document (or robotd's account of one: "sysctl", "provision"). */
static json_t *
run_tunables(json_t *run)
{
	json_t *t = json_object(), *v;
	const char *key;

	json_object_foreach(json_object_get(run, "sysctl"), key, v)
	{
		const char *path = sysctl_path(key);

		if (path != NULL && json_is_string(v))
			json_object_set(t, path, v);
	}
	json_object_foreach(json_object_get(run, "provision"), key, v)
	{
		if (strncmp(key, "tunable ", 8) == 0 && json_is_string(v)) {
			char *path = xstrdup(key + 8);

			for (char *p = path; *p; p++)
				if (*p == '.')
					*p = '/';
			json_object_set(t, path, v);
			free(path);
		}
	}
	return t;
}

/* Notes of the changed monitors that are only a tunable the job or the
 * commit set differently on the two sides (nr_dirty_threshold follows
 * vm.dirty_bytes): the tunable's doing, not a finding. */
static void
print_tunable_notes(const struct comparison *c, json_t *brun, json_t *hrun)
{
	json_t *b, *h, *keys = json_object(), *v;
	const char *key;

	if (brun == NULL || hrun == NULL) {
		json_decref(keys);
		return;
	}
	b = run_tunables(brun);
	h = run_tunables(hrun);
	json_object_update(keys, b);
	json_object_update(keys, h);
	json_object_foreach(keys, key, v)
	{
		const char *bv = json_string_value(json_object_get(b, key));
		const char *hv = json_string_value(json_object_get(h, key));
		const char *const *f = sysctl_followers(key);
		struct buf names;

		if ((bv && hv && strcmp(bv, hv) == 0) || f[0] == NULL)
			continue;
		buf_init(&names);
		for (size_t i = 0; f[i] != NULL; i++)
			for (size_t k = 0; k < c->nmetrics; k++)
				if (strcmp(c->metrics[k].name, f[i]) == 0 &&
				    compare_verdict_is_change(
					    c->metrics[k].r.verdict))
					buf_addf(&names, "%s%s",
						 names.len ? ", " : "", f[i]);
		if (names.len > 0) {
			char *dotted = xstrdup(key);

			for (char *p = dotted; *p; p++)
				if (*p == '/')
					*p = '.';
			printf("note: %.*s follow %s (base %s, head %s): the "
			       "tunable changed, not the code\n",
			       (int)names.len, names.data, dotted,
			       bv ? bv : "-", hv ? hv : "-");
			free(dotted);
		}
		buf_release(&names);
	}
	json_decref(keys);
	json_decref(b);
	json_decref(h);
}

/* The comparison as LKP's table, with its KPIs' verdicts and its notes;
 * brun and hrun are a run of each side (documents, or robotd's account
 * of one), for the commits' subjects and tunables, or NULL. */
static void
print_text(const struct comparison *c, json_t *brun, json_t *hrun, bool all,
	   bool workload_only)
{
	size_t rows;

	printf("============================================================="
	       "============================\n");
	printf("testcase/path_params/tbox_group:\n  %s\n\n", c->series);
	printf("commit: \n");
	print_commit(c->base.commit, run_subject(brun), "base");
	print_commit(c->head.commit, run_subject(hrun), "head");
	printf("\n");
	cli_print_kpis(c);
	if (!workload_only && table_print_moved(stdout, c) > 0)
		printf("\n");
	rows = table_print_rows(stdout, c, all, workload_only);
	if (rows == 0)
		printf("(no metric changed: %zu compared with the %s method)\n",
		       c->ncompared, compare_method_name(c->method));
	printf("\n");
	for (size_t i = 0; i < c->nnotes; i++)
		printf("note: %s\n", c->notes[i]);
	print_tunable_notes(c, brun, hrun);
}

/* What the command line asks for. */
struct compare_args {
	struct compare_options opt;
	struct direction_table *dt;
	bool json, all, kpi_only;
	bool dt_added; /* --directions given */
	char *server;
	const char *series;        /* --series: fetch from robotd */
	const char **base, **head; /* paths, or one commit each */
	size_t nbase, nhead;
	const char **hist; /* --history: paths */
	size_t nhist;
	struct result *hruns; /* their runs */
	size_t nhruns;
	struct result_names *names; /* of the runs read from files */
	/* while parsing */
	struct errlist *el;
	int which; /* 1 after --base, 2 after --head: its paths follow */
	bool bad;  /* an option was (said) */
};

static void
compare_args_release(struct compare_args *a)
{
	direction_table_free(a->dt);
	free(a->server);
	free(a->base);
	free(a->head);
	free(a->hist);
	for (size_t i = 0; i < a->nhruns; i++)
		result_release(&a->hruns[i]);
	free(a->hruns);
}

static void
add_path(const char ***v, size_t *n, const char *path)
{
	*v = xreallocarray(*v, *n + 1, sizeof **v);
	(*v)[(*n)++] = path;
}

/* --min-effect and --directions. */
static bool
compare_parse_value(struct compare_args *a, int c, const char *arg,
		    struct errlist *el)
{
	struct buf text;
	char *end;
	bool ok;

	if (c == 'e') {
		a->opt.min_effect_pct = strtod(arg, &end);
		if (end != arg && *end == '%')
			end++; /* "5%" is 5 percent */
		if (end != arg && *end == '\0' && a->opt.min_effect_pct >= 0 &&
		    a->opt.min_effect_pct < COMPARE_EFFECT_LIMIT)
			return true;
		log_warnx("--min-effect wants a percentage from 0 to %d (2, "
			  "or 2%%), not '%s'",
			  COMPARE_EFFECT_LIMIT, arg);
		return false;
	}
	buf_init(&text);
	ok = buf_add_file(&text, arg, 4 * 1024 * 1024);
	if (!ok)
		log_warn("cannot read '%s'", arg);
	else
		ok = direction_table_add(a->dt, arg, text.data, text.len, el);
	buf_release(&text);
	return ok;
}

/* An option of compare's own, or (c 1) an operand: a path after --base
 * P or --head P.  A bad one is said and parsing goes on, so that every
 * problem is told at once. */
static bool
compare_option(int c, const char *arg, void *ctx)
{
	struct compare_args *a = ctx;

	switch (c) {
	case 'a':
		a->all = true;
		break;
	case 'k':
		a->kpi_only = true;
		break;
	case 'm':
		if (strcmp(arg, "robust") == 0)
			a->opt.method = COMPARE_ROBUST;
		else if (strcmp(arg, "lkp") == 0)
			a->opt.method = COMPARE_LKP;
		else {
			log_warnx("unknown method '%s' (robust or lkp)", arg);
			a->bad = true;
		}
		break;
	case 'b':
	case 'H':
	case 'Y':
		a->which = c == 'b' ? 1 : c == 'H' ? 2 : 3;
		/* FALLTHROUGH */
	case 1:
		if (a->which == 1)
			add_path(&a->base, &a->nbase, arg);
		else if (a->which == 2)
			add_path(&a->head, &a->nhead, arg);
		else if (a->which == 3)
			add_path(&a->hist, &a->nhist, arg);
		else {
			log_warnx("'%s': say whether it is --base or --head",
				  arg);
			a->bad = true;
		}
		break;
	case 'e':
	case 'd':
		if (!compare_parse_value(a, c, arg, a->el))
			a->bad = true;
		a->dt_added |= c == 'd';
		break;
	case 'S':
		a->series = arg;
		break;
	}
	if (c != 'b' && c != 'H' && c != 'Y' && c != 1)
		a->which = 0;
	return true;
}

/* Parses the options; returns -1 to go on, else the exit status. */
static int
compare_parse(int argc, char **argv, struct compare_args *a, struct errlist *el)
{
	static const struct option own[] = {
		{"all", no_argument, NULL, 'a'},
		{"kpi-only", no_argument, NULL, 'k'},
		{"method", required_argument, NULL, 'm'},
		{"base", required_argument, NULL, 'b'},
		{"head", required_argument, NULL, 'H'},
		{"min-effect", required_argument, NULL, 'e'},
		{"directions", required_argument, NULL, 'd'},
		{"series", required_argument, NULL, 'S'},
		{"history", required_argument, NULL, 'Y'},
		{NULL, 0, NULL, 0}};
	/* "-": the paths after --base or --head, in order, until the next
	 * option. */
	static const struct cli_command cmd = {
		compare_usage, CLI_SERVER | CLI_JSON, own, "-", compare_option};
	struct cli_args ca;
	int status;

	a->el = el;
	status = cli_options(argc, argv, &cmd, a, &ca);
	a->json = ca.json;
	a->server = ca.server;
	ca.server = NULL;
	cli_args_release(&ca);
	if (status != -1)
		return status;
	if (a->bad)
		return 2;
	if (a->nbase == 0 || a->nhead == 0) {
		log_warnx("give the runs of both commits: --base and --head");
		return cli_usage_error(&cmd);
	}
	if (a->series != NULL && (a->nbase != 1 || a->nhead != 1)) {
		log_warnx("with --series, --base and --head are one commit "
			  "each");
		return 2;
	}
	if (a->series == NULL && a->server != NULL) {
		log_warnx("--server needs --series KEY/TBOX_GROUP");
		return 2;
	}
	if (a->series != NULL && a->nhist > 0) {
		log_warnx("--history is for result files: robotd weighs each "
			  "series' own history");
		return 2;
	}
	return -1;
}

/* Loads the runs of both sides from result files; returns -1 to go on,
 * else the exit status. */
static int
compare_load(struct compare_args *a, struct result **base, size_t *nb,
	     struct result **head, size_t *nh, struct errlist *el)
{
	for (size_t i = 0; i < a->nbase; i++)
		(void)result_load_path(a->base[i], a->names, base, nb, el);
	for (size_t i = 0; i < a->nhead; i++)
		(void)result_load_path(a->head[i], a->names, head, nh, el);
	for (size_t i = 0; i < a->nhist; i++)
		(void)result_load_path(a->hist[i], a->names, &a->hruns,
				       &a->nhruns, el);
	if (el->nerrors > 0)
		return 2;
	if (*nb == 0 || *nh == 0) {
		log_warnx("no result documents on the %s side",
			  *nb == 0 ? "base" : "head");
		return 2;
	}
	return -1;
}

/* Says which runs were not compared. */
static void
warn_left_out(const struct comparison *cmp)
{
	for (int s = 0; s < 2; s++) {
		const struct comparison_side *side =
			s == 0 ? &cmp->base : &cmp->head;

		if (side->failed + side->incomplete > 0)
			log_warnx("%s: left out %zu failed and %zu "
				  "incomplete %s runs",
				  cmp->series, side->failed, side->incomplete,
				  s == 0 ? "base" : "head");
	}
}

/* The comparison of one series, or NULL (the problems in el). */
/* Runs with perf beside the workload and runs without, in one
 * comparison: perf can move the KPI by itself (docs/box.md). */
static void
warn_mixed_profiles(const char *series, const struct series_pair *sp)
{
	size_t pb = 0, ph = 0;

	for (size_t i = 0; i < sp->nbase; i++)
		pb += sp->base[i]->profiled;
	for (size_t i = 0; i < sp->nhead; i++)
		ph += sp->head[i]->profiled;
	if ((pb == 0 && ph == 0) || (pb == sp->nbase && ph == sp->nhead))
		return;
	log_warnx("%s: %zu of the %zu base runs and %zu of the %zu head runs "
		  "ran perf (perf-profile or perf-stat) beside the workload, "
		  "the others not: perf can move the workload's own figures; "
		  "compare runs with the same monitors",
		  series, pb, sp->nbase, ph, sp->nhead);
}

/* The value of metric in run r, or NAN. */
static double
stat_of(const struct result *r, const char *metric)
{
	for (size_t i = 0; i < r->nstats; i++)
		if (strcmp(r->stats[i].name, metric) == 0)
			return r->stats[i].value;
	return NAN;
}

/*
 * The priors of series' KPIs (under prefix) from --history's runs: the
 * ok runs of each commit of the series among them (two or more) tell a
 * run's noise, twice it a round's difference's, of the logs
 * (robot/analysis/noise.h).  Into *out (the caller frees it).
 */
static size_t
history_priors(const struct compare_args *a, const char *series,
	       const char *prefix, struct compare_prior **out)
{
	const struct result *first = NULL;
	size_t n = 0;

	*out = NULL;
	for (size_t i = 0; i < a->nhruns && first == NULL; i++)
		if (strcmp(a->hruns[i].series, series) == 0)
			first = &a->hruns[i];
	if (first == NULL || prefix == NULL)
		return 0;
	*out = xcalloc(first->nstats + 1, sizeof **out);
	for (size_t m = 0; m < first->nstats; m++) {
		const char *metric = first->stats[m].name;
		struct noise_obs *obs = xcalloc(a->nhruns + 1, sizeof *obs);
		bool *seen = xcalloc(a->nhruns + 1, sizeof *seen);
		struct noise_prior p;
		size_t nobs = 0;

		if (!comparison_is_kpi(a->dt, metric, prefix)) {
			free(obs);
			free(seen);
			continue;
		}
		/* commit by commit */
		for (size_t i = 0; i < a->nhruns; i++) {
			const struct result *c = &a->hruns[i];
			double sum = 0, sq = 0, x[4096];
			size_t k = 0;
			bool positive = true;

			if (seen[i] || strcmp(c->series, series) != 0)
				continue;
			for (size_t j = i; j < a->nhruns; j++) {
				const struct result *r = &a->hruns[j];
				double v;

				if (seen[j] || strcmp(r->series, series) != 0 ||
				    (c->commit == NULL) !=
					    (r->commit == NULL) ||
				    (c->commit != NULL &&
				     strcmp(c->commit, r->commit) != 0))
					continue;
				seen[j] = true;
				v = stat_of(r, metric);
				if (r->status != RESULT_OK || !isfinite(v) ||
				    k == 4096)
					continue;
				positive = positive && v > 0;
				x[k++] = positive ? log(v) : 0;
			}
			if (k < 2 || !positive)
				continue;
			for (size_t j = 0; j < k; j++)
				sum += x[j];
			for (size_t j = 0; j < k; j++)
				sq += (x[j] - sum / (double)k) *
				      (x[j] - sum / (double)k);
			obs[nobs].var = 2 * sq / (double)(k - 1);
			obs[nobs].df = (double)(k - 1);
			nobs++;
		}
		if (noise_fit(obs, nobs, &p))
			(*out)[n++] =
				(struct compare_prior){metric, p.var, p.df};
		free(obs);
		free(seen);
	}
	return n;
}

static struct comparison *
compare_series(const struct compare_args *a, const struct series_pair *sp,
	       struct errlist *el)
{
	struct comparison *cmp;
	struct compare_options opt = a->opt;
	struct compare_prior *priors = NULL;
	char prefix[128];
	bool has_prefix = series_kpi_prefix(
		sp->base[0], catalog_testcase_workload, prefix, sizeof prefix);

	if (a->nhruns > 0) {
		opt.npriors = history_priors(
			a, sp->series, has_prefix ? prefix : NULL, &priors);
		opt.priors = priors;
		if (opt.npriors == 0)
			log_warnx("%s: --history holds no two ok runs of one "
				  "commit of this series: its noise is its "
				  "own",
				  sp->series);
	}
	cmp = comparison_new(sp->series, (const struct result *const *)sp->base,
			     sp->nbase, (const struct result *const *)sp->head,
			     sp->nhead, &opt, a->dt, has_prefix ? prefix : NULL,
			     el);
	free(priors);
	if (cmp != NULL)
		warn_mixed_profiles(cmp->series, sp);
	for (int s = 0; cmp != NULL && s < 2; s++) {
		const struct result *const *runs =
			s == 0 ? (const struct result *const *)sp->base
			       : (const struct result *const *)sp->head;
		size_t n = s == 0 ? sp->nbase : sp->nhead, bare = 0;

		size_t warned = 0;
		const char *warning = NULL;

		for (size_t i = 0; i < n; i++) {
			bare += runs[i]->unprovisioned;
			if (runs[i]->warning != NULL) {
				warned++;
				warning = runs[i]->warning;
			}
		}
		if (warned > 0)
			log_warnx("%s: %zu of the %zu %s runs: %s", cmp->series,
				  warned, n, s == 0 ? "base" : "head", warning);
		if (bare > 0)
			log_warnx("%s: %zu of the %zu %s runs (%s) were not "
				  "provisioned for their commit: the box ran "
				  "its own kernel (no provisioning hook)",
				  cmp->series, bare, n,
				  s == 0 ? "base" : "head", runs[0]->commit);
	}
	if (cmp != NULL)
		warn_left_out(cmp);
	return cmp;
}

/* Compares each series both sides have and prints it, the JSON
 * streamed as it is written; returns the exit status. */
static int
compare_print(const struct compare_args *a, const struct series_set *set,
	      struct errlist *el)
{
	struct buf out;
	size_t shown = 0;
	int status = 0;

	if (set->n == 2 && set->v[0].nhead == 0 && set->v[1].nbase == 0) {
		errlist_error(el, "compare", 0,
			      "the base runs are of series '%s' and the head "
			      "runs of '%s': only runs of one series can be "
			      "compared",
			      set->v[0].series, set->v[1].series);
		return 2;
	}
	buf_init(&out);
	if (a->json)
		fputs("{\n  \"comparisons\": [", stdout);
	for (size_t i = 0; i < set->n; i++) {
		const struct series_pair *sp = &set->v[i];
		struct comparison *cmp;

		if (sp->nhead == 0 || sp->nbase == 0) {
			log_warnx("series '%s' has only %s runs; not compared",
				  sp->series, sp->nhead == 0 ? "base" : "head");
			continue;
		}
		if ((cmp = compare_series(a, sp, el)) == NULL)
			continue;
		if (a->json) {
			fputs(shown++ > 0 ? ",\n    " : "\n    ", stdout);
			if (!comparison_json(cmp, true, 6, &out, stdout))
				status = 1;
		} else
			print_text(cmp, sp->base[0]->json, sp->head[0]->json,
				   a->all, a->kpi_only);
		comparison_free(cmp);
	}
	if (a->json)
		fputs(shown > 0 ? "\n  ]\n}\n" : "]\n}\n", stdout);
	if (fflush(stdout) != 0 || ferror(stdout))
		status = 1;
	buf_release(&out);
	return status;
}

/* Seconds robotd has to compare: thousands of runs take a while. */
#define COMPARE_TIMEOUT 120.0

/* GET /api/compare's query for the command line's options: robotd
 * sends the metrics shown, every one with --all or --json. */
static char *
server_query(const struct compare_args *a)
{
	char *s = client_escape(a->series), *b = client_escape(a->base[0]),
	     *h = client_escape(a->head[0]);
	struct compare_options def;
	struct buf q;

	compare_options_init(&def);
	buf_init(&q);
	buf_addf(&q, "/api/compare?series=%s&base=%s&head=%s", s, b, h);
	if (a->opt.method == COMPARE_LKP)
		buf_adds(&q, "&method=lkp");
	if (a->opt.min_effect_pct != def.min_effect_pct)
		buf_addf(&q, "&min_effect=%.17g", a->opt.min_effect_pct);
	if (a->all || a->json)
		buf_adds(&q, "&all=1");
	free(s);
	free(b);
	free(h);
	return buf_detach(&q);
}

/* Why robotd had no comparison: its words, then the series or commit it
 * does not have, with the nearest it has. */
static void
server_missing(const struct compare_args *a, const struct client_resp *r)
{
	json_t *j = client_resp_json(r);
	const char *e = json_string_value(json_object_get(j, "error"));
	/* the side robotd names: "... on the head side", or "HEAD is no
	 * commit of ..." (robot_series_commit()) */
	bool head =
		e != NULL &&
		(strstr(e, "head side") != NULL ||
		 (strncmp(e, a->head[0], strlen(a->head[0])) == 0 &&
		  strncmp(e + strlen(a->head[0]), " is no commit", 13) == 0));
	char *why = cli_explain_missing(a->server, a->series,
					head ? a->head[0] : a->base[0]);

	log_warnx("%s", why);
	free(why);
	json_decref(j);
}

/* robot compare --series: robotd compares its stored values and sends
 * the comparison; returns the exit status. */
static int
compare_server(struct compare_args *a)
{
	char *path, *url;
	struct client_resp r;
	struct comparison *cmp;
	json_t *j, *runs;
	int status = 0;

	if (a->dt_added) {
		log_warnx("--directions is for result files: robotd compares "
			  "with its own directions");
		return 2;
	}
	if (!cli_server_endpoint(&a->server))
		return 2;
	path = server_query(a);
	url = xasprintf("%s%s", a->server, path);
	client_request("GET", url, NULL, NULL, 0, COMPARE_TIMEOUT, &r);
	free(url);
	free(path);
	if (r.status == 404) {
		server_missing(a, &r);
		client_resp_release(&r);
		return 2;
	}
	if (r.status != 200 || (j = client_resp_json(&r)) == NULL) {
		char *e = client_resp_error(&r);

		log_warnx("robotd: %s", e);
		free(e);
		client_resp_release(&r);
		return 1;
	}
	client_resp_release(&r);
	if ((cmp = comparison_from_json(json_object_get(j, "comparison"))) ==
	    NULL) {
		log_warnx("robotd's answer holds no comparison");
		json_decref(j);
		return 1;
	}
	warn_left_out(cmp);
	runs = json_object_get(j, "runs");
	if (a->json) {
		struct buf out;

		buf_init(&out);
		fputs("{\n  \"comparisons\": [\n    ", stdout);
		if (!comparison_json(cmp, true, 6, &out, stdout))
			status = 1;
		fputs("\n  ]\n}\n", stdout);
		buf_release(&out);
	} else
		print_text(cmp, json_object_get(runs, "base"),
			   json_object_get(runs, "head"), a->all, a->kpi_only);
	if (fflush(stdout) != 0 || ferror(stdout))
		status = 1;
	comparison_free(cmp);
	json_decref(j);
	return status;
}

int
cmd_compare(int argc, char **argv)
{
	struct compare_args a;
	struct result *base = NULL, *head = NULL;
	size_t nbase = 0, nhead = 0;
	struct series_set set = {NULL, 0};
	struct errlist el;
	int status;

	memset(&a, 0, sizeof a);
	compare_options_init(&a.opt);
	a.dt = direction_table_new();
	a.names = result_names_new();
	errlist_init(&el);
	status = compare_parse(argc, argv, &a, &el);
	if (status == -1 && a.series != NULL)
		status = compare_server(&a);
	if (status == -1) {
		xmalloc_bulk_process();
		status = compare_load(&a, &base, &nbase, &head, &nhead, &el);
	}
	if (status == -1) {
		series_group(base, nbase, head, nhead, &set);
		status = compare_print(&a, &set, &el);
	}
	if (el.n > 0) {
		errlist_print(&el, stderr);
		if (el.nerrors > 0 && status == 0)
			status = 2;
	}
	series_set_release(&set);
	for (size_t i = 0; i < nbase; i++)
		result_release(&base[i]);
	for (size_t i = 0; i < nhead; i++)
		result_release(&head[i]);
	free(base);
	free(head);
	result_names_free(a.names);
	compare_args_release(&a);
	errlist_release(&el);
	return status;
}
