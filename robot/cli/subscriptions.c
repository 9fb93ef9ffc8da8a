/*
 * subscriptions.c: robot subscriptions: every subscription (admin).
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
print_subscriptions(json_t *j)
{
	json_t *list = json_object_get(j, "subscriptions"), *s;
	size_t i;

	if (json_array_size(list) == 0) {
		printf("no subscriptions\n");
		return;
	}
	printf("%-5s %-12s %-32s %s\n", "ID", "STATE", "EMAIL", "FILTERS");
	json_array_foreach(list, i, s)
	{
		printf("%-5lld %-12s %-32s",
		       (long long)json_integer_value(json_object_get(s, "id")),
		       cli_shown(s, "state"), cli_shown(s, "email"));
		if (json_string_value(json_object_get(s, "tree")))
			printf(" tree %s", cli_shown(s, "tree"));
		if (json_string_value(json_object_get(s, "branch")))
			printf(" branch %s", cli_shown(s, "branch"));
		if (json_string_value(json_object_get(s, "testcase")))
			printf(" testcase %s", cli_shown(s, "testcase"));
		if (json_string_value(json_object_get(s, "metric")))
			printf(" metric %s", cli_shown(s, "metric"));
		if (json_number_value(json_object_get(s, "min_change")) > 0)
			printf(" >= %g%%", json_number_value(json_object_get(
						   s, "min_change")));
		printf("%s%s\n",
		       json_is_true(json_object_get(s, "regressions"))
			       ? " regressions"
			       : "",
		       json_is_true(json_object_get(s, "improvements"))
			       ? " improvements"
			       : "");
	}
}

int
cmd_subscriptions(int argc, char **argv)
{
	return cli_admin_list(
		argc, argv,
		"usage: robot subscriptions [--json] [--server URL] "
		"[--token T]\n"
		"Every subscription to robotd's reports.\n" CLI_HELP_SERVER
			CLI_HELP_TOKEN "                 (an admin token)\n",
		"/api/subscriptions", print_subscriptions);
}
