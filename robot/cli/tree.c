/*
 * tree.c: robot tree: the git trees robotd watches: list, show, add, set, remove.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/cli/cli.h"
#include "robot/cli/commands.h"
#include "robot/core/buf.h"
#include "robot/core/client.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

static const char tree_usage[] =
	"usage: robot tree add NAME --url URL --job FILE... [OPTIONS]\n"
	"       robot tree set NAME [OPTIONS]\n"
	"       robot tree list [--json]\n"
	"       robot tree show NAME [--json]\n"
	"       robot tree remove NAME\n"
	"The git trees robotd watches: each new head of a watched branch "
	"gets the\ntree's jobs, against its base.  Options of add and set:\n"
	"  --url URL        the repository (http(s), git, ssh, file URL or a "
	"path)\n"
	"  --branch GLOB    a branch to watch (repeatable; default main and "
	"master)\n"
	"  --base REF       what a branch is measured against: a branch, a "
	"tag, a glob\n"
	"                   of tags (the newest) or a commit (default v*)\n"
	"  --job FILE       a job file run on each new head (repeatable)\n"
	"  --tbox-group G   the box group to run on (repeatable; default: "
	"the job's)\n"
	"  --runs N         runs per side (default 5)\n"
	"  --max-runs N     the most runs per side analysis may ask for "
	"(default 10)\n"
	"  --poll SECONDS   seconds between fetches (default 300)\n"
	"  --mail-author yes|no  mail the commit's author its regressions "
	"(default no)\n"
	"  --bisect yes|no  bisect its regressions to their first bad commit "
	"(default yes)\n" CLI_HELP_SERVER CLI_HELP_TOKEN "                 (an "
	"admin token to add, set or remove)\n";

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
	ok = cli_read_jobfile(file, &body);
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

	printf("%s  %s\n", cli_shown(t, "name"), cli_shown(t, "url"));
	printf("  last fetch %s%s%s\n",
	       rjson_get_str(t, "fetched") ? cli_shown(t, "fetched") : "never",
	       err ? "; error: " : "", err ? cli_shown(t, "fetch_error") : "");
	if (long_form) {
		char *b = rjson_dumps(json_object_get(t, "branches"), 0);
		char *g = rjson_dumps(json_object_get(t, "tbox_groups"), 0);

		printf("  branches %s, base %s, groups %s\n", b,
		       cli_shown(t, "base_ref"), g);
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
			printf("  job %s\n", cli_shown(h, "name"));
		free(b);
		free(g);
	}
	json_array_foreach(heads, i, h)
		printf("  %-20s %.12s  base %.12s\n", cli_shown(h, "branch"),
		       cli_shown(h, "sha"), cli_shown(h, "base"));
}

/* tree list and tree show. */
static int
tree_read(const char *server, const char *name, bool json)
{
	char *path =
		name ? xasprintf("/api/trees/%s", name) : xstrdup("/api/trees");
	json_t *j = cli_get(server, path), *t;
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

	j = cli_call(strcmp(verb, "remove") == 0 ? "DELETE" : "POST", server,
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

/* The tree's settings from the options; a job file that cannot be
 * read makes the exit status 1. */
struct tree_args {
	json_t *tree;
	int failed; /* after a bad option value: the exit status, 2 or 1 */
};

/* A yes|no option into member key. */
static bool
tree_yes_no(json_t *tree, const char *key, const char *opt, const char *v)
{
	bool ok = strcmp(v, "yes") == 0 || strcmp(v, "no") == 0;

	if (!ok)
		log_warnx("%s is yes or no, not '%s'", opt, v);
	json_object_set_new(tree, key, json_boolean(strcmp(v, "yes") == 0));
	return ok;
}

static bool
tree_setting(json_t *tree, int c, const char *arg)
{
	switch (c) {
	case 'u':
		json_object_set_new(tree, "url", json_string(arg));
		return true;
	case 'b':
		tree_push(tree, "branches", json_string(arg));
		return true;
	case 'B':
		json_object_set_new(tree, "base_ref", json_string(arg));
		return true;
	case 'g':
		tree_push(tree, "tbox_groups", json_string(arg));
		return true;
	case 'r':
		return tree_int(tree, "runs", "--runs", arg);
	case 'm':
		return tree_int(tree, "max_runs", "--max-runs", arg);
	case 'p':
		return tree_int(tree, "poll", "--poll", arg);
	case 'A':
		return tree_yes_no(tree, "mail_author", "--mail-author", arg);
	default:
		return tree_yes_no(tree, "bisect", "--bisect", arg);
	}
}

static bool
tree_option(int c, const char *arg, void *ctx)
{
	struct tree_args *ta = ctx;

	if (c == 'J' && !tree_job(ta->tree, arg))
		ta->failed = 1;
	else if (c != 'J' && !tree_setting(ta->tree, c, arg))
		ta->failed = 2;
	return ta->failed == 0;
}

/* Checks the verb and its operands; the tree's name, or "" for a list,
 * or NULL after saying why. */
static const char *
tree_operands(int argc, char **argv, const char *verb, bool writes,
	      json_t *tree)
{
	const char *name = "";

	if (!writes && strcmp(verb, "list") != 0 && strcmp(verb, "show") != 0) {
		log_warnx("robot tree has no '%s': add, set, list, show or "
			  "remove",
			  verb);
		return NULL;
	}
	if (strcmp(verb, "list") != 0) {
		if (optind + 1 != argc) {
			log_warnx("robot tree %s wants the tree's name", verb);
			return NULL;
		}
		name = argv[optind++];
		json_object_set_new(tree, "name", json_string(name));
	}
	if (optind != argc) {
		log_warnx("robot tree %s: unexpected '%s'", verb, argv[optind]);
		return NULL;
	}
	if ((strcmp(verb, "remove") == 0 || !writes) &&
	    json_object_size(tree) > (name[0] ? 1u : 0u)) {
		log_warnx("robot tree %s takes no tree settings", verb);
		return NULL;
	}
	return name;
}

int
cmd_tree(int argc, char **argv)
{
	static const struct option own[] = {
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
		{NULL, 0, NULL, 0},
	};
	static const struct cli_command cmd = {
		tree_usage,  CLI_SERVER | CLI_TOKEN | CLI_JSON,      own, NULL,
		tree_option, "robot tree --help shows the options\n"};
	const char *verb = argc > 1 ? argv[1] : NULL, *name;
	struct tree_args ta = {json_object(), 0};
	struct cli_args a = {NULL, NULL, false};
	bool writes;
	int status;

	if (verb == NULL || strcmp(verb, "--help") == 0 ||
	    strcmp(verb, "help") == 0) {
		fputs(tree_usage, verb ? stdout : stderr);
		json_decref(ta.tree);
		return verb ? 0 : 2;
	}
	writes = strcmp(verb, "add") == 0 || strcmp(verb, "set") == 0 ||
		 strcmp(verb, "remove") == 0;
	/* After the verb, as a command of its own. */
	status = cli_options(argc - 1, argv + 1, &cmd, &ta, &a);
	if (ta.failed == 2)
		cli_usage_error(&cmd);
	else if (ta.failed == 1)
		status = 1;
	optind++; /* in argv */
	if (status == -1 &&
	    (name = tree_operands(argc, argv, verb, writes, ta.tree)) == NULL)
		status = cli_usage_error(&cmd);
	if (status == -1 && cli_endpoint(&a.server, &a.token, writes))
		status = writes ? tree_write(a.server, a.token, verb,
					     name[0] ? name : NULL, ta.tree)
				: tree_read(a.server, name[0] ? name : NULL,
					    a.json);
	else if (status == -1)
		status = 2;
	cli_args_release(&a);
	json_decref(ta.tree);
	return status;
}
