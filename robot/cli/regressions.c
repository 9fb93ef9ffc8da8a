/*
 * regressions.c: robot regressions: what robotd found, newest first.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/cli/cli.h"
#include "robot/cli/commands.h"
#include "robot/core/buf.h"
#include "robot/core/client.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

static void
print_regressions(json_t *j, void *ctx)
{
	json_t *list = json_object_get(j, "regressions");
	char buf[32];

	(void)ctx;
	if (json_array_size(list) == 0) {
		printf("no regressions or improvements found\n");
		return;
	}
	printf("%-6s %-11s %-9s %-12s %8s  %-28s %-22s %-10s %s\n", "ID",
	       "KIND", "STATE", "TRIAGE", "CHANGE", "KPI", "COMMIT", "FOUND AT",
	       "SERIES");
	for (size_t i = 0; i < json_array_size(list); i++) {
		json_t *r = json_array_get(list, i);
		const char *culprit = rjson_get_str(r, "culprit");
		char blame[48];

		/* The commit at fault once known, else the range. */
		if (culprit != NULL)
			snprintf(blame, sizeof blame, "%.12s", culprit);
		else
			snprintf(blame, sizeof blame, "%.10s..%.10s",
				 cli_shown(r, "base"), cli_shown(r, "commit"));
		printf("%-6lld %-11s %-9s %-12s %8s  %-28s %-22s %-10.10s %s\n",
		       (long long)json_integer_value(json_object_get(r, "id")),
		       cli_shown(r, "kind"), cli_shown(r, "state"),
		       cli_shown(r, "triage"),
		       cli_pct(r, "change_pct", buf, sizeof buf),
		       cli_shown(r, "kpi"), blame, cli_shown(r, "commit"),
		       cli_shown(r, "series"));
	}
}

static const char regressions_usage[] =
	"usage: robot regressions [--server URL] [--state S] [--tree T]\n"
	"                         [--kind regression|improvement] "
	"[--since DATE]\n"
	"                         [--triage T] [--json]\n"
	"What robotd found, newest first.  --state: new, reported, "
	"bisecting, bisected,\nfixed or invalid (the report's); --triage: "
	"untriaged, acknowledged, invalid,\nwontfix, duplicate, fixed or "
	"recovered (what people said: robot triage).\n" CLI_HELP_SERVER;

/* --state, --tree, --kind, --since, --triage: the query's filters. */
static bool
regressions_option(int c, const char *arg, void *ctx)
{
	static const struct {
		int c;
		const char *name;
	} filters[] = {{'S', "state"},
		       {'T', "tree"},
		       {'k', "kind"},
		       {'d', "since"},
		       {'g', "triage"}};

	for (size_t i = 0; i < sizeof filters / sizeof filters[0]; i++)
		if (filters[i].c == c)
			cli_query_add(ctx, filters[i].name, arg);
	return true;
}

int
cmd_regressions(int argc, char **argv)
{
	static const struct option own[] = {
		{"state", required_argument, NULL, 'S'},
		{"tree", required_argument, NULL, 'T'},
		{"kind", required_argument, NULL, 'k'},
		{"since", required_argument, NULL, 'd'},
		{"triage", required_argument, NULL, 'g'},
		{NULL, 0, NULL, 0},
	};
	static const struct cli_command cmd = {regressions_usage,
					       CLI_SERVER | CLI_JSON, own, NULL,
					       regressions_option};
	struct cli_args a;
	struct buf query;
	char *path;
	int status;

	buf_init(&query);
	status = cli_options(argc, argv, &cmd, &query, &a);
	if (status == -1 && optind != argc)
		status = cli_usage_error(&cmd);
	if (status == -1) {
		path = xasprintf("/api/regressions%s", query.data);
		status = cli_get_print(&a, path, print_regressions, NULL);
		free(path);
	}
	buf_release(&query);
	cli_args_release(&a);
	return status;
}
