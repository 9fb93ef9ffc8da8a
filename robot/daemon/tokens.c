/*
 * tokens.c: token checks with a small cache.
 *
 * Only tokens the database knows are cached (an unknown token costs a
 * query each time, but cannot fill memory).  Entries are refreshed after
 * TOKENS_TTL seconds.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "robot/core/strmap.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/store/tokens.h"
#include "robot/daemon/tokens.h"
#include "robot/core/banned.h"

struct token_entry {
	char *token;
	char *kind; /* NULL: revoked since cached */
	char *name;
	char *revoked; /* when, if it was */
	time_t checked;
};

struct tokens {
	struct store *store;
	struct strmap *map; /* token -> index into v */
	struct token_entry *v;
	size_t n;
};

struct token_check {
	struct tokens *t;
	char *token;
	tokens_cb cb;
	void *arg;
};

static time_t
now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

struct tokens *
tokens_new(struct store *store)
{
	struct tokens *t = xcalloc(1, sizeof *t);

	t->store = store;
	t->map = strmap_new(64);
	return t;
}

void
tokens_free(struct tokens *t)
{
	if (t == NULL)
		return;
	tokens_forget(t);
	strmap_free(t->map);
	free(t);
}

void
tokens_forget(struct tokens *t)
{
	for (size_t i = 0; i < t->n; i++) {
		explicit_bzero(t->v[i].token, strlen(t->v[i].token));
		free(t->v[i].token);
		free(t->v[i].kind);
		free(t->v[i].name);
		free(t->v[i].revoked);
	}
	free(t->v);
	t->v = NULL;
	t->n = 0;
	/* (the map borrowed the keys just freed) */
	strmap_free(t->map);
	t->map = strmap_new(64);
}

static void
tokens_remember(struct tokens *t, const char *token, const char *kind,
		const char *name, const char *revoked)
{
	size_t i;
	struct token_entry *e;

	if (!strmap_get(t->map, token, &i)) {
		if (kind == NULL)
			return;
		t->v = xreallocarray(t->v, t->n + 1, sizeof *t->v);
		e = &t->v[t->n];
		memset(e, 0, sizeof *e);
		/* The map borrows the key, which stays put when v moves. */
		e->token = xstrdup(token);
		strmap_put(t->map, e->token, t->n);
		t->n++;
	} else {
		e = &t->v[i];
	}
	free(e->kind);
	free(e->name);
	free(e->revoked);
	e->kind = kind ? xstrdup(kind) : NULL;
	e->name = kind ? xstrdup(name) : NULL;
	e->revoked = kind && revoked ? xstrdup(revoked) : NULL;
	e->checked = now_mono();
}

static void
tokens_on_row(const char *kind, const char *name, const char *revoked,
	      const struct problem *p, void *arg)
{
	struct token_check *c = arg;

	if (p == NULL)
		tokens_remember(c->t, c->token, kind, name, revoked);
	c->cb(kind, name, revoked, p, c->arg);
	explicit_bzero(c->token, strlen(c->token));
	free(c->token);
	free(c);
}

void
tokens_check(struct tokens *t, const char *token, tokens_cb cb, void *arg)
{
	struct token_check *c;
	size_t i;

	if (strmap_get(t->map, token, &i) &&
	    now_mono() - t->v[i].checked < TOKENS_TTL) {
		cb(t->v[i].kind, t->v[i].name, t->v[i].revoked, NULL, arg);
		return;
	}
	c = xcalloc(1, sizeof *c);
	c->t = t;
	c->token = xstrdup(token);
	c->cb = cb;
	c->arg = arg;
	store_token(t->store, token, tokens_on_row, c);
}
