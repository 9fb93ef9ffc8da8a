/*
 * token.c: robot token list: every token robotd knows (never a token
 * itself: only hashes are kept); robot token revoke ID (admin).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/cli/cli.h"
#include "robot/cli/commands.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

static const char token_usage[] =
	"usage: robot token list [--json] [--server URL] [--token T]\n"
	"       robot token revoke ID [--server URL] [--token T]\n"
	"list shows every token robotd knows: its id, kind, name and "
	"whether it was\nrevoked.  revoke makes token ID stop working at "
	"its next request (a box's\nlast token: the box is revoked, as "
	"robot box revoke does).\n" CLI_HELP_SERVER CLI_HELP_TOKEN
	"                 (an admin token)\n";

static void
print_tokens(json_t *j)
{
	json_t *list = json_object_get(j, "tokens"), *t;
	size_t i;

	if (json_array_size(list) == 0) {
		printf("no tokens\n");
		return;
	}
	printf("%-5s %-7s %-24s %-26s %s\n", "ID", "KIND", "NAME", "CREATED",
	       "REVOKED");
	json_array_foreach(list, i, t)
	{
		printf("%-5lld %-7s %-24s %-26s %s%s%s%s\n",
		       (long long)json_integer_value(json_object_get(t, "id")),
		       cli_shown(t, "kind"), cli_shown(t, "name"),
		       cli_shown(t, "created"),
		       rjson_get_str(t, "revoked") ? cli_shown(t, "revoked")
						   : "-",
		       rjson_get_str(t, "revoked_by") ? " by " : "",
		       rjson_get_str(t, "revoked_by")
			       ? cli_shown(t, "revoked_by")
			       : "",
		       json_is_true(json_object_get(t, "enrolled"))
			       ? "  (enrolled)"
			       : "");
	}
}

static int
token_revoke(int argc, char **argv)
{
	static const struct cli_command cmd = {token_usage,
					       CLI_SERVER | CLI_TOKEN};
	struct cli_args a = {NULL, NULL, false};
	const char *id;
	char *path, *end;
	json_t *j;
	int status = cli_options(argc, argv, &cmd, NULL, &a);

	if (status == -1 && optind + 1 != argc)
		status = cli_usage_error(&cmd);
	if (status == -1) {
		id = argv[optind];
		if (strtoll(id, &end, 10) <= 0 || *end != '\0') {
			fprintf(stderr,
				"robot: token revoke: '%s' is not a "
				"token's id (robot token list shows "
				"them)\n",
				id);
			status = 2;
		}
	}
	if (status == -1 && !cli_endpoint(&a.server, &a.token, true))
		status = 1;
	if (status == -1) {
		path = xasprintf("/api/tokens/%s/revoke", id);
		status = 1;
		if ((j = cli_call("POST", a.server, path, a.token, NULL, 0, 200,
				  id)) != NULL) {
			printf("token %s (%s %s) revoked\n", id,
			       cli_shown(j, "kind"), cli_shown(j, "name"));
			json_decref(j);
			status = 0;
		}
		free(path);
	}
	cli_args_release(&a);
	return status;
}

int
cmd_token(int argc, char **argv)
{
	if (argc > 1 &&
	    (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0)) {
		fputs(token_usage, stdout);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "list") == 0)
		return cli_admin_list(argc - 1, argv + 1, token_usage,
				      "/api/tokens", print_tokens);
	if (argc > 1 && strcmp(argv[1], "revoke") == 0)
		return token_revoke(argc - 1, argv + 1);
	fputs(token_usage, stderr);
	return 2;
}
