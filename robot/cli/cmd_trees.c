/*
 * cmd_trees.c: robot tree add|set|list|show|remove, robot jobs cancel,
 * robot box reset.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/cli/cmd_server.h"
#include "robot/cli/cmd_trees.h"
#include "robot/core/buf.h"
#include "robot/core/client.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

static void
tree_usage(FILE *fp)
{
	fprintf(fp,
		"usage: robot tree add NAME --url URL --job FILE... [OPTIONS]\n"
		"       robot tree set NAME [OPTIONS]\n"
		"       robot tree list [--json]\n"
		"       robot tree show NAME [--json]\n"
		"       robot tree remove NAME\n"
		"The git trees robotd watches: each new head of a watched "
		"branch gets the\ntree's jobs, against its base.  Options of "
		"add and set:\n"
		"  --url URL        the repository (http(s), git, ssh, file "
		"URL or a path)\n"
		"  --branch GLOB    a branch to watch (repeatable; default "
		"main and master)\n"
		"  --base REF       what a branch is measured against: a "
		"branch, a tag, a glob\n"
		"                   of tags (the newest) or a commit "
		"(default v*)\n"
		"  --job FILE       a job file run on each new head "
		"(repeatable)\n"
		"  --tbox-group G   the box group to run on (repeatable; "
		"default: the job's)\n"
		"  --runs N         runs per side (default 5)\n"
		"  --max-runs N     the most runs per side analysis may ask "
		"for (default 10)\n"
		"  --poll SECONDS   seconds between fetches (default 300)\n"
		"  --mail-author yes|no  mail the commit's author its "
		"regressions (default no)\n"
		"  --bisect yes|no  bisect its regressions to their first bad "
		"commit (default yes)\n" CMD_HELP_SERVER CMD_HELP_TOKEN
		"                 (an admin token to add, set or remove)\n");
}

/* Appends a string to the array member key of o, made when missing. */
static void
tree_push(json_t *o, const char *key, json_t *v)
{
	json_t *a = json_object_get(o, key);

	if (a == NULL) {
		a = json_array();
		json_object_set_new(o, key, a);
	}
	json_array_append_new(a, v);
}

/* A whole number option into o's key; false after saying why. */
static bool
tree_int(json_t *o, const char *key, const char *opt, const char *v)
{
	char *end;
	long n = strtol(v, &end, 10);

	if (end == v || *end != '\0') {
		log_warnx("%s wants a whole number, not '%s'", opt, v);
		return false;
	}
	json_object_set_new(o, key, json_integer(n));
	return true;
}

/* A job file as {name, text}; false after saying why. */
static bool
tree_job(json_t *o, const char *file)
{
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	struct buf body;
	bool ok;

	buf_init(&body);
	ok = cmd_read_jobfile(file, &body);
	if (ok)
		tree_push(o, "jobs",
			  json_pack("{s:s, s:s%}", "name", base, "text",
				    body.data, body.len));
	buf_release(&body);
	return ok;
}

static void
print_tree(json_t *t, bool long_form)
{
	json_t *heads = json_object_get(t, "heads"), *h;
	const char *err = rjson_get_str(t, "fetch_error");
	size_t i;

	printf("%s  %s\n", cmd_shown(t, "name"), cmd_shown(t, "url"));
	printf("  last fetch %s%s%s\n",
	       rjson_get_str(t, "fetched") ? cmd_shown(t, "fetched") : "never",
	       err ? "; error: " : "", err ? cmd_shown(t, "fetch_error") : "");
	if (long_form) {
		char *b = rjson_dumps(json_object_get(t, "branches"), 0);
		char *g = rjson_dumps(json_object_get(t, "tbox_groups"), 0);

		printf("  branches %s, base %s, groups %s\n", b,
		       cmd_shown(t, "base_ref"), g);
		printf("  %lld runs a side (at most %lld), poll every %lld s, "
		       "%lld commits known\n",
		       (long long)json_integer_value(
			       json_object_get(t, "runs")),
		       (long long)json_integer_value(
			       json_object_get(t, "max_runs")),
		       (long long)json_integer_value(
			       json_object_get(t, "poll")),
		       (long long)json_integer_value(
			       json_object_get(t, "commits")));
		if (json_is_true(json_object_get(t, "mail_author")))
			printf("  commit authors get their regressions\n");
		if (json_is_false(json_object_get(t, "bisect")))
			printf("  regressions are not bisected\n");
		json_array_foreach(json_object_get(t, "jobs"), i, h)
			printf("  job %s\n", cmd_shown(h, "name"));
		free(b);
		free(g);
	}
	json_array_foreach(heads, i, h)
		printf("  %-20s %.12s  base %.12s\n", cmd_shown(h, "branch"),
		       cmd_shown(h, "sha"), cmd_shown(h, "base"));
}

/* tree list and tree show. */
static int
tree_read(const char *server, const char *name, bool json)
{
	char *path =
		name ? xasprintf("/api/trees/%s", name) : xstrdup("/api/trees");
	json_t *j = cmd_get(server, path), *t;
	size_t i;
	int status = 0;

	free(path);
	if (j == NULL)
		return 1;
	if (json)
		status = rjson_print(j, stdout) ? 0 : 1;
	else if (name != NULL)
		print_tree(j, true);
	else if (json_array_size(json_object_get(j, "trees")) == 0)
		printf("no trees: robot tree add adds one\n");
	else
		json_array_foreach(json_object_get(j, "trees"), i, t)
			print_tree(t, false);
	json_decref(j);
	return status;
}

/* tree add, set and remove. */
static int
tree_write(const char *server, const char *token, const char *verb,
	   const char *name, json_t *tree)
{
	char *path =
		xasprintf("/api/trees%s%s", strcmp(verb, "add") == 0 ? "" : "/",
			  strcmp(verb, "add") == 0 ? "" : name);
	char *body = rjson_dumps(tree, JSON_COMPACT);
	json_t *j;

	j = cmd_call(strcmp(verb, "remove") == 0 ? "DELETE" : "POST", server,
		     path, token, strcmp(verb, "remove") == 0 ? NULL : body,
		     strcmp(verb, "remove") == 0 ? 0 : strlen(body),
		     strcmp(verb, "add") == 0 ? 201 : 200, name);
	free(path);
	free(body);
	if (j == NULL)
		return 1;
	printf("tree %s %s\n", name,
	       strcmp(verb, "add") == 0   ? "added: robotd fetches it now"
	       : strcmp(verb, "set") == 0 ? "changed: robotd fetches it now"
					  : "removed");
	json_decref(j);
	return 0;
}

int
cmd_tree(int argc, char **argv)
{
	static const struct option opts[] = {
		{"server", required_argument, NULL, 's'},
		{"token", required_argument, NULL, 't'},
		{"url", required_argument, NULL, 'u'},
		{"branch", required_argument, NULL, 'b'},
		{"base", required_argument, NULL, 'B'},
		{"job", required_argument, NULL, 'J'},
		{"tbox-group", required_argument, NULL, 'g'},
		{"runs", required_argument, NULL, 'r'},
		{"max-runs", required_argument, NULL, 'm'},
		{"poll", required_argument, NULL, 'p'},
		{"mail-author", required_argument, NULL, 'A'},
		{"bisect", required_argument, NULL, 'X'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	char *server = NULL, *token = NULL;
	const char *verb = argc > 1 ? argv[1] : NULL, *name = NULL;
	json_t *tree = json_object();
	bool json = false, ok = true, writes;
	int c, status = 2;

	if (verb == NULL || strcmp(verb, "--help") == 0 ||
	    strcmp(verb, "help") == 0) {
		tree_usage(verb ? stdout : stderr);
		json_decref(tree);
		return verb ? 0 : 2;
	}
	optind = 2;
	while (ok && (c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			cmd_opt_set(&server);
			break;
		case 't':
			cmd_opt_set(&token);
			break;
		case 'u':
			json_object_set_new(tree, "url", json_string(optarg));
			break;
		case 'b':
			tree_push(tree, "branches", json_string(optarg));
			break;
		case 'B':
			json_object_set_new(tree, "base_ref",
					    json_string(optarg));
			break;
		case 'J':
			ok = tree_job(tree, optarg);
			status = ok ? 2 : 1;
			break;
		case 'g':
			tree_push(tree, "tbox_groups", json_string(optarg));
			break;
		case 'r':
			ok = tree_int(tree, "runs", "--runs", optarg);
			break;
		case 'm':
			ok = tree_int(tree, "max_runs", "--max-runs", optarg);
			break;
		case 'p':
			ok = tree_int(tree, "poll", "--poll", optarg);
			break;
		case 'A':
			ok = strcmp(optarg, "yes") == 0 ||
			     strcmp(optarg, "no") == 0;
			if (!ok)
				log_warnx("--mail-author is yes or no, not "
					  "'%s'",
					  optarg);
			json_object_set_new(
				tree, "mail_author",
				json_boolean(strcmp(optarg, "yes") == 0));
			break;
		case 'X':
			ok = strcmp(optarg, "yes") == 0 ||
			     strcmp(optarg, "no") == 0;
			if (!ok)
				log_warnx("--bisect is yes or no, not '%s'",
					  optarg);
			json_object_set_new(
				tree, "bisect",
				json_boolean(strcmp(optarg, "yes") == 0));
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			tree_usage(stdout);
			status = 0;
			/* FALLTHROUGH */
		default:
			ok = false;
		}
	}
	writes = strcmp(verb, "add") == 0 || strcmp(verb, "set") == 0 ||
		 strcmp(verb, "remove") == 0;
	if (ok && !writes && strcmp(verb, "list") != 0 &&
	    strcmp(verb, "show") != 0) {
		log_warnx("robot tree has no '%s': add, set, list, show or "
			  "remove",
			  verb);
		ok = false;
	}
	if (ok && strcmp(verb, "list") != 0) {
		if (optind + 1 != argc) {
			log_warnx("robot tree %s wants the tree's name", verb);
			ok = false;
		} else {
			name = argv[optind++];
			json_object_set_new(tree, "name", json_string(name));
		}
	}
	if (ok && optind != argc) {
		log_warnx("robot tree %s: unexpected '%s'", verb, argv[optind]);
		ok = false;
	}
	if (ok && (strcmp(verb, "remove") == 0 || !writes) &&
	    json_object_size(tree) > (name ? 1u : 0u)) {
		log_warnx("robot tree %s takes no tree settings", verb);
		ok = false;
	}
	if (ok && cmd_endpoint(&server, &token, writes))
		status = writes ? tree_write(server, token, verb, name, tree)
				: tree_read(server, name, json);
	else if (ok)
		status = 2;
	else if (status == 2)
		fprintf(stderr, "robot tree --help shows the options\n");
	free(server);
	free(token);
	json_decref(tree);
	return status;
}

int
cmd_jobs(int argc, char **argv)
{
	static const struct option opts[] = {
		{"server", required_argument, NULL, 's'},
		{"token", required_argument, NULL, 't'},
		{"job", required_argument, NULL, 'J'},
		{"submission", required_argument, NULL, 'S'},
		{"series", required_argument, NULL, 'e'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	char *server = NULL, *token = NULL, *body = NULL, *end;
	json_t *j;
	int c, status = 2;
	long long id;

	if (argc > 1 &&
	    (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0)) {
		status = 0;
		goto usage;
	}
	optind = 2;
	while (argc > 1 && strcmp(argv[1], "cancel") == 0 &&
	       (c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			cmd_opt_set(&server);
			break;
		case 't':
			cmd_opt_set(&token);
			break;
		case 'J':
		case 'S':
			id = strtoll(optarg, &end, 10);
			free(body);
			body = end == optarg || *end != '\0' || id <= 0
				       ? NULL
				       : xasprintf("{\"%s\": %lld}",
						   c == 'J' ? "job"
							    : "submission",
						   id);
			if (body == NULL) {
				log_warnx("--%s wants an id, not '%s'",
					  c == 'J' ? "job" : "submission",
					  optarg);
				goto out;
			}
			break;
		case 'e':
			free(body);
			j = json_pack("{s:s}", "series", optarg);
			body = rjson_dumps(j, JSON_COMPACT);
			json_decref(j);
			break;
		case 'h':
			status = 0;
			/* FALLTHROUGH */
		default:
			goto usage;
		}
	}
	if (argc < 2 || strcmp(argv[1], "cancel") != 0 || body == NULL ||
	    optind != argc)
		goto usage;
	if (!cmd_endpoint(&server, &token, true))
		goto out;
	status = 1;
	if ((j = cmd_call("POST", server, "/api/jobs/cancel", token, body,
			  strlen(body), 200, "cancel")) != NULL) {
		printf("cancelled %lld queued runs\n",
		       (long long)json_integer_value(
			       json_object_get(j, "cancelled")));
		json_decref(j);
		status = 0;
	}
	goto out;
usage:
	fprintf(status == 0 ? stdout : stderr,
		"usage: robot jobs cancel --job ID | --submission ID | "
		"--series SERIES\n"
		"                         [--server URL] [--token T]\n"
		"Cancels queued runs (leased runs finish).\n" CMD_HELP_SERVER
			CMD_HELP_TOKEN "                 (a submit token)\n");
out:
	free(server);
	free(token);
	free(body);
	return status;
}

int
cmd_box(int argc, char **argv)
{
	static const struct option opts[] = {
		{"server", required_argument, NULL, 's'},
		{"token", required_argument, NULL, 't'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	char *server = NULL, *token = NULL, *path, *e;
	json_t *j;
	int c, status = 2;

	if (argc > 1 &&
	    (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0)) {
		status = 0;
		goto usage;
	}
	optind = 2;
	while (argc > 1 && strcmp(argv[1], "reset") == 0 &&
	       (c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			cmd_opt_set(&server);
			break;
		case 't':
			cmd_opt_set(&token);
			break;
		case 'h':
			status = 0;
			/* FALLTHROUGH */
		default:
			goto usage;
		}
	}
	if (argc < 2 || strcmp(argv[1], "reset") != 0 || optind + 1 != argc)
		goto usage;
	if (!cmd_endpoint(&server, &token, true))
		goto out;
	e = client_escape(argv[optind]);
	path = xasprintf("/api/boxes/%s/reset", e);
	free(e);
	status = 1;
	if ((j = cmd_call("POST", server, path, token, NULL, 0, 200,
			  argv[optind])) != NULL) {
		printf("box %s reset: it takes work again\n", argv[optind]);
		json_decref(j);
		status = 0;
	}
	free(path);
	goto out;
usage:
	fprintf(status == 0 ? stdout : stderr,
		"usage: robot box reset NAME [--server URL] [--token T]\n"
		"Makes a broken box take work again.\n" CMD_HELP_SERVER
			CMD_HELP_TOKEN "                 (an admin token)\n");
out:
	free(server);
	free(token);
	return status;
}
