/*
 * builder.h: reports built (reporters.h's first half): a commit's final
 * regressions, or a thread's news, claimed, rendered (report.h) and
 * stored with their outbox rows, one at a time.
 */
#ifndef ROBOT_BUILDER_H
#define ROBOT_BUILDER_H

#include "robot/daemon/drain.h"
#include "robot/daemon/settings.h"
#include "robot/daemon/store.h"

struct builder;

/* A worker of d, woken by ":reports"; url() gives the base of the
 * links in reports. */
struct builder *builder_new(struct drain *d, struct store *store,
			    const struct settings *set,
			    const char *(*url)(void *), void *url_arg);
void builder_free(struct builder *b);
unsigned long long builder_count(const struct builder *b);

#endif
