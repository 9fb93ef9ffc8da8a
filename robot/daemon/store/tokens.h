/*
 * tokens.h: the store's credentials: tokens made before the loop
 * (robotd token create), looked up by their hash from it, listed and
 * revoked; a box's one-time enrollment code made before the loop
 * (robotd box enroll) and traded for its token from it
 * (sql/functions/tokens.sql).
 */
#ifndef ROBOT_STORE_TOKENS_H
#define ROBOT_STORE_TOKENS_H

#include "robot/daemon/store.h"

/* A new secret: prefix ("rbt_", "rbe_") and 48 random hex digits, in
 * out (STORE_SECRET_MAX bytes); false with *err when the kernel has no
 * randomness to give. */
#define STORE_SECRET_MAX 64
bool store_secret(char out[STORE_SECRET_MAX], const char *prefix, char **err)
	__attribute__((warn_unused_result));

/*
 * Makes a token of kind (submit, box, admin) for name and stores its
 * hash (blocking, before the loop), the database brought up first as
 * store_migrate does (a fresh one gets its tables).  Returns the token
 * (shown once; the caller frees it), or NULL with *err.
 */
char *store_token_create(const char *conninfo, const char *kind,
			 const char *name, const char *group, char **err);

/*
 * Makes box name's enrollment code, good for seconds, for group
 * (blocking, before the loop, the database brought up first).  Returns
 * the code (shown once; the caller frees it) and *expires (its time, as
 * PostgreSQL writes it; the caller frees it), or NULL with *err.
 */
char *store_enroll_code(const char *conninfo, const char *name,
			const char *group, int seconds, char **expires,
			char **err);

/* kind and name of a token, both NULL when the database has none;
 * revoked: when it was revoked ("2026-12-07 17:20 UTC"), else NULL. */
typedef void (*store_token_cb)(const char *kind, const char *name,
			       const char *revoked, const struct problem *p,
			       void *arg);
void store_token(struct store *s, const char *token, store_token_cb cb,
		 void *arg);

/* Every token, as robot_tokens() lists them (JSON text). */
void store_tokens(struct store *s, store_text_cb cb, void *arg);
/* Revokes token id, by whom: {id, kind, name, revoked}; 404 if none. */
void store_token_revoke(struct store *s, long long id, const char *by,
			store_text_cb cb, void *arg);
/* Trades an enrollment code for token (a box token, made by the
 * caller): {name, tbox_group}, or a 401 that says why not. */
void store_enroll(struct store *s, const char *code, const char *token,
		  store_text_cb cb, void *arg);

#endif
