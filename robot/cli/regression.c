/*
 * regression.c: robot regression: one regression with its comparison.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/cli/cli.h"
#include "robot/cli/commands.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

/* The newest "measured" event: the pair measured again since its report,
 * whose figures (above) stay as mailed. */
static void
print_measured(json_t *r)
{
	json_t *e, *last = NULL;
	size_t i;
	char buf[32];

	json_array_foreach(json_object_get(r, "events"), i, e)
	{
		const char *kind = rjson_get_str(e, "kind");

		if (kind != NULL && strcmp(kind, "measured") == 0)
			last = e;
	}
	if (last == NULL)
		return;
	printf("measured since: %s",
	       cli_pct(last, "change_pct", buf, sizeof buf));
	if (json_is_number(json_object_get(last, "p_value")))
		printf(" (p %.2g,",
		       json_number_value(json_object_get(last, "p_value")));
	else
		printf(" (");
	printf(" %lld+%lld runs",
	       (long long)json_integer_value(
		       json_object_get(last, "base_runs")),
	       (long long)json_integer_value(
		       json_object_get(last, "head_runs")));
	if (json_integer_value(json_object_get(last, "submission")) > 0)
		printf(", submission %lld",
		       (long long)json_integer_value(
			       json_object_get(last, "submission")));
	printf("); the figures above are as mailed\n");
}

/* Its triage, and what people said of it, oldest first. */
static void
print_triage(json_t *r)
{
	json_t *e;
	size_t i;

	printf("triage  %s", cli_shown(r, "triage"));
	if (rjson_get_str(r, "triage_reason") != NULL)
		printf(" (%s)", cli_shown(r, "triage_reason"));
	if (rjson_get_str(r, "triage_text") != NULL)
		printf(": %s", cli_shown(r, "triage_text"));
	if (rjson_get_str(r, "assignee") != NULL)
		printf(", assignee %s", cli_shown(r, "assignee"));
	if (json_integer_value(json_object_get(r, "duplicate_of")) > 0)
		printf(", duplicate of %lld",
		       (long long)json_integer_value(
			       json_object_get(r, "duplicate_of")));
	if (rjson_get_str(r, "fix_claimed") != NULL)
		printf(", fixed by %s (%s)", cli_shown(r, "fix_claimed"),
		       rjson_get_str(r, "fix_confirmed") != NULL
			       ? "confirmed"
			       : "not measured yet");
	if (rjson_get_str(r, "bug_url") != NULL)
		printf(", bug %s", cli_shown(r, "bug_url"));
	printf("\n");
	if (json_is_object(json_object_get(r, "muted_by"))) {
		json_t *m = json_object_get(r, "muted_by");

		printf("muted   by mute %lld, %s %s (%s), until %.16s: "
		       "recorded, not mailed\n",
		       (long long)json_integer_value(json_object_get(m, "id")),
		       cli_shown(m, "kind"), cli_shown(m, "pattern"),
		       cli_shown(m, "reason"), cli_shown(m, "expires"));
	}
	json_array_foreach(json_object_get(r, "triage_events"), i, e)
	{
		printf("  %.16s %s (%s): %s%s%s\n", cli_shown(e, "created"),
		       cli_shown(e, "by"), cli_shown(e, "how"),
		       cli_shown(e, "action"),
		       rjson_get_str(e, "detail") != NULL ? " " : "",
		       rjson_get_str(e, "detail") != NULL
			       ? cli_shown(e, "detail")
			       : "");
	}
}

static void
print_regression(json_t *r, void *ctx)
{
	(void)ctx;
	char buf[32];
	const char *table = rjson_get_str(r, "table");
	json_t *p = json_object_get(r, "p_value");

	printf("%s %lld (%s): %s %s", cli_shown(r, "kind"),
	       (long long)json_integer_value(json_object_get(r, "id")),
	       cli_shown(r, "state"), cli_shown(r, "kpi"),
	       cli_pct(r, "change_pct", buf, sizeof buf));
	if (json_is_number(p) &&
	    json_is_integer(json_object_get(r, "base_runs")))
		printf(" (p %.2g, %lld+%lld runs)", json_number_value(p),
		       (long long)json_integer_value(
			       json_object_get(r, "base_runs")),
		       (long long)json_integer_value(
			       json_object_get(r, "head_runs")));
	else if (json_is_number(p))
		printf(" (p %.2g, %lld runs a side)", json_number_value(p),
		       (long long)json_integer_value(
			       json_object_get(r, "runs")));
	printf("\nseries  %s\n", cli_shown(r, "series"));
	/* The commit at fault once known, with where it was found. */
	if (json_is_object(json_object_get(r, "culprit"))) {
		json_t *c = json_object_get(r, "culprit");

		printf("commit  %s", cli_shown(c, "sha"));
		if (rjson_get_str(c, "subject") != NULL)
			printf(" (\"%s\")", cli_shown(c, "subject"));
		printf("\nfound   at %s (base %s)\n", cli_shown(r, "commit"),
		       cli_shown(r, "base"));
	} else
		printf("range   %s..%s (not bisected to one commit)\n",
		       cli_shown(r, "base"), cli_shown(r, "commit"));
	if (rjson_get_str(r, "tree") != NULL) {
		printf("tree    %s, branch %s, still at %s",
		       cli_shown(r, "tree"), cli_shown(r, "branch"),
		       cli_shown(r, "last_head"));
		/* what that later head showed (the figures above are the
		 * commit's it was found at) */
		if (json_is_number(json_object_get(r, "last_change_pct")))
			printf(": %s there",
			       cli_pct(r, "last_change_pct", buf, sizeof buf));
		printf("\n");
	}
	if (rjson_get_str(r, "fixed_by") != NULL)
		printf("fixed   by %s\n", cli_shown(r, "fixed_by"));
	if (json_is_object(json_object_get(r, "bisection"))) {
		json_t *b = json_object_get(r, "bisection");

		printf("bisection %lld: %s%s%s\n",
		       (long long)json_integer_value(json_object_get(b, "id")),
		       cli_shown(b, "state"),
		       rjson_get_str(b, "reason") ? ": " : "",
		       rjson_get_str(b, "reason") ? cli_shown(b, "reason")
						  : "");
	}
	printf("noticed %.19s, updated %.19s\n", cli_shown(r, "created"),
	       cli_shown(r, "updated"));
	print_measured(r);
	print_triage(r);
	printf("\n");
	if (table != NULL)
		fputs(table, stdout);
}

static const char regression_usage[] =
	"usage: robot regression [--server URL] [--json] ID\n"
	"One regression (or improvement) with its "
	"comparison.\n" CLI_HELP_SERVER;

int
cmd_regression(int argc, char **argv)
{
	struct cli_args a;
	char *path;
	long long id;
	static const struct cli_command cmd = {regression_usage,
					       CLI_SERVER | CLI_JSON};
	int status = cli_options(argc, argv, &cmd, NULL, &a);

	if (status == -1 && optind + 1 != argc) {
		log_warnx("regression wants one ID (robot regressions lists "
			  "them)");
		status = 2;
	} else if (status == -1 && !cli_id(argv[optind], &id)) {
		log_warnx("'%s' is not a regression's ID (a number)",
			  argv[optind]);
		status = 2;
	}
	if (status == -1) {
		path = xasprintf("/api/regressions/%lld", id);
		status = cli_get_print(&a, path, print_regression, NULL);
		free(path);
	}
	cli_args_release(&a);
	return status;
}
