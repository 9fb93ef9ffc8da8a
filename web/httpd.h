/*
 * httpd.h: HTTP from the event loop.  The only file that includes
 * microhttpd.h: libmicrohttpd runs without threads of its own
 * (MHD_USE_EPOLL), driven by a libevent read event on its epoll fd and a
 * timer that follows MHD_get_timeout().
 *
 * A request is collected whole (its body up to the limit the path allows;
 * 413 beyond), then handed to the handler.  What cannot be a request of
 * ours is answered before any handler sees it: a URI over 8 KiB or with
 * more than 128 query arguments (414), NUL or control characters in the
 * path or in a header (400), HTTP/1.1 without Host (400).  Slow clients
 * cannot hold the server: one address has at most per_client
 * connections, and a request must arrive whole within request_timeout
 * seconds of its connection's start or of the previous request's end.  The handler answers at once
 * or later: until it answers, the connection is suspended, so a long-poll
 * or a database query costs no thread and no busy loop.  A request object
 * lives until its answer has been sent.
 */
#ifndef ROBOT_HTTPD_H
#define ROBOT_HTTPD_H

#include <stdbool.h>
#include <stddef.h>

#include <event2/event.h>
#include <jansson.h>

struct httpd;
struct http_req;

typedef void (*httpd_handler)(struct http_req *req, void *arg);
/* The largest body a request to method and path may carry. */
typedef size_t (*httpd_limit)(const char *method, const char *path);

struct httpd_options {
	const char *addr; /* "127.0.0.1" */
	int port;         /* 0: any free port */
	size_t max_connections;
	size_t per_client;        /* connections at once from one address */
	int request_timeout;      /* seconds a request may take to arrive */
	size_t connection_memory; /* bytes of buffer per connection */
	const char *tls_cert;     /* HTTPS with this chain (PEM), or NULL */
	const char *tls_key;      /* and its key (PEM) */
};

struct httpd *httpd_new(struct event_base *base,
			const struct httpd_options *opt, httpd_handler handler,
			httpd_limit limit, void *arg, char **err);
/* Reads the certificate's files again (a renewed certificate): the
 * handshakes after it get it; false with *err, the old one kept.  True
 * at once without TLS. */
bool httpd_tls_reload(struct httpd *h, char **err);
/* Whether it serves HTTPS. */
bool httpd_tls(const struct httpd *h);
/* Stops listening; requests in flight go on. */
void httpd_quiesce(struct httpd *h);
void httpd_free(struct httpd *h);
/* The port listened on. */
int httpd_port(const struct httpd *h);
/* Requests whose answer is not sent yet. */
size_t httpd_in_flight(const struct httpd *h);

const char *http_req_method(const struct http_req *req);
const char *http_req_path(const struct http_req *req);
const char *http_req_header(const struct http_req *req, const char *name);
/* A query argument, or NULL; repeated arguments: the nth (0-based). */
const char *http_req_arg(const struct http_req *req, const char *name,
			 size_t nth);
const char *http_req_body(const struct http_req *req, size_t *len);
/* The client's IPv4 address ("127.0.0.1"); "" once it hung up. */
const char *http_req_client(const struct http_req *req);
/* The last of a header's occurrences (where a proxy appends its own
 * after what the client sent), or NULL. */
const char *http_req_header_last(const struct http_req *req, const char *name);

/* Answers; the body is copied.  Once per request. */
void http_req_reply(struct http_req *req, int status, const char *content_type,
		    const char *body, size_t len);
/* Answers with JSON (j is consumed). */
void http_req_reply_json(struct http_req *req, int status, json_t *j);
/* 200 with body, cacheable with its ETag etag (a quoted string); 304
 * without it when the request's If-None-Match is etag. */
void http_req_reply_etag(struct http_req *req, const char *content_type,
			 const char *body, size_t len, const char *etag);
/* Answers {"error": error, "details": details or []} (details consumed). */
void http_req_reply_error(struct http_req *req, int status, const char *error,
			  json_t *details);
bool http_req_answered(const struct http_req *req);
/* A header of the answer just given (Set-Cookie, Location): after one
 * of the replies above; name and value are printable ASCII (checked:
 * else not added). */
void http_req_add_header(struct http_req *req, const char *name,
			 const char *value);

/*
 * Calls gone(req, arg) if the client hangs up before the answer (a box
 * that stopped while its long-poll waited): a suspended connection is
 * otherwise not watched.  After gone() returns, httpd answers the request
 * itself (nobody reads it); the handler must forget req.
 */
typedef void (*http_gone_cb)(struct http_req *req, void *arg);
void http_req_watch_gone(struct http_req *req, http_gone_cb gone, void *arg);

/* Per-request state of the handler (not freed by httpd). */
void http_req_set_data(struct http_req *req, const void *data);
const void *http_req_data(const struct http_req *req);

#endif
