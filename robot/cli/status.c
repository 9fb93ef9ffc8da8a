/*
 * status.c: robot status: robotd's queue, boxes and running jobs.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/cli/cli.h"
#include "robot/cli/commands.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

static void
print_status(json_t *j, void *ctx)
{
	(void)ctx;
	json_t *queue = json_object_get(j, "queue");
	json_t *boxes = json_object_get(j, "boxes");
	json_t *running = json_object_get(j, "running");
	json_t *analysis = json_object_get(j, "analysis");

	printf("queue: %lld queued, %lld running, %lld done, %lld failed, "
	       "%lld cancelled\n",
	       (long long)json_integer_value(json_object_get(queue, "queued")),
	       (long long)json_integer_value(json_object_get(queue, "leased")),
	       (long long)json_integer_value(json_object_get(queue, "done")),
	       (long long)json_integer_value(json_object_get(queue, "failed")),
	       (long long)json_integer_value(
		       json_object_get(queue, "cancelled")));
	printf("analysis: %lld pairs waiting for runs, %lld being analysed, "
	       "%lld final\n",
	       (long long)json_integer_value(
		       json_object_get(analysis, "waiting")),
	       (long long)json_integer_value(
		       json_object_get(analysis, "analysing")),
	       (long long)json_integer_value(
		       json_object_get(analysis, "final")));
	printf("\nboxes: %zu\n", json_array_size(boxes));
	if (json_array_size(boxes) > 0)
		printf("  %-20s %-16s %-7s %-8s %s\n", "NAME", "GROUP", "STATE",
		       "FAILURES", "LAST SEEN");
	for (size_t i = 0; i < json_array_size(boxes); i++) {
		json_t *b = json_array_get(boxes, i);

		printf("  %-20s %-16s %-7s %-8lld %.19s\n",
		       cli_shown(b, "name"), cli_shown(b, "tbox_group"),
		       cli_shown(b, "state"),
		       (long long)json_integer_value(
			       json_object_get(b, "failures")),
		       cli_shown(b, "last_seen"));
	}
	if (json_array_size(json_object_get(j, "failed")) > 0)
		printf("\nfailed lately:\n");
	for (size_t i = 0; i < json_array_size(json_object_get(j, "failed"));
	     i++) {
		json_t *x = json_array_get(json_object_get(j, "failed"), i);

		printf("  job %lld: %s at %.12s on %s: %s\n",
		       (long long)json_integer_value(json_object_get(x, "id")),
		       cli_shown(x, "series"), cli_shown(x, "commit"),
		       cli_shown(x, "box"), cli_shown(x, "error"));
	}
	/* What robotd tells the lab's operators: boxes too noisy. */
	if (json_array_size(json_object_get(j, "notes")) > 0)
		printf("\nlab notes:\n");
	for (size_t i = 0; i < json_array_size(json_object_get(j, "notes"));
	     i++) {
		json_t *x = json_array_get(json_object_get(j, "notes"), i);
		const char *m = rjson_get_str(x, "message");
		/* (whole: a note names its box, its series and the runs it
		 * would need, and was cut at 200 characters) */
		char *msg = str_printable(m ? m : "-", m ? strlen(m) : 1, 2000);

		printf("  %.19s %s\n", cli_shown(x, "created"), msg);
		free(msg);
	}
	printf("\nrunning: %zu\n", json_array_size(running));
	for (size_t i = 0; i < json_array_size(running); i++) {
		json_t *x = json_array_get(running, i);

		printf("  job %lld on %s: %s at %.12s, run %lld/%lld, attempt "
		       "%lld, lease until %.19s\n",
		       (long long)json_integer_value(json_object_get(x, "id")),
		       cli_shown(x, "box"), cli_shown(x, "key"),
		       cli_shown(x, "commit"),
		       (long long)json_integer_value(json_object_get(x, "run")),
		       (long long)json_integer_value(
			       json_object_get(x, "runs")),
		       (long long)json_integer_value(
			       json_object_get(x, "attempts")),
		       cli_shown(x, "deadline"));
	}
}

static const char status_usage[] =
	"usage: robot status [--server URL] [--json]\n"
	"The queue, the boxes and the running jobs.\n" CLI_HELP_SERVER;

int
cmd_status(int argc, char **argv)
{
	struct cli_args a;
	static const struct cli_command cmd = {status_usage,
					       CLI_SERVER | CLI_JSON};
	int status = cli_options(argc, argv, &cmd, NULL, &a);

	if (status == -1 && optind != argc)
		status = cli_usage_error(&cmd);
	if (status == -1)
		status = cli_get_print(&a, "/api/status", print_status, NULL);
	cli_args_release(&a);
	return status;
}
