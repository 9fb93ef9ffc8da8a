/*
 * results.c: robot results: the result documents of a series at a commit.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/cli/cli.h"
#include "robot/cli/commands.h"
#include "robot/core/client.h"
#include "robot/core/log.h"
#include "robot/core/path.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

/* The result documents of series at commit (a JSON array), page after
 * page, or NULL after saying why. */
static json_t *
fetch_results(const char *server, const char *series, const char *commit)
{
	char *s = client_escape(series), *c = client_escape(commit);
	json_t *docs = json_array(), *j, *next;
	long long after = 0;

	do {
		char *path = xasprintf("/api/results?series=%s&commit=%s"
				       "&after=%lld",
				       s, c, after);

		j = cli_get(server, path);
		free(path);
		if (j == NULL ||
		    !json_is_array(json_object_get(j, "results"))) {
			if (j != NULL)
				log_warnx("robotd's answer has no results");
			json_decref(j);
			json_decref(docs);
			docs = NULL;
			break;
		}
		json_array_extend(docs, json_object_get(j, "results"));
		next = json_object_get(j, "next");
		after = json_is_integer(next) ? json_integer_value(next) : 0;
		json_decref(j);
	} while (after > 0);
	free(s);
	free(c);
	return docs;
}

static const char results_usage[] =
	"usage: robot results [--server URL] --series KEY --commit SHA "
	"[-o DIR]\n"
	"Fetches the result documents of a series at a commit: into DIR\n"
	"(one file per run), else to stdout as a JSON array.\n" CLI_HELP_SERVER;

/* --series, --commit, -o: which documents, and where. */
struct results_args {
	const char *series, *commit, *dir;
};

static bool
results_option(int c, const char *arg, void *ctx)
{
	struct results_args *r = ctx;

	if (c == 'S')
		r->series = arg;
	else if (c == 'c')
		r->commit = arg;
	else
		r->dir = arg;
	return true;
}

int
cmd_results(int argc, char **argv)
{
	static const struct option own[] = {
		{"series", required_argument, NULL, 'S'},
		{"commit", required_argument, NULL, 'c'},
		{"output", required_argument, NULL, 'o'},
		{NULL, 0, NULL, 0},
	};
	static const struct cli_command cmd = {results_usage, CLI_SERVER, own,
					       "o:", results_option};
	struct results_args r = {NULL, NULL, NULL};
	const char *series, *commit, *dir;
	struct cli_args a;
	json_t *docs;
	int status = cli_options(argc, argv, &cmd, &r, &a);

	series = r.series;
	commit = r.commit;
	dir = r.dir;
	if (status == -1 &&
	    (optind != argc || series == NULL || commit == NULL)) {
		log_warnx("results wants --series KEY/TBOX_GROUP and --commit "
			  "SHA");
		status = 2;
	}
	if (status == -1 && !cli_server_endpoint(&a.server))
		status = 2;
	if (status != -1) {
		cli_args_release(&a);
		return status;
	}
	status = 0;
	if ((docs = fetch_results(a.server, series, commit)) == NULL) {
		cli_args_release(&a);
		return 1;
	}
	if (json_array_size(docs) == 0) {
		/* An unknown series or commit is named, with what exists. */
		char *why = cli_explain_missing(a.server, series, commit);

		log_warnx("%s", why);
		free(why);
		json_decref(docs);
		cli_args_release(&a);
		return 1;
	}
	if (dir == NULL) {
		status = rjson_print(docs, stdout) ? 0 : 1;
	} else {
		char *top = path_trim(dir);

		if (!path_mkdirs(top, 0755)) {
			log_warn("cannot make '%s'", dir);
			status = 1;
		}
		for (size_t i = 0; status == 0 && i < json_array_size(docs);
		     i++) {
			char *path = xasprintf("%s/%.12s-%zu.json", top, commit,
					       i + 1);

			if (json_dump_file(json_array_get(docs, i), path,
					   JSON_INDENT(1)) != 0) {
				log_warn("cannot write '%s'", path);
				status = 1;
			}
			free(path);
		}
		if (status == 0)
			printf("%zu result documents in %s\n",
			       json_array_size(docs), top);
		free(top);
	}
	json_decref(docs);
	cli_args_release(&a);
	return status;
}
