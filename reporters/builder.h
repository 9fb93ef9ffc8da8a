/*
 * builder.h: reports built (reporters.h's first half): a commit's final
 * regressions, or a thread's news, claimed from the database, rendered
 * (report.h) and stored with their outbox rows.
 */
#ifndef ROBOT_BUILDER_H
#define ROBOT_BUILDER_H

#include <event2/event.h>

#include "robot/daemon/settings.h"
#include "robot/daemon/store.h"

struct builder;

struct builder *builder_new(struct event_base *base, struct store *store,
			    const struct settings *set,
			    const char *(*url)(void *), void *url_arg);
/* Reports may be due: look. */
void builder_wake(struct builder *b);
/* robotd stops (before the database goes): nothing new starts. */
void builder_stop(struct builder *b);
void builder_free(struct builder *b);
unsigned long long builder_count(const struct builder *b);

#endif
