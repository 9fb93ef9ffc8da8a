/*
 * crypto.c: tokens, hashes and signatures (crypto.h); the only file that
 * includes OpenSSL.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "reporters/crypto.h"
#include "robot/core/log.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

char *
crypto_signature(const char *key, const char *timestamp, const char *body,
		 size_t len)
{
	unsigned char mac[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	size_t tl = strlen(timestamp);
	unsigned char *msg = xmalloc(tl + 1 + len);
	char *out = xmalloc(7 + 2 * EVP_MAX_MD_SIZE + 1);

	memcpy(msg, timestamp, tl);
	msg[tl] = '.';
	memcpy(msg + tl + 1, body, len);
	HMAC(EVP_sha256(), key, (int)strlen(key), msg, tl + 1 + len, mac, &n);
	memcpy(out, "sha256=", 7);
	for (unsigned int i = 0; i < n; i++)
		snprintf(out + 7 + 2 * i, 3, "%02x", mac[i]);
	out[7 + 2 * n] = '\0';
	free(msg);
	return out;
}

static char *
hex(const unsigned char *p, size_t n)
{
	char *out = xmalloc(2 * n + 1);

	for (size_t i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", p[i]);
	out[2 * n] = '\0';
	return out;
}

char *
crypto_token(void)
{
	unsigned char r[32];
	size_t got = 0;

	while (got < sizeof r) {
		ssize_t n = getrandom(r + got, sizeof r - got, 0);

		if (n < 0)
			fatal("getrandom");
		got += (size_t)n;
	}
	return hex(r, sizeof r);
}

char *
crypto_sha256(const char *s)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	EVP_Digest(s, strlen(s), md, &n, EVP_sha256(), NULL);
	return hex(md, n);
}
