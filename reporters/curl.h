/*
 * curl.h: libcurl's multi interface on the libevent loop, for mail
 * (SMTP, optionally with STARTTLS and a login) and webhooks (HTTP POST).
 * The only file that includes curl's multi API; the loop never blocks:
 * curl tells which sockets to watch and when to time out, and each
 * transfer ends with its callback, from the loop.
 */
#ifndef ROBOT_CURL_H
#define ROBOT_CURL_H

#include <stdbool.h>
#include <stddef.h>

#include <event2/event.h>

struct curlm;

/* What one transfer sends. */
struct curlm_request {
	const char *url; /* smtp://, smtps://, http://, https:// */
	/* SMTP */
	const char *mail_from;
	const char *rcpt;
	const char *user, *password; /* NULL: no login */
	bool starttls;               /* STARTTLS required */
	/* HTTP */
	const char *const *headers; /* "Name: value", NULL-ended, or NULL */
	/* the message, or the POST body */
	const char *body;
	size_t len;
	int timeout; /* seconds the whole transfer may take */
};

/*
 * How a transfer ended: code is the server's last answer (an SMTP reply
 * code, or an HTTP status; 0 when none came), error what went wrong
 * (NULL when the server took it: a 2xx).  Borrowed for the call.
 */
typedef void (*curlm_cb)(long code, const char *error, void *arg);

struct curlm *curlm_new(struct event_base *base);
/* Ends every transfer (their callbacks never run). */
void curlm_free(struct curlm *m);
/* Starts a transfer (the request is copied); cb runs once, from the
 * loop, never inside curlm_send(). */
void curlm_send(struct curlm *m, const struct curlm_request *rq, curlm_cb cb,
		void *arg);
/* Transfers under way. */
size_t curlm_running(const struct curlm *m);

#endif
