/*
 * tokens.h: checking API tokens (DESIGN.md section 10).  Tokens are
 * stored hashed (sha256, computed by PostgreSQL); a token seen recently
 * is answered from memory, so a box's heartbeat costs no extra query.  A
 * revoked token stops working within TOKENS_TTL seconds.
 */
#ifndef ROBOT_TOKEN_H
#define ROBOT_TOKEN_H

#include <stdbool.h>

#include "robot/daemon/store.h"

#define TOKENS_TTL 60

struct tokens;

/*
 * kind is "submit", "box" or "admin" and name the token's name, or both
 * NULL for an unknown token; p says why the database could not say.
 */
typedef void (*tokens_cb)(const char *kind, const char *name,
			  const struct problem *p, void *arg);

struct tokens *tokens_new(struct store *store);
void tokens_free(struct tokens *t);
/* Checks token; cb may run before this returns (a cached answer). */
void tokens_check(struct tokens *t, const char *token, tokens_cb cb, void *arg);

#endif
