/*
 * cmd_findings.c: regressions, one regression, series.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/cli/cmd_findings.h"
#include "robot/cli/cmd_server.h"
#include "robot/core/buf.h"
#include "robot/core/client.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

/* A number member as "-10.3%", or "-". */
static const char *
pct(json_t *o, const char *key, char *buf, size_t len)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_number(v))
		return "-";
	snprintf(buf, len, "%+.1f%%", json_number_value(v));
	return buf;
}

/* The common options: --server URL, --json, and per command more. */
struct findings_args {
	char *server;
	bool json;
	struct buf query; /* "&state=new..." */
};

static void
findings_args_release(struct findings_args *fa)
{
	free(fa->server);
	buf_release(&fa->query);
}

/* Adds name=value (escaped) to the query. */
static void
query_add(struct buf *q, const char *name, const char *value)
{
	char *e = client_escape(value);

	buf_addf(q, "%c%s=%s", q->len == 0 ? '?' : '&', name, e);
	free(e);
}

static void
print_regressions(json_t *j)
{
	json_t *list = json_object_get(j, "regressions");
	char buf[32];

	if (json_array_size(list) == 0) {
		printf("no regressions or improvements found\n");
		return;
	}
	printf("%-6s %-11s %-9s %8s  %-28s %-12s %-12s %s\n", "ID", "KIND",
	       "STATE", "CHANGE", "KPI", "COMMIT", "BASE", "SERIES");
	for (size_t i = 0; i < json_array_size(list); i++) {
		json_t *r = json_array_get(list, i);

		printf("%-6lld %-11s %-9s %8s  %-28s %-12.12s %-12.12s %s\n",
		       (long long)json_integer_value(json_object_get(r, "id")),
		       cmd_shown(r, "kind"), cmd_shown(r, "state"),
		       pct(r, "change_pct", buf, sizeof buf),
		       cmd_shown(r, "kpi"), cmd_shown(r, "commit"),
		       cmd_shown(r, "base"), cmd_shown(r, "series"));
	}
}

int
cmd_regressions(int argc, char **argv)
{
	static const struct option opts[] = {
		{"server", required_argument, NULL, 's'},
		{"state", required_argument, NULL, 'S'},
		{"tree", required_argument, NULL, 't'},
		{"kind", required_argument, NULL, 'k'},
		{"since", required_argument, NULL, 'd'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct findings_args fa = {NULL, false, {0}};
	char *token = NULL, *path;
	json_t *j;
	int c, status = 1;

	buf_init(&fa.query);
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			free(fa.server);
			fa.server = xstrdup(optarg);
			break;
		case 'S':
			query_add(&fa.query, "state", optarg);
			break;
		case 't':
			query_add(&fa.query, "tree", optarg);
			break;
		case 'k':
			query_add(&fa.query, "kind", optarg);
			break;
		case 'd':
			query_add(&fa.query, "since", optarg);
			break;
		case 'j':
			fa.json = true;
			break;
		default:
			fprintf(c == 'h' ? stdout : stderr,
				"usage: robot regressions [--server URL] "
				"[--state S] [--tree T]\n"
				"                         [--kind regression|"
				"improvement] [--since DATE] [--json]\n"
				"What robotd found, newest "
				"first.\n" CMD_HELP_SERVER);
			findings_args_release(&fa);
			return c == 'h' ? 0 : 2;
		}
	}
	if (optind != argc || !cmd_server_endpoint(&fa.server)) {
		findings_args_release(&fa);
		return 2;
	}
	path = xasprintf("/api/regressions%s", fa.query.data);
	if ((j = cmd_get(fa.server, path)) != NULL) {
		if (fa.json)
			status = rjson_print(j, stdout) ? 0 : 1;
		else {
			print_regressions(j);
			status = 0;
		}
		json_decref(j);
	}
	free(path);
	free(token);
	findings_args_release(&fa);
	return status;
}

static void
print_regression(json_t *r)
{
	char buf[32];
	const char *table = rjson_get_str(r, "table");
	json_t *p = json_object_get(r, "p_value");

	printf("%s %lld (%s): %s %s", cmd_shown(r, "kind"),
	       (long long)json_integer_value(json_object_get(r, "id")),
	       cmd_shown(r, "state"), cmd_shown(r, "kpi"),
	       pct(r, "change_pct", buf, sizeof buf));
	if (json_is_number(p))
		printf(" (p %.2g, %lld runs a side)", json_number_value(p),
		       (long long)json_integer_value(
			       json_object_get(r, "runs")));
	printf("\nseries  %s\ncommit  %s (base %s)\n", cmd_shown(r, "series"),
	       cmd_shown(r, "commit"), cmd_shown(r, "base"));
	if (rjson_get_str(r, "tree") != NULL)
		printf("tree    %s, branch %s, still at %s\n",
		       cmd_shown(r, "tree"), cmd_shown(r, "branch"),
		       cmd_shown(r, "last_head"));
	if (rjson_get_str(r, "fixed_by") != NULL)
		printf("fixed   by %s\n", cmd_shown(r, "fixed_by"));
	if (json_is_object(json_object_get(r, "bisected_to"))) {
		json_t *c = json_object_get(r, "bisected_to");

		printf("bisected to %s", cmd_shown(c, "sha"));
		if (rjson_get_str(c, "subject") != NULL)
			printf(" (\"%s\")", cmd_shown(c, "subject"));
		printf("\n");
	} else if (json_is_object(json_object_get(r, "bisection"))) {
		json_t *b = json_object_get(r, "bisection");

		printf("bisection %lld: %s%s%s\n",
		       (long long)json_integer_value(json_object_get(b, "id")),
		       cmd_shown(b, "state"),
		       rjson_get_str(b, "reason") ? ": " : "",
		       rjson_get_str(b, "reason") ? cmd_shown(b, "reason")
						  : "");
	}
	printf("found   %.19s, updated %.19s\n\n", cmd_shown(r, "created"),
	       cmd_shown(r, "updated"));
	if (table != NULL)
		fputs(table, stdout);
}

int
cmd_regression(int argc, char **argv)
{
	static const struct option opts[] = {
		{"server", required_argument, NULL, 's'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct findings_args fa = {NULL, false, {0}};
	char *path, *end;
	long long id;
	json_t *j;
	int c, status = 1;

	buf_init(&fa.query);
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 's') {
			free(fa.server);
			fa.server = xstrdup(optarg);
		} else if (c == 'j') {
			fa.json = true;
		} else {
			fprintf(c == 'h' ? stdout : stderr,
				"usage: robot regression [--server URL] "
				"[--json] ID\n"
				"One regression (or improvement) with its "
				"comparison.\n" CMD_HELP_SERVER);
			findings_args_release(&fa);
			return c == 'h' ? 0 : 2;
		}
	}
	if (optind + 1 != argc) {
		log_warnx("regression wants one ID (robot regressions lists "
			  "them)");
		findings_args_release(&fa);
		return 2;
	}
	id = strtoll(argv[optind], &end, 10);
	if (*end != '\0' || id <= 0) {
		log_warnx("'%s' is not a regression's ID (a number)",
			  argv[optind]);
		findings_args_release(&fa);
		return 2;
	}
	if (!cmd_server_endpoint(&fa.server)) {
		findings_args_release(&fa);
		return 2;
	}
	path = xasprintf("/api/regressions/%lld", id);
	if ((j = cmd_get(fa.server, path)) != NULL) {
		if (fa.json)
			status = rjson_print(j, stdout) ? 0 : 1;
		else {
			print_regression(j);
			status = 0;
		}
		json_decref(j);
	}
	free(path);
	findings_args_release(&fa);
	return status;
}

int
cmd_series(int argc, char **argv)
{
	static const struct option opts[] = {
		{"server", required_argument, NULL, 's'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct findings_args fa = {NULL, false, {0}};
	char *path;
	json_t *j, *list;
	int c, status = 1;

	buf_init(&fa.query);
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 's') {
			free(fa.server);
			fa.server = xstrdup(optarg);
		} else if (c == 'j') {
			fa.json = true;
		} else {
			fprintf(c == 'h' ? stdout : stderr,
				"usage: robot series [--server URL] [--json] "
				"[PATTERN]\n"
				"The series robotd has runs of (those whose "
				"name holds PATTERN).\n" CMD_HELP_SERVER);
			findings_args_release(&fa);
			return c == 'h' ? 0 : 2;
		}
	}
	if (optind + 1 < argc || !cmd_server_endpoint(&fa.server)) {
		findings_args_release(&fa);
		return 2;
	}
	if (optind < argc)
		query_add(&fa.query, "match", argv[optind]);
	path = xasprintf("/api/series%s", fa.query.data);
	if ((j = cmd_get(fa.server, path)) != NULL) {
		list = json_object_get(j, "series");
		if (fa.json) {
			status = rjson_print(j, stdout) ? 0 : 1;
		} else {
			for (size_t i = 0; i < json_array_size(list); i++) {
				json_t *x = json_array_get(list, i);

				printf("%s  (%lld commits, %lld runs)\n",
				       cmd_shown(x, "series"),
				       (long long)json_integer_value(
					       json_object_get(x, "commits")),
				       (long long)json_integer_value(
					       json_object_get(x, "runs")));
			}
			if (json_array_size(list) == 0)
				printf("no series%s\n",
				       optind < argc ? " match" : "");
			status = 0;
		}
		json_decref(j);
	}
	free(path);
	findings_args_release(&fa);
	return status;
}
