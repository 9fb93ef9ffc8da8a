/*
 * jobs.c: robot jobs cancel: cancels queued runs.
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

static const char jobs_usage[] =
	"usage: robot jobs cancel --job ID | --submission ID | --series "
	"SERIES\n"
	"                         [--server URL] [--token T]\n"
	"Cancels queued runs (leased runs finish).\n"
	"  --job ID       one run\n"
	"  --submission ID\n"
	"                 the runs of a submission (robot submit prints its "
	"ID)\n"
	"  --series SERIES\n"
	"                 the runs of a series, "
	"KEY/TBOX_GROUP\n" CLI_HELP_SERVER CLI_HELP_TOKEN
	"                 (a submit token)\n";

/* --job, --submission, --series: what to cancel, as the body. */
static bool
jobs_option(int c, const char *arg, void *ctx)
{
	char **body = ctx, *end;
	long long id;
	json_t *j;

	free(*body);
	*body = NULL;
	if (c == 'e') {
		j = json_pack("{s:s}", "series", arg);
		*body = rjson_dumps(j, JSON_COMPACT);
		json_decref(j);
		return true;
	}
	id = strtoll(arg, &end, 10);
	if (end == arg || *end != '\0' || id <= 0) {
		log_warnx("--%s wants an id, not '%s'",
			  c == 'J' ? "job" : "submission", arg);
		return false;
	}
	*body = xasprintf("{\"%s\": %lld}", c == 'J' ? "job" : "submission",
			  id);
	return true;
}

int
cmd_jobs(int argc, char **argv)
{
	static const struct option own[] = {
		{"job", required_argument, NULL, 'J'},
		{"submission", required_argument, NULL, 'S'},
		{"series", required_argument, NULL, 'e'},
		{NULL, 0, NULL, 0},
	};
	static const struct cli_command cmd = {
		jobs_usage, CLI_SERVER | CLI_TOKEN, own, NULL, jobs_option};
	struct cli_args a = {NULL, NULL, false};
	char *body = NULL;
	json_t *j;
	int status = 2;

	if (argc > 1 &&
	    (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0)) {
		fputs(jobs_usage, stdout);
		return 0;
	}
	if (argc < 2 || strcmp(argv[1], "cancel") != 0)
		return cli_usage_error(&cmd);
	/* After "cancel", as a command of its own. */
	status = cli_options(argc - 1, argv + 1, &cmd, &body, &a);
	if (status == -1 && (body == NULL || optind != argc - 1))
		status = cli_usage_error(&cmd);
	if (status == -1 && !cli_endpoint(&a.server, &a.token, true))
		status = 2;
	if (status == -1) {
		status = 1;
		if ((j = cli_call("POST", a.server, "/api/jobs/cancel", a.token,
				  body, strlen(body), 200, "cancel")) != NULL) {
			printf("cancelled %lld queued runs\n",
			       (long long)json_integer_value(
				       json_object_get(j, "cancelled")));
			json_decref(j);
			status = 0;
		}
	}
	cli_args_release(&a);
	free(body);
	return status;
}
