/*
 * cli.c: what the commands share (cli.h).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobs/jobfile.h"
#include "robot/cli/cli.h"
#include "robot/core/buf.h"
#include "robot/core/client.h"
#include "robot/core/log.h"
#include "robot/core/num.h"
#include "robot/core/rjson.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

#define CLI_TIMEOUT 60.0

void
cli_opt_set(char **dst)
{
	free(*dst);
	*dst = xstrdup(optarg);
}

bool
cli_endpoint(char **server, char **token, bool need_token)
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
json_t *
cli_get_json(const char *server, const char *path, bool quiet)
{
	char *url = xasprintf("%s%s", server, path);
	struct client_resp r;
	json_t *j = NULL;
	bool ok;

	/* robotd answers 429 while it makes as many large answers as it
	 * allows at once: asked again after 1, 2, 4, 8 and 8 s. */
	for (int tries = 0;; tries++) {
		ok = client_request("GET", url, NULL, NULL, 0, CLI_TIMEOUT, &r);
		if (!ok || r.status != 429 || tries == 5)
			break;
		if (tries == 0 && !quiet)
			log_info("robotd is busy with other large answers: "
				 "asking again");
		client_resp_release(&r);
		sleep(tries < 3 ? 1u << tries : 8u);
	}
	if (ok && r.status == 200)
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
cli_get(const char *server, const char *path)
{
	return cli_get_json(server, path, false);
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
cli_read_jobfile(const char *file, struct buf *body)
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
cli_call(const char *method, const char *server, const char *path,
	 const char *token, const char *body, size_t len, long want,
	 const char *what)
{
	char *url = xasprintf("%s%s", server, path), *e;
	struct client_resp r;
	json_t *j = NULL;

	client_request(method, url, token, body, len, CLI_TIMEOUT, &r);
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

/*
 * A string member of the server's answer, fit for a terminal: control
 * characters and invalid UTF-8 escaped (a name in robotd's database
 * cannot put escapes on the user's screen), "-" when absent.  Valid
 * until the eighth call after it.
 */
const char *
cli_shown(json_t *o, const char *key)
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

bool
cli_server_endpoint(char **server)
{
	char *token = NULL;
	bool ok = cli_endpoint(server, &token, false);

	free(token);
	return ok;
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
cli_explain_missing(const char *server, const char *series, const char *commit)
{
	char *e = client_escape(series);
	char *path = xasprintf("/api/series/%s/commits", e);
	json_t *j = cli_get_json(server, path, true), *all;
	const char **names, *near;
	struct buf b;

	free(e);
	free(path);
	buf_init(&b);
	if (j == NULL) {
		all = cli_get(server, "/api/series?limit=100000");
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

bool
cli_id(const char *s, long long *id)
{
	char *end;

	*id = strtoll(s, &end, 10);
	return *end == '\0' && *id > 0;
}

/* A number member as "-10.3%", or "-". */
const char *
cli_pct(json_t *o, const char *key, char *buf, size_t len)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_number(v))
		return "-";
	return num_pct(buf, len, json_number_value(v), "-");
}

/* --limit N, into the query. */
static bool
admin_limit(int c, const char *arg, void *ctx)
{
	(void)c;
	*(const char **)ctx = arg;
	return true;
}

int
cli_admin_list(int argc, char **argv, const char *usage, const char *path,
	       void (*print)(json_t *))
{
	static const struct option own[] = {
		{"limit", required_argument, NULL, 'l'},
		{NULL, 0, NULL, 0},
	};
	struct cli_args a;
	const char *limit = "50";
	char *p;
	json_t *j;
	const struct cli_command cmd = {usage,
					CLI_SERVER | CLI_TOKEN | CLI_JSON, own,
					NULL, admin_limit};
	int status = cli_options(argc, argv, &cmd, &limit, &a);

	if (status == -1 && optind != argc)
		status = cli_usage_error(&cmd);
	if (status == -1 && !cli_endpoint(&a.server, &a.token, true))
		status = 1;
	if (status == -1) {
		status = 1;
		p = xasprintf("%s?limit=%s", path, limit);
		if ((j = cli_call("GET", a.server, p, a.token, NULL, 0, 200,
				  NULL)) != NULL) {
			status = 0;
			if (a.json)
				status = rjson_print(j, stdout) ? 0 : 1;
			else
				print(j);
			json_decref(j);
		}
		free(p);
	}
	cli_args_release(&a);
	return status;
}

int
cli_options(int argc, char **argv, const struct cli_command *cmd, void *ctx,
	    struct cli_args *a)
{
	static const struct option shared[] = {
		{"server", required_argument, NULL, 's'},
		{"token", required_argument, NULL, 't'},
		{"json", no_argument, NULL, 'j'},
	};
	/* (with --server: how robotd is reached; vals beyond a char's) */
	static const struct option tls[] = {
		{"ca-file", required_argument, NULL, CLI_OPT_CA_FILE},
		{"insecure-http", no_argument, NULL, CLI_OPT_INSECURE},
	};
	char *ca_file = NULL;
	bool insecure = false, tls_given = false;
	const struct option *own = cmd->own;
	struct option opts[32];
	char shorts[32];
	size_t n = 0;
	int c;

	memset(a, 0, sizeof *a);
	for (size_t i = 0; i < 3; i++)
		if (cmd->shared & (1u << i))
			opts[n++] = shared[i];
	if (cmd->shared & CLI_SERVER) {
		opts[n++] = tls[0];
		opts[n++] = tls[1];
	}
	for (size_t i = 0; own != NULL && own[i].name != NULL && n < 30; i++)
		opts[n++] = own[i];
	opts[n++] = (struct option){"help", no_argument, NULL, 'h'};
	opts[n] = (struct option){NULL, 0, NULL, 0};
	/* -h too, as --help. */
	snprintf(shorts, sizeof shorts, "%sh", cmd->shorts ? cmd->shorts : "");
	optind = 1;
	while ((c = getopt_long(argc, argv, shorts, opts, NULL)) != -1) {
		switch (c) {
		case 's':
			cli_opt_set(&a->server);
			break;
		case 't':
			cli_opt_set(&a->token);
			break;
		case 'j':
			a->json = true;
			break;
		case CLI_OPT_CA_FILE:
			cli_opt_set(&ca_file);
			tls_given = true;
			break;
		case CLI_OPT_INSECURE:
			insecure = tls_given = true;
			break;
		case 'h':
			free(ca_file);
			fputs(cmd->usage, stdout);
			return 0;
		case '?':
			free(ca_file);
			return cli_usage_error(cmd);
		default:
			if (cmd->on == NULL || !cmd->on(c, optarg, ctx)) {
				free(ca_file);
				return 2;
			}
		}
	}
	if (tls_given)
		client_set_tls(ca_file, insecure);
	free(ca_file);
	return -1;
}

int
cli_usage_error(const struct cli_command *cmd)
{
	fputs(cmd->hint ? cmd->hint : cmd->usage, stderr);
	return 2;
}

void
cli_args_release(struct cli_args *a)
{
	free(a->server);
	free(a->token);
	a->server = a->token = NULL;
}

int
cli_get_print(struct cli_args *a, const char *path,
	      void (*print)(json_t *j, void *ctx), void *ctx)
{
	json_t *j;
	int status = 1;

	if (!cli_server_endpoint(&a->server))
		return 2;
	if ((j = cli_get(a->server, path)) == NULL)
		return 1;
	if (a->json) {
		status = rjson_print(j, stdout) ? 0 : 1;
	} else {
		print(j, ctx);
		status = 0;
	}
	json_decref(j);
	return status;
}

void
cli_query_add(struct buf *q, const char *name, const char *value)
{
	char *e = client_escape(value);

	buf_addf(q, "%c%s=%s", q->len == 0 ? '?' : '&', name, e);
	free(e);
}

void
cli_print_kpis(const struct comparison *c)
{
	size_t w = 0, n = 0;

	for (size_t i = 0; i < c->nmetrics; i++)
		if (c->metrics[i].kpi && strlen(c->metrics[i].name) > w)
			w = strlen(c->metrics[i].name);
	for (size_t i = 0; i < c->nmetrics; i++) {
		const struct comparison_metric *m = &c->metrics[i];
		const struct compare_result *r = &m->r;

		if (!m->kpi)
			continue;
		if (n++ == 0)
			printf("KPIs (the %s method):\n",
			       compare_method_name(c->method));
		printf("  %-*s  %-12s", (int)w, m->name,
		       compare_verdict_name(r->verdict));
		if (r->change_defined)
			printf(" %+7.1f%%", r->change_pct);
		else
			printf("       - ");
		if (!isnan(r->p_value))
			printf("  p=%-8.2g", r->p_value);
		else
			printf("  %-10s", "");
		printf("  %zu+%zu runs", r->base.n, r->head.n);
		if (r->reason != NULL)
			printf(": %s", r->reason);
		if (r->verdict == COMPARE_INCONCLUSIVE) {
			if (r->runs_needed > 0)
				printf("; about %d runs per side would settle "
				       "it",
				       r->runs_needed);
			else if (r->runs_needed < 0)
				printf("; more runs are unlikely to settle it");
		}
		printf("\n");
		{
			char note[256];

			if (compare_history_note(r, note, sizeof note))
				printf("  %-*s  (%s)\n", (int)w, "", note);
		}
	}
	if (n == 0)
		printf("KPIs: none known for this workload (no metric "
		       "decides; the table explains)\n");
	printf("\n");
}
