/*
 * triage.c: robot triage: what a maintainer says of a finding, in the
 * language of the triage commands (robot/analysis/triage.h).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "robot/analysis/triage.h"
#include "robot/cli/cli.h"
#include "robot/cli/commands.h"
#include "robot/core/buf.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

static const char triage_usage[] =
	"usage: robot triage [--server URL] [--token T] [--json] ID "
	"COMMAND...\n"
	"What you say of regression ID (docs/reports.md, \"Triage\"):\n"
	"  ack [WHO]                  acknowledged; WHO looks at it\n"
	"  invalid: [box|test|noise|other:] WHY\n"
	"                             not a real change\n"
	"  wontfix: WHY               real, and it stays\n"
	"  dup-of: ID|URL             another finding's duplicate\n"
	"  fixed-by: SHA              a commit fixes it (robotd confirms it "
	"when it\n"
	"                             measures the fix)\n"
	"  note: TEXT                 a note\n"
	"  link: URL                  its bug\n"
	"  tag: NAME[, NAME...]       tags\n"
	"  untriage                   back to untriaged\n"
	"A triage or admin token may triage any finding; a submit token, "
	"those of its\nown runs.\n" CLI_HELP_SERVER CLI_HELP_TOKEN;

/* The finding's triage as robotd answered it. */
static void
print_triage(json_t *j)
{
	json_t *tags = json_object_get(j, "tags"), *t;
	size_t i;

	printf("regression %lld: %s",
	       (long long)json_integer_value(json_object_get(j, "id")),
	       cli_shown(j, "triage"));
	if (rjson_get_str(j, "triage_reason") != NULL)
		printf(" (%s)", cli_shown(j, "triage_reason"));
	if (rjson_get_str(j, "triage_text") != NULL)
		printf(": %s", cli_shown(j, "triage_text"));
	printf("\n");
	if (rjson_get_str(j, "assignee") != NULL)
		printf("assignee  %s\n", cli_shown(j, "assignee"));
	if (json_integer_value(json_object_get(j, "duplicate_of")) > 0)
		printf("duplicate of %lld\n",
		       (long long)json_integer_value(
			       json_object_get(j, "duplicate_of")));
	if (rjson_get_str(j, "fix_claimed") != NULL)
		printf("fixed by  %s (robotd confirms it when it measures "
		       "the fix)\n",
		       cli_shown(j, "fix_claimed"));
	if (rjson_get_str(j, "bug_url") != NULL)
		printf("bug       %s\n", cli_shown(j, "bug_url"));
	if (json_array_size(tags) > 0) {
		printf("tags     ");
		json_array_foreach(tags, i, t)
		{
			const char *s = json_string_value(t);
			char *shown = str_printable(
				s ? s : "", s ? strlen(s) : 0, TRIAGE_TAG_MAX);

			printf(" %s", shown);
			free(shown);
		}
		printf("\n");
	}
}

int
cmd_triage(int argc, char **argv)
{
	struct cli_args a;
	struct triage_cmd c;
	struct buf line;
	long long id = 0;
	char err[256], *path, *body, *what;
	json_t *req, *j;
	static const struct cli_command cmd = {
		triage_usage, CLI_SERVER | CLI_TOKEN | CLI_JSON};
	int status = cli_options(argc, argv, &cmd, NULL, &a);

	buf_init(&line);
	if (status == -1 && optind + 2 > argc) {
		status = cli_usage_error(&cmd);
	} else if (status == -1 && !cli_id(argv[optind], &id)) {
		log_warnx("'%s' is not a regression's ID (a number; robot "
			  "regressions lists them)",
			  argv[optind]);
		status = 2;
	}
	if (status == -1) {
		/* the command's words, as one line */
		for (int i = optind + 1; i < argc; i++)
			buf_addf(&line, "%s%s", i > optind + 1 ? " " : "",
				 argv[i]);
		/* (said here, before robotd: the same words refused there) */
		if (!triage_parse(line.data, line.len, &c, err, sizeof err)) {
			log_warnx("%s", err);
			status = 2;
		}
	}
	if (status == -1 && !cli_endpoint(&a.server, &a.token, true))
		status = 2;
	if (status == -1) {
		req = json_pack("{s:s, s:s}", "command", line.data, "how",
				"cli");
		body = json_dumps(req, JSON_COMPACT);
		path = xasprintf("/api/regressions/%lld/triage", id);
		what = xasprintf("regression %lld", id);
		j = cli_call("POST", a.server, path, a.token, body,
			     strlen(body), 200, what);
		free(what);
		status = 1;
		if (j != NULL) {
			if (a.json)
				json_dumpf(j, stdout, JSON_INDENT(2));
			else
				print_triage(j);
			if (a.json)
				printf("\n");
			status = 0;
		}
		json_decref(j);
		json_decref(req);
		free(body);
		free(path);
	}
	buf_release(&line);
	cli_args_release(&a);
	return status;
}
