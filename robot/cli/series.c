/*
 * series.c: robot series: the series robotd has runs of.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/cli/cli.h"
#include "robot/cli/commands.h"
#include "robot/core/client.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

static const char series_usage[] =
	"usage: robot series [--server URL] [--json] [PATTERN]\n"
	"The series robotd has runs of (those whose name holds "
	"PATTERN).\n" CLI_HELP_SERVER;

/* ctx: whether a pattern was given. */
static void
print_series(json_t *j, void *ctx)
{
	bool match = ctx != NULL;

	json_t *list = json_object_get(j, "series");

	for (size_t i = 0; i < json_array_size(list); i++) {
		json_t *x = json_array_get(list, i);

		printf("%s  (%lld commits, %lld runs)\n",
		       cli_shown(x, "series"),
		       (long long)json_integer_value(
			       json_object_get(x, "commits")),
		       (long long)json_integer_value(
			       json_object_get(x, "runs")));
	}
	if (json_array_size(list) == 0)
		printf("no series%s\n", match ? " match" : "");
}

int
cmd_series(int argc, char **argv)
{
	struct cli_args a;
	struct buf query;
	char *path;
	static const struct cli_command cmd = {series_usage,
					       CLI_SERVER | CLI_JSON};
	int status = cli_options(argc, argv, &cmd, NULL, &a);

	buf_init(&query);
	if (status == -1 && optind + 1 < argc)
		status = cli_usage_error(&cmd);
	if (status == -1) {
		if (optind < argc)
			cli_query_add(&query, "match", argv[optind]);
		path = xasprintf("/api/series%s", query.data);
		status = cli_get_print(&a, path, print_series,
				       optind < argc ? argv[optind] : NULL);
		free(path);
	}
	buf_release(&query);
	cli_args_release(&a);
	return status;
}
