/*
 * reports.c: robot reports: robotd's outbox of mails and posts (admin).
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

static void
print_outbox(json_t *j)
{
	json_t *counts = json_object_get(j, "counts"), *rows, *r;
	size_t i;

	printf("%lld reports; mails and posts: %lld pending, %lld sent, %lld "
	       "failed, %lld cancelled\n",
	       (long long)json_integer_value(json_object_get(j, "reports")),
	       (long long)json_integer_value(
		       json_object_get(counts, "pending")),
	       (long long)json_integer_value(json_object_get(counts, "sent")),
	       (long long)json_integer_value(json_object_get(counts, "failed")),
	       (long long)json_integer_value(
		       json_object_get(counts, "cancelled")));
	rows = json_object_get(j, "rows");
	if (json_array_size(rows) == 0)
		return;
	printf("%-6s %-7s %-9s %-8s %-32s %s\n", "ID", "REPORT", "STATE",
	       "CHANNEL", "TO", "SUBJECT / LAST ERROR");
	json_array_foreach(rows, i, r)
	{
		json_t *report = json_object_get(r, "report");
		char rep[32];

		if (json_is_integer(report))
			snprintf(rep, sizeof rep, "%lld",
				 (long long)json_integer_value(report));
		else
			snprintf(rep, sizeof rep, "-");
		printf("%-6lld %-7s %-9s %-8s %-32.32s %s\n",
		       (long long)json_integer_value(json_object_get(r, "id")),
		       rep, cli_shown(r, "state"), cli_shown(r, "channel"),
		       cli_shown(r, "recipient"), cli_shown(r, "subject"));
		if (json_string_value(json_object_get(r, "last_error")))
			printf("%66s%s (try %lld)\n", "",
			       cli_shown(r, "last_error"),
			       (long long)json_integer_value(
				       json_object_get(r, "attempts")));
	}
}

int
cmd_reports(int argc, char **argv)
{
	return cli_admin_list(
		argc, argv,
		"usage: robot reports [--limit N] [--json] [--server "
		"URL] [--token T]\n"
		"robotd's outbox (an admin token): the mails and "
		"webhook posts pending,\nfailing with their last "
		"error, and the newest sent.\n" CLI_HELP_SERVER CLI_HELP_TOKEN
		"                 (an admin token)\n",
		"/api/reports", print_outbox);
}
