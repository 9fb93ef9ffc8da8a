/*
 * bisect.c: robot bisect: bisects a regression, or a series between two commits, to its first bad commit.
 */
#include <unistd.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/cli/cli.h"
#include "robot/cli/commands.h"
#include "robot/cli/show.h"
#include "robot/core/client.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

#define BISECT_POLL 2 /* seconds between looks of --wait */

/* Follows bisection id until it ends, printing each step as decided. */
static int
bisect_wait(const char *server, long long id)
{
	char *path = xasprintf("/api/bisections/%lld", id);
	size_t shown = 0;
	int status = 1;

	for (;;) {
		json_t *b = cli_get(server, path), *steps, *s;

		if (b == NULL)
			break;
		steps = json_object_get(b, "steps");
		while (shown < json_array_size(steps) &&
		       json_is_string(json_object_get(
			       s = json_array_get(steps, shown), "verdict"))) {
			show_step(s);
			shown++;
		}
		fflush(stdout);
		if (strcmp(cli_shown(b, "state"), "running") != 0) {
			json_t *fb = json_object_get(b, "first_bad");

			if (json_is_object(fb)) {
				printf("first bad commit: ");
				show_commit(fb);
				printf("\n");
			}
			printf("bisection %lld %s: %s\n", id,
			       cli_shown(b, "state"), cli_shown(b, "reason"));
			status = strcmp(cli_shown(b, "state"), "bisected") == 0
					 ? 0
					 : 1;
			json_decref(b);
			break;
		}
		json_decref(b);
		sleep(BISECT_POLL);
	}
	free(path);
	return status;
}

static const char bisect_usage[] =
	"usage: robot bisect --regression ID [--wait]\n"
	"       robot bisect --series SERIES --good COMMIT --bad COMMIT\n"
	"                    [--tree TREE] [--kpi METRIC] [--wait]\n"
	"       robot bisect --cancel ID\n"
	"robotd bisects a regression to its first bad commit: it runs the "
	"series on\nmidpoints of the tree's history and compares each with "
	"both ends, with\nthe statistics of its analysis (docs/bisect.md).  "
	"robot bisections shows\nthem.\n"
	"  --regression ID  a regression robotd found (robot regressions)\n"
	"  --series S       the series (KEY/TBOX_GROUP), with its good and "
	"bad commits\n"
	"                   (full SHAs, or names in --tree)\n"
	"  --tree TREE      the tree whose history is walked (default: the "
	"series')\n"
	"  --kpi METRIC     the KPI to follow (default: the one that "
	"regressed most)\n"
	"  --wait           print each step until it ends (exit 0 when "
	"bisected)\n"
	"  --cancel ID      stop a running bisection\n" CLI_HELP_SERVER
		CLI_HELP_TOKEN;

/* What bisect's own options give: the request, or a bisection to
 * cancel, and --wait. */
struct bisect_args {
	json_t *req;
	long long cancel;
	bool wait;
	bool bad; /* an option's value was bad (said) */
};

static bool
bisect_option(int c, const char *arg, void *ctx)
{
	struct bisect_args *ba = ctx;
	long long id = 0;

	switch (c) {
	case 'r':
		if (!cli_id(arg, &id)) {
			log_warnx("--regression wants a regression's ID (a "
				  "number), not '%s'",
				  arg);
			return !(ba->bad = true);
		}
		json_object_set_new(ba->req, "regression", json_integer(id));
		return true;
	case 'c':
		if (!cli_id(arg, &ba->cancel)) {
			log_warnx("--cancel wants a bisection's ID (a number), "
				  "not '%s'",
				  arg);
			return !(ba->bad = true);
		}
		return true;
	case 'w':
		ba->wait = true;
		return true;
	default:
		json_object_set_new(ba->req,
				    c == 'S'   ? "series"
				    : c == 'g' ? "good"
				    : c == 'b' ? "bad"
				    : c == 'T' ? "tree"
					       : "kpi",
				    json_string(arg));
		return true;
	}
}

/* The command line is whole: false after saying what is wrong. */
static bool
bisect_complete(int argc, char **argv, const struct bisect_args *ba)
{
	if (optind != argc) {
		log_warnx("robot bisect: unexpected '%s'", argv[optind]);
		return false;
	}
	if (ba->cancel == 0 && json_object_size(ba->req) == 0) {
		log_warnx("robot bisect wants --regression ID, or --series, "
			  "--good and --bad");
		return false;
	}
	if (ba->cancel != 0 && json_object_size(ba->req) > 0) {
		log_warnx("robot bisect --cancel takes nothing else");
		return false;
	}
	return true;
}

static int
bisect_cancel(const struct cli_args *a, long long cancel)
{
	char *path = xasprintf("/api/bisections/%lld/cancel", cancel);
	json_t *j = cli_call("POST", a->server, path, a->token, NULL, 0, 200,
			     "cancel");

	free(path);
	if (j == NULL)
		return 1;
	printf("bisection %lld cancelled\n", cancel);
	json_decref(j);
	return 0;
}

static int
bisect_begin(const struct cli_args *a, const struct bisect_args *ba)
{
	char *body = rjson_dumps(ba->req, JSON_COMPACT);
	json_t *j = cli_call("POST", a->server, "/api/bisections", a->token,
			     body, strlen(body), 200, "bisect");
	long long id;

	free(body);
	if (j == NULL)
		return 1;
	id = show_id(j, "id");
	printf("bisection %lld %s: %s between %.10s (good) and %.10s (bad) "
	       "in tree %s\n",
	       id,
	       json_is_true(json_object_get(j, "running")) ? "runs already"
							   : "started",
	       cli_shown(j, "series"), cli_shown(j, "good"),
	       cli_shown(j, "bad"), cli_shown(j, "tree"));
	json_decref(j);
	if (ba->wait)
		return bisect_wait(a->server, id);
	printf("robot bisections %lld shows its steps\n", id);
	return 0;
}

int
cmd_bisect(int argc, char **argv)
{
	static const struct option own[] = {
		{"regression", required_argument, NULL, 'r'},
		{"series", required_argument, NULL, 'S'},
		{"good", required_argument, NULL, 'g'},
		{"bad", required_argument, NULL, 'b'},
		{"tree", required_argument, NULL, 'T'},
		{"kpi", required_argument, NULL, 'k'},
		{"cancel", required_argument, NULL, 'c'},
		{"wait", no_argument, NULL, 'w'},
		{NULL, 0, NULL, 0},
	};
	static const struct cli_command cmd = {
		bisect_usage,  CLI_SERVER | CLI_TOKEN,
		own,           NULL,
		bisect_option, "robot bisect --help shows the options\n"};
	struct bisect_args ba = {json_object(), 0, false, false};
	struct cli_args a;
	int status = cli_options(argc, argv, &cmd, &ba, &a);

	if (ba.bad || (status == -1 && !bisect_complete(argc, argv, &ba)))
		status = cli_usage_error(&cmd);
	if (status == -1 && !cli_endpoint(&a.server, &a.token, true))
		status = 2;
	if (status == -1)
		status = ba.cancel != 0 ? bisect_cancel(&a, ba.cancel)
					: bisect_begin(&a, &ba);
	json_decref(ba.req);
	cli_args_release(&a);
	return status;
}
