/*
 * cmd_reports.c: robot subscribe, unsubscribe, subscriptions and
 * reports: who gets robotd's report mails, and its outbox.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/cli/cmd_reports.h"
#include "robot/cli/cmd_server.h"
#include "robot/core/client.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

static void
subscribe_usage(FILE *fp)
{
	fprintf(fp,
		"usage: robot subscribe EMAIL [--tree GLOB] [--branch GLOB]\n"
		"                       [--testcase GLOB] [--metric GLOB] "
		"[--min-change P]\n"
		"                       [--improvements] [--no-regressions] "
		"[--server URL]\n"
		"Asks robotd to mail its reports to EMAIL.  robotd mails a "
		"link to confirm\n"
		"first, and nothing else until it is followed.  Without "
		"filters, every report.\n"
		"  --tree, --branch, --testcase, --metric GLOB   only what "
		"matches (fnmatch)\n"
		"  --min-change P   only changes of at least P%% (5 or 5%%)\n"
		"  --improvements   improvements too (not sent otherwise)\n"
		"  --no-regressions improvements only\n" CMD_HELP_SERVER);
}

int
cmd_subscribe(int argc, char **argv)
{
	static const struct option opts[] = {
		{"server", required_argument, NULL, 's'},
		{"tree", required_argument, NULL, 't'},
		{"branch", required_argument, NULL, 'b'},
		{"testcase", required_argument, NULL, 'c'},
		{"metric", required_argument, NULL, 'm'},
		{"min-change", required_argument, NULL, 'n'},
		{"improvements", no_argument, NULL, 'i'},
		{"no-regressions", no_argument, NULL, 'r'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	json_t *sub = json_object(), *j;
	char *server = NULL, *token = NULL, *body;
	int c, status = 2;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			cmd_opt_set(&server);
			break;
		case 't':
		case 'b':
		case 'c':
		case 'm':
			json_object_set_new(sub,
					    c == 't'   ? "tree"
					    : c == 'b' ? "branch"
					    : c == 'c' ? "testcase"
						       : "metric",
					    json_string(optarg));
			break;
		case 'n':
			/* robotd checks it: "5", "5%" */
			json_object_set_new(sub, "min_change",
					    json_string(optarg));
			break;
		case 'i':
			json_object_set_new(sub, "improvements", json_true());
			break;
		case 'r':
			json_object_set_new(sub, "regressions", json_false());
			break;
		case 'h':
			subscribe_usage(stdout);
			status = 0;
			goto out;
		default:
			subscribe_usage(stderr);
			goto out;
		}
	}
	if (optind + 1 != argc) {
		subscribe_usage(stderr);
		goto out;
	}
	json_object_set_new(sub, "email", json_string(argv[optind]));
	status = 1;
	if (!cmd_endpoint(&server, &token, false))
		goto out;
	body = rjson_dumps(sub, JSON_COMPACT);
	j = cmd_call("POST", server, "/api/subscriptions", NULL, body,
		     strlen(body), 202, argv[optind]);
	free(body);
	if (j != NULL) {
		printf("%s\n", cmd_shown(j, "message"));
		json_decref(j);
		status = 0;
	}
out:
	json_decref(sub);
	free(server);
	free(token);
	return status;
}

int
cmd_unsubscribe(int argc, char **argv)
{
	static const struct option opts[] = {
		{"server", required_argument, NULL, 's'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	char *server = NULL, *token = NULL, *url, *t;
	const char *arg, *q;
	struct client_resp r;
	int c, status = 2;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 's') {
			cmd_opt_set(&server);
			continue;
		}
		status = c == 'h' ? 0 : 2;
		goto usage;
	}
	if (optind + 1 != argc)
		goto usage;
	/* The link of a mail (its server), or the token alone. */
	arg = argv[optind];
	q = strstr(arg, "/subscriptions/unsubscribe?t=");
	if (q != NULL && server == NULL)
		server = xstrndup(arg, (size_t)(q - arg));
	t = xstrdup(q != NULL ? q + strlen("/subscriptions/unsubscribe?t=")
			      : arg);
	t[strcspn(t, "&# \t\r\n")] = '\0';
	status = 1;
	if (!cmd_endpoint(&server, &token, false)) {
		free(t);
		goto out;
	}
	url = xasprintf("%s/subscriptions/unsubscribe?t=%s", server, t);
	client_request("POST", url, NULL, "List-Unsubscribe=One-Click", 26, 30,
		       &r);
	if (r.status == 200) {
		printf("unsubscribed: robotd mails nothing more to that "
		       "address\n");
		status = 0;
	} else if (r.status == 404) {
		log_warnx("robotd knows no such link: was it copied whole?");
	} else {
		char *e = client_resp_error(&r);

		log_warnx("%s", e);
		free(e);
	}
	client_resp_release(&r);
	free(url);
	free(t);
	goto out;
usage:
	fprintf(status == 0 ? stdout : stderr,
		"usage: robot unsubscribe LINK|TOKEN [--server URL]\n"
		"Follows a report mail's unsubscribe link: robotd mails "
		"nothing more to its\naddress.\n" CMD_HELP_SERVER);
out:
	free(server);
	free(token);
	return status;
}

/* The admin listings' options: --server, --token, --json, --limit. */
static int
admin_get(int argc, char **argv, const char *usage, const char *path,
	  void (*print)(json_t *))
{
	static const struct option opts[] = {
		{"server", required_argument, NULL, 's'},
		{"token", required_argument, NULL, 't'},
		{"limit", required_argument, NULL, 'l'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	char *server = NULL, *token = NULL, *p;
	const char *limit = "50";
	bool json = false;
	json_t *j;
	int c, status = 2;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			cmd_opt_set(&server);
			break;
		case 't':
			cmd_opt_set(&token);
			break;
		case 'l':
			limit = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			status = 0;
			/* FALLTHROUGH */
		default:
			fputs(usage, status == 0 ? stdout : stderr);
			goto out;
		}
	}
	if (optind != argc) {
		fputs(usage, stderr);
		goto out;
	}
	status = 1;
	if (!cmd_endpoint(&server, &token, true))
		goto out;
	p = xasprintf("%s?limit=%s", path, limit);
	if ((j = cmd_call("GET", server, p, token, NULL, 0, 200, NULL)) !=
	    NULL) {
		status = 0;
		if (json)
			status = rjson_print(j, stdout) ? 0 : 1;
		else
			print(j);
		json_decref(j);
	}
	free(p);
out:
	free(server);
	free(token);
	return status;
}

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
		       cmd_shown(s, "state"), cmd_shown(s, "email"));
		if (json_string_value(json_object_get(s, "tree")))
			printf(" tree %s", cmd_shown(s, "tree"));
		if (json_string_value(json_object_get(s, "branch")))
			printf(" branch %s", cmd_shown(s, "branch"));
		if (json_string_value(json_object_get(s, "testcase")))
			printf(" testcase %s", cmd_shown(s, "testcase"));
		if (json_string_value(json_object_get(s, "metric")))
			printf(" metric %s", cmd_shown(s, "metric"));
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
	return admin_get(
		argc, argv,
		"usage: robot subscriptions [--json] [--server URL] "
		"[--token T]\n"
		"Every subscription to robotd's reports.\n" CMD_HELP_SERVER
			CMD_HELP_TOKEN "                 (an admin token)\n",
		"/api/subscriptions", print_subscriptions);
}

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
		       rep, cmd_shown(r, "state"), cmd_shown(r, "channel"),
		       cmd_shown(r, "recipient"), cmd_shown(r, "subject"));
		if (json_string_value(json_object_get(r, "last_error")))
			printf("%66s%s (try %lld)\n", "",
			       cmd_shown(r, "last_error"),
			       (long long)json_integer_value(
				       json_object_get(r, "attempts")));
	}
}

int
cmd_reports(int argc, char **argv)
{
	return admin_get(
		argc, argv,
		"usage: robot reports [--limit N] [--json] [--server "
		"URL] [--token T]\n"
		"robotd's outbox (an admin token): the mails and "
		"webhook posts pending,\nfailing with their last "
		"error, and the newest sent.\n" CMD_HELP_SERVER CMD_HELP_TOKEN
		"                 (an admin token)\n",
		"/api/reports", print_outbox);
}
