/*
 * trees.c: the trees' watcher, one tree at a time, a state machine driven
 * by watch_drive():
 *
 *   IDLE      --(the 1 s timer)--------------------------> CLAIMING
 *   CLAIMING  --(no tree due)----------------------------> IDLE
 *   CLAIMING  --(a tree; its mirror is missing)----------> INIT
 *   CLAIMING, INIT --(the mirror is there)---------------> FETCHING
 *   FETCHING  --(fetched)--------------------------------> REFS
 *   REFS      --(heads and base read)--------------------> HEADS
 *   HEADS     --(each changed head: its merge-base with
 *               the base, whether it was force-pushed)---> LOG
 *   LOG       --(the new commits read)-------------------> STORING
 *   STORING   --(recorded; the new heads come back)------> QUEUEING
 *   QUEUEING  --(each new head's jobs submitted)---------> CLAIMING (next)
 *   any git step --(failed, or killed at its deadline)---> FAILING
 *   FAILING   --(the error stored for robot tree list)---> CLAIMING
 *
 * Every git command is a child (proc.h): the loop never waits for one.
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
#include "robot/core/log.h"
#include "robot/core/name.h"
#include "robot/core/rjson.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/proc.h"
#include "robot/daemon/submit.h"
#include "robot/daemon/trees.h"
#include "robot/core/banned.h"

#define TREES_TICK        1           /* seconds between looks for a due tree */
#define TREES_MAX_COMMITS 10000       /* new commits recorded per fetch */
#define TREES_MAX_REFS    (16u << 20) /* bytes of for-each-ref and log */
#define TREES_GIT_SHORT   60          /* seconds for a git step but the fetch */

enum watch_state {
	WATCH_IDLE,
	WATCH_CLAIMING,
	WATCH_INIT,
	WATCH_FETCHING,
	WATCH_REFS,
	WATCH_HEADS,
	WATCH_LOG,
	WATCH_STORING,
	WATCH_QUEUEING,
	WATCH_FAILING,
};

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
	enum watch_state state;
	struct event_base *base;
	struct store *store;
	const struct settings *set;
	struct event *timer;
	struct proc *proc; /* the git command running, or NULL */
	/* the tree in hand */
	json_t *claim;
	char *name;
	char *mirror;
	char *base_sha; /* the base ref's commit, or NULL */
	struct head *heads;
	size_t nheads;
	size_t step; /* HEADS: the head being asked about */
	json_t *commits;
	json_t *fresh;  /* STORING's answer: what to test */
	int submitting; /* QUEUEING: submits in flight */
	bool stopped;   /* robotd stops: nothing more is started */
	char *error;    /* FAILING: why */
};

static void watch_drive(struct trees *t);

static const char *
watch_state_name(enum watch_state s)
{
	static const char *const names[] = {
		"idle",  "claiming", "init",    "fetching", "refs",
		"heads", "log",      "storing", "queueing", "failing"};

	return (size_t)s < sizeof names / sizeof names[0] ? names[s] : "?";
}

static void
watch_set_state(struct trees *t, enum watch_state s)
{
	log_debug("trees%s%s: %s -> %s", t->name ? " " : "",
		  t->name ? t->name : "", watch_state_name(t->state),
		  watch_state_name(s));
	t->state = s;
}

/* Forgets the tree in hand. */
static void
watch_release(struct trees *t)
{
	for (size_t i = 0; i < t->nheads; i++) {
		free(t->heads[i].branch);
		free(t->heads[i].sha);
		free(t->heads[i].old);
		free(t->heads[i].base);
	}
	free(t->heads);
	t->heads = NULL;
	t->nheads = 0;
	json_decref(t->claim);
	json_decref(t->commits);
	json_decref(t->fresh);
	t->claim = t->commits = t->fresh = NULL;
	free(t->name);
	free(t->mirror);
	free(t->base_sha);
	free(t->error);
	t->name = t->mirror = t->base_sha = t->error = NULL;
	t->step = 0;
}

/* The git step failed: why (its first "fatal:" or "error:" line, else
 * its last line of stderr) goes to the tree. */
static void
watch_fail(struct trees *t, const char *what, int status, const char *err)
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
	t->error = status == -1 && strstr(err, "deadline") != NULL
			   ? xasprintf("%s: no answer within %d s", what,
				       t->set->tree_fetch_timeout)
			   : xasprintf("%s: %s", what,
				       *q ? q : "failed with no message");
	free(q);
	watch_set_state(t, WATCH_FAILING);
	watch_drive(t);
}

static void watch_on_git(int status, const char *out, size_t len,
			 const char *err, void *arg);

/* Runs git with args after "git -C MIRROR" (or alone, for init). */
static void
watch_git(struct trees *t, int timeout, const char *const *args)
{
	char *argv[32];
	size_t n = 0;

	argv[n++] = "git";
	if (t->state != WATCH_INIT) {
		argv[n++] = "-C";
		argv[n++] = t->mirror;
	}
	for (size_t i = 0; args[i] != NULL && n < 31; i++)
		argv[n++] = (char *)args[i];
	argv[n] = NULL;
	t->proc = proc_run(t->base, argv, timeout, TREES_MAX_REFS, watch_on_git,
			   t);
}

/* Whether branch is one of the tree's watched globs. */
static bool
watched(json_t *globs, const char *branch)
{
	json_t *g;
	size_t i;

	json_array_foreach(globs, i, g)
	{
		if (fnmatch(json_string_value(g), branch, 0) == 0)
			return true;
	}
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
watch_read_refs(struct trees *t, const char *out)
{
	json_t *globs = json_object_get(t->claim, "branches");
	json_t *known = json_object_get(t->claim, "heads");
	const char *base_ref = rjson_get_str(t->claim, "base_ref");
	long long newest = -1;
	char *copy = xstrdup(out), *save = NULL;

	for (char *line = strtok_r(copy, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		char *f[4] = {NULL, NULL, NULL, NULL}, *p = line;
		const char *ref, *sha, *short_name;

		for (int i = 0; i < 4; i++)
			f[i] = strsep(&p, "\t");
		if (f[1] == NULL)
			continue;
		ref = f[0];
		sha = f[2] != NULL && f[2][0] != '\0' ? f[2] : f[1];
		if (str_has_prefix(ref, "refs/heads/")) {
			short_name = ref + strlen("refs/heads/");
			if (!has_glob(base_ref) &&
			    strcmp(short_name, base_ref) == 0) {
				free(t->base_sha);
				t->base_sha = xstrdup(sha);
			}
			if (watched(globs, short_name)) {
				struct head *h;
				const char *old =
					rjson_get_str(known, short_name);

				t->heads =
					xreallocarray(t->heads, t->nheads + 1,
						      sizeof *t->heads);
				h = &t->heads[t->nheads++];
				memset(h, 0, sizeof *h);
				h->branch = xstrdup(short_name);
				h->sha = xstrdup(sha);
				h->old = old ? xstrdup(old) : NULL;
			}
		} else if (str_has_prefix(ref, "refs/tags/")) {
			long long date = f[3] ? atoll(f[3]) : 0;

			short_name = ref + strlen("refs/tags/");
			if (has_glob(base_ref)
				    ? fnmatch(base_ref, short_name, 0) == 0 &&
					      date > newest
				    : strcmp(short_name, base_ref) == 0) {
				newest = date;
				free(t->base_sha);
				t->base_sha = xstrdup(sha);
			}
		}
	}
	free(copy);
	/* A base given as a commit id. */
	if (t->base_sha == NULL && strlen(base_ref) == 40 &&
	    strspn(base_ref, "0123456789abcdef") == 40)
		t->base_sha = xstrdup(base_ref);
}

/* HEADS: the next question about a changed head, or false when all are
 * answered. */
static bool
watch_ask_head(struct trees *t)
{
	for (; t->step < t->nheads; t->step++) {
		struct head *h = &t->heads[t->step];

		if (h->old != NULL && strcmp(h->old, h->sha) == 0)
			continue; /* unchanged */
		if (!h->asked_base && t->base_sha != NULL) {
			const char *args[] = {"merge-base", h->sha, t->base_sha,
					      NULL};

			h->asked_base = true;
			watch_git(t, TREES_GIT_SHORT, args);
			return true;
		}
		if (!h->asked_forced && h->old != NULL) {
			const char *args[] = {"merge-base", "--is-ancestor",
					      h->old, h->sha, NULL};

			h->asked_forced = true;
			watch_git(t, TREES_GIT_SHORT, args);
			return true;
		}
	}
	return false;
}

/* LOG: the commits new to the robot: the changed heads' history down to
 * what it knew (the heads that did not move or moved forward) and the
 * base. */
static void
watch_ask_log(struct trees *t)
{
	const char **args = xcalloc(2 * t->nheads + 12, sizeof *args);
	char *max = xasprintf("--max-count=%d", TREES_MAX_COMMITS);
	char *base_parents =
		t->base_sha ? xasprintf("%s^@", t->base_sha) : NULL;
	size_t n = 0;
	bool any = false;

	args[n++] = "log";
	args[n++] = "--format=%H%x09%P%x09%an <%ae>%x09%aI%x09%s";
	args[n++] = max;
	for (size_t i = 0; i < t->nheads; i++)
		if (t->heads[i].old == NULL ||
		    strcmp(t->heads[i].old, t->heads[i].sha) != 0) {
			args[n++] = t->heads[i].sha;
			any = true;
		}
	if (t->base_sha != NULL)
		args[n++] = t->base_sha;
	args[n++] = "--not";
	if (base_parents != NULL)
		args[n++] = base_parents;
	for (size_t i = 0; i < t->nheads; i++)
		if (t->heads[i].old != NULL && !t->heads[i].forced)
			args[n++] = t->heads[i].old;
	args[n] = NULL;
	if (!any && t->base_sha == NULL) {
		t->commits = json_array();
		free(args);
		free(max);
		free(base_parents);
		watch_set_state(t, WATCH_STORING);
		watch_drive(t);
		return;
	}
	watch_git(t, TREES_GIT_SHORT, args);
	free(args);
	free(max);
	free(base_parents);
}

static void
watch_read_log(struct trees *t, const char *out)
{
	char *copy = xstrdup(out), *save = NULL;

	t->commits = json_array();
	for (char *line = strtok_r(copy, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		char *f[5], *p = line;
		json_t *parents = json_array();

		for (int i = 0; i < 4; i++)
			f[i] = strsep(&p, "\t");
		f[4] = p;
		if (f[3] == NULL || f[4] == NULL) {
			json_decref(parents);
			continue;
		}
		for (char *q = f[1], *par; (par = strsep(&q, " ")) != NULL;)
			if (*par != '\0')
				json_array_append_new(parents,
						      json_string(par));
		json_array_append_new(t->commits,
				      json_pack("{s:s, s:o, s:s%, s:s, s:s%}",
						"sha", f[0], "parents", parents,
						"author", f[2], strlen(f[2]),
						"date", f[3], "subject", f[4],
						strlen(f[4])));
	}
	free(copy);
}

static void
watch_on_git(int status, const char *out, size_t len, const char *err,
	     void *arg)
{
	struct trees *t = arg;
	struct head *h;

	(void)len;
	t->proc = NULL;
	switch (t->state) {
	case WATCH_INIT:
		if (status != 0)
			return watch_fail(t, "git init", status, err);
		watch_set_state(t, WATCH_FETCHING);
		break;
	case WATCH_FETCHING:
		if (status != 0)
			return watch_fail(t, "git fetch", status, err);
		watch_set_state(t, WATCH_REFS);
		break;
	case WATCH_REFS:
		if (status != 0)
			return watch_fail(t, "git for-each-ref", status, err);
		watch_read_refs(t, out);
		if (t->base_sha == NULL)
			log_warnx("tree %s: the base ref '%s' names no "
				  "commit: its heads are recorded, not tested",
				  t->name, rjson_get_str(t->claim, "base_ref"));
		watch_set_state(t, WATCH_HEADS);
		break;
	case WATCH_HEADS:
		h = &t->heads[t->step];
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
	case WATCH_LOG:
		if (status != 0)
			return watch_fail(t, "git log", status, err);
		watch_read_log(t, out);
		watch_set_state(t, WATCH_STORING);
		break;
	default:
		return;
	}
	watch_drive(t);
}

static void
watch_on_submitted(json_t *answer, const struct problem *p, void *arg)
{
	struct trees *t = arg;

	if (p != NULL)
		log_warnx("tree %s: its jobs were not queued: %s", t->name,
			  p->message);
	else if (answer != NULL)
		log_info("tree %s: %zu runs queued", t->name,
			 json_array_size(json_object_get(answer, "jobs")));
	json_decref(answer);
	if (--t->submitting == 0) {
		watch_release(t);
		watch_set_state(t, WATCH_CLAIMING);
		watch_drive(t);
	}
}

/* QUEUEING: each new head's jobs, on each group, with its base. */
static void
watch_queue(struct trees *t)
{
	json_t *heads = json_object_get(t->fresh, "heads");
	json_t *jobs = json_object_get(t->fresh, "jobs");
	json_t *groups = json_object_get(t->fresh, "tbox_groups");
	json_t *h, *j, *g;
	size_t i, k, m;
	char *submitter = xasprintf("tree:%s", t->name);

	t->submitting = 1; /* held until every submit is made */
	json_array_foreach(heads, i, h)
	{
		const char *sha = rjson_get_str(h, "sha");
		const char *base = rjson_get_str(h, "base");
		const char *commits[2] = {base, sha};

		if (base == NULL || strcmp(base, sha) == 0) {
			log_info("tree %s: %s is at %.12s%s", t->name,
				 rjson_get_str(h, "branch"), sha,
				 base ? ", its base: nothing to compare"
				      : ", no base: not tested");
			continue;
		}
		log_info("tree %s: new head of %s: %.12s (base %.12s)", t->name,
			 rjson_get_str(h, "branch"), sha, base);
		json_array_foreach(jobs, k, j)
		{
			json_array_foreach(groups, m, g)
			{
				struct submit_request rq = {
					.submitter = submitter,
					.file_name = rjson_get_str(j, "name"),
					.body = rjson_get_str(j, "text"),
					.len = strlen(rjson_get_str(j, "text")),
					.commits = commits,
					.ncommits = 2,
					.repeat = json_integer_value(
						json_object_get(t->fresh,
								"runs")),
					.priority = LONG_MIN,
					.group = json_string_value(g),
					.tree = t->name,
					.branch = rjson_get_str(h, "branch"),
					.max_runs = (int)json_integer_value(
						json_object_get(t->fresh,
								"max_runs"))};

				t->submitting++;
				submit_start(t->base, t->store, t->set, &rq,
					     watch_on_submitted, t);
			}
		}
	}
	free(submitter);
	watch_on_submitted(NULL, NULL, t); /* the hold */
}

static void
watch_on_stored(const char *text, const struct problem *p, void *arg)
{
	struct trees *t = arg;

	if (p != NULL || text == NULL) {
		if (p != NULL)
			log_warnx("tree %s: %s", t->name ? t->name : "?",
				  p->message);
		watch_release(t);
		watch_set_state(t, p != NULL ? WATCH_IDLE : WATCH_CLAIMING);
		if (p == NULL)
			watch_drive(t);
		return;
	}
	t->fresh = json_loads(text, 0, NULL);
	watch_set_state(t, WATCH_QUEUEING);
	watch_queue(t);
}

/* After a failed fetch: the poll interval doubled at each failure in a
 * row (this one counted), at most an hour. */
static int
watch_retry_in(const struct trees *t)
{
	int poll = (int)json_integer_value(json_object_get(t->claim, "poll"));
	int failures =
		(int)json_integer_value(json_object_get(t->claim, "failures"));

	return (int)backoff_delay(2.0 * (poll > 0 ? poll : 1), 3600,
				  failures + 1);
}

/* FAILING: the error is stored; when the tree is tried again. */
static void
watch_on_failed(const char *text, const struct problem *p, void *arg)
{
	struct trees *t = arg;
	json_t *j = text ? json_loads(text, 0, NULL) : NULL;

	if (j != NULL)
		log_warnx("tree %s: %s; next try in %lld s", t->name, t->error,
			  (long long)json_number_value(
				  json_object_get(j, "retry_in")));
	json_decref(j);
	watch_release(t);
	watch_set_state(t, p != NULL ? WATCH_IDLE : WATCH_CLAIMING);
	if (p == NULL)
		watch_drive(t);
}

/* STORING: the heads and commits to the database. */
static void
watch_store(struct trees *t)
{
	json_t *heads = json_array();
	char *hs, *cs;

	for (size_t i = 0; i < t->nheads; i++) {
		struct head *h = &t->heads[i];

		json_array_append_new(
			heads,
			json_pack("{s:s, s:s, s:o, s:b}", "branch", h->branch,
				  "sha", h->sha, "base",
				  h->base ? json_string(h->base) : json_null(),
				  "forced", h->forced));
	}
	hs = rjson_dumps(heads, JSON_COMPACT);
	cs = rjson_dumps(t->commits, JSON_COMPACT);
	log_debug("tree %s: %zu heads, %zu new commits", t->name, t->nheads,
		  json_array_size(t->commits));
	store_tree_fetched(t->store, t->name, hs, cs, watch_on_stored, t);
	json_decref(heads);
	free(hs);
	free(cs);
}

static void
watch_on_claimed(const char *text, const struct problem *p, void *arg)
{
	struct trees *t = arg;
	struct stat st;

	if (p != NULL || text == NULL ||
	    (t->claim = json_loads(text, 0, NULL)) == NULL) {
		watch_set_state(t, WATCH_IDLE);
		return;
	}
	t->name = xstrdup(rjson_get_str(t->claim, "name"));
	t->mirror = settings_mirror(t->set, t->name);
	if (stat(t->mirror, &st) == 0)
		watch_set_state(t, WATCH_FETCHING);
	else
		watch_set_state(t, WATCH_INIT);
	watch_drive(t);
}

static void
watch_drive(struct trees *t)
{
	char *dir;

	if (t->stopped)
		return;
	switch (t->state) {
	case WATCH_IDLE:
		if (!store_up(t->store))
			return;
		watch_set_state(t, WATCH_CLAIMING);
		/* FALLTHROUGH */
	case WATCH_CLAIMING:
		store_tree_claim(t->store, t->set->tree_fetch_timeout + 60,
				 watch_on_claimed, t);
		return;
	case WATCH_INIT: {
		const char *args[] = {"init", "--bare", "-q", t->mirror, NULL};

		/* The state directory too: with --db it may be new. */
		dir = xasprintf("%s/trees", t->set->state_dir);
		if ((mkdir(t->set->state_dir, 0755) == -1 && errno != EEXIST) ||
		    (mkdir(dir, 0755) == -1 && errno != EEXIST))
			log_warn("mkdir %s", dir);
		free(dir);
		watch_git(t, TREES_GIT_SHORT, args);
		return;
	}
	case WATCH_FETCHING: {
		const char *args[] = {"fetch",
				      "-q",
				      "--prune",
				      "--force",
				      "--no-tags",
				      rjson_get_str(t->claim, "url"),
				      "+refs/heads/*:refs/heads/*",
				      "+refs/tags/*:refs/tags/*",
				      NULL};

		watch_git(t, t->set->tree_fetch_timeout, args);
		return;
	}
	case WATCH_REFS: {
		const char *args[] = {
			"for-each-ref",
			"--format=%(refname)%09%(objectname)%09%(*objectname)"
			"%09%(creatordate:unix)",
			"refs/heads", "refs/tags", NULL};

		watch_git(t, TREES_GIT_SHORT, args);
		return;
	}
	case WATCH_HEADS:
		if (watch_ask_head(t))
			return;
		watch_set_state(t, WATCH_LOG);
		watch_ask_log(t);
		return;
	case WATCH_LOG:
		return;
	case WATCH_STORING:
		watch_store(t);
		return;
	case WATCH_QUEUEING:
		return;
	case WATCH_FAILING:
		store_tree_failed(t->store, t->name, t->error,
				  watch_retry_in(t), watch_on_failed, t);
		return;
	}
}

static void
trees_on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct trees *t = arg;

	(void)fd;
	(void)what;
	if (t->state == WATCH_IDLE)
		watch_drive(t);
}

struct trees *
trees_new(struct event_base *base, struct store *store,
	  const struct settings *set)
{
	struct trees *t = xcalloc(1, sizeof *t);
	struct timeval tv = {TREES_TICK, 0};

	t->state = WATCH_IDLE;
	t->base = base;
	t->store = store;
	t->set = set;
	t->timer = event_new(base, -1, EV_PERSIST, trees_on_timer, t);
	event_add(t->timer, &tv);
	return t;
}

void
trees_stop(struct trees *t)
{
	if (t == NULL)
		return;
	t->stopped = true;
	event_del(t->timer);
	proc_cancel(t->proc);
	t->proc = NULL;
}

void
trees_free(struct trees *t)
{
	if (t == NULL)
		return;
	trees_stop(t);
	event_free(t->timer);
	watch_release(t);
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
				json_integer(runs > 10 ? runs : 10));
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
