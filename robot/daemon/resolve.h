/*
 * resolve.h: the commits named at submit become full SHAs (DESIGN.md
 * section 7), so that "HEAD" means the same commit tomorrow and a short
 * SHA never makes a series of its own.
 *
 * A name given with a tree (a SHA prefix, a tag, a branch) is looked up
 * in the tree's mirror with `git rev-parse`, one child at a time, read
 * from the loop; without a tree a name must be a full 40-hex SHA.  Every
 * fault is reported at once: unknown, ambiguous, not a full SHA.
 */
#ifndef ROBOT_RESOLVE_H
#define ROBOT_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>

#include <event2/event.h>

#include "robot/daemon/problem.h"

#define RESOLVE_SHA_LEN 40
/* Names resolved at one submit beyond which it is refused. */
#define RESOLVE_MAX_NAMES 64

/* shas[i] is names[i]'s full SHA (lowercase), or p says why not. */
typedef void (*resolve_cb)(char *const *shas, const struct problem *p,
			   void *arg);

/*
 * Resolves names[0..n) in the bare repository mirror (tree is its name,
 * for messages); with mirror NULL, checks they are full SHAs.  cb runs
 * once, from the loop, never inside resolve_start().
 */
void resolve_start(struct event_base *base, const char *tree,
		   const char *mirror, const char *const *names, size_t n,
		   int timeout, resolve_cb cb, void *arg);

/* Whether s is a full SHA (40 hex digits, either case). */
bool resolve_is_sha(const char *s);

#endif
