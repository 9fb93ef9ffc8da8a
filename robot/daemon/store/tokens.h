/*
 * tokens.h: the store's tokens: made before the loop (robotd token
 * create), looked up by their hash from it.
 */
#ifndef ROBOT_STORE_TOKENS_H
#define ROBOT_STORE_TOKENS_H

#include "robot/daemon/store.h"

/*
 * Makes a token of kind (submit, box, admin) for name and stores its
 * hash (blocking, before the loop), the database brought up first as
 * store_migrate does (a fresh one gets its tables).  Returns the token
 * (shown once; the caller frees it), or NULL with *err.
 */
char *store_token_create(const char *conninfo, const char *kind,
			 const char *name, char **err);

/* kind and name of a token, both NULL when the database has none. */
typedef void (*store_token_cb)(const char *kind, const char *name,
			       const struct problem *p, void *arg);
void store_token(struct store *s, const char *token, store_token_cb cb,
		 void *arg);

#endif
