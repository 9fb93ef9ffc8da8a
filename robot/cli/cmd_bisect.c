/*
 * cmd_bisect.c: robot bisect (start one, cancel one, wait for one) and
 * robot bisections (the list, or one with its steps).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "robot/cli/cmd_bisect.h"
#include "robot/cli/cmd_server.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

#define BISECT_POLL 2 /* seconds between looks of --wait */

static long long
id_of(json_t *o, const char *key)
{
	return (long long)json_integer_value(json_object_get(o, key));
}

/* "b6aefd0a21 ("subject")" of a commit object {sha, subject}. */
static void
print_commit(json_t *c)
{
	printf("%.10s", cmd_shown(c, "sha"));
	if (rjson_get_str(c, "subject") != NULL)
		printf(" (\"%s\")", cmd_shown(c, "subject"));
}

static void
print_step(json_t *s)
{
	json_t *runs = json_object_get(s, "runs");

	printf("  %4lld  %-8s %.10s  %3lld ok %2lld failed %2lld waiting  "
	       "%-11s %s\n",
	       id_of(s, "n"), cmd_shown(s, "kind"),
	       cmd_shown(json_object_get(s, "commit"), "sha"),
	       id_of(runs, "ok"), id_of(runs, "failed"), id_of(runs, "waiting"),
	       rjson_get_str(s, "verdict") ? cmd_shown(s, "verdict")
					   : "(running)",
	       rjson_get_str(s, "reason") ? cmd_shown(s, "reason") : "");
}

static void
print_bisection(json_t *b)
{
	json_t *fb = json_object_get(b, "first_bad"), *s;
	size_t i;

	printf("bisection %lld (%s): %s in %s\n", id_of(b, "id"),
	       cmd_shown(b, "state"),
	       rjson_get_str(b, "kpi") ? cmd_shown(b, "kpi") : "its worst KPI",
	       cmd_shown(b, "series"));
	printf("tree %s, good %.10s, bad %.10s", cmd_shown(b, "tree"),
	       cmd_shown(b, "good"), cmd_shown(b, "bad"));
	if (json_is_integer(json_object_get(b, "regression")))
		printf(" (regression %lld)", id_of(b, "regression"));
	printf(", %lld runs queued\n", id_of(b, "runs_queued"));
	if (json_is_object(fb)) {
		printf("first bad commit: ");
		print_commit(fb);
		if (rjson_get_str(fb, "author") != NULL)
			printf(" by %s", cmd_shown(fb, "author"));
		printf("\n");
	}
	if (rjson_get_str(b, "reason") != NULL)
		printf("%s\n", cmd_shown(b, "reason"));
	printf("  step  kind     commit      runs                        "
	       "verdict     why\n");
	json_array_foreach(json_object_get(b, "steps"), i, s) print_step(s);
}

static void
print_bisections(json_t *j)
{
	json_t *list = json_object_get(j, "bisections"), *b;
	size_t i;

	if (json_array_size(list) == 0) {
		printf("no bisections\n");
		return;
	}
	printf("%-5s %-9s %5s %5s %5s  %-12s %s\n", "ID", "STATE", "STEPS",
	       "LEFT", "RUNS", "FIRST BAD", "KPI / SERIES");
	json_array_foreach(list, i, b)
	{
		json_t *fb = json_object_get(b, "first_bad");
		char left[16] = "-";

		if (strcmp(cmd_shown(b, "state"), "running") == 0 &&
		    json_is_integer(json_object_get(b, "candidates")))
			snprintf(left, sizeof left, "%lld",
				 id_of(b, "candidates"));
		printf("%-5lld %-9s %5lld %5s %5lld  %-12.10s %s %s\n",
		       id_of(b, "id"), cmd_shown(b, "state"), id_of(b, "steps"),
		       left, id_of(b, "runs_queued"),
		       json_is_object(fb) ? cmd_shown(fb, "sha") : "-",
		       rjson_get_str(b, "kpi") ? cmd_shown(b, "kpi") : "-",
		       cmd_shown(b, "series"));
	}
}

static bool
parse_id(const char *s, long long *id)
{
	char *end;

	*id = strtoll(s, &end, 10);
	return *end == '\0' && *id > 0;
}

/* Follows bisection id until it ends, printing each step as decided. */
static int
bisect_wait(const char *server, long long id)
{
	char *path = xasprintf("/api/bisections/%lld", id);
	size_t shown = 0;
	int status = 1;

	for (;;) {
		json_t *b = cmd_get(server, path), *steps, *s;

		if (b == NULL)
			break;
		steps = json_object_get(b, "steps");
		while (shown < json_array_size(steps) &&
		       json_is_string(json_object_get(
			       s = json_array_get(steps, shown), "verdict"))) {
			print_step(s);
			shown++;
		}
		fflush(stdout);
		if (strcmp(cmd_shown(b, "state"), "running") != 0) {
			json_t *fb = json_object_get(b, "first_bad");

			if (json_is_object(fb)) {
				printf("first bad commit: ");
				print_commit(fb);
				printf("\n");
			}
			printf("bisection %lld %s: %s\n", id,
			       cmd_shown(b, "state"), cmd_shown(b, "reason"));
			status = strcmp(cmd_shown(b, "state"), "bisected") == 0
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

static void
bisect_usage(FILE *fp)
{
	fprintf(fp,
		"usage: robot bisect --regression ID [--wait]\n"
		"       robot bisect --series SERIES --good COMMIT --bad "
		"COMMIT\n"
		"                    [--tree TREE] [--kpi METRIC] [--wait]\n"
		"       robot bisect --cancel ID\n"
		"robotd bisects a regression to its first bad commit: it runs "
		"the series on\nmidpoints of the tree's history and compares "
		"each with both ends, with\nthe statistics of its analysis "
		"(docs/bisect.md).  robot bisections shows\nthem.\n"
		"  --regression ID  a regression robotd found (robot "
		"regressions)\n"
		"  --series S       the series (KEY/TBOX_GROUP), with its "
		"good and bad commits\n"
		"                   (full SHAs, or names in --tree)\n"
		"  --tree TREE      the tree whose history is walked "
		"(default: the series')\n"
		"  --kpi METRIC     the KPI to follow (default: the one that "
		"regressed most)\n"
		"  --wait           print each step until it ends (exit 0 "
		"when bisected)\n"
		"  --cancel ID      stop a running bisection\n" CMD_HELP_SERVER
			CMD_HELP_TOKEN);
}

int
cmd_bisect(int argc, char **argv)
{
	static const struct option opts[] = {
		{"server", required_argument, NULL, 's'},
		{"token", required_argument, NULL, 't'},
		{"regression", required_argument, NULL, 'r'},
		{"series", required_argument, NULL, 'S'},
		{"good", required_argument, NULL, 'g'},
		{"bad", required_argument, NULL, 'b'},
		{"tree", required_argument, NULL, 'T'},
		{"kpi", required_argument, NULL, 'k'},
		{"cancel", required_argument, NULL, 'c'},
		{"wait", no_argument, NULL, 'w'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	char *server = NULL, *token = NULL, *body, *path;
	json_t *req = json_object(), *j;
	long long id = 0, cancel = 0;
	bool wait = false, ok = true;
	int c, status = 2;

	optind = 1;
	while (ok && (c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			cmd_opt_set(&server);
			break;
		case 't':
			cmd_opt_set(&token);
			break;
		case 'r':
			if (!(ok = parse_id(optarg, &id)))
				log_warnx("--regression wants a regression's "
					  "ID (a number), not '%s'",
					  optarg);
			json_object_set_new(req, "regression",
					    json_integer(id));
			break;
		case 'c':
			if (!(ok = parse_id(optarg, &cancel)))
				log_warnx("--cancel wants a bisection's ID (a "
					  "number), not '%s'",
					  optarg);
			break;
		case 'S':
		case 'g':
		case 'b':
		case 'T':
		case 'k':
			json_object_set_new(req,
					    c == 'S'   ? "series"
					    : c == 'g' ? "good"
					    : c == 'b' ? "bad"
					    : c == 'T' ? "tree"
						       : "kpi",
					    json_string(optarg));
			break;
		case 'w':
			wait = true;
			break;
		case 'h':
			bisect_usage(stdout);
			json_decref(req);
			return 0;
		default:
			ok = false;
		}
	}
	if (ok && optind != argc) {
		log_warnx("robot bisect: unexpected '%s'", argv[optind]);
		ok = false;
	}
	if (ok && cancel == 0 && json_object_size(req) == 0) {
		log_warnx("robot bisect wants --regression ID, or --series, "
			  "--good and --bad");
		ok = false;
	}
	if (ok && cancel != 0 && json_object_size(req) > 0) {
		log_warnx("robot bisect --cancel takes nothing else");
		ok = false;
	}
	if (!ok) {
		fprintf(stderr, "robot bisect --help shows the options\n");
		goto out;
	}
	if (!cmd_endpoint(&server, &token, true))
		goto out;
	status = 1;
	if (cancel != 0) {
		path = xasprintf("/api/bisections/%lld/cancel", cancel);
		j = cmd_call("POST", server, path, token, NULL, 0, 200,
			     "cancel");
		free(path);
		if (j != NULL) {
			printf("bisection %lld cancelled\n", cancel);
			json_decref(j);
			status = 0;
		}
		goto out;
	}
	body = rjson_dumps(req, JSON_COMPACT);
	j = cmd_call("POST", server, "/api/bisections", token, body,
		     strlen(body), 200, "bisect");
	free(body);
	if (j == NULL)
		goto out;
	id = id_of(j, "id");
	printf("bisection %lld %s: %s between %.10s (good) and %.10s (bad) "
	       "in tree %s\n",
	       id,
	       json_is_true(json_object_get(j, "running")) ? "runs already"
							   : "started",
	       cmd_shown(j, "series"), cmd_shown(j, "good"),
	       cmd_shown(j, "bad"), cmd_shown(j, "tree"));
	json_decref(j);
	status = wait ? bisect_wait(server, id) : 0;
	if (!wait)
		printf("robot bisections %lld shows its steps\n", id);
out:
	json_decref(req);
	free(server);
	free(token);
	return status;
}

int
cmd_bisections(int argc, char **argv)
{
	static const struct option opts[] = {
		{"server", required_argument, NULL, 's'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	char *server = NULL, *path;
	bool json = false;
	long long id = 0;
	json_t *j;
	int c, status = 1;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 's') {
			cmd_opt_set(&server);
		} else if (c == 'j') {
			json = true;
		} else {
			fprintf(c == 'h' ? stdout : stderr,
				"usage: robot bisections [--server URL] "
				"[--json] [ID]\n"
				"robotd's bisections, newest first, with "
				"their progress; or one with its\n"
				"steps.\n" CMD_HELP_SERVER);
			free(server);
			return c == 'h' ? 0 : 2;
		}
	}
	if (optind + 1 < argc ||
	    (optind < argc && !parse_id(argv[optind], &id))) {
		log_warnx("robot bisections takes at most one bisection ID (a "
			  "number)");
		free(server);
		return 2;
	}
	if (!cmd_server_endpoint(&server)) {
		free(server);
		return 2;
	}
	path = id ? xasprintf("/api/bisections/%lld", id)
		  : xstrdup("/api/bisections");
	if ((j = cmd_get(server, path)) != NULL) {
		if (json)
			status = rjson_print(j, stdout) ? 0 : 1;
		else {
			if (id)
				print_bisection(j);
			else
				print_bisections(j);
			status = 0;
		}
		json_decref(j);
	}
	free(path);
	free(server);
	return status;
}
