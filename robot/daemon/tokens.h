/*
 * tokens.h: checking API tokens (DESIGN.md section 10).  Tokens are
 * stored hashed (sha256, computed by PostgreSQL); a token seen recently
 * is answered from memory, so a box's heartbeat costs no extra query.  A
 * revoked token stops working at its next request: a revocation is
 * NOTIFYed to every robotd, which forgets what it cached
 * (tokens_forget()); one that missed it forgets within TOKENS_TTL
 * seconds, and a revoked box is refused by the lab's own calls.
 */
#ifndef ROBOT_TOKEN_H
#define ROBOT_TOKEN_H

#include <stdbool.h>

#include "robot/daemon/store.h"

#define TOKENS_TTL 60

struct tokens;

/*
 * kind is "submit", "box" or "admin" and name the token's name, or both
 * NULL for an unknown token; revoked says when it was revoked (then it
 * must not be honoured), else NULL; p says why the database could not
 * say.
 */
typedef void (*tokens_cb)(const char *kind, const char *name,
			  const char *revoked, const struct problem *p,
			  void *arg);

struct tokens *tokens_new(struct store *store);
void tokens_free(struct tokens *t);
/* Checks token; cb may run before this returns (a cached answer). */
void tokens_check(struct tokens *t, const char *token, tokens_cb cb, void *arg);
/* Forgets what was cached: a token was revoked (by this robotd or
 * another: NOTIFY ':tokens'), or the database was away. */
void tokens_forget(struct tokens *t);

#endif
