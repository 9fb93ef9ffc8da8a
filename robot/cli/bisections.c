/*
 * bisections.c: robot bisections: robotd's bisections, or one with its steps.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/cli/cli.h"
#include "robot/cli/commands.h"
#include "robot/cli/show.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

static const char bisections_usage[] =
	"usage: robot bisections [--server URL] [--json] [ID]\n"
	"robotd's bisections, newest first, with their progress; or one "
	"with its\n"
	"steps.\n" CLI_HELP_SERVER;

static void
print_one(json_t *j, void *ctx)
{
	(void)ctx;
	show_bisection(j);
}

static void
print_all(json_t *j, void *ctx)
{
	(void)ctx;
	show_bisections(j);
}

int
cmd_bisections(int argc, char **argv)
{
	struct cli_args a;
	long long id = 0;
	char *path;
	static const struct cli_command cmd = {bisections_usage,
					       CLI_SERVER | CLI_JSON};
	int status = cli_options(argc, argv, &cmd, NULL, &a);

	if (status == -1 && (optind + 1 < argc ||
			     (optind < argc && !cli_id(argv[optind], &id)))) {
		log_warnx("robot bisections takes at most one bisection ID (a "
			  "number)");
		status = 2;
	}
	if (status == -1) {
		path = id ? xasprintf("/api/bisections/%lld", id)
			  : xstrdup("/api/bisections");
		status = cli_get_print(&a, path, id ? print_one : print_all,
				       NULL);
		free(path);
	}
	cli_args_release(&a);
	return status;
}
