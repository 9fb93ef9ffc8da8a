/*
 * store.h: robotd's database, behind typed calls.  No file outside the
 * store holds SQL text: the state changes are the PL/pgSQL functions of
 * sql/functions/, and the reads are built into JSON by PostgreSQL
 * (json_build_object, json_agg), so that a listing is one query and one
 * copy.  The calls are declared by domain, each beside the functions it
 * calls (robot/daemon/store/<domain>.h: jobs, boxes, leases, analysis,
 * trees, reports, bisect, pages, tokens; schema.h before the loop).
 *
 * Each call takes a callback that runs exactly once, from the loop,
 * never inside the call: with the answer, or with a problem (NULL on
 * success) that says why there is none.  What the callback gets is
 * borrowed for its duration, but for the claims, which are decoded once
 * into a struct the callback keeps.  A failure of the database itself
 * is PROBLEM_UNAVAILABLE; the RBnnn codes that sql/ raises become the
 * problem of kind nnn, with the DETAIL lines as details.
 */
#ifndef ROBOT_STORE_H
#define ROBOT_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include "robot/daemon/problem.h"

struct db;
struct store;

/* A query's answer as text (a JSON document, or one value); NULL when
 * there is no such row (a 404 for reads of one thing). */
typedef void (*store_text_cb)(const char *text, const struct problem *p,
			      void *arg);

struct store *store_new(struct db *db);
void store_free(struct store *s);
/* Whether the database is reachable; queries waiting for a connection. */
bool store_up(const struct store *s);
size_t store_queued(const struct store *s);

#endif
