/*
 * cmd_server.c: the commands that talk to robotd: submit, status and
 * results, and the fetch of result documents for compare --server.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobs/jobfile.h"
#include "robot/cli/cmd_server.h"
#include "robot/core/buf.h"
#include "robot/core/client.h"
#include "robot/core/log.h"
#include "robot/core/path.h"
#include "robot/core/rjson.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

#define CMD_TIMEOUT 60.0

void
cmd_opt_set(char **dst)
{
	free(*dst);
	*dst = xstrdup(optarg);
}

bool
cmd_endpoint(char **server, char **token, bool need_token)
{
	client_defaults(server, token);
	if (*server == NULL) {
		log_warnx("which robotd? give --server URL, or set "
			  "ROBOT_SERVER, or server: in "
			  "~/.config/robot/config");
		return false;
	}
	if (need_token && *token == NULL) {
		log_warnx("this needs a token: give --token T, or set "
			  "ROBOT_TOKEN, or token: in ~/.config/robot/config");
		return false;
	}
	while ((*server)[0] != '\0' && (*server)[strlen(*server) - 1] == '/')
		(*server)[strlen(*server) - 1] = '\0';
	return true;
}

/* GETs path: the JSON, or NULL (saying why unless quiet). */
static json_t *
get_json(const char *server, const char *path, bool quiet)
{
	char *url = xasprintf("%s%s", server, path);
	struct client_resp r;
	json_t *j = NULL;

	if (client_request("GET", url, NULL, NULL, 0, CMD_TIMEOUT, &r) &&
	    r.status == 200)
		j = client_resp_json(&r);
	if (j == NULL && !quiet) {
		char *e = client_resp_error(&r);

		log_warnx("%s", e);
		free(e);
	}
	client_resp_release(&r);
	free(url);
	return j;
}

json_t *
cmd_get(const char *server, const char *path)
{
	return get_json(server, path, false);
}

static void
submit_usage(FILE *fp)
{
	fprintf(fp,
		"usage: robot submit [--server URL] [--token T] FILE\n"
		"                    [--tree NAME] [--commit REV]... "
		"[--repeat N]\n"
		"                    [--priority P] [--tbox-group G] "
		"[--wait]\n"
		"Queues a job file's atomic jobs at each commit and prints "
		"them.\n"
		"  --tree NAME    the watched tree the commits belong to "
		"(else the\n"
		"                 file's tree:); robotd resolves them there "
		"to full SHAs\n"
		"  --commit REV   a commit to run (repeat it; the first is "
		"the base):\n"
		"                 a SHA, a prefix, a tag or a branch of the "
		"tree; a full\n"
		"                 SHA without a tree; else the file's\n"
		"  --repeat N     runs per commit (else the file's repeat, "
		"else 3)\n"
		"  --priority P   higher runs first (-1000 to 1000)\n"
		"  --tbox-group G the box group (else the file's, else "
		"robotd's default)\n"
		"  --wait         show progress until every run is "
		"done\n" CMD_HELP_SERVER CMD_HELP_TOKEN
		"                 (a submit token)\n");
}

/* Polls the submission's runs until none is queued or leased. */
static int
submit_wait(const char *server, long long submission, size_t total)
{
	char *path =
		xasprintf("/api/jobs?submission=%lld&limit=10000", submission);
	char last[256] = "";
	int status = 0;
	bool down = false;

	for (;;) {
		/* robotd down: said once, and its return. */
		json_t *j = get_json(server, path, down), *jobs, *x;
		size_t n[4] = {0, 0, 0, 0}, i;
		static const char *const states[] = {"queued", "leased", "done",
						     "failed"};
		char line[256];

		if (j == NULL) {
			if (!down)
				log_warnx("waiting for robotd to answer again "
					  "(the runs go on without it)");
			down = true;
			sleep(2);
			continue;
		}
		if (down)
			log_info("robotd answers again");
		down = false;
		jobs = json_object_get(j, "jobs");
		json_array_foreach(jobs, i, x)
		{
			const char *st = rjson_get_str(x, "state");

			for (size_t k = 0; k < 4; k++)
				if (st != NULL && strcmp(st, states[k]) == 0)
					n[k]++;
		}
		snprintf(line, sizeof line,
			 "%zu of %zu runs done, %zu running, %zu queued, %zu "
			 "failed",
			 n[2], total, n[1], n[0], n[3]);
		if (strcmp(line, last) != 0) {
			log_info("%s", line);
			snprintf(last, sizeof last, "%s", line);
		}
		if (n[0] + n[1] == 0) {
			/* Why each failed run failed. */
			json_array_foreach(jobs, i, x)
			{
				if (strcmp(cmd_shown(x, "state"), "failed") !=
				    0)
					continue;
				log_warnx("run %lld (%s at %.12s) failed: %s",
					  (long long)json_integer_value(
						  json_object_get(x, "id")),
					  cmd_shown(x, "series"),
					  cmd_shown(x, "commit"),
					  cmd_shown(x, "error"));
			}
			json_decref(j);
			status = n[3] > 0 ? 1 : 0;
			break;
		}
		json_decref(j);
		sleep(2);
	}
	free(path);
	return status;
}

/* robotd reads no files: the file's includes go in it before it is sent.
 * False after saying why. */
static bool
inline_includes(const char *file, struct buf *body)
{
	struct errlist el;
	bool changed;
	char *text;

	errlist_init(&el);
	text = jobfile_inline(file, body->data, body->len, &changed, &el);
	errlist_print(&el, stderr);
	if (el.nerrors > 0) {
		errlist_release(&el);
		return false;
	}
	errlist_release(&el);
	if (changed) {
		buf_reset(body);
		buf_adds(body, text);
		free(text);
	}
	return true;
}

bool
cmd_read_jobfile(const char *file, struct buf *body)
{
	if (!buf_add_file(body, file, JOBFILE_MAX_BYTES)) {
		log_warn("cannot read '%s'", file);
		return false;
	}
	if (body->len > JOBFILE_MAX_BYTES) {
		log_warnx("'%s' is larger than 1 MiB, the limit of a job file",
			  file);
		return false;
	}
	return inline_includes(file, body);
}

json_t *
cmd_call(const char *method, const char *server, const char *path,
	 const char *token, const char *body, size_t len, long want,
	 const char *what)
{
	char *url = xasprintf("%s%s", server, path), *e;
	struct client_resp r;
	json_t *j = NULL;

	client_request(method, url, token, body, len, CMD_TIMEOUT, &r);
	free(url);
	if (r.status == want && (j = client_resp_json(&r)) != NULL) {
		client_resp_release(&r);
		return j;
	}
	e = client_resp_error(&r);
	log_warnx("%s%s%s", what ? what : "", what ? ": " : "", e);
	free(e);
	client_resp_release(&r);
	return NULL;
}

/* Sends the job file; robotd's answer, or NULL after saying why. */
static json_t *
submit_send(const char *server, const char *token, const char *file,
	    const char *query)
{
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	struct buf body;
	json_t *j = NULL;
	char *path, *e;

	buf_init(&body);
	if (!cmd_read_jobfile(file, &body)) {
		buf_release(&body);
		return NULL;
	}
	e = client_escape(base);
	path = xasprintf("/api/jobs?name=%s%s", e, query);
	free(e);
	j = cmd_call("POST", server, path, token, body.data, body.len, 201,
		     file);
	free(path);
	buf_release(&body);
	return j;
}

/*
 * A string member of the server's answer, fit for a terminal: control
 * characters and invalid UTF-8 escaped (a name in robotd's database
 * cannot put escapes on the user's screen), "-" when absent.  Valid
 * until the eighth call after it.
 */
const char *
cmd_shown(json_t *o, const char *key)
{
	static char *ring[8];
	static size_t next;
	const char *v = rjson_get_str(o, key);
	char *s = v ? str_printable(v, strlen(v), 200) : xstrdup("-");

	free(ring[next]);
	ring[next] = s;
	next = (next + 1) % 8;
	return s;
}

/* The queued runs, the file's warnings and the groups without boxes. */
static void
print_submitted(json_t *j)
{
	json_t *jobs = json_object_get(j, "jobs");
	json_t *warnings = json_object_get(j, "warnings");
	json_t *waiting = json_object_get(j, "waiting");
	json_t *sha;
	const char *name;

	for (size_t i = 0; i < json_array_size(warnings); i++) {
		const char *w = json_string_value(json_array_get(warnings, i));
		char *p = str_printable(w ? w : "", w ? strlen(w) : 0, 1000);

		log_warnx("warning: %s", p);
		free(p);
	}
	json_object_foreach(json_object_get(j, "resolved"), name, sha)
	{
		const char *v = json_string_value(sha);

		if (v != NULL && strcmp(name, v) != 0) {
			char *p = str_printable(name, strlen(name), 100);

			printf("%s is %s\n", p, v);
			free(p);
		}
	}
	printf("queued %zu runs (submission %lld):\n", json_array_size(jobs),
	       (long long)json_integer_value(json_object_get(j, "submission")));
	for (size_t i = 0; i < json_array_size(jobs); i++) {
		json_t *x = json_array_get(jobs, i);
		const char *commit = rjson_get_str(x, "commit");

		printf("  %-8lld %s  %s  run %lld\n",
		       (long long)json_integer_value(json_object_get(x, "id")),
		       cmd_shown(x, "series"),
		       commit ? cmd_shown(x, "commit") : "(no commit)",
		       (long long)json_integer_value(
			       json_object_get(x, "run")));
	}
	for (size_t i = 0; i < json_array_size(waiting); i++) {
		const char *w = json_string_value(json_array_get(waiting, i));
		char *p = str_printable(w ? w : "", w ? strlen(w) : 0, 1000);

		printf("note: %s\n", p);
		free(p);
	}
	fflush(stdout);
}

int
cmd_submit(int argc, char **argv)
{
	static const struct option opts[] = {
		{"server", required_argument, NULL, 's'},
		{"token", required_argument, NULL, 't'},
		{"commit", required_argument, NULL, 'c'},
		{"repeat", required_argument, NULL, 'r'},
		{"priority", required_argument, NULL, 'p'},
		{"tbox-group", required_argument, NULL, 'g'},
		{"tree", required_argument, NULL, 'T'},
		{"wait", no_argument, NULL, 'w'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	char *server = NULL, *token = NULL;
	const char *file = NULL;
	struct buf q;
	json_t *j = NULL;
	bool wait = false;
	int c, status = 1;

	buf_init(&q);
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		char *e;

		switch (c) {
		case 's':
			free(server);
			server = xstrdup(optarg);
			break;
		case 't':
			free(token);
			token = xstrdup(optarg);
			break;
		case 'c':
		case 'r':
		case 'p':
		case 'g':
		case 'T':
			e = client_escape(optarg);
			buf_addf(&q, "&%s=%s",
				 c == 'c'   ? "commit"
				 : c == 'r' ? "repeat"
				 : c == 'p' ? "priority"
				 : c == 'T' ? "tree"
					    : "tbox_group",
				 e);
			free(e);
			break;
		case 'w':
			wait = true;
			break;
		case 'h':
			submit_usage(stdout);
			status = 0;
			goto out;
		default:
			submit_usage(stderr);
			status = 2;
			goto out;
		}
	}
	if (optind != argc - 1) {
		submit_usage(stderr);
		status = 2;
		goto out;
	}
	file = argv[optind];
	if (!cmd_endpoint(&server, &token, true)) {
		status = 2;
		goto out;
	}
	if ((j = submit_send(server, token, file, q.data ? q.data : "")) ==
	    NULL)
		goto out;
	print_submitted(j);
	fflush(stdout);
	status = 0;
	if (wait)
		status = submit_wait(
			server,
			(long long)json_integer_value(
				json_object_get(j, "submission")),
			json_array_size(json_object_get(j, "jobs")));
out:
	json_decref(j);
	free(server);
	free(token);
	buf_release(&q);
	return status;
}

static void
print_status(json_t *j)
{
	json_t *queue = json_object_get(j, "queue");
	json_t *boxes = json_object_get(j, "boxes");
	json_t *running = json_object_get(j, "running");
	json_t *analysis = json_object_get(j, "analysis");

	printf("queue: %lld queued, %lld running, %lld done, %lld failed, "
	       "%lld cancelled\n",
	       (long long)json_integer_value(json_object_get(queue, "queued")),
	       (long long)json_integer_value(json_object_get(queue, "leased")),
	       (long long)json_integer_value(json_object_get(queue, "done")),
	       (long long)json_integer_value(json_object_get(queue, "failed")),
	       (long long)json_integer_value(
		       json_object_get(queue, "cancelled")));
	printf("analysis: %lld pairs waiting for runs, %lld being analysed, "
	       "%lld final\n",
	       (long long)json_integer_value(
		       json_object_get(analysis, "waiting")),
	       (long long)json_integer_value(
		       json_object_get(analysis, "analysing")),
	       (long long)json_integer_value(
		       json_object_get(analysis, "final")));
	printf("\nboxes: %zu\n", json_array_size(boxes));
	if (json_array_size(boxes) > 0)
		printf("  %-20s %-16s %-7s %-8s %s\n", "NAME", "GROUP", "STATE",
		       "FAILURES", "LAST SEEN");
	for (size_t i = 0; i < json_array_size(boxes); i++) {
		json_t *b = json_array_get(boxes, i);

		printf("  %-20s %-16s %-7s %-8lld %.19s\n",
		       cmd_shown(b, "name"), cmd_shown(b, "tbox_group"),
		       cmd_shown(b, "state"),
		       (long long)json_integer_value(
			       json_object_get(b, "failures")),
		       cmd_shown(b, "last_seen"));
	}
	if (json_array_size(json_object_get(j, "failed")) > 0)
		printf("\nfailed lately:\n");
	for (size_t i = 0; i < json_array_size(json_object_get(j, "failed"));
	     i++) {
		json_t *x = json_array_get(json_object_get(j, "failed"), i);

		printf("  job %lld: %s at %.12s on %s: %s\n",
		       (long long)json_integer_value(json_object_get(x, "id")),
		       cmd_shown(x, "series"), cmd_shown(x, "commit"),
		       cmd_shown(x, "box"), cmd_shown(x, "error"));
	}
	printf("\nrunning: %zu\n", json_array_size(running));
	for (size_t i = 0; i < json_array_size(running); i++) {
		json_t *x = json_array_get(running, i);

		printf("  job %lld on %s: %s at %.12s, run %lld/%lld, attempt "
		       "%lld, lease until %.19s\n",
		       (long long)json_integer_value(json_object_get(x, "id")),
		       cmd_shown(x, "box"), cmd_shown(x, "key"),
		       cmd_shown(x, "commit"),
		       (long long)json_integer_value(json_object_get(x, "run")),
		       (long long)json_integer_value(
			       json_object_get(x, "runs")),
		       (long long)json_integer_value(
			       json_object_get(x, "attempts")),
		       cmd_shown(x, "deadline"));
	}
}

int
cmd_status(int argc, char **argv)
{
	static const struct option opts[] = {
		{"server", required_argument, NULL, 's'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	char *server = NULL, *token = NULL;
	bool json = false;
	json_t *j;
	int c, status = 1;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 's') {
			free(server);
			server = xstrdup(optarg);
		} else if (c == 'j') {
			json = true;
		} else {
			fprintf(c == 'h' ? stdout : stderr,
				"usage: robot status [--server URL] [--json]\n"
				"The queue, the boxes and the running "
				"jobs.\n" CMD_HELP_SERVER);
			free(server);
			return c == 'h' ? 0 : 2;
		}
	}
	if (optind != argc || !cmd_endpoint(&server, &token, false)) {
		free(server);
		free(token);
		return 2;
	}
	if ((j = cmd_get(server, "/api/status")) != NULL) {
		if (json)
			status = rjson_print(j, stdout) ? 0 : 1;
		else {
			print_status(j);
			status = 0;
		}
		json_decref(j);
	}
	free(server);
	free(token);
	return status;
}

/* The result documents of series at commit (a JSON array), or NULL after
 * saying why. */
static json_t *
cmd_fetch_results(const char *server, const char *series, const char *commit)
{
	char *s = client_escape(series), *c = client_escape(commit);
	char *path = xasprintf("/api/results?series=%s&commit=%s", s, c);
	json_t *j = cmd_get(server, path), *docs = NULL;

	if (j != NULL && json_is_array(json_object_get(j, "results")))
		docs = json_incref(json_object_get(j, "results"));
	else if (j != NULL)
		log_warnx("robotd's answer has no results");
	json_decref(j);
	free(path);
	free(s);
	free(c);
	return docs;
}

bool
cmd_server_endpoint(char **server)
{
	char *token = NULL;
	bool ok = cmd_endpoint(server, &token, false);

	free(token);
	return ok;
}

int
cmd_results(int argc, char **argv)
{
	static const struct option opts[] = {
		{"server", required_argument, NULL, 's'},
		{"series", required_argument, NULL, 'S'},
		{"commit", required_argument, NULL, 'c'},
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *series = NULL, *commit = NULL, *dir = NULL;
	char *server = NULL;
	json_t *docs;
	int c, status = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			free(server);
			server = xstrdup(optarg);
			break;
		case 'S':
			series = optarg;
			break;
		case 'c':
			commit = optarg;
			break;
		case 'o':
			dir = optarg;
			break;
		default:
			fprintf(c == 'h' ? stdout : stderr,
				"usage: robot results [--server URL] --series "
				"KEY --commit SHA [-o DIR]\n"
				"Fetches the result documents of a series at "
				"a commit: into DIR\n"
				"(one file per run), else to stdout as a JSON "
				"array.\n" CMD_HELP_SERVER);
			free(server);
			return c == 'h' ? 0 : 2;
		}
	}
	if (optind != argc || series == NULL || commit == NULL) {
		log_warnx("results wants --series KEY/TBOX_GROUP and --commit "
			  "SHA");
		free(server);
		return 2;
	}
	if (!cmd_server_endpoint(&server)) {
		free(server);
		return 2;
	}
	if ((docs = cmd_fetch_results(server, series, commit)) == NULL) {
		free(server);
		return 1;
	}
	if (json_array_size(docs) == 0) {
		/* An unknown series or commit is named, with what exists. */
		char *why = cmd_explain_missing(server, series, commit);

		log_warnx("%s", why);
		free(why);
		json_decref(docs);
		free(server);
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
	free(server);
	return status;
}

/* The strings of member key of each object of array a, NULL-ended (the
 * strings are borrowed). */
static const char **
names_of(json_t *a, const char *key)
{
	const char **v = xcalloc(json_array_size(a) + 1, sizeof *v);
	size_t n = 0;

	for (size_t i = 0; i < json_array_size(a); i++) {
		const char *s = rjson_get_str(json_array_get(a, i), key);

		if (s != NULL)
			v[n++] = s;
	}
	return v;
}

char *
cmd_explain_missing(const char *server, const char *series, const char *commit)
{
	char *e = client_escape(series);
	char *path = xasprintf("/api/series/%s/commits", e);
	json_t *j = get_json(server, path, true), *all;
	const char **names, *near;
	struct buf b;

	free(e);
	free(path);
	buf_init(&b);
	if (j == NULL) {
		all = cmd_get(server, "/api/series?limit=100000");
		names = names_of(json_object_get(all, "series"), "series");
		near = str_closest(series, names);
		buf_addf(&b, "robotd has no runs of series '%s'", series);
		if (near != NULL)
			buf_addf(&b, "; did you mean '%s'?", near);
		else
			buf_addf(&b, " (robot series lists the %zu it has)",
				 json_array_size(
					 json_object_get(all, "series")));
		free(names);
		json_decref(all);
		return buf_detach(&b);
	}
	names = names_of(json_object_get(j, "commits"), "commit");
	near = str_closest(commit, names);
	buf_addf(&b, "series '%s' has no ok runs at commit '%s'", series,
		 commit);
	if (near != NULL) {
		buf_addf(&b, "; did you mean '%s'?", near);
	} else {
		buf_adds(&b, "; its newest commits:");
		for (size_t i = 0; names[i] != NULL && i < 5; i++)
			buf_addf(&b, " %s", names[i]);
	}
	free(names);
	json_decref(j);
	return buf_detach(&b);
}
