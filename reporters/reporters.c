/*
 * reporters.c: the builder and the outbox, as robotd sees them
 * (reporters.h).
 */
#include <stdlib.h>
#include <string.h>

#include "reporters/builder.h"
#include "reporters/mailin.h"
#include "reporters/outbox.h"
#include "reporters/reporters.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

struct reporters {
	const struct settings *set;
	char *default_url;
	struct builder *builder;
	struct outbox *outbox;
	struct mailin_watch *mailin;
};

/* The base of the links in mails: public_url, else robotd's own. */
static const char *
reporters_url(void *arg)
{
	struct reporters *r = arg;
	const char *u = r->set->public_url;

	return u != NULL && u[0] != '\0' ? u : r->default_url;
}

const char *
reporters_link_url(struct reporters *r)
{
	return reporters_url(r);
}

void
reporters_set_url(struct reporters *r, const char *url)
{
	size_t n;

	free(r->default_url);
	r->default_url = xstrdup(url);
	n = strlen(r->default_url);
	while (n > 0 && r->default_url[n - 1] == '/')
		r->default_url[--n] = '\0';
}

struct reporters *
reporters_new(struct drain *d, struct event_base *base, struct store *store,
	      const struct settings *set)
{
	struct reporters *r = xcalloc(1, sizeof *r);

	r->set = set;
	r->default_url = xstrdup("http://127.0.0.1:8420");
	r->builder = builder_new(d, store, set, reporters_url, r);
	r->outbox = outbox_new(d, base, store, set, reporters_url, r);
	r->mailin = mailin_watch_new(d, base, store, set);
	return r;
}

void
reporters_free(struct reporters *r)
{
	if (r == NULL)
		return;
	builder_free(r->builder);
	outbox_free(r->outbox);
	mailin_watch_free(r->mailin);
	free(r->default_url);
	free(r);
}

void
reporters_stats(const struct reporters *r, struct reporters_stats *st)
{
	st->reports = builder_count(r->builder);
	outbox_counts(r->outbox, &st->sent, &st->failed);
}
