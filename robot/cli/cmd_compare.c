/*
 * cmd_compare.c: the compare command.
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
#include "robot/analysis/comparison.h"
#include "robot/analysis/direction.h"
#include "robot/analysis/result.h"
#include "robot/analysis/table.h"
#include "robot/cli/cmd_compare.h"
#include "robot/cli/cmd_server.h"
#include "robot/core/buf.h"
#include "robot/core/errlist.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

static void
compare_usage(FILE *fp)
{
	fprintf(fp,
		"usage: robot compare [--json] [--method robust|lkp] [--all]\n"
		"                     --base FILE|DIR... --head FILE|DIR...\n"
		"       robot compare [options] [--server URL] --series KEY\n"
		"                     --base SHA --head SHA\n"
		"\n"
		"Compares the runs of two commits, series by series, and "
		"prints\n"
		"LKP's table of the metrics that changed.\n"
		"  --base, --head  result documents (files, or directories of\n"
		"                  *.json); repeat them or list several paths\n"
		"  --series KEY    fetch the runs of KEY/TBOX_GROUP from "
		"robotd\n"
		"                  instead: --base and --head are commits\n"
		"  --server URL    robotd (else ROBOT_SERVER or the config)\n"
		"  --method M      robust (default): a test with 0.5%% false\n"
		"                  alarms per metric; lkp: LKP's changed rule\n"
		"  --all           every metric, not only those that changed\n"
		"  --json          the comparison as JSON (every metric)\n"
		"  --min-effect P  the smallest change that counts, in %% (2)\n"
		"  --directions F  more metric directions, before the "
		"built-in\n"
		"                  ones (format: robot/directions)\n");
}

/* The runs of one series on one side. */
struct group {
	char *series;
	const struct result **runs;
	size_t n;
};

static void
group_add(struct group **g, size_t *ng, const struct result *r)
{
	for (size_t i = 0; i < *ng; i++) {
		if (strcmp((*g)[i].series, r->series) == 0) {
			(*g)[i].runs =
				xreallocarray((*g)[i].runs, (*g)[i].n + 1,
					      sizeof *(*g)[i].runs);
			(*g)[i].runs[(*g)[i].n++] = r;
			return;
		}
	}
	*g = xreallocarray(*g, *ng + 1, sizeof **g);
	(*g)[*ng].series = r->series;
	(*g)[*ng].runs = xcalloc(1, sizeof *(*g)[*ng].runs);
	(*g)[*ng].runs[0] = r;
	(*g)[*ng].n = 1;
	(*ng)++;
}

static struct group *
group_find(struct group *g, size_t ng, const char *series)
{
	for (size_t i = 0; i < ng; i++)
		if (strcmp(g[i].series, series) == 0)
			return &g[i];
	return NULL;
}

/* "fsmark." for a job that runs fsmark, from the job in the document. */
static const char *
kpi_prefix_of(const struct result *r, char *buf, size_t len)
{
	json_t *job = json_object_get(r->json, "job");
	const char *k;
	json_t *v;

	json_object_foreach(job, k, v)
	{
		const struct catalog_program *p = catalog_program(k);

		if (p != NULL && p->kind == CATALOG_WORKLOAD) {
			snprintf(buf, len, "%s.", p->name);
			return buf;
		}
	}
	return NULL;
}

static void
print_kpis(const struct comparison *c)
{
	for (size_t i = 0; i < c->nmetrics; i++) {
		const struct comparison_metric *m = &c->metrics[i];
		const struct compare_result *r = &m->r;

		if (!m->kpi || compare_verdict_is_change(r->verdict))
			continue;
		printf("%s: %s (%+.1f%%", m->name,
		       compare_verdict_name(r->verdict), r->change_pct);
		if (!isnan(r->p_value))
			printf(", p=%.3g", r->p_value);
		printf(")");
		if (r->reason != NULL)
			printf(": %s", r->reason);
		if (r->verdict == COMPARE_INCONCLUSIVE) {
			if (r->runs_needed > 0)
				printf("; about %d runs per side would settle "
				       "it",
				       r->runs_needed);
			else if (r->runs_needed < 0)
				printf("; more runs are unlikely to settle it");
		}
		printf("\n");
	}
}

static void
print_text(const struct comparison *c, bool all)
{
	size_t rows;

	printf("============================================================="
	       "============================\n");
	printf("testcase/path_params/tbox_group:\n  %s\n\n", c->series);
	printf("commit: \n  %.10s (base)\n  %.10s (head)\n\n",
	       c->base.commit ? c->base.commit : "-",
	       c->head.commit ? c->head.commit : "-");
	rows = table_print(stdout, c, all);
	if (rows == 0)
		printf("(no metric changed: %zu compared with the %s method)\n",
		       c->nmetrics, compare_method_name(c->method));
	printf("\n");
	print_kpis(c);
	for (size_t i = 0; i < c->nnotes; i++)
		printf("note: %s\n", c->notes[i]);
}

int
cmd_compare(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, 'j'},
		{"all", no_argument, NULL, 'a'},
		{"method", required_argument, NULL, 'm'},
		{"base", required_argument, NULL, 'b'},
		{"head", required_argument, NULL, 'H'},
		{"min-effect", required_argument, NULL, 'e'},
		{"directions", required_argument, NULL, 'd'},
		{"server", required_argument, NULL, 's'},
		{"series", required_argument, NULL, 'S'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}};
	struct result *base = NULL, *head = NULL;
	size_t nbase = 0, nhead = 0, nbg = 0, nhg = 0;
	struct group *bg = NULL, *hg = NULL;
	const char **base_paths = NULL, **head_paths = NULL;
	size_t nbp = 0, nhp = 0;
	struct compare_options opt;
	struct direction_table *dt;
	bool json = false, all = false;
	char *server = NULL;
	const char *series = NULL;
	json_t *out = NULL;
	struct errlist el;
	int c, status = 0, which = 0; /* 1 after --base, 2 after --head */

	compare_options_init(&opt);
	errlist_init(&el);
	dt = direction_table_new();
	optind = 1;
	/* Paths after --base or --head belong to it until the next option. */
	while ((c = getopt_long(argc, argv, "-h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'a':
			all = true;
			break;
		case 'm':
			if (strcmp(optarg, "robust") == 0)
				opt.method = COMPARE_ROBUST;
			else if (strcmp(optarg, "lkp") == 0)
				opt.method = COMPARE_LKP;
			else {
				log_warnx("unknown method '%s' (robust or lkp)",
					  optarg);
				status = 2;
			}
			break;
		case 'b':
		case 'H':
			which = c == 'b' ? 1 : 2;
			if (c == 'b') {
				base_paths = xreallocarray(base_paths, nbp + 1,
							   sizeof *base_paths);
				base_paths[nbp++] = optarg;
			} else {
				head_paths = xreallocarray(head_paths, nhp + 1,
							   sizeof *head_paths);
				head_paths[nhp++] = optarg;
			}
			break;
		case 1: /* a path after --base P or --head P */
			if (which == 1) {
				base_paths = xreallocarray(base_paths, nbp + 1,
							   sizeof *base_paths);
				base_paths[nbp++] = optarg;
			} else if (which == 2) {
				head_paths = xreallocarray(head_paths, nhp + 1,
							   sizeof *head_paths);
				head_paths[nhp++] = optarg;
			} else {
				log_warnx("'%s': say whether it is --base or "
					  "--head",
					  optarg);
				status = 2;
			}
			break;
		case 'e': {
			char *end;

			opt.min_effect_pct = strtod(optarg, &end);
			if (*end != '\0' || !(opt.min_effect_pct >= 0 &&
					      opt.min_effect_pct < 1000)) {
				log_warnx(
					"--min-effect wants a percentage, not "
					"'%s'",
					optarg);
				status = 2;
			}
			break;
		}
		case 'd': {
			struct buf text;

			buf_init(&text);
			if (!buf_add_file(&text, optarg, 4 * 1024 * 1024)) {
				log_warn("cannot read '%s'", optarg);
				status = 2;
			} else if (!direction_table_add(dt, optarg, text.data,
							text.len, &el)) {
				status = 2;
			}
			buf_release(&text);
			break;
		}
		case 's':
			free(server);
			server = xstrdup(optarg);
			break;
		case 'S':
			series = optarg;
			break;
		case 'h':
			compare_usage(stdout);
			goto out;
		default:
			compare_usage(stderr);
			status = 2;
			goto out;
		}
		if (c != 'b' && c != 'H' && c != 1)
			which = 0;
	}
	if (status == 0 && (nbp == 0 || nhp == 0)) {
		log_warnx("give the runs of both commits: --base and --head");
		compare_usage(stderr);
		status = 2;
	}
	if (status != 0)
		goto out;

	if (series != NULL) {
		json_t *b, *h;

		if (nbp != 1 || nhp != 1) {
			log_warnx("with --series, --base and --head are one "
				  "commit each");
			status = 2;
			goto out;
		}
		if (!cmd_server_endpoint(&server)) {
			status = 2;
			goto out;
		}
		b = cmd_fetch_results(server, series, base_paths[0]);
		h = b ? cmd_fetch_results(server, series, head_paths[0]) : NULL;
		if (h == NULL) {
			json_decref(b);
			status = 1;
			goto out;
		}
		(void)result_add_json(base_paths[0], b, &base, &nbase, &el);
		(void)result_add_json(head_paths[0], h, &head, &nhead, &el);
		json_decref(b);
		json_decref(h);
	} else if (server != NULL) {
		log_warnx("--server needs --series KEY/TBOX_GROUP");
		status = 2;
		goto out;
	}
	for (size_t i = 0; series == NULL && i < nbp; i++)
		(void)result_load_path(base_paths[i], &base, &nbase, &el);
	for (size_t i = 0; series == NULL && i < nhp; i++)
		(void)result_load_path(head_paths[i], &head, &nhead, &el);
	if (el.nerrors > 0)
		goto out;
	if (nbase == 0 || nhead == 0) {
		log_warnx("no result documents on the %s side",
			  nbase == 0 ? "base" : "head");
		status = 2;
		goto out;
	}
	for (size_t i = 0; i < nbase; i++)
		group_add(&bg, &nbg, &base[i]);
	for (size_t i = 0; i < nhead; i++)
		group_add(&hg, &nhg, &head[i]);
	if (nbg == 1 && nhg == 1 && strcmp(bg[0].series, hg[0].series) != 0) {
		errlist_error(&el, "compare", 0,
			      "the base runs are of series '%s' and the head "
			      "runs of '%s': only runs of one series can be "
			      "compared",
			      bg[0].series, hg[0].series);
		goto out;
	}
	if (json)
		out = json_array();
	for (size_t i = 0; i < nbg; i++) {
		struct group *h = group_find(hg, nhg, bg[i].series);
		struct comparison *cmp;
		char prefix[128];

		if (h == NULL) {
			log_warnx("series '%s' has only base runs; not "
				  "compared",
				  bg[i].series);
			continue;
		}
		cmp = comparison_new(
			bg[i].series, (const struct result *const *)bg[i].runs,
			bg[i].n, (const struct result *const *)h->runs, h->n,
			&opt, dt,
			kpi_prefix_of(bg[i].runs[0], prefix, sizeof prefix),
			&el);
		if (cmp == NULL)
			continue;
		for (int s = 0; s < 2; s++) {
			const struct comparison_side *side =
				s == 0 ? &cmp->base : &cmp->head;

			if (side->failed + side->incomplete > 0)
				log_warnx("%s: left out %zu failed and %zu "
					  "incomplete %s runs",
					  cmp->series, side->failed,
					  side->incomplete,
					  s == 0 ? "base" : "head");
		}
		if (json)
			json_array_append_new(out, comparison_to_json(cmp));
		else
			print_text(cmp, all);
		comparison_free(cmp);
	}
	for (size_t i = 0; i < nhg; i++)
		if (group_find(bg, nbg, hg[i].series) == NULL)
			log_warnx(
				"series '%s' has only head runs; not compared",
				hg[i].series);
	if (json) {
		json_t *doc = json_pack("{s:o}", "comparisons", out);

		out = NULL;
		if (!rjson_print(doc, stdout))
			status = 1;
		json_decref(doc);
	}
out:
	if (el.n > 0) {
		errlist_print(&el, stderr);
		if (el.nerrors > 0 && status == 0)
			status = 2;
	}
	json_decref(out);
	for (size_t i = 0; i < nbg; i++)
		free(bg[i].runs);
	for (size_t i = 0; i < nhg; i++)
		free(hg[i].runs);
	free(bg);
	free(hg);
	for (size_t i = 0; i < nbase; i++)
		result_release(&base[i]);
	for (size_t i = 0; i < nhead; i++)
		result_release(&head[i]);
	free(base);
	free(head);
	free(base_paths);
	free(head_paths);
	free(server);
	direction_table_free(dt);
	errlist_release(&el);
	return status;
}
