/*
 * serve.c: robot-box serve.
 *
 * The box registers its facts, then asks robotd for work (a long-poll),
 * runs each leased job in a forked runner (the same runner_run() as
 * robot-box run), heartbeats while it runs, and uploads the result.
 *
 * A result document is written to the outbox (<workdir>/outbox/<lease>.json)
 * before it is uploaded, and removed only when robotd has answered: a
 * result survives robotd being down, the network, and the box itself
 * being restarted; the outbox is flushed before the box asks for more
 * work.  A document robotd refuses (its lease expired, say) is moved to
 * <workdir>/outbox/refused/ for the operator, never silently dropped.
 *
 * The lease in hand is kept in <workdir>/in-hand.json while its run
 * runs: a box that restarts in the middle of a run (its hook kexecs into
 * the commit's kernel, docs/box.md) takes the run up again on the same
 * lease when robotd still holds it for the box (a heartbeat says so), at
 * most SERVE_MAX_RESTARTS times; a lease lost meanwhile is forgotten
 * (robotd gave the job back).  With hook_after, the hook runs after each
 * run once its result is uploaded (provision_after()).
 *
 * SIGTERM, SIGINT or SIGHUP: the runner is asked to stop (it tears
 * everything down and reports the run incomplete, which gives the job
 * back to the queue at once), its document is uploaded if robotd can be
 * reached, and the box exits.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jobs/box/box.h"
#include "jobs/box/enroll.h"
#include "jobs/box/boxconf.h"
#include "jobs/box/cgroup.h"
#include "jobs/box/child.h"
#include "jobs/box/provision.h"
#include "jobs/box/runner.h"
#include "jobs/box/serve.h"
#include "jobs/jobfile.h"
#include "robot/analysis/result.h"
#include "robot/core/buf.h"
#include "robot/core/client.h"
#include "robot/core/protocol.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

#define SERVE_TIMEOUT      30.0 /* seconds for a request other than lease */
#define SERVE_MAX_BACKOFF  30.0
#define SERVE_MAX_RESTARTS 2 /* a run taken up again after a restart */

struct serve {
	struct boxconf bc;
	char *server; /* without a trailing slash */
	char *token;
	char *outbox;
	char *refused;
	char *inhand; /* the lease whose run runs */
	int long_poll;
	double backoff; /* after a failed request */
	bool once;      /* exit after one job (tests) */
};

/* Sleeps up to seconds; false when a stop signal came. */
static bool
serve_sleep(double seconds)
{
	double end = child_now() + seconds;

	while (!child_signals_read(NULL)) {
		double left = end - child_now();
		struct pollfd p = {child_signals_fd(), POLLIN, 0};

		if (left <= 0)
			return true;
		poll(&p, 1, (int)(left * 1000) + 1);
	}
	return false;
}

static bool
serve_stopping(void)
{
	return child_signals_read(NULL);
}

/* Waits after a failure, longer each time, up to SERVE_MAX_BACKOFF. */
static bool
serve_backoff(struct serve *s)
{
	s->backoff = s->backoff == 0                      ? 1
		     : s->backoff * 2 > SERVE_MAX_BACKOFF ? SERVE_MAX_BACKOFF
							  : s->backoff * 2;
	return serve_sleep(s->backoff);
}

static bool
serve_post(struct serve *s, const char *path, const char *body, size_t len,
	   double timeout, struct client_resp *r)
{
	char *url = xasprintf("%s%s", s->server, path);
	bool ok = client_request("POST", url, s->token, body, len, timeout, r);

	free(url);
	return ok;
}

/* Outcomes of a call to robotd. */
enum serve_outcome {
	SERVE_OK,
	SERVE_RETRY, /* robotd or its database is not there: later */
	SERVE_FATAL, /* robotd refuses us: no point in retrying */
};

static enum serve_outcome
serve_classify(const struct client_resp *r, const char *what)
{
	char *e;

	if (r->status >= 200 && r->status < 300)
		return SERVE_OK;
	e = client_resp_error(r);
	log_warnx("%s: %s", what, e);
	free(e);
	if (r->status == 0 || r->status >= 500)
		return SERVE_RETRY;
	return SERVE_FATAL;
}

static enum serve_outcome
serve_register(struct serve *s)
{
	json_t *facts = boxconf_facts(&s->bc), *j;
	char *body = rjson_dumps(facts, JSON_COMPACT), *path;
	struct client_resp r;
	enum serve_outcome o;

	path = xasprintf("/api/boxes/%s/register", s->bc.name);
	serve_post(s, path, body, strlen(body), SERVE_TIMEOUT, &r);
	o = serve_classify(&r, "cannot register");
	if (o == SERVE_OK && (j = client_resp_json(&r)) != NULL) {
		json_t *lp = json_object_get(j, "long_poll_seconds");

		if (json_is_integer(lp))
			s->long_poll = (int)json_integer_value(lp);
		log_info("registered %s (tbox_group %s) with %s: %s",
			 s->bc.name, s->bc.tbox_group, s->server,
			 rjson_get_str(j, "state") ? rjson_get_str(j, "state")
						   : "?");
		json_decref(j);
	}
	client_resp_release(&r);
	json_decref(facts);
	free(body);
	free(path);
	return o;
}

/* Writes doc to path whole or not at all (a temporary file, renamed). */
static bool
write_doc(const char *path, json_t *doc)
{
	char *tmp = xasprintf("%s.tmp", path);
	FILE *fp = fopen(tmp, "w");
	bool ok = fp != NULL && json_dumpf(doc, fp, JSON_COMPACT) == 0;

	if (fp != NULL) {
		ok = fflush(fp) == 0 && fsync(fileno(fp)) == 0 && ok;
		ok = fclose(fp) == 0 && ok;
	}
	if (ok && rename(tmp, path) == -1)
		ok = false;
	if (!ok) {
		log_warn("cannot write '%s'", path);
		unlink(tmp);
	}
	free(tmp);
	return ok;
}

/* Uploads one outbox file; SERVE_RETRY keeps it for later. */
static enum serve_outcome
serve_upload(struct serve *s, const char *name)
{
	char *path = xasprintf("%s/%s", s->outbox, name);
	char *lease = xstrndup(name, strcspn(name, "."));
	char *api = xasprintf("/api/leases/%s/result", lease);
	struct client_resp r;
	enum serve_outcome o;
	struct buf body;

	buf_init(&body);
	if (!buf_add_file(&body, path, RESULT_MAX_BYTES)) {
		log_warn("cannot read '%s'", path);
		buf_release(&body);
		free(path);
		free(lease);
		free(api);
		return SERVE_RETRY;
	}
	/* (as long as robotd gives a body coming at its least rate) */
	serve_post(s, api, body.data, body.len,
		   SERVE_TIMEOUT + (double)body.len / ROBOT_MIN_BODY_RATE, &r);
	o = serve_classify(&r, "cannot upload a result");
	if (o == SERVE_OK) {
		json_t *j = client_resp_json(&r);

		log_info("lease %s: result %s", lease,
			 j && rjson_get_str(j, "result")
				 ? rjson_get_str(j, "result")
				 : "uploaded");
		json_decref(j);
		unlink(path);
	} else if (o == SERVE_FATAL) {
		char *to = xasprintf("%s/%s", s->refused, name);

		/* Kept for the operator: refused is not lost. */
		if (rename(path, to) == 0)
			log_warnx("lease %s: robotd refused the result; kept "
				  "in '%s'",
				  lease, to);
		free(to);
		o = SERVE_OK;
	}
	client_resp_release(&r);
	buf_release(&body);
	free(path);
	free(lease);
	free(api);
	return o;
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Uploads every result in the outbox; false when robotd is not there. */
static bool
serve_flush(struct serve *s)
{
	DIR *d = opendir(s->outbox);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0;
	bool ok = true;

	if (d == NULL)
		return true;
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);

		if (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0) {
			names = xreallocarray(names, n + 1, sizeof *names);
			names[n++] = xstrdup(e->d_name);
		}
	}
	closedir(d);
	if (n > 1)
		qsort(names, n, sizeof *names, cmp_names);
	for (size_t i = 0; i < n; i++) {
		if (ok && serve_upload(s, names[i]) == SERVE_RETRY)
			ok = false;
		free(names[i]);
	}
	free(names);
	return ok;
}

/* A document for a run that produced none (the job could not be read,
 * or the runner died). */
static json_t *
serve_doc(struct serve *s, const json_t *lease, enum result_status status,
	  const char *error)
{
	struct result_head h = {NULL,
				rjson_get_str(lease, "key"),
				s->bc.tbox_group,
				s->bc.name,
				rjson_get_str(lease, "tree"),
				rjson_get_str(lease, "commit"),
				NULL,
				NULL,
				status,
				error};

	return result_doc_new(&h);
}

/* Hands a lease back without running it. */
static void
serve_give_back(struct serve *s, const json_t *lease)
{
	json_t *doc = serve_doc(s, lease, RESULT_INCOMPLETE,
				"the box stopped before the run began");
	char *path = xasprintf(
		"%s/%lld.json", s->outbox,
		(long long)json_integer_value(json_object_get(lease, "lease")));

	write_doc(path, doc);
	json_decref(doc);
	free(path);
}

struct serve_run {
	struct serve *s;
	const struct atomic_job *aj;
	const char *commit;
	const char *tree;
	int run, runs;
	char *out;
	char label[64];
};

/* In the forked runner. */
static int
serve_runner(void *arg)
{
	struct serve_run *sr = arg;
	struct runner_request rq;
	json_t *doc;

	/* Should robot-box serve die, the run still tears down. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	child_signals_init();
	rq = (struct runner_request){&sr->s->bc, sr->aj,   sr->commit, sr->tree,
				     sr->run,    sr->runs, sr->label};
	doc = runner_run(&rq);
	if (!write_doc(sr->out, doc))
		return 1;
	json_decref(doc);
	return 0;
}

static bool
serve_heartbeat(struct serve *s, const char *lease, bool *lost)
{
	char *path = xasprintf("/api/leases/%s/heartbeat", lease);
	struct client_resp r;
	bool ok;

	serve_post(s, path, NULL, 0, SERVE_TIMEOUT, &r);
	ok = r.status == 200;
	if (r.status == 404 || r.status == 403 || r.status == 409) {
		char *e = client_resp_error(&r);

		log_warnx("lease %s is lost: %s", lease, e);
		free(e);
		*lost = true;
	} else if (!ok) {
		char *e = client_resp_error(&r);

		/* The run goes on: its result waits in the outbox. */
		log_warnx("heartbeat of lease %s failed: %s", lease, e);
		free(e);
	}
	client_resp_release(&r);
	free(path);
	return ok;
}

/* A leased job: robotd checked it, but this box re-reads it as it would
 * any job it runs. */
static const struct jobfile_options serve_options = {JOBFILE_AUTO, 0, false,
						     true};

/* Runs one lease to a document in the outbox. */
static void
serve_run(struct serve *s, json_t *lease)
{
	json_t *lid = json_object_get(lease, "lease");
	json_t *job = json_object_get(json_object_get(lease, "job"), "job");
	json_t *ls = json_object_get(lease, "lease_seconds");
	const char *key = rjson_get_str(lease, "key");
	double every =
		json_is_integer(ls) ? (double)json_integer_value(ls) / 4 : 30;
	char id[32], *text, *name;
	struct serve_run sr;
	struct jobfile *jf = NULL;
	struct errlist el;
	struct child c;
	bool lost = false, stopped = false;
	double next;

	memset(&sr, 0, sizeof sr);
	if (!json_is_integer(lid) || key == NULL || !json_is_object(job)) {
		log_warnx("robotd sent a lease this box cannot read");
		return;
	}
	snprintf(id, sizeof id, "%lld", (long long)json_integer_value(lid));
	sr.out = xasprintf("%s/%s.json", s->outbox, id);
	errlist_init(&el);
	text = rjson_dumps(job, JSON_COMPACT);
	name = xasprintf("lease-%s.json", id);
	jf = jobfile_split(name, text, strlen(text), &serve_options, &el);
	if (jf == NULL || jf->njobs != 1 || strcmp(jf->jobs[0].key, key) != 0) {
		char *why =
			el.nerrors > 0
				? errlist_format(&el.v[0])
				: xasprintf("the job is not the atomic job %s",
					    key);
		json_t *doc = serve_doc(s, lease, RESULT_FAILED, why);

		log_warnx("lease %s: %s", id, why);
		write_doc(sr.out, doc);
		json_decref(doc);
		free(why);
		goto out;
	}
	sr.s = s;
	sr.aj = &jf->jobs[0];
	sr.commit = rjson_get_str(lease, "commit");
	sr.tree = rjson_get_str(lease, "tree") ? rjson_get_str(lease, "tree")
					       : s->bc.tree;
	sr.run = (int)json_integer_value(json_object_get(lease, "run"));
	sr.runs = (int)json_integer_value(json_object_get(lease, "runs"));
	snprintf(sr.label, sizeof sr.label, "[lease %s, run %d/%d]", id, sr.run,
		 sr.runs);
	log_info("lease %s: %s at %s, run %d of %d (attempt %lld)", id, key,
		 sr.commit ? sr.commit : "no commit", sr.run, sr.runs,
		 (long long)json_integer_value(
			 json_object_get(lease, "attempt")));
	/* Kept until the run's document is in the outbox: a box that
	 * restarts meanwhile takes the run up again (serve_resume()). */
	write_doc(s->inhand, lease);
	if (!child_fork(&c, "runner", serve_runner, &sr)) {
		json_t *doc = serve_doc(s, lease, RESULT_INCOMPLETE,
					"the box could not fork its runner");

		write_doc(sr.out, doc);
		json_decref(doc);
		goto out;
	}
	next = child_now() + (every < 1 ? 1 : every);
	while (!child_reap(&c)) {
		struct pollfd p = {child_signals_fd(), POLLIN, 0};
		double left = next - child_now();

		/* At most a second: a heartbeat may have read the SIGCHLD. */
		if (left > 1)
			left = 1;
		if (left > 0)
			poll(&p, 1, (int)(left * 1000) + 1);
		if (child_signals_read(NULL) && !stopped) {
			log_info("lease %s: stopping the run", id);
			child_signal(&c, SIGTERM);
			stopped = true;
		}
		if (child_now() >= next) {
			next = child_now() + (every < 1 ? 1 : every);
			if (!stopped && !lost &&
			    !serve_heartbeat(s, id, &lost) && lost) {
				/* Another box may have it now. */
				child_signal(&c, SIGTERM);
				stopped = true;
			}
		}
	}
	if (access(sr.out, F_OK) != 0) {
		char *how = child_exit_text(&c);
		char *why = xasprintf("the runner %s without a result", how);
		json_t *doc = serve_doc(s, lease, RESULT_INCOMPLETE, why);

		log_warnx("lease %s: %s", id, why);
		write_doc(sr.out, doc);
		json_decref(doc);
		free(how);
		free(why);
	}
	child_release(&c);
out:
	unlink(s->inhand);
	errlist_release(&el);
	jobfile_free(jf);
	free(text);
	free(name);
	free(sr.out);
}

/* Runs a lease, uploads its result, and runs the hook after it. */
static void
serve_one(struct serve *s, json_t *lease)
{
	const char *tree = rjson_get_str(lease, "tree");

	serve_run(s, lease);
	serve_flush(s);
	provision_after(&s->bc, tree ? tree : s->bc.tree,
			rjson_get_str(lease, "commit"));
}

/*
 * The box restarted in the middle of a run (in-hand.json is there, and no
 * document of that lease in the outbox): takes the run up again when
 * robotd still holds the lease for this box, else forgets it.  False
 * when robotd cannot say (the file stays for the next try).
 */
static bool
serve_resume(struct serve *s)
{
	json_t *lease = json_load_file(s->inhand, 0, NULL);
	json_t *lid = json_object_get(lease, "lease");
	json_int_t restarts =
		json_integer_value(json_object_get(lease, "restarts"));
	const char *tree = rjson_get_str(lease, "tree");
	char id[32], *done;
	bool lost = false;

	if (lease == NULL && access(s->inhand, F_OK) != 0)
		return true;
	if (!json_is_integer(lid)) {
		log_warnx("'%s' is not a lease: removed", s->inhand);
		unlink(s->inhand);
		json_decref(lease);
		return true;
	}
	snprintf(id, sizeof id, "%lld", (long long)json_integer_value(lid));
	done = xasprintf("%s/%s.json", s->outbox, id);
	if (access(done, F_OK) == 0) {
		/* The run ended before the restart: its document goes up. */
		unlink(s->inhand);
	} else if (restarts >= SERVE_MAX_RESTARTS) {
		char *why = xasprintf("the box restarted %lld times during "
				      "the run",
				      (long long)restarts + 1);
		json_t *doc = serve_doc(s, lease, RESULT_INCOMPLETE, why);

		log_warnx("lease %s: %s: given back", id, why);
		write_doc(done, doc);
		json_decref(doc);
		free(why);
		unlink(s->inhand);
	} else if (serve_heartbeat(s, id, &lost)) {
		log_info("lease %s: the box restarted during its run: taking "
			 "it up again (restart %lld)",
			 id, (long long)restarts + 1);
		json_object_set_new(lease, "restarts",
				    json_integer(restarts + 1));
		serve_one(s, lease);
	} else if (lost) {
		log_warnx("lease %s: lost while the box restarted; robotd "
			  "gave the job back",
			  id);
		unlink(s->inhand);
		provision_after(&s->bc, tree ? tree : s->bc.tree,
				rjson_get_str(lease, "commit"));
	} else {
		free(done);
		json_decref(lease);
		return false;
	}
	free(done);
	json_decref(lease);
	return true;
}

static void
serve_usage(FILE *fp)
{
	fprintf(fp,
		"usage: robot-box serve [--server URL] [--token-file FILE | "
		"--token T]\n"
		"                       [--name NAME] [--config FILE] "
		"[--once]\n"
		"\n"
		"Works for robotd: registers this box, asks for jobs, runs "
		"them and\n"
		"uploads their results (kept in WORKDIR/outbox until "
		"robotd has them).\n"
		"  --server URL   robotd (else ROBOT_SERVER or "
		"~/.config/robot/config)\n"
		"  --token-file FILE  this box's token, read from FILE (mode "
		"0600: not\n"
		"                 readable by others, and not in ps as "
		"--token is)\n"
		"  --token T      this box's token (else $ROBOT_TOKEN, the "
		"config, or\n"
		"                 the one robot-box enroll kept, with the "
		"name, group\n"
		"                 and URL robotd enrolled it with)\n"
		"  --name NAME    the box's name (else the configuration's, "
		"else the host name)\n"
		"  --config FILE  the box configuration (docs/box.md)\n"
		"  --ca-file FILE the CA of robotd's certificate (else "
		"$ROBOT_CA_FILE,\n"
		"                 else ca_file: in the config; else the "
		"system's)\n"
		"  --insecure-http  allow plain http to another machine (the "
		"token in clear)\n"
		"  --once         exit after one job\n");
}

static int
serve_loop(struct serve *s)
{
	bool registered = false;

	if (box_cleanup_leftovers(&s->bc) > 0)
		log_info("cleaned up what an earlier run left");
	cgroup_join(&s->bc); /* a killed box leaves nothing running */
	while (child_stop_signal() == 0) {
		struct client_resp r;
		char *path;
		enum serve_outcome o;
		json_t *lease;

		/* A run the box restarted in, then results: robotd may
		 * have been away. */
		if (!serve_resume(s) || !serve_flush(s)) {
			if (!serve_backoff(s))
				break;
			continue;
		}
		if (!registered) {
			o = serve_register(s);
			if (o == SERVE_FATAL)
				return 1;
			if (o == SERVE_RETRY) {
				if (!serve_backoff(s))
					break;
				continue;
			}
			registered = true;
		}
		path = xasprintf("/api/boxes/%s/lease", s->bc.name);
		/* A stop signal must not wait for the long-poll's end. */
		client_set_cancel(serve_stopping);
		serve_post(s, path, NULL, 0, s->long_poll + 15.0, &r);
		client_set_cancel(NULL);
		free(path);
		if (child_stop_signal() != 0) {
			/* A lease that came with the stop goes back. */
			lease = r.status == 200 ? client_resp_json(&r) : NULL;
			if (json_is_integer(json_object_get(lease, "lease")))
				serve_give_back(s, lease);
			json_decref(lease);
			client_resp_release(&r);
			break;
		}
		if (r.status == 204) {
			s->backoff = 0;
			client_resp_release(&r);
			continue;
		}
		if (r.status == 404 || r.status == 409) {
			bool broken = r.status == 409;

			/* Not registered (robotd lost it), or broken. */
			serve_classify(&r, "cannot lease");
			client_resp_release(&r);
			registered = broken;
			if (!serve_sleep(broken ? 30 : 1))
				break;
			continue;
		}
		o = serve_classify(&r, "cannot lease");
		if (o == SERVE_FATAL) {
			client_resp_release(&r);
			return 1;
		}
		if (o == SERVE_RETRY) {
			client_resp_release(&r);
			if (!serve_backoff(s))
				break;
			continue;
		}
		s->backoff = 0;
		lease = client_resp_json(&r);
		client_resp_release(&r);
		if (lease == NULL) {
			log_warnx("robotd sent a lease that is not JSON");
			if (!serve_backoff(s))
				break;
			continue;
		}
		serve_one(s, lease);
		json_decref(lease);
		if (s->once)
			break;
	}
	if (child_stop_signal() != 0) {
		serve_flush(s);
		log_info("signal %d: stopping", child_stop_signal());
		return 128 + child_stop_signal();
	}
	return 0;
}

/* The token in path, its first line; NULL after saying why (a file
 * others may read is refused: the token is the box's password). */
static char *
serve_token_file(const char *path)
{
	struct stat st;
	struct buf b;
	char *t;

	if (stat(path, &st) == -1) {
		log_warn("cannot read the token file '%s'", path);
		return NULL;
	}
	if ((st.st_mode & 077) != 0) {
		log_warnx("the token file '%s' may be read by others (mode "
			  "%04o): chmod 600 it",
			  path, (unsigned)(st.st_mode & 07777));
		return NULL;
	}
	buf_init(&b);
	if (!buf_add_file(&b, path, 4096)) {
		log_warn("cannot read the token file '%s'", path);
		buf_release(&b);
		return NULL;
	}
	t = buf_detach(&b);
	t[strcspn(t, "\r\n")] = '\0';
	if (t[0] == '\0') {
		log_warnx("the token file '%s' is empty", path);
		free(t);
		return NULL;
	}
	return t;
}

static void
serve_release(struct serve *s)
{
	free(s->server);
	free(s->token);
	free(s->outbox);
	free(s->refused);
	free(s->inhand);
	boxconf_release(&s->bc);
}

/*
 * What an enrollment left (enroll.h), for what the flags and the
 * environment did not say (before ~/.config/robot/config, which is the
 * robot command's): the token, and with it the box's name and group as
 * robotd enrolled them (unless --name), and robotd's URL.  False after
 * saying why it cannot be read.
 */
static bool
serve_enrolled(struct serve *s, const char **name)
{
	struct enrolled e;
	bool bad = false;

	if (s->token != NULL || getenv("ROBOT_TOKEN") != NULL ||
	    !enroll_read(&s->bc, &e, &bad))
		return !bad;
	if ((s->token = serve_token_file(e.token_file)) == NULL) {
		enroll_release(&e);
		return false;
	}
	if (*name == NULL) {
		if (s->bc.path != NULL &&
		    (strcmp(s->bc.name, e.name) != 0 ||
		     strcmp(s->bc.tbox_group, e.tbox_group) != 0))
			log_info("box %s of group %s, as enrolled (%s says "
				 "%s of %s)",
				 e.name, e.tbox_group, s->bc.path, s->bc.name,
				 s->bc.tbox_group);
		free(s->bc.name);
		free(s->bc.tbox_group);
		s->bc.name = xstrdup(e.name);
		s->bc.tbox_group = xstrdup(e.tbox_group);
	}
	if (s->server == NULL && getenv("ROBOT_SERVER") == NULL)
		s->server = xstrdup(e.server);
	enroll_release(&e);
	return true;
}

int
serve_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"server", required_argument, NULL, 's'},
		{"token", required_argument, NULL, 't'},
		{"token-file", required_argument, NULL, 'T'},
		{"name", required_argument, NULL, 'n'},
		{"config", required_argument, NULL, 'c'},
		{"once", no_argument, NULL, '1'},
		{"ca-file", required_argument, NULL, 'A'},
		{"insecure-http", no_argument, NULL, 'I'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *config = NULL, *name = NULL, *ca_file = NULL;
	bool insecure = false;
	struct serve s;
	int c, rc;

	memset(&s, 0, sizeof s);
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			s.server = xstrdup(optarg);
			break;
		case 't':
			free(s.token);
			s.token = xstrdup(optarg);
			break;
		case 'T':
			free(s.token);
			if ((s.token = serve_token_file(optarg)) == NULL) {
				free(s.server);
				return 2;
			}
			break;
		case 'n':
			name = optarg;
			break;
		case 'c':
			config = optarg;
			break;
		case '1':
			s.once = true;
			break;
		case 'A':
			ca_file = optarg;
			break;
		case 'I':
			insecure = true;
			break;
		case 'h':
			serve_usage(stdout);
			return 0;
		default:
			serve_usage(stderr);
			return 2;
		}
	}
	client_set_tls(ca_file, insecure);
	if (optind != argc || !box_load_config(config, &s.bc)) {
		if (optind != argc)
			serve_usage(stderr);
		free(s.server);
		free(s.token);
		return 2;
	}
	if (!serve_enrolled(&s, &name)) {
		serve_release(&s);
		return 2;
	}
	client_defaults(&s.server, &s.token);
	if (s.server == NULL || s.token == NULL) {
		log_warnx("serve needs --server URL and --token T (or "
			  "ROBOT_SERVER and ROBOT_TOKEN), or an enrolled box "
			  "(robot-box enroll URL CODE)");
		serve_usage(stderr);
		serve_release(&s);
		return 2;
	}
	s.server[strcspn(s.server, "\n")] = '\0';
	while (s.server[0] != '\0' && s.server[strlen(s.server) - 1] == '/')
		s.server[strlen(s.server) - 1] = '\0';
	{
		/* (before anything: its token must not go in clear) */
		char *why = client_refused(s.server);

		if (why != NULL) {
			log_warnx("%s", why);
			free(why);
			serve_release(&s);
			return 2;
		}
	}
	if (name != NULL) {
		bool same = strcmp(s.bc.tbox_group, s.bc.name) == 0;

		free(s.bc.name);
		s.bc.name = xstrdup(name);
		if (same && (config == NULL)) {
			free(s.bc.tbox_group);
			s.bc.tbox_group = xstrdup(name);
		}
	}
	s.long_poll = 30;
	s.outbox = xasprintf("%s/outbox", s.bc.workdir);
	s.refused = xasprintf("%s/refused", s.outbox);
	s.inhand = xasprintf("%s/in-hand.json", s.bc.workdir);
	log_set_timestamps(true);
	rc = 1;
	if (box_need_root("serve") && box_lock_workdir(&s.bc)) {
		if ((mkdir(s.outbox, 0755) == -1 && errno != EEXIST) ||
		    (mkdir(s.refused, 0755) == -1 && errno != EEXIST)) {
			log_warn("cannot make '%s'", s.refused);
		} else {
			child_signals_init();
			rc = serve_loop(&s);
		}
	}
	serve_release(&s);
	return rc;
}
