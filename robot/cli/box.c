/*
 * box.c: robot box reset: a broken or suspect box back to work; robot
 * box revoke: a box out of the lab.
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

static const char box_usage[] =
	"usage: robot box reset|revoke NAME [--server URL] [--token T]\n"
	"reset makes a broken or suspect box take work again.\n"
	"revoke takes a box out of the lab: its token stops working, its "
	"leases end\nand their runs go back to the queue (to come back, "
	"it is enrolled again).\n" CLI_HELP_SERVER CLI_HELP_TOKEN
	"                 (an admin token)\n";

int
cmd_box(int argc, char **argv)
{
	static const struct cli_command cmd = {box_usage,
					       CLI_SERVER | CLI_TOKEN};
	struct cli_args a = {NULL, NULL, false};
	char *path, *e;
	const char *name, *verb;
	json_t *j;
	int status;

	if (argc > 1 &&
	    (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0)) {
		fputs(box_usage, stdout);
		return 0;
	}
	if (argc < 2 ||
	    (strcmp(argv[1], "reset") != 0 && strcmp(argv[1], "revoke") != 0))
		return cli_usage_error(&cmd);
	verb = argv[1];
	/* After the verb, as a command of its own. */
	status = cli_options(argc - 1, argv + 1, &cmd, NULL, &a);
	if (status == -1 && optind + 1 != argc - 1)
		status = cli_usage_error(&cmd);
	if (status == -1 && !cli_endpoint(&a.server, &a.token, true))
		status = 2;
	if (status == -1) {
		name = argv[1 + optind];
		e = client_escape(name);
		path = xasprintf("/api/boxes/%s/%s", e, verb);
		free(e);
		status = 1;
		if ((j = cli_call("POST", a.server, path, a.token, NULL, 0, 200,
				  name)) == NULL) {
			/* (cli_call said why) */
		} else if (strcmp(verb, "reset") == 0) {
			printf("box %s reset: it takes work again\n", name);
		} else {
			printf("box %s revoked: %lld token(s) revoked, %lld "
			       "lease(s) ended and their runs requeued\n",
			       name,
			       (long long)json_integer_value(
				       json_object_get(j, "tokens")),
			       (long long)json_integer_value(
				       json_object_get(j, "leases")));
		}
		if (j != NULL) {
			json_decref(j);
			status = 0;
		}
		free(path);
	}
	cli_args_release(&a);
	return status;
}
