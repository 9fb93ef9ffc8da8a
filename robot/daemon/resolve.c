/*
 * resolve.c: commit names to full SHAs, as a state machine:
 *
 *   RUNNING  --(git rev-parse of the next name answered)--> RUNNING
 *   RUNNING  --(every name asked)--------------------------> DONE (cb;
 *                              freed after the loop iteration)
 *
 * Without a mirror there is no git to ask: RUNNING checks every name is
 * a full SHA and ends through the loop, so that cb never runs inside
 * resolve_start().
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "robot/core/fsm.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/defer.h"
#include "robot/daemon/drain.h"
#include "robot/daemon/proc.h"
#include "robot/daemon/resolve.h"
#include "robot/core/banned.h"

enum resolve_state {
	RESOLVE_RUNNING,
	RESOLVE_DONE,
};
static const char *const resolve_states[] = {
	[RESOLVE_RUNNING] = "running",
	[RESOLVE_DONE] = "done",
};
static const struct fsm resolve_fsm =
	FSM("resolving commits", resolve_states, RESOLVE_DONE);

struct resolve {
	enum resolve_state state;
	struct event_base *base;
	char *tree, *mirror;
	char **names, **shas;
	size_t n, next; /* next: the name being asked */
	int timeout;
	json_t *faults;
	resolve_cb cb;
	void *arg;
};

static void
resolve_set_state(struct resolve *r, enum resolve_state s)
{
	FSM_SET(&resolve_fsm, r->state, s, "resolving in tree %s", r->tree);
}

static void resolve_drive(struct resolve *r);

bool
resolve_is_sha(const char *s)
{
	size_t i;

	for (i = 0; i < RESOLVE_SHA_LEN; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return s[i] == '\0';
}

static char *
lower(const char *s)
{
	char *l = xstrdup(s);

	for (char *c = l; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	return l;
}

static void
resolve_free(void *arg)
{
	struct resolve *r = arg;

	for (size_t i = 0; i < r->n; i++) {
		free(r->names[i]);
		free(r->shas[i]);
	}
	free(r->names);
	free(r->shas);
	free(r->tree);
	free(r->mirror);
	json_decref(r->faults);
	free(r);
}

enum resolve_fault {
	FAULT_NOT_SHA,
	FAULT_UNKNOWN,
	FAULT_AMBIGUOUS,
	FAULT_TIMEOUT,
	FAULT_NO_SHA,
};

static void
resolve_fault(struct resolve *r, enum resolve_fault f, const char *name)
{
	char *q = str_printable(name, strlen(name), 100), *msg = NULL;

	switch (f) {
	case FAULT_NOT_SHA:
		msg = xasprintf("commit '%s' is not a full 40-hex SHA: name "
				"its tree (--tree, or tree: in the job file) "
				"to resolve it",
				q);
		break;
	case FAULT_UNKNOWN:
		msg = xasprintf("no commit '%s' in tree %s", q, r->tree);
		break;
	case FAULT_AMBIGUOUS:
		msg = xasprintf("commit '%s' is ambiguous in tree %s: give "
				"more of its SHA",
				q, r->tree);
		break;
	case FAULT_TIMEOUT:
		msg = xasprintf("'%s': git did not answer within %d s in tree "
				"%s",
				q, r->timeout, r->tree);
		break;
	case FAULT_NO_SHA:
		msg = xasprintf("'%s': git answered no SHA in tree %s", q,
				r->tree);
		break;
	}
	json_array_append_new(r->faults, json_string(msg));
	free(msg);
	free(q);
}

static void
resolve_on_git(int status, const char *out, size_t len, const char *err,
	       void *arg)
{
	struct resolve *r = arg;
	const char *name = r->names[r->next];

	while (len > 0 && isspace((unsigned char)out[len - 1]))
		len--;
	if (status == 0 && len == RESOLVE_SHA_LEN) {
		r->shas[r->next] = xstrndup(out, len);
		if (!resolve_is_sha(r->shas[r->next]))
			resolve_fault(r, FAULT_NO_SHA, name);
	} else if (status == -1) {
		resolve_fault(r, FAULT_TIMEOUT, name);
	} else if (strstr(err, "ambiguous") != NULL) {
		resolve_fault(r, FAULT_AMBIGUOUS, name);
	} else {
		resolve_fault(r, FAULT_UNKNOWN, name);
	}
	r->next++;
	resolve_drive(r);
}

static void
resolve_checked(void *arg)
{
	resolve_drive(arg);
}

static void
resolve_drive(struct resolve *r)
{
	struct problem *p = NULL;
	char *rev, *argv[9];

	switch (r->state) {
	case RESOLVE_RUNNING:
		if (r->mirror == NULL) {
			for (size_t i = 0; i < r->n; i++)
				if (resolve_is_sha(r->names[i]))
					r->shas[i] = lower(r->names[i]);
				else
					resolve_fault(r, FAULT_NOT_SHA,
						      r->names[i]);
			r->next = r->n;
		}
		if (r->next < r->n) {
			rev = xasprintf("%s^{commit}", r->names[r->next]);
			argv[0] = "git";
			argv[1] = "-C";
			argv[2] = r->mirror;
			argv[3] = "rev-parse";
			argv[4] = "--verify";
			argv[5] = "--end-of-options";
			argv[6] = rev;
			argv[7] = NULL;
			proc_run(r->base, argv, NULL, r->timeout, 4096,
				 resolve_on_git, r);
			free(rev);
			return;
		}
		resolve_set_state(r, RESOLVE_DONE);
		if (json_array_size(r->faults) > 0)
			p = problem_new(
				PROBLEM_INVALID, json_incref(r->faults), "%s",
				json_array_size(r->faults) == 1
					? json_string_value(
						  json_array_get(r->faults, 0))
					: "commits that cannot be resolved");
		r->cb(p != NULL ? NULL : r->shas, p, r->arg);
		problem_free(p);
		defer(r->base, resolve_free, r);
		return;
	case RESOLVE_DONE:
		return;
	}
}

void
resolve_start(struct event_base *base, const char *tree, const char *mirror,
	      const char *const *names, size_t n, int timeout, resolve_cb cb,
	      void *arg)
{
	struct resolve *r = xcalloc(1, sizeof *r);

	r->base = base;
	r->tree = xstrdup(tree != NULL ? tree : "");
	resolve_set_state(r, RESOLVE_RUNNING);
	r->mirror = mirror != NULL ? xstrdup(mirror) : NULL;
	r->names = xcalloc(n + 1, sizeof *r->names);
	r->shas = xcalloc(n + 1, sizeof *r->shas);
	for (size_t i = 0; i < n; i++)
		r->names[i] = xstrdup(names[i]);
	r->n = n;
	r->timeout = timeout;
	r->faults = json_array();
	r->cb = cb;
	r->arg = arg;
	if (mirror != NULL)
		resolve_drive(r); /* proc_run() answers through the loop */
	else
		defer(base, resolve_checked, r);
}
