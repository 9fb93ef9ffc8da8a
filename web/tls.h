/*
 * tls.h: robotd's certificate for HTTPS (libmicrohttpd with GnuTLS):
 * its chain and key read from PEM files, handed to each handshake by
 * GnuTLS's certificate callback, so that a SIGHUP can read renewed files
 * without stopping the server: handshakes after it get the new
 * certificate, connections open keep theirs (leases' heartbeats,
 * long-polls).
 */
#ifndef ROBOT_WEB_TLS_H
#define ROBOT_WEB_TLS_H

#include <stdbool.h>

#include <gnutls/abstract.h>

/* Reads the chain in cert_path and the key in key_path, and makes them
 * the certificate of handshakes from now on.  False with *err (the
 * caller frees it), the certificate before kept. */
bool tls_load(const char *cert_path, const char *key_path, char **err);
/* GnuTLS's question, for MHD_OPTION_HTTPS_CERT_CALLBACK: the newest
 * certificate read. */
gnutls_certificate_retrieve_function2 tls_retrieve;
/* Frees every certificate read. */
void tls_free(void);

#endif
