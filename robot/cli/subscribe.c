/*
 * subscribe.c: robot subscribe: asks robotd to mail its reports to an address (double opt-in).
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

static const char subscribe_usage[] =
	"usage: robot subscribe EMAIL [--tree GLOB] [--branch GLOB]\n"
	"                       [--testcase GLOB] [--metric GLOB] "
	"[--min-change P]\n"
	"                       [--improvements] [--no-regressions] "
	"[--server URL]\n"
	"                       [--token T]\n"
	"Asks robotd to mail its reports to EMAIL.  robotd mails a link to "
	"confirm\n"
	"first, and nothing else until it is followed.  Without filters, "
	"every report.\n"
	"  --tree, --branch, --testcase, --metric GLOB   only what matches "
	"(fnmatch)\n"
	"  --min-change P   only changes of at least P% (5 or 5%)\n"
	"  --improvements   improvements too (not sent otherwise)\n"
	"  --no-regressions improvements only\n" CLI_HELP_SERVER CLI_HELP_TOKEN
	"                 (optional: a submit or admin token's requests\n"
	"                 are not limited as an anonymous client's)\n";

/* The filters, into the subscription (robotd checks them). */
static bool
subscribe_option(int c, const char *arg, void *ctx)
{
	json_t *sub = ctx;

	switch (c) {
	case 'T':
	case 'b':
	case 'c':
	case 'm':
		json_object_set_new(sub,
				    c == 'T'   ? "tree"
				    : c == 'b' ? "branch"
				    : c == 'c' ? "testcase"
					       : "metric",
				    json_string(arg));
		break;
	case 'n': /* "5", "5%" */
		json_object_set_new(sub, "min_change", json_string(arg));
		break;
	case 'i':
		json_object_set_new(sub, "improvements", json_true());
		break;
	case 'r':
		json_object_set_new(sub, "regressions", json_false());
		break;
	}
	return true;
}

int
cmd_subscribe(int argc, char **argv)
{
	static const struct option own[] = {
		{"tree", required_argument, NULL, 'T'},
		{"branch", required_argument, NULL, 'b'},
		{"testcase", required_argument, NULL, 'c'},
		{"metric", required_argument, NULL, 'm'},
		{"min-change", required_argument, NULL, 'n'},
		{"improvements", no_argument, NULL, 'i'},
		{"no-regressions", no_argument, NULL, 'r'},
		{NULL, 0, NULL, 0},
	};
	static const struct cli_command cmd = {subscribe_usage,
					       CLI_SERVER | CLI_TOKEN, own,
					       NULL, subscribe_option};
	json_t *sub = json_object(), *j;
	struct cli_args a;
	char *body;
	int status = cli_options(argc, argv, &cmd, sub, &a);

	if (status == -1 && optind + 1 != argc)
		status = cli_usage_error(&cmd);
	if (status == -1 && !cli_endpoint(&a.server, &a.token, false))
		status = 1;
	if (status == -1) {
		json_object_set_new(sub, "email", json_string(argv[optind]));
		body = rjson_dumps(sub, JSON_COMPACT);
		j = cli_call("POST", a.server, "/api/subscriptions", a.token,
			     body, strlen(body), 202, argv[optind]);
		free(body);
		status = 1;
		if (j != NULL) {
			printf("%s\n", cli_shown(j, "message"));
			json_decref(j);
			status = 0;
		}
	}
	json_decref(sub);
	cli_args_release(&a);
	return status;
}
