/*
 * mute.c: robot mute, robot mutes, robot unmute: findings of a series, a
 * metric pattern or a box recorded and not mailed for a while
 * (docs/reports.md, "Muting").
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "robot/analysis/triage.h"
#include "robot/cli/cli.h"
#include "robot/cli/commands.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

static const char mute_usage[] =
	"usage: robot mute [--server URL] [--token T] [--json] "
	"series|metric|box PATTERN\n"
	"                  --for DURATION --reason WHY\n"
	"Findings of a series, of the metrics a glob matches "
	"('fsmark.*'), or that a box\nran, are recorded and shown as "
	"muted, not mailed, for DURATION (N and h, d or\nw: 30d; at most "
	"365 days).  Muting the same again moves its end.  A triage or\n"
	"admin token.\n" CLI_HELP_SERVER CLI_HELP_TOKEN;

struct mute_args {
	const char *dur, *reason;
};

static bool
mute_option(int c, const char *arg, void *ctx)
{
	struct mute_args *m = ctx;

	if (c == 'f')
		m->dur = arg;
	else if (c == 'r')
		m->reason = arg;
	return true;
}

static void
print_mute(json_t *j)
{
	printf("mute %lld: %s %s until %.16s (%s); %lld finding%s muted\n",
	       (long long)json_integer_value(json_object_get(j, "id")),
	       cli_shown(j, "kind"), cli_shown(j, "pattern"),
	       cli_shown(j, "expires"), cli_shown(j, "reason"),
	       (long long)json_integer_value(json_object_get(j, "findings")),
	       json_integer_value(json_object_get(j, "findings")) == 1 ? ""
								       : "s");
}

int
cmd_mute(int argc, char **argv)
{
	static const struct option own[] = {
		{"for", required_argument, NULL, 'f'},
		{"reason", required_argument, NULL, 'r'},
		{NULL, 0, NULL, 0},
	};
	static const struct cli_command cmd = {
		mute_usage, CLI_SERVER | CLI_TOKEN | CLI_JSON, own, NULL,
		mute_option};
	struct mute_args m = {NULL, NULL};
	struct cli_args a;
	const char *kind = NULL;
	json_t *req, *j;
	char *body;
	int status = cli_options(argc, argv, &cmd, &m, &a);

	if (status == -1 && optind + 2 != argc) {
		status = cli_usage_error(&cmd);
	} else if (status == -1) {
		kind = argv[optind];
		if (strcmp(kind, "series") != 0 &&
		    strcmp(kind, "metric") != 0 && strcmp(kind, "box") != 0) {
			log_warnx("mute what: series, metric or box, not '%s'",
				  kind);
			status = 2;
		} else if (m.dur == NULL ||
			   triage_duration(m.dur, strlen(m.dur)) == 0) {
			log_warnx("--for wants how long: N and h, d or w "
				  "(30d), at most 365 days");
			status = 2;
		} else if (m.reason == NULL || m.reason[0] == '\0') {
			log_warnx("--reason wants why: the lab note says it "
				  "when the mute expires");
			status = 2;
		}
	}
	if (status == -1 && !cli_endpoint(&a.server, &a.token, true))
		status = 2;
	if (status == -1) {
		req = json_pack("{s:s, s:s, s:s, s:s, s:s}", "kind", kind,
				"pattern", argv[optind + 1], "for", m.dur,
				"reason", m.reason, "how", "cli");
		body = json_dumps(req, JSON_COMPACT);
		j = cli_call("POST", a.server, "/api/mutes", a.token, body,
			     strlen(body), 200, "mute");
		status = j != NULL ? 0 : 1;
		if (j != NULL && a.json) {
			json_dumpf(j, stdout, JSON_INDENT(2));
			printf("\n");
		} else if (j != NULL) {
			print_mute(j);
		}
		json_decref(j);
		json_decref(req);
		free(body);
	}
	cli_args_release(&a);
	return status;
}

static const char mutes_usage[] =
	"usage: robot mutes [--server URL] [--json]\n"
	"The mutes, the active ones first.\n" CLI_HELP_SERVER;

static void
print_mutes(json_t *j, void *ctx)
{
	json_t *list = json_object_get(j, "mutes"), *m;
	size_t i;

	(void)ctx;
	if (json_array_size(list) == 0) {
		printf("no mutes\n");
		return;
	}
	printf("%-5s %-7s %-30s %-17s %-8s %s\n", "ID", "KIND", "PATTERN",
	       "UNTIL", "FINDINGS", "REASON");
	json_array_foreach(list, i, m)
	{
		char until[32];

		snprintf(until, sizeof until, "%.16s%s",
			 rjson_get_str(m, "ended") ? cli_shown(m, "ended")
						   : cli_shown(m, "expires"),
			 rjson_get_str(m, "ended") ? " (ended)"
			 : json_is_true(json_object_get(m, "active"))
				 ? ""
				 : " (expired)");
		printf("%-5lld %-7s %-30s %-17s %-8lld %s\n",
		       (long long)json_integer_value(json_object_get(m, "id")),
		       cli_shown(m, "kind"), cli_shown(m, "pattern"), until,
		       (long long)json_integer_value(
			       json_object_get(m, "findings")),
		       cli_shown(m, "reason"));
	}
}

int
cmd_mutes(int argc, char **argv)
{
	static const struct cli_command cmd = {mutes_usage,
					       CLI_SERVER | CLI_JSON};
	struct cli_args a;
	int status = cli_options(argc, argv, &cmd, NULL, &a);

	if (status == -1 && optind != argc)
		status = cli_usage_error(&cmd);
	if (status == -1)
		status = cli_get_print(&a, "/api/mutes", print_mutes, NULL);
	cli_args_release(&a);
	return status;
}

static const char unmute_usage[] =
	"usage: robot unmute [--server URL] [--token T] ID\n"
	"Ends mute ID now: its findings are no longer muted (those not "
	"reported yet\nare reported).  A triage or admin "
	"token.\n" CLI_HELP_SERVER CLI_HELP_TOKEN;

int
cmd_unmute(int argc, char **argv)
{
	static const struct cli_command cmd = {unmute_usage,
					       CLI_SERVER | CLI_TOKEN};
	struct cli_args a;
	long long id = 0;
	char *path, *what;
	json_t *j;
	int status = cli_options(argc, argv, &cmd, NULL, &a);

	if (status == -1 && optind + 1 != argc) {
		status = cli_usage_error(&cmd);
	} else if (status == -1 && !cli_id(argv[optind], &id)) {
		log_warnx("'%s' is not a mute's ID (robot mutes lists them)",
			  argv[optind]);
		status = 2;
	}
	if (status == -1 && !cli_endpoint(&a.server, &a.token, true))
		status = 2;
	if (status == -1) {
		path = xasprintf("/api/mutes/%lld/end", id);
		what = xasprintf("mute %lld", id);
		j = cli_call("POST", a.server, path, a.token, NULL, 0, 200,
			     what);
		if (j != NULL)
			printf("mute %lld ended: %s %s\n", id,
			       cli_shown(j, "kind"), cli_shown(j, "pattern"));
		status = j != NULL ? 0 : 1;
		json_decref(j);
		free(path);
		free(what);
	}
	cli_args_release(&a);
	return status;
}
