/*
 * tls.c: robotd's certificate (tls.h).
 */
#include <stdlib.h>
#include <string.h>

#include <gnutls/abstract.h>
#include <gnutls/gnutls.h>

#include "robot/core/xmalloc.h"
#include "web/tls.h"
#include "robot/core/banned.h"

#define TLS_CHAIN_MAX 8

/* A chain and its key, as read. */
struct tls_cred {
	gnutls_pcert_st chain[TLS_CHAIN_MAX];
	unsigned nchain;
	gnutls_privkey_t key;
	struct tls_cred *older; /* kept to the end: a handshake begun with
				   one may still hold it */
};

static struct tls_cred *current;

int
tls_retrieve(gnutls_session_t session, const gnutls_datum_t *req_ca_rdn,
	     int nreqs, const gnutls_pk_algorithm_t *pk_algos,
	     int pk_algos_length, gnutls_pcert_st **pcert,
	     unsigned int *pcert_length, gnutls_privkey_t *pkey)
{
	(void)session;
	(void)req_ca_rdn;
	(void)nreqs;
	(void)pk_algos;
	(void)pk_algos_length;
	if (current == NULL)
		return -1;
	*pcert = current->chain;
	*pcert_length = current->nchain;
	*pkey = current->key;
	return 0;
}

static void
cred_free(struct tls_cred *c)
{
	for (unsigned i = 0; i < c->nchain; i++)
		gnutls_pcert_deinit(&c->chain[i]);
	if (c->key != NULL)
		gnutls_privkey_deinit(c->key);
	free(c);
}

bool
tls_load(const char *cert_path, const char *key_path, char **err)
{
	struct tls_cred *c = xcalloc(1, sizeof *c);
	gnutls_datum_t key = {NULL, 0};
	int rc;

	c->nchain = TLS_CHAIN_MAX;
	rc = gnutls_pcert_list_import_x509_file(c->chain, &c->nchain, cert_path,
						GNUTLS_X509_FMT_PEM, NULL, NULL,
						0);
	if (rc < 0) {
		c->nchain = 0;
		*err = xasprintf("cannot read the certificate '%s': %s",
				 cert_path, gnutls_strerror(rc));
		goto fail;
	}
	if ((rc = gnutls_load_file(key_path, &key)) < 0) {
		*err = xasprintf("cannot read the key '%s': %s", key_path,
				 gnutls_strerror(rc));
		goto fail;
	}
	if ((rc = gnutls_privkey_init(&c->key)) < 0 ||
	    (rc = gnutls_privkey_import_x509_raw(
		     c->key, &key, GNUTLS_X509_FMT_PEM, NULL, 0)) < 0) {
		*err = xasprintf("cannot read the key '%s': %s", key_path,
				 gnutls_strerror(rc));
		goto fail;
	}
	gnutls_free(key.data);
	key.data = NULL;
	/* (does the key fit the certificate?) */
	{
		gnutls_pubkey_t pub = c->chain[0].pubkey;
		unsigned char a[64], b[64];
		size_t na = sizeof a, nb = sizeof b;
		gnutls_pubkey_t kp = NULL;

		if (gnutls_pubkey_init(&kp) < 0 ||
		    gnutls_pubkey_import_privkey(kp, c->key, 0, 0) < 0 ||
		    gnutls_pubkey_get_key_id(kp, 0, a, &na) < 0 ||
		    gnutls_pubkey_get_key_id(pub, 0, b, &nb) < 0 || na != nb ||
		    memcmp(a, b, na) != 0) {
			if (kp != NULL)
				gnutls_pubkey_deinit(kp);
			*err = xasprintf("the key '%s' is not the "
					 "certificate '%s''s",
					 key_path, cert_path);
			goto fail;
		}
		gnutls_pubkey_deinit(kp);
	}
	c->older = current;
	current = c;
	return true;
fail:
	gnutls_free(key.data);
	cred_free(c);
	return false;
}

void
tls_free(void)
{
	while (current != NULL) {
		struct tls_cred *o = current->older;

		cred_free(current);
		current = o;
	}
}
