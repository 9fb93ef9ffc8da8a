/*
 * trees.c: the trees' watcher, a worker of the drain engine (drain.h),
 * one tree in hand at a time.  The engine claims a tree due for a fetch
 * (robot_tree_claim(), decoded: store/trees.h); each fetch is a state
 * machine driven by fetch_drive():
 *
 *   (claimed; its mirror is missing)---------------------> INIT
 *   (claimed), INIT --(the mirror is there)--------------> FETCHING
 *   FETCHING  --(fetched)--------------------------------> REFS
 *   REFS      --(heads and base read)--------------------> HEADS
 *   HEADS     --(each changed head: its merge-base with
 *               the base, whether it was force-pushed)---> LOG
 *   LOG       --(the new commits read)-------------------> STORING
 *   STORING   --(recorded; the new heads come back)------> QUEUEING
 *   QUEUEING  --(each new head's jobs submitted)---------> ended
 *   any git step --(failed, or killed at its deadline)---> FAILING
 *   STORING   --(the database refused it)----------------> FAILING
 *   FAILING   --(the error stored for robot tree list)---> ended
 *   FAILING   --(the database failed)--------------------> ended (the
 *                                         claim runs out; taken again)
 *
 * A fetch that ended makes the engine claim the next tree due.  Every
 * git command is a child (proc.h): the loop never waits for one.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jobs/jobfile.h"
#include "robot/core/backoff.h"
#include "robot/core/buf.h"
#include "robot/core/errlist.h"
#include "robot/core/fsm.h"
#include "robot/core/log.h"
#include "robot/core/name.h"
#include "robot/core/rjson.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/proc.h"
#include "robot/daemon/store/trees.h"
#include "robot/daemon/submit.h"
#include "robot/daemon/trees.h"
#include "robot/core/banned.h"

#define TREES_TICK        1           /* seconds between looks for a due tree */
#define TREES_MAX_COMMITS 10000       /* new commits recorded per fetch */
#define TREES_MAX_REFS    (16u << 20) /* bytes of for-each-ref and log */
/* seconds at most for a git step but the fetch (and never more than the
 * fetch has: git_short()) */
#define TREES_GIT_SHORT 60

enum fetch_state {
	FETCH_INIT,
	FETCH_FETCHING,
	FETCH_REFS,
	FETCH_HEADS,
	FETCH_LOG,
	FETCH_STORING,
	FETCH_QUEUEING,
	FETCH_FAILING,
};
static const char *const fetch_states[] = {
	[FETCH_INIT] = "init",         [FETCH_FETCHING] = "fetching",
	[FETCH_REFS] = "refs",         [FETCH_HEADS] = "heads",
	[FETCH_LOG] = "log",           [FETCH_STORING] = "storing",
	[FETCH_QUEUEING] = "queueing", [FETCH_FAILING] = "failing",
};
static const struct fsm fetch_fsm =
	FSM("tree fetch", fetch_states, FETCH_FAILING);

/* A watched branch's head as this fetch found it. */
struct head {
	char *branch;
	char *sha;
	char *old;  /* the head known before, or NULL */
	char *base; /* the merge-base with the base ref, or NULL */
	bool forced;
	bool asked_base, asked_forced;
};

struct trees {
	struct event_base *base;
	struct store *store;
	const struct settings *set;
	struct drain_worker *w;
	struct fetch *fetch; /* the tree in hand, or NULL */
};

/* A tree in hand: its claim and what its fetch found so far. */
struct fetch {
	enum fetch_state state;
	struct trees *t;
	struct store_tree_claim *c;
	struct proc *proc; /* the git command running, or NULL */
	char *mirror;
	char *base_sha; /* the base ref's commit, or NULL */
	struct head *heads;
	size_t nheads;
	size_t step; /* HEADS: the head being asked about */
	json_t *commits;
	struct store_tree_fetched *fresh; /* STORING's answer: what to test */
	int submitting;                   /* QUEUEING: submits in flight */
	char *error;                      /* FAILING: why */
	int timeout;                      /* the git step's, in seconds */
};

static void fetch_drive(struct fetch *f);

static void
fetch_set_state(struct fetch *f, enum fetch_state s)
{
	FSM_SET(&fetch_fsm, f->state, s, "tree %s", f->c->name);
}

static void
fetch_free(void *arg)
{
	struct fetch *f = arg;

	if (f->proc != NULL)
		proc_cancel(f->proc);
	for (size_t i = 0; i < f->nheads; i++) {
		free(f->heads[i].branch);
		free(f->heads[i].sha);
		free(f->heads[i].old);
		free(f->heads[i].base);
	}
	free(f->heads);
	json_decref(f->commits);
	store_tree_fetched_free(f->fresh);
	store_tree_claim_free(f->c);
	free(f->mirror);
	free(f->base_sha);
	free(f->error);
	free(f);
}

/* The tree in hand is done with: the engine claims the next. */
static void
fetch_end(struct fetch *f)
{
	f->t->fetch = NULL;
	drain_done(f->t->w, f);
}

/* The git step failed: why (its first "fatal:" or "error:" line, else
 * its last line of stderr) goes to the tree. */
static void
fetch_fail(struct fetch *f, const char *what, int status, const char *err)
{
	const char *line = strstr(err, "fatal: ");
	size_t len;
	char *q;

	if (line == NULL)
		line = strstr(err, "error: ");
	if (line != NULL) {
		len = strcspn(line, "\n");
	} else {
		len = strlen(err);
		while (len > 0 && isspace((unsigned char)err[len - 1]))
			len--;
		for (line = err + len; line > err && line[-1] != '\n'; line--)
			;
		len = (size_t)(err + len - line);
	}
	q = str_printable(line, len, 300);
	f->error = status == -1 && strstr(err, "deadline") != NULL
			   ? xasprintf("%s: no answer within %d s", what,
				       f->timeout)
			   : xasprintf("%s: %s", what,
				       *q ? q : "failed with no message");
	free(q);
	fetch_set_state(f, FETCH_FAILING);
	fetch_drive(f);
}

static void fetch_on_git(int status, const char *out, size_t len,
			 const char *err, void *arg);

/* Runs git with args after "git -C MIRROR" (or alone, for init). */
/* The seconds a git step but the fetch has. */
static int
git_short(const struct settings *set)
{
	return set->tree_fetch_timeout < TREES_GIT_SHORT
		       ? set->tree_fetch_timeout
		       : TREES_GIT_SHORT;
}

static void
fetch_git_env(struct fetch *f, int timeout, const char *const *args,
	      char *const *env)
{
	char *argv[32];
	size_t n = 0;

	argv[n++] = "git";
	if (f->state != FETCH_INIT) {
		argv[n++] = "-C";
		argv[n++] = f->mirror;
	}
	for (size_t i = 0; args[i] != NULL && n < 31; i++)
		argv[n++] = (char *)args[i];
	argv[n] = NULL;
	f->timeout = timeout;
	f->proc = proc_run(f->t->base, argv, env, timeout, TREES_MAX_REFS,
			   fetch_on_git, f);
}

static void
fetch_git(struct fetch *f, int timeout, const char *const *args)
{
	fetch_git_env(f, timeout, args, NULL);
}

/* s, percent-decoded (a URL's user and password are written so). */
static char *
percent_decoded(const char *s, size_t len)
{
	char *out = xmalloc(len + 1), *o = out;

	for (size_t i = 0; i < len; i++) {
		unsigned int c;

		if (s[i] == '%' && i + 2 < len &&
		    sscanf(s + i + 1, "%2x", &c) == 1 && c != 0) {
			*o++ = (char)c;
			i += 2;
		} else {
			*o++ = s[i];
		}
	}
	*o = '\0';
	return out;
}

/*
 * An http(s) URL's user:password@, taken out of it: git gets the URL
 * without them, and the credentials through its environment, read by a
 * credential helper that is a shell function (its command line names
 * the variables, not their values).  A command line is anyone's to read
 * in /proc for as long as the fetch runs; an environment only robotd's
 * user's (issue 61).  Without credentials, url as it is and no env.
 */
struct git_url {
	char *url;
	char *env[6];
};

static void
git_url_split(const char *url, struct git_url *g)
{
	const char *host, *end, *at = NULL, *colon;

	memset(g, 0, sizeof *g);
	if (str_has_prefix(url, "https://"))
		host = url + 8;
	else if (str_has_prefix(url, "http://"))
		host = url + 7;
	else
		host = NULL;
	if (host != NULL) {
		end = host + strcspn(host, "/?#");
		for (const char *p = host; p < end; p++)
			if (*p == '@')
				at = p;
	}
	if (at == NULL) {
		g->url = xstrdup(url);
		return;
	}
	colon = memchr(host, ':', (size_t)(at - host));
	{
		char *user = percent_decoded(
			host, (size_t)((colon ? colon : at) - host));
		char *pass = colon ? percent_decoded(colon + 1,
						     (size_t)(at - colon - 1))
				   : xstrdup("");

		g->url = xasprintf("%.*s%s", (int)(host - url), url, at + 1);
		g->env[0] = xstrdup("GIT_CONFIG_COUNT=1");
		g->env[1] = xstrdup("GIT_CONFIG_KEY_0=credential.helper");
		g->env[2] =
			xstrdup("GIT_CONFIG_VALUE_0=!f() { test \"$1\" = get "
				"|| exit 0; "
				"echo \"username=$ROBOT_GIT_USERNAME\"; "
				"echo \"password=$ROBOT_GIT_PASSWORD\"; }; f");
		g->env[3] = xasprintf("ROBOT_GIT_USERNAME=%s", user);
		g->env[4] = xasprintf("ROBOT_GIT_PASSWORD=%s", pass);
		free(user);
		free(pass);
	}
}

static void
git_url_release(struct git_url *g)
{
	free(g->url);
	for (size_t i = 0; g->env[i] != NULL; i++)
		free(g->env[i]);
}

/* Whether branch is one of the tree's watched globs. */
static bool
watched(const struct store_tree_claim *c, const char *branch)
{
	for (size_t i = 0; i < c->nbranches; i++)
		if (fnmatch(c->branches[i], branch, 0) == 0)
			return true;
	return false;
}

static bool
has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/*
 * REFS: for-each-ref's lines (refname, object, peeled object, creator
 * date): the watched branches' heads and the base ref's commit.
 */
static void
fetch_read_refs(struct fetch *f, const char *out)
{
	const char *base_ref = f->c->base_ref;
	long long newest = -1;
	char *copy = xstrdup(out), *save = NULL;

	for (char *line = strtok_r(copy, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		char *fl[4] = {NULL, NULL, NULL, NULL}, *p = line;
		const char *ref, *sha, *short_name;

		for (int i = 0; i < 4; i++)
			fl[i] = strsep(&p, "\t");
		if (fl[1] == NULL)
			continue;
		ref = fl[0];
		sha = fl[2] != NULL && fl[2][0] != '\0' ? fl[2] : fl[1];
		if (str_has_prefix(ref, "refs/heads/")) {
			short_name = ref + strlen("refs/heads/");
			if (!has_glob(base_ref) &&
			    strcmp(short_name, base_ref) == 0) {
				free(f->base_sha);
				f->base_sha = xstrdup(sha);
			}
			if (watched(f->c, short_name)) {
				struct head *h;
				const char *old =
					store_tree_claim_head(f->c, short_name);

				f->heads =
					xreallocarray(f->heads, f->nheads + 1,
						      sizeof *f->heads);
				h = &f->heads[f->nheads++];
				memset(h, 0, sizeof *h);
				h->branch = xstrdup(short_name);
				h->sha = xstrdup(sha);
				h->old = old ? xstrdup(old) : NULL;
			}
		} else if (str_has_prefix(ref, "refs/tags/")) {
			long long date = fl[3] ? atoll(fl[3]) : 0;

			short_name = ref + strlen("refs/tags/");
			if (has_glob(base_ref)
				    ? fnmatch(base_ref, short_name, 0) == 0 &&
					      date > newest
				    : strcmp(short_name, base_ref) == 0) {
				newest = date;
				free(f->base_sha);
				f->base_sha = xstrdup(sha);
			}
		}
	}
	free(copy);
	/* A base given as a commit id. */
	if (f->base_sha == NULL && strlen(base_ref) == 40 &&
	    strspn(base_ref, "0123456789abcdef") == 40)
		f->base_sha = xstrdup(base_ref);
}

/* HEADS: the next question about a changed head, or false when all are
 * answered. */
static bool
fetch_ask_head(struct fetch *f)
{
	for (; f->step < f->nheads; f->step++) {
		struct head *h = &f->heads[f->step];

		if (h->old != NULL && strcmp(h->old, h->sha) == 0)
			continue; /* unchanged */
		if (!h->asked_base && f->base_sha != NULL) {
			const char *args[] = {"merge-base", h->sha, f->base_sha,
					      NULL};

			h->asked_base = true;
			fetch_git(f, git_short(f->t->set), args);
			return true;
		}
		if (!h->asked_forced && h->old != NULL) {
			const char *args[] = {"merge-base", "--is-ancestor",
					      h->old, h->sha, NULL};

			h->asked_forced = true;
			fetch_git(f, git_short(f->t->set), args);
			return true;
		}
	}
	return false;
}

/* LOG: the commits new to the robot: the changed heads' history down to
 * what it knew (the heads that did not move or moved forward) and, on
 * the first fetch, the base.  Later, a base that moved brings what it
 * took in since (an upstream merged into a branch: the commits its
 * change points are bisected into, with their subjects and authors). */
static void
fetch_ask_log(struct fetch *f)
{
	const char **args = xcalloc(2 * f->nheads + 12, sizeof *args);
	char *max = xasprintf("--max-count=%d", TREES_MAX_COMMITS);
	bool known = false;
	char *base_parents;
	size_t n = 0;
	bool any = false;

	for (size_t i = 0; i < f->nheads; i++)
		known |= f->heads[i].old != NULL && !f->heads[i].forced;
	base_parents =
		f->base_sha && !known ? xasprintf("%s^@", f->base_sha) : NULL;

	args[n++] = "log";
	/* (NUL after each commit, a unit separator between its fields:
	 * neither is in a name git can read) */
	args[n++] = "-z";
	args[n++] = "--format=%H%x1f%P%x1f%an%x1f%ae%x1f%aI%x1f%cI%x1f%s";
	args[n++] = max;
	for (size_t i = 0; i < f->nheads; i++)
		if (f->heads[i].old == NULL ||
		    strcmp(f->heads[i].old, f->heads[i].sha) != 0) {
			args[n++] = f->heads[i].sha;
			any = true;
		}
	if (f->base_sha != NULL)
		args[n++] = f->base_sha;
	args[n++] = "--not";
	if (base_parents != NULL)
		args[n++] = base_parents;
	for (size_t i = 0; i < f->nheads; i++)
		if (f->heads[i].old != NULL && !f->heads[i].forced)
			args[n++] = f->heads[i].old;
	args[n] = NULL;
	if (!any && f->base_sha == NULL) {
		f->commits = json_array();
		free(args);
		free(max);
		free(base_parents);
		fetch_set_state(f, FETCH_STORING);
		fetch_drive(f);
		return;
	}
	fetch_git(f, git_short(f->t->set), args);
	free(args);
	free(max);
	free(base_parents);
}

/* Whether s is a date as git's %aI writes it (2026-12-07T20:00:37+00:00):
 * of a commit whose author line git cannot read, %aI is "%aI". */
static bool
iso_date_ok(const char *s)
{
	static const char shape[] = "dddd-dd-ddTdd:dd:dd";

	for (size_t i = 0; shape[i] != '\0'; i++)
		if (shape[i] == 'd' ? !isdigit((unsigned char)s[i])
				    : s[i] != shape[i])
			return false;
	return true;
}

/*
 * The commits git log wrote: sha, parents, author's name and address,
 * author's and committer's dates, subject.  One commit git cannot read
 * whole (its author line holds a CR, LF or NUL, or no date) is kept as
 * far as it can be: its author said to be unreadable, its committer's
 * date (or none) for its date; it never fails the tree's fetch (issue
 * 61: it did, every 11 minutes, with no error said).  A record that is
 * not a commit's is skipped.
 */
static void
fetch_read_log(struct fetch *f, const char *out, size_t len)
{
	const char *rec = out, *end = out + len;
	size_t fixed = 0, odd = 0;

	f->commits = json_array();
	for (; rec < end; rec += strlen(rec) + 1) {
		char *copy = xstrdup(rec + (*rec == '\n')), *fl[7], *p = copy;
		json_t *parents = json_array(), *c;
		const char *date;

		for (int i = 0; i < 6; i++)
			fl[i] = strsep(&p, "\x1f");
		fl[6] = p;
		if (fl[6] == NULL || strlen(fl[0]) != 40) {
			json_decref(parents);
			free(copy);
			continue;
		}
		for (char *q = fl[1], *par; (par = strsep(&q, " ")) != NULL;)
			if (*par != '\0')
				json_array_append_new(parents,
						      json_string(par));
		date = iso_date_ok(fl[4])   ? fl[4]
		       : iso_date_ok(fl[5]) ? fl[5]
					    : NULL;
		if ((date != fl[4] || (*fl[2] == '\0' && *fl[3] == '\0')) &&
		    odd++ == 0)
			log_warnx("tree %s: commit %.12s: git cannot read its "
				  "author line: kept without it",
				  f->c->name, fl[0]);
		/* A subject or author that is not UTF-8 (git keeps the
		 * bytes it was given) is kept with U+FFFD, not dropped
		 * with its commit. */
		{
			char *who =
				*fl[2] == '\0' && *fl[3] == '\0'
					? xstrdup("(an author git cannot "
						  "read)")
					: xasprintf("%s <%s>", fl[2], fl[3]);
			char *author = str_utf8_fix(who, strlen(who));
			char *email = str_utf8_fix(fl[3], strlen(fl[3]));
			char *subject = str_utf8_fix(fl[6], strlen(fl[6]));

			if (strcmp(author, who) != 0 ||
			    strcmp(subject, fl[6]) != 0) {
				if (fixed++ == 0)
					log_warnx("tree %s: commit %.12s: its "
						  "subject or author is not "
						  "UTF-8: kept with U+FFFD",
						  f->c->name, fl[0]);
			}
			c = json_pack("{s:s, s:o, s:s, s:s}", "sha", fl[0],
				      "parents", parents, "author", author,
				      "subject", subject);
			json_object_set_new(c, "email",
					    *email ? json_string(email)
						   : json_null());
			json_object_set_new(c, "date",
					    date ? json_string(date)
						 : json_null());
			json_array_append_new(f->commits, c);
			free(who);
			free(author);
			free(email);
			free(subject);
		}
		free(copy);
	}
	if (fixed > 1)
		log_warnx("tree %s: %zu commits in all not UTF-8", f->c->name,
			  fixed);
	if (odd > 1)
		log_warnx("tree %s: %zu commits in all with an author line git "
			  "cannot read",
			  f->c->name, odd);
}

static void
fetch_on_git(int status, const char *out, size_t len, const char *err,
	     void *arg)
{
	struct fetch *f = arg;
	struct head *h;

	(void)len;
	f->proc = NULL;
	switch (f->state) {
	case FETCH_INIT:
		if (status != 0)
			return fetch_fail(f, "git init", status, err);
		fetch_set_state(f, FETCH_FETCHING);
		break;
	case FETCH_FETCHING:
		if (status != 0)
			return fetch_fail(f, "git fetch", status, err);
		fetch_set_state(f, FETCH_REFS);
		break;
	case FETCH_REFS:
		if (status != 0)
			return fetch_fail(f, "git for-each-ref", status, err);
		fetch_read_refs(f, out);
		if (f->base_sha == NULL)
			log_warnx("tree %s: the base ref '%s' names no "
				  "commit: its heads are recorded, not tested",
				  f->c->name, f->c->base_ref);
		fetch_set_state(f, FETCH_HEADS);
		break;
	case FETCH_HEADS:
		h = &f->heads[f->step];
		if (h->asked_base && h->base == NULL && !h->asked_forced) {
			/* the merge-base's answer */
			if (status == 0 && len >= 40)
				h->base = xstrndup(out, 40);
		} else if (h->asked_forced) {
			/* is-ancestor: 0 yes, 1 no, else the old head is
			 * gone (a force-push and a gc) */
			h->forced = status != 0;
		}
		break;
	case FETCH_LOG:
		if (status != 0)
			return fetch_fail(f, "git log", status, err);
		fetch_read_log(f, out, len);
		fetch_set_state(f, FETCH_STORING);
		break;
	default:
		return;
	}
	fetch_drive(f);
}

static void
fetch_on_submitted(json_t *answer, const struct problem *p, void *arg)
{
	struct fetch *f = arg;

	if (p != NULL)
		log_warnx("tree %s: its jobs were not queued: %s", f->c->name,
			  p->message);
	else if (answer != NULL)
		log_info("tree %s: %zu runs queued", f->c->name,
			 json_array_size(json_object_get(answer, "jobs")));
	json_decref(answer);
	if (--f->submitting == 0)
		fetch_end(f);
}

/* QUEUEING: each new head's jobs, on each group, with its base. */
static void
fetch_queue(struct fetch *f)
{
	const struct store_tree_fetched *fr = f->fresh;
	char *submitter = xasprintf("tree:%s", f->c->name);

	f->submitting = 1; /* held until every submit is made */
	for (size_t i = 0; i < fr->nheads; i++) {
		const struct store_tree_new_head *h = &fr->heads[i];
		const char *commits[2] = {h->base, h->sha};

		if (h->base == NULL || strcmp(h->base, h->sha) == 0) {
			log_info("tree %s: %s is at %.12s%s", f->c->name,
				 h->branch, h->sha,
				 h->base ? ", its base: nothing to compare"
					 : ", no base: not tested");
			continue;
		}
		log_info("tree %s: new head of %s: %.12s (base %.12s)",
			 f->c->name, h->branch, h->sha, h->base);
		for (size_t k = 0; k < fr->njobs; k++) {
			for (size_t m = 0; m < fr->ngroups; m++) {
				struct submit_request rq = {
					.submitter = submitter,
					.file_name = fr->jobs[k].name,
					.body = fr->jobs[k].text,
					.len = strlen(fr->jobs[k].text),
					.commits = commits,
					.ncommits = 2,
					.repeat = fr->runs,
					.priority = LONG_MIN,
					.group = fr->groups[m],
					.tree = f->c->name,
					.branch = h->branch,
					.max_runs = fr->max_runs};

				f->submitting++;
				submit_start(f->t->base, f->t->store, f->t->set,
					     &rq, fetch_on_submitted, f);
			}
		}
	}
	free(submitter);
	fetch_on_submitted(NULL, NULL, f); /* the hold */
}

static void
fetch_on_stored(struct store_tree_fetched *fr, const struct problem *p,
		void *arg)
{
	struct fetch *f = arg;

	if (p != NULL) {
		/* Said in the tree's fetch_error and tried again with
		 * backoff, as a failed git step is. */
		f->error =
			xasprintf("storing what git fetched: %s", p->message);
		fetch_set_state(f, FETCH_FAILING);
		fetch_drive(f);
		return;
	}
	if (fr == NULL) { /* the tree was removed meanwhile */
		fetch_end(f);
		return;
	}
	f->fresh = fr;
	fetch_set_state(f, FETCH_QUEUEING);
	fetch_queue(f);
}

/* After a failed fetch: the poll interval doubled at each failure in a
 * row (this one counted), at most an hour. */
static int
fetch_retry_in(const struct fetch *f)
{
	return (int)backoff_delay(2.0 * (f->c->poll > 0 ? f->c->poll : 1), 3600,
				  f->c->failures + 1);
}

/* FAILING: the error is stored; when the tree is tried again. */
static void
fetch_on_failed(const char *text, const struct problem *p, void *arg)
{
	struct fetch *f = arg;
	json_t *j = text ? rjson_loads(text, NULL) : NULL;

	if (j != NULL)
		log_warnx("tree %s: %s; next try in %lld s", f->c->name,
			  f->error,
			  (long long)json_number_value(
				  json_object_get(j, "retry_in")));
	json_decref(j);
	(void)p;
	fetch_end(f);
}

/* STORING: the heads and commits to the database. */
static void
fetch_store(struct fetch *f)
{
	json_t *heads = json_array();
	char *hs, *cs;

	for (size_t i = 0; i < f->nheads; i++) {
		struct head *h = &f->heads[i];

		json_array_append_new(
			heads,
			json_pack("{s:s, s:s, s:o, s:b}", "branch", h->branch,
				  "sha", h->sha, "base",
				  h->base ? json_string(h->base) : json_null(),
				  "forced", h->forced));
	}
	hs = rjson_dumps(heads, JSON_COMPACT);
	cs = rjson_dumps(f->commits, JSON_COMPACT);
	log_debug("tree %s: %zu heads, %zu new commits", f->c->name, f->nheads,
		  json_array_size(f->commits));
	store_tree_fetched(f->t->store, f->c->name, hs, cs, fetch_on_stored, f);
	json_decref(heads);
	free(hs);
	free(cs);
}

static void
fetch_drive(struct fetch *f)
{
	char *dir;
	const struct settings *set = f->t->set;

	switch (f->state) {
	case FETCH_INIT: {
		const char *args[] = {"init", "--bare", "-q", f->mirror, NULL};

		/* The state directory too: with --db it may be new. */
		/* The mirrors are robotd's alone: a tree may be private
		 * (issue 61: they were 0755 and 0644). */
		dir = xasprintf("%s/trees", set->state_dir);
		if ((mkdir(set->state_dir, 0755) == -1 && errno != EEXIST) ||
		    (mkdir(dir, 0700) == -1 && errno != EEXIST) ||
		    chmod(dir, 0700) == -1)
			log_warn("mkdir %s", dir);
		free(dir);
		fetch_git(f, git_short(f->t->set), args);
		return;
	}
	case FETCH_FETCHING: {
		struct git_url g;

		git_url_split(f->c->url, &g);
		{
			const char *args[] = {"fetch",
					      "-q",
					      "--prune",
					      "--force",
					      "--no-tags",
					      g.url,
					      "+refs/heads/*:refs/heads/*",
					      "+refs/tags/*:refs/tags/*",
					      NULL};

			fetch_git_env(f, set->tree_fetch_timeout, args,
				      g.env[0] != NULL ? g.env : NULL);
		}
		git_url_release(&g);
		return;
	}
	case FETCH_REFS: {
		const char *args[] = {
			"for-each-ref",
			"--format=%(refname)%09%(objectname)%09%(*objectname)"
			"%09%(creatordate:unix)",
			"refs/heads", "refs/tags", NULL};

		fetch_git(f, git_short(f->t->set), args);
		return;
	}
	case FETCH_HEADS:
		if (fetch_ask_head(f))
			return;
		fetch_set_state(f, FETCH_LOG);
		fetch_ask_log(f);
		return;
	case FETCH_LOG:
		return;
	case FETCH_STORING:
		fetch_store(f);
		return;
	case FETCH_QUEUEING:
		return;
	case FETCH_FAILING:
		store_tree_failed(f->t->store, f->c->name, f->error,
				  fetch_retry_in(f), fetch_on_failed, f);
		return;
	}
}

/* The engine's: a tree claimed, to fetch. */
static void
trees_start(struct drain_worker *w, void *work)
{
	struct fetch *f = work;
	struct stat st;

	(void)w;
	f->t->fetch = f;
	f->mirror = settings_mirror(f->t->set, f->c->name);
	fetch_set_state(f, stat(f->mirror, &st) == 0 ? FETCH_FETCHING
						     : FETCH_INIT);
	fetch_drive(f);
}

static void
trees_on_claimed(struct store_tree_claim *c, const struct problem *p, void *arg)
{
	struct trees *t = arg;
	struct fetch *f = NULL;

	if (c != NULL) {
		f = xcalloc(1, sizeof *f);
		f->t = t;
		f->c = c;
	}
	drain_claimed_one(t->w, f, p);
}

static void
trees_claim(struct drain_worker *w, int n)
{
	struct trees *t = drain_ctx(w);

	(void)n;
	store_tree_claim(t->store,
			 t->set->tree_fetch_timeout + git_short(t->set),
			 trees_on_claimed, t);
}

/* robotd stops: git is not waited for. */
static void
trees_halt(struct drain_worker *w)
{
	struct trees *t = drain_ctx(w);

	if (t->fetch != NULL && t->fetch->proc != NULL) {
		proc_cancel(t->fetch->proc);
		t->fetch->proc = NULL;
	}
}

static const struct drain_ops trees_ops = {
	.name = "trees",
	.tick = TREES_TICK,
	.slots = 1,
	.batch = 1,
	.look_after_each = true,
	.claim = trees_claim,
	.start = trees_start,
	.free = fetch_free,
	.stop = trees_halt,
};

struct trees *
trees_new(struct drain *d, struct event_base *base, struct store *store,
	  const struct settings *set)
{
	struct trees *t = xcalloc(1, sizeof *t);

	char *dir = xasprintf("%s/trees", set->state_dir);

	t->base = base;
	t->store = store;
	t->set = set;
	t->w = drain_add(d, &trees_ops, t);
	/* (mirrors made by a robotd before were anyone's to read) */
	if (chmod(dir, 0700) == -1 && errno != ENOENT)
		log_warn("chmod %s", dir);
	free(dir);
	return t;
}

void
trees_free(struct trees *t)
{
	free(t);
}

/* Checking a tree as `robot tree add` and `robot tree set` send it. */

#define TREES_MAX_JOBS  64
#define TREES_MAX_GLOBS 64
#define TREES_MAX_URL   1024
#define TREES_MAX_REF   255

/* Whether s is printable ASCII without blanks, at most max bytes. */
static bool
tree_word_ok(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n == 0 || n > max || s[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= ' ' || (unsigned char)s[i] >= 0x7f)
			return false;
	return true;
}

/*
 * A URL git may fetch from: http(s), git, ssh or file URLs, an absolute
 * path, or scp's user@host:path.  Never an option (a leading '-') nor a
 * transport that runs a command (ext::).
 */
static bool
tree_url_ok(const char *url)
{
	static const char *const schemes[] = {"http://", "https://", "git://",
					      "ssh://",  "file:///", NULL};

	if (!tree_word_ok(url, TREES_MAX_URL) || strstr(url, "::") != NULL)
		return false;
	if (url[0] == '/')
		return true;
	for (size_t i = 0; schemes[i] != NULL; i++)
		if (str_has_prefix(url, schemes[i]))
			return true;
	/* user@host:path */
	return strchr(url, ':') != NULL && strchr(url, '@') != NULL &&
	       strchr(url, '@') < strchr(url, ':') &&
	       strchr(url, '/') > strchr(url, ':');
}

/* A member that is an array of 1..max words (globs, refs, labels). */
static void
tree_check_words(json_t *tree, const char *key, enum name_kind kind,
		 struct errlist *el)
{
	json_t *a = json_object_get(tree, key), *v;
	size_t i;

	if (!json_is_array(a) || json_array_size(a) == 0 ||
	    json_array_size(a) > TREES_MAX_GLOBS) {
		errlist_error(el, "tree", 0, "%s is a list of 1 to %d names",
			      key, TREES_MAX_GLOBS);
		return;
	}
	json_array_foreach(a, i, v)
	{
		const char *s = json_string_value(v);

		if (s == NULL ||
		    (kind == NAME_LABEL ? !name_ok(kind, s)
					: !tree_word_ok(s, TREES_MAX_REF)))
			errlist_error(el, "tree", 0, "%s[%zu] is not %s", key,
				      i,
				      kind == NAME_LABEL
					      ? "a group name ([A-Za-z0-9._+-])"
					      : "a branch name or glob");
	}
}

static void
tree_check_int(json_t *tree, const char *key, long lo, long hi,
	       struct errlist *el)
{
	json_t *v = json_object_get(tree, key);

	if (v != NULL && (!json_is_integer(v) || json_integer_value(v) < lo ||
			  json_integer_value(v) > hi))
		errlist_error(el, "tree", 0,
			      "%s is a whole number from %ld "
			      "to %ld",
			      key, lo, hi);
}

/* Each job file must split into jobs a box of the robot can run. */
static void
tree_check_jobs(json_t *jobs, struct errlist *el)
{
	struct jobfile_options opt = {JOBFILE_AUTO, 0, false, true};
	json_t *j;
	size_t i;

	if (!json_is_array(jobs) || json_array_size(jobs) == 0 ||
	    json_array_size(jobs) > TREES_MAX_JOBS) {
		errlist_error(el, "tree", 0,
			      "jobs is a list of 1 to %d job files "
			      "({\"name\": N, \"text\": YAML})",
			      TREES_MAX_JOBS);
		return;
	}
	json_array_foreach(jobs, i, j)
	{
		const char *name =
			json_string_value(json_object_get(j, "name"));
		json_t *text = json_object_get(j, "text");
		struct jobfile *jf;

		if (name == NULL || !name_ok(NAME_LABEL, name) ||
		    !json_is_string(text) || json_object_size(j) != 2) {
			errlist_error(el, "tree", 0,
				      "jobs[%zu] is {\"name\": FILE-NAME, "
				      "\"text\": YAML}",
				      i);
			continue;
		}
		jf = jobfile_split(name, json_string_value(text),
				   json_string_length(text), &opt, el);
		jobfile_free(jf);
	}
}

struct problem *
trees_check(json_t *tree, bool partial)
{
	static const char *const members[] = {
		"name", "url",         "branches", "base_ref",
		"jobs", "tbox_groups", "runs",     "max_runs",
		"poll", "mail_author", "bisect",   NULL};
	struct errlist el;
	struct problem *p = NULL;
	const char *key, *s;
	json_int_t runs;
	json_t *v;

	if (!json_is_object(tree))
		return problem_new(PROBLEM_INVALID, NULL,
				   "a tree is a JSON object");
	errlist_init(&el);
	json_object_foreach(tree, key, v)
	{
		size_t i;

		for (i = 0; members[i] != NULL; i++)
			if (strcmp(key, members[i]) == 0)
				break;
		if (members[i] == NULL)
			errlist_error(&el, "tree", 0, "unknown member '%.64s'",
				      key);
	}
	s = rjson_get_str(tree, "name");
	if (s == NULL || !name_ok(NAME_LABEL, s))
		errlist_error(&el, "tree", 0, "name is %s",
			      name_kind_text(NAME_LABEL));
	if (!partial) {
		if (json_object_get(tree, "url") == NULL)
			errlist_error(&el, "tree", 0, "url is missing");
		if (json_object_get(tree, "jobs") == NULL)
			errlist_error(&el, "tree", 0, "jobs is missing");
		if (json_object_get(tree, "branches") == NULL)
			json_object_set_new(
				tree, "branches",
				json_pack("[s, s]", "main", "master"));
		if (json_object_get(tree, "base_ref") == NULL)
			json_object_set_new(tree, "base_ref",
					    json_string("v*"));
		if (json_object_get(tree, "tbox_groups") == NULL)
			json_object_set_new(tree, "tbox_groups", json_array());
		if (json_object_get(tree, "runs") == NULL)
			json_object_set_new(tree, "runs", json_integer(5));
		runs = json_integer_value(json_object_get(tree, "runs"));
		if (json_object_get(tree, "max_runs") == NULL)
			json_object_set_new(
				tree, "max_runs",
				json_integer(runs > 14 ? runs : 14));
		if (json_object_get(tree, "poll") == NULL)
			json_object_set_new(tree, "poll", json_integer(300));
	}
	if ((v = json_object_get(tree, "url")) != NULL &&
	    (!json_is_string(v) || !tree_url_ok(json_string_value(v))))
		errlist_error(&el, "tree", 0,
			      "url is an http(s), git, ssh or file URL, an "
			      "absolute path, or user@host:path");
	if (json_object_get(tree, "branches") != NULL)
		tree_check_words(tree, "branches", NAME_COMMIT, &el);
	if ((v = json_object_get(tree, "base_ref")) != NULL &&
	    (!json_is_string(v) ||
	     !tree_word_ok(json_string_value(v), TREES_MAX_REF)))
		errlist_error(&el, "tree", 0,
			      "base_ref is a ref, a glob of tags or a commit");
	if ((v = json_object_get(tree, "tbox_groups")) != NULL &&
	    json_array_size(v) > 0)
		tree_check_words(tree, "tbox_groups", NAME_LABEL, &el);
	else if (v != NULL && !json_is_array(v))
		errlist_error(&el, "tree", 0, "tbox_groups is a list");
	if ((v = json_object_get(tree, "jobs")) != NULL)
		tree_check_jobs(v, &el);
	tree_check_int(tree, "runs", 1, 100, &el);
	tree_check_int(tree, "max_runs", 1, 100, &el);
	tree_check_int(tree, "poll", 5, 86400, &el);
	if ((v = json_object_get(tree, "mail_author")) != NULL &&
	    !json_is_boolean(v))
		errlist_error(&el, "tree", 0, "mail_author is true or false");
	if ((v = json_object_get(tree, "bisect")) != NULL &&
	    !json_is_boolean(v))
		errlist_error(&el, "tree", 0, "bisect is true or false");
	if (json_is_integer(json_object_get(tree, "runs")) &&
	    json_is_integer(json_object_get(tree, "max_runs")) &&
	    json_integer_value(json_object_get(tree, "max_runs")) <
		    json_integer_value(json_object_get(tree, "runs")))
		errlist_error(&el, "tree", 0, "max_runs is at least runs");
	if (el.nerrors > 0)
		p = problem_new(PROBLEM_INVALID, errlist_to_json(&el, false),
				"the tree has %zu error%s", el.nerrors,
				el.nerrors == 1 ? "" : "s");
	errlist_release(&el);
	return p;
}
