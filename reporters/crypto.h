/*
 * crypto.h: the reporters' tokens, hashes and webhook signatures.
 */
#ifndef ROBOT_CRYPTO_H
#define ROBOT_CRYPTO_H

#include <stddef.h>

/* A new random token: 64 hex digits from getrandom(2). */
char *crypto_token(void);
/* The sha256 of s, 64 hex digits. */
char *crypto_sha256(const char *s);
/* The webhook signature: "sha256=" and the hex HMAC-SHA256 with key over
 * "TIMESTAMP.BODY".  The caller frees it. */
char *crypto_signature(const char *key, const char *timestamp, const char *body,
		       size_t len);

#endif
