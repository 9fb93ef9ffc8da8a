/*
 * changes.c: robot changes FILE: the change points of a history, read
 * from a CSV or JSON file (history.h) and found offline by the method
 * robotd uses (changes.h).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/changes.h"
#include "robot/analysis/history.h"
#include "robot/core/buf.h"
#include "robot/core/errlist.h"
#include "robot/core/log.h"
#include "robot/core/num.h"
#include "robot/core/rjson.h"
#include "robot/core/str.h"
#include "robot/cli/cli.h"
#include "robot/cli/commands.h"
#include "robot/core/banned.h"

/* The largest history file read. */
#define CHANGES_FILE_MAX (256u << 20)

static const char changes_usage[] =
	"usage: robot changes [--json] [--min-effect P] [--alpha A] FILE\n"
	"\n"
	"The change points of a history: where, along its commits, the\n"
	"level of one series' metric changed.  FILE (\"-\": the standard\n"
	"input) is CSV, commit,value lines in commit order (a commit's\n"
	"runs on several lines; a header line may come first), or JSON,\n"
	"[{\"commit\": \"...\", \"values\": [...]}, ...].\n"
	"  --min-effect P  the smallest change that counts, in % (2, or "
	"2%)\n"
	"  --alpha A       false change points per segment tested "
	"(0.001)\n"
	"  --json          the change points as a JSON array\n"
	"docs/statistics.md has the method and its measured errors.\n";

struct changes_args {
	struct changes_options opt;
	bool bad;
};

/* A number from lo to hi (exclusive) at arg, with an optional '%'. */
static bool
parse_number(const char *arg, bool percent, double lo, double hi, double *out)
{
	char *end;

	*out = strtod(arg, &end);
	if (percent && end != arg && *end == '%')
		end++;
	return end != arg && *end == '\0' && *out >= lo && *out < hi;
}

static bool
changes_option(int c, const char *arg, void *ctx)
{
	struct changes_args *a = ctx;

	if (c == 'e' &&
	    !parse_number(arg, true, 0, 1000, &a->opt.min_effect_pct)) {
		log_warnx("--min-effect wants a percentage from 0 to 1000 (2, "
			  "or 2%%), not '%s'",
			  arg);
		a->bad = true;
	}
	if (c == 'a' && (!parse_number(arg, false, 0, 0.5, &a->opt.alpha) ||
			 a->opt.alpha < 1e-6)) {
		log_warnx("--alpha wants a number from 0.000001 to 0.5, not "
			  "'%s'",
			  arg);
		a->bad = true;
	}
	return true;
}

static void
print_text(const struct history *h, const struct change_point *cp, size_t ncp)
{
	if (ncp == 0) {
		printf("no change point in %zu points (%zu runs)\n", h->n,
		       h->runs);
		return;
	}
	printf("%zu change point%s in %zu points (%zu runs):\n", ncp,
	       ncp == 1 ? "" : "s", h->n, h->runs);
	printf("%6s  %-12s %9s %9s  %-24s %s\n", "index", "commit", "%change",
	       "p", "before (points: mean)", "after");
	for (size_t i = 0; i < ncp; i++) {
		const struct change_point *c = &cp[i];
		char *commit = str_quote(h->pts[c->index].commit);
		char change[32], before[64], after[64];

		num_pct(change, sizeof change, c->change_pct, "-");
		snprintf(before, sizeof before, "%zu-%zu: %.6g", c->from,
			 c->index - 1, c->before);
		snprintf(after, sizeof after, "%zu-%zu: %.6g", c->index,
			 c->to - 1, c->after);
		printf("%6zu  %-12.12s %9s %9.2g  %-24s %s\n", c->index, commit,
		       change, c->p, before, after);
		free(commit);
	}
}

static bool
print_json(const struct history *h, const struct change_point *cp, size_t ncp)
{
	json_t *list = history_changes_json(h, cp, ncp);
	bool ok = rjson_print(list, stdout);

	json_decref(list);
	return ok;
}

int
cmd_changes(int argc, char **argv)
{
	static const struct option own[] = {
		{"min-effect", required_argument, NULL, 'e'},
		{"alpha", required_argument, NULL, 'a'},
		{NULL, 0, NULL, 0}};
	static const struct cli_command cmd = {changes_usage, CLI_JSON, own,
					       NULL, changes_option};
	struct changes_args a = {.bad = false};
	struct cli_args ca;
	struct errlist el;
	struct history h;
	struct buf text;
	struct change_point *cp;
	const char *file;
	size_t ncp;
	int status;

	changes_options_init(&a.opt);
	status = cli_options(argc, argv, &cmd, &a, &ca);
	if (status == -1 && a.bad)
		status = 2;
	if (status == -1 && optind + 1 != argc) {
		log_warnx(optind == argc ? "give the history's FILE"
					 : "one FILE at a time");
		status = cli_usage_error(&cmd);
	}
	if (status != -1) {
		cli_args_release(&ca);
		return status;
	}
	file = argv[optind];
	buf_init(&text);
	if (!buf_add_file(&text, strcmp(file, "-") == 0 ? "/dev/stdin" : file,
			  CHANGES_FILE_MAX)) {
		log_warn("cannot read '%s'", file);
		buf_release(&text);
		cli_args_release(&ca);
		return 2;
	}
	if (text.len > CHANGES_FILE_MAX) {
		log_warnx("'%s' is larger than %u MB", file,
			  CHANGES_FILE_MAX >> 20);
		buf_release(&text);
		cli_args_release(&ca);
		return 2;
	}
	errlist_init(&el);
	if (!history_load(&h, strcmp(file, "-") == 0 ? "<stdin>" : file,
			  text.data, text.len, &el)) {
		errlist_print(&el, stderr);
		errlist_release(&el);
		buf_release(&text);
		cli_args_release(&ca);
		return 2;
	}
	errlist_release(&el);
	buf_release(&text);
	ncp = changes_find(h.pts, h.n, &a.opt, &cp);
	status = 0;
	if (ca.json) {
		if (!print_json(&h, cp, ncp))
			status = 1;
	} else
		print_text(&h, cp, ncp);
	free(cp);
	history_release(&h);
	cli_args_release(&ca);
	return status;
}
