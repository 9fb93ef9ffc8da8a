/*
 * submit.c: robot submit: queues a job file's runs on robotd, and with --wait follows them.
 */
#include <errno.h>
#include <stdbool.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "robot/cli/cli.h"
#include "robot/cli/commands.h"
#include "robot/core/buf.h"
#include "robot/core/client.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

static const char submit_usage[] =
	"usage: robot submit [--server URL] [--token T] FILE\n"
	"                    [--tree NAME] [--commit REV]... [--repeat N]\n"
	"                    [--max-runs N] [--priority P] [--tbox-group G] "
	"[--wait]\n"
	"Queues a job file's atomic jobs at each commit and prints them.\n"
	"  --tree NAME    the watched tree the commits belong to (else the\n"
	"                 file's tree:); robotd resolves them there to full "
	"SHAs\n"
	"  --commit REV   a commit to run (repeat it; the first is the "
	"base):\n"
	"                 a SHA, a prefix, a tag or a branch of the tree; a "
	"full\n"
	"                 SHA without a tree; else the file's\n"
	"  --repeat N     runs per commit (else the file's repeat, else 3)\n"
	"  --max-runs N   the most runs a side robotd may go up to while a\n"
	"                 KPI is inconclusive (else robotd's max_runs; as\n"
	"                 many as --repeat: robotd adds none)\n"
	"  --priority P   higher runs first (-1000 to 1000)\n"
	"  --tbox-group G the box group (else the file's, else robotd's "
	"default)\n"
	"  --wait         show progress (the runs robotd adds too) until "
	"every\n                 run is done and each commit has its "
	"verdict\n" CLI_HELP_SERVER CLI_HELP_TOKEN "                 (a submit "
	"token)\n";

/* The pairs a submission makes: in each series, each later commit
 * against the first (robot_jobs_queued()). */
struct wait_pair {
	const char *series, *base, *head; /* borrowed from the answer */
};

static size_t
wait_pairs(json_t *jobs, struct wait_pair **out)
{
	struct wait_pair *p = NULL;
	size_t n = 0, i;
	json_t *x;

	json_array_foreach(jobs, i, x)
	{
		const char *series = rjson_get_str(x, "series");
		const char *commit = rjson_get_str(x, "commit");
		const char *base = NULL;
		bool seen = false;

		if (series == NULL || commit == NULL)
			continue;
		/* the series' first commit is its base */
		for (size_t k = 0; k < i && base == NULL; k++) {
			json_t *y = json_array_get(jobs, k);

			if (rjson_get_str(y, "series") != NULL &&
			    strcmp(rjson_get_str(y, "series"), series) == 0)
				base = rjson_get_str(y, "commit");
		}
		if (base == NULL || strcmp(base, commit) == 0)
			continue;
		for (size_t k = 0; k < n && !seen; k++)
			seen = strcmp(p[k].series, series) == 0 &&
			       strcmp(p[k].head, commit) == 0;
		if (seen)
			continue;
		p = xreallocarray(p, n + 1, sizeof *p);
		p[n++] = (struct wait_pair){series, base, commit};
	}
	*out = p;
	return n;
}

/* The pair's comparison once robotd's verdict on it is final; NULL while
 * it is not (more runs may come), or robotd does not answer.  A pair
 * with nothing to compare (no ok run on a side) is final too: robotd's
 * words as its "error". */
static json_t *
wait_final(const char *server, const struct wait_pair *p)
{
	char *s = client_escape(p->series), *b = client_escape(p->base),
	     *h = client_escape(p->head);
	char *url = xasprintf("%s/api/compare?series=%s&base=%s&head=%s",
			      server, s, b, h);
	struct client_resp r;
	json_t *j = NULL;

	if (client_request("GET", url, NULL, NULL, 0, 120, &r) &&
	    (r.status == 200 || r.status == 404))
		j = client_resp_json(&r);
	if (j != NULL && r.status == 404) {
		json_object_set_new(j, "verdict", json_string("no verdict"));
	} else if (j != NULL &&
		   (rjson_get_str(j, "state") == NULL ||
		    strcmp(rjson_get_str(j, "state"), "final") != 0)) {
		json_decref(j);
		j = NULL;
	}
	client_resp_release(&r);
	free(s);
	free(b);
	free(h);
	free(url);
	return j;
}

/* The ids of the runs jobs lists (their number in *n). */
static long long *
job_ids(const json_t *jobs, size_t *n)
{
	long long *ids = xcalloc(json_array_size(jobs) + 1, sizeof *ids);
	const json_t *x;
	size_t i;

	*n = 0;
	json_array_foreach(jobs, i, x)
	{
		ids[*n] = json_integer_value(json_object_get(x, "id"));
		(*n)++;
	}
	return ids;
}

/* Whether job is one of ids. */
static bool
among(long long job, const long long *ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == job)
			return true;
	return false;
}

/* Which runs a verdict read (issue 55): its rounds, and how many of them
 * are the submission's own runs (ids), the rest earlier runs at the
 * same commits. */
static void
wait_read(const struct comparison *c, const long long *ids, size_t nids)
{
	size_t own = 0;

	if (c->nround_runs == 0)
		return;
	for (size_t r = 0; r < c->nround_runs; r++)
		own += among(c->round_runs[r][0], ids, nids) &&
		       among(c->round_runs[r][1], ids, nids);
	printf("  read %zu round%s: %zu of this submission's runs",
	       c->nround_runs, c->nround_runs == 1 ? "" : "s", own);
	if (own < c->nround_runs)
		printf(", %zu with earlier runs at these commits",
		       c->nround_runs - own);
	printf("\n");
}

/* Each pair's final verdict and its KPIs, as robot compare shows them,
 * and the runs it read (ids: the submission's). */
static void
wait_verdicts(json_t **final, const struct wait_pair *p, size_t n,
	      const long long *ids, size_t nids)
{
	for (size_t i = 0; i < n; i++) {
		struct comparison *c = comparison_from_json(
			json_object_get(final[i], "comparison"));

		printf("\n%s: %.12s against %.12s: %s\n", p[i].series,
		       p[i].head, p[i].base, cli_shown(final[i], "verdict"));
		if (c != NULL)
			wait_read(c, ids, nids);
		if (c != NULL)
			cli_print_kpis(c);
		else if (rjson_get_str(final[i], "error") != NULL)
			printf("  %s\n", cli_shown(final[i], "error"));
		comparison_free(c);
	}
}

/*
 * Follows the submission's runs, counting the rounds robotd adds while a
 * KPI is inconclusive, until every run has ended and every pair it makes
 * has its final verdict, which it prints.
 */
static int
submit_wait(const char *server, long long submission, json_t *answer)
{
	char *path =
		xasprintf("/api/jobs?submission=%lld&limit=10000", submission);
	size_t asked = json_array_size(json_object_get(answer, "jobs"));
	struct wait_pair *pairs;
	size_t npairs = wait_pairs(json_object_get(answer, "jobs"), &pairs);
	json_t **final = xcalloc(npairs + 1, sizeof *final);
	char last[256] = "";
	int status = 0;
	bool down = false, said = false;
	long long *ids = NULL;
	size_t nids = 0;

	for (;;) {
		/* robotd down: said once, and its return. */
		json_t *j = cli_get_json(server, path, down), *jobs, *x;
		size_t n[5] = {0, 0, 0, 0, 0}, i, total, left = 0;
		static const char *const states[] = {"queued", "leased", "done",
						     "failed", "cancelled"};
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

			for (size_t k = 0; k < 5; k++)
				if (st != NULL && strcmp(st, states[k]) == 0)
					n[k]++;
		}
		/* one count: the runs asked for now, robotd's rounds too */
		total = n[0] + n[1] + n[2] + n[3];
		snprintf(line, sizeof line,
			 "%zu of %zu runs done, %zu running, %zu queued, %zu "
			 "failed",
			 n[2], total, n[1], n[0], n[3]);
		if (total > asked)
			snprintf(line + strlen(line),
				 sizeof line - strlen(line),
				 " (robotd added %zu: a KPI was inconclusive)",
				 total - asked);
		if (strcmp(line, last) != 0) {
			log_info("%s", line);
			snprintf(last, sizeof last, "%s", line);
		}
		if (n[0] + n[1] == 0) {
			/* Every run ended: each pair's verdict, once final
			 * (its analysis may still ask for more runs). */
			for (size_t k = 0; k < npairs; k++) {
				if (final[k] == NULL)
					final[k] =
						wait_final(server, &pairs[k]);
				left += final[k] == NULL;
			}
			if (left > 0 && !said)
				log_info(
					"every run ended; waiting for robotd's "
					"verdict on %zu pair%s",
					left, left == 1 ? "" : "s");
			said = left > 0;
		}
		if (n[0] + n[1] == 0 && left == 0) {
			/* Why each failed run failed. */
			json_array_foreach(jobs, i, x)
			{
				if (strcmp(cli_shown(x, "state"), "failed") !=
				    0)
					continue;
				log_warnx("run %lld (%s at %.12s) failed: %s",
					  (long long)json_integer_value(
						  json_object_get(x, "id")),
					  cli_shown(x, "series"),
					  cli_shown(x, "commit"),
					  cli_shown(x, "error"));
			}
			ids = job_ids(jobs, &nids); /* for the verdicts' */
			json_decref(j);
			status = n[3] > 0 ? 1 : 0;
			break;
		}
		if (n[0] + n[1] > 0) {
			/* more runs: the verdicts so far may change */
			for (size_t k = 0; k < npairs; k++) {
				json_decref(final[k]);
				final[k] = NULL;
			}
			said = false;
		}
		json_decref(j);
		sleep(2);
	}
	wait_verdicts(final, pairs, npairs, ids, nids);
	for (size_t k = 0; k < npairs; k++)
		json_decref(final[k]);
	free(ids);
	free(final);
	free(pairs);
	free(path);
	return status;
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
	if (!cli_read_jobfile(file, &body)) {
		buf_release(&body);
		return NULL;
	}
	e = client_escape(base);
	path = xasprintf("/api/jobs?name=%s%s", e, query);
	free(e);
	j = cli_call("POST", server, path, token, body.data, body.len, 201,
		     file);
	free(path);
	buf_release(&body);
	return j;
}

/* What robotd may add: runs a side up to the cap while a KPI is
 * inconclusive, or none when the runs queued are the cap. */
static void
print_cap(json_t *j)
{
	json_t *jobs = json_object_get(j, "jobs");
	json_int_t cap = json_integer_value(json_object_get(j, "max_runs"));
	json_int_t promising =
		json_integer_value(json_object_get(j, "promising_runs"));
	json_int_t most = 0;

	for (size_t i = 0; i < json_array_size(jobs); i++) {
		json_int_t run = json_integer_value(
			json_object_get(json_array_get(jobs, i), "run"));

		most = run > most ? run : most;
	}
	if (cap <= 0 || json_array_size(jobs) == 0)
		return;
	if (cap <= most)
		printf("robotd adds no runs: the verdicts are of these "
		       "(--max-runs %lld)\n",
		       (long long)cap);
	else if (promising > cap)
		printf("robotd may add runs, up to %lld a side (%lld for a "
		       "KPI near the line at %lld), until each KPI's verdict "
		       "is final (--max-runs caps it)\n",
		       (long long)cap, (long long)promising, (long long)cap);
	else
		printf("robotd may add runs, up to %lld a side, until each "
		       "KPI's verdict is final (--max-runs caps it)\n",
		       (long long)cap);
}

/* The queued runs, the file's warnings and the groups without boxes. */
static void
print_submitted(json_t *j, const char *server)
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
		       cli_shown(x, "series"),
		       commit ? cli_shown(x, "commit") : "(no commit)",
		       (long long)json_integer_value(
			       json_object_get(x, "run")));
	}
	for (size_t i = 0; i < json_array_size(waiting); i++) {
		const char *w = json_string_value(json_array_get(waiting, i));
		char *p = str_printable(w ? w : "", w ? strlen(w) : 0, 1000);

		printf("note: %s\n", p);
		free(p);
	}
	print_cap(j);
	/* where to follow them: the submission's page */
	printf("its page: %s/submissions/%lld\n", server,
	       (long long)json_integer_value(json_object_get(j, "submission")));
	fflush(stdout);
}

/* What submit's own options give: the query, and --wait. */
struct submit_args {
	struct buf query; /* "&commit=...&repeat=..." */
	bool wait;
};

static bool
submit_option(int c, const char *arg, void *ctx)
{
	struct submit_args *sa = ctx;
	char *e;

	if (c == 'w') {
		sa->wait = true;
		return true;
	}
	e = client_escape(arg);
	buf_addf(&sa->query, "&%s=%s",
		 c == 'c'   ? "commit"
		 : c == 'r' ? "repeat"
		 : c == 'p' ? "priority"
		 : c == 'T' ? "tree"
		 : c == 'x' ? "max_runs"
			    : "tbox_group",
		 e);
	free(e);
	return true;
}

int
cmd_submit(int argc, char **argv)
{
	static const struct option own[] = {
		{"commit", required_argument, NULL, 'c'},
		{"repeat", required_argument, NULL, 'r'},
		{"priority", required_argument, NULL, 'p'},
		{"tbox-group", required_argument, NULL, 'g'},
		{"tree", required_argument, NULL, 'T'},
		{"max-runs", required_argument, NULL, 'x'},
		{"wait", no_argument, NULL, 'w'},
		{NULL, 0, NULL, 0},
	};
	static const struct cli_command cmd = {
		submit_usage, CLI_SERVER | CLI_TOKEN, own, NULL, submit_option};
	struct submit_args sa = {{0}, false};
	struct cli_args a;
	json_t *j = NULL;
	int status;

	buf_init(&sa.query);
	status = cli_options(argc, argv, &cmd, &sa, &a);
	if (status == -1 && optind != argc - 1)
		status = cli_usage_error(&cmd);
	if (status == -1 && !cli_endpoint(&a.server, &a.token, true))
		status = 2;
	if (status == -1) {
		status = 1;
		j = submit_send(a.server, a.token, argv[optind],
				sa.query.data ? sa.query.data : "");
	}
	if (j != NULL) {
		print_submitted(j, a.server);
		fflush(stdout);
		status = 0;
		if (sa.wait)
			status = submit_wait(
				a.server,
				(long long)json_integer_value(
					json_object_get(j, "submission")),
				j);
	}
	json_decref(j);
	cli_args_release(&a);
	buf_release(&sa.query);
	return status;
}
