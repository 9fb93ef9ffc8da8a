/*
 * httpd.c: libmicrohttpd on libevent.
 *
 * The access handler is called several times per request: first with the
 * headers, then with each piece of the body, then once more with nothing.
 * That last call dispatches; if the handler did not answer at once, the
 * connection is suspended (MHD_suspend_connection) until it does.  An
 * answer to a suspended connection resumes it and makes the loop run MHD
 * at once (event_active): waiting for the epoll fd stalls keep-alive
 * clients (../shared/MACHINE.md).
 *
 * A request is a state machine:
 *
 *   RECEIVING --(body over the limit)--> DISCARDING
 *   RECEIVING --(end of body)----------> DISPATCHING (the handler runs)
 *   DISCARDING --(end of body)---------> ANSWERED (413)
 *   DISCARDING --(over the discard cap)-> ANSWERED (413 at once)
 *
 * A body over its limit is read and dropped to its end, so that the 413
 * reaches the client (answering mid-upload and closing makes TCP reset
 * the connection, and the answer is lost); past HTTP_DISCARD_MAX the
 * client gets its 413 at once, and the connection closes.
 *   DISPATCHING --(answered at once)---> ANSWERED
 *   DISPATCHING --(no answer yet)------> SUSPENDED
 *   SUSPENDED --(answer; resumed)------> ANSWERED
 *   ANSWERED --(queued to MHD)---------> SENT
 *
 * MHD frees nothing of ours: on_completed() frees the request, after the
 * loop iteration in which MHD says the connection is done with it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "robot/core/buf.h"
#include "robot/core/fsm.h"
#include "robot/core/log.h"
#include "robot/core/protocol.h"
#include "robot/core/rjson.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/defer.h"
#include "web/httpd.h"
#include "web/tls.h"
#include "web/uri.h"
#include "robot/core/banned.h"

struct http_arg {
	char *name;
	char *value;
};

enum http_req_state {
	HTTP_REQ_RECEIVING,   /* headers and body coming in */
	HTTP_REQ_DISCARDING,  /* the body is over the limit: dropped */
	HTTP_REQ_DISPATCHING, /* the handler runs */
	HTTP_REQ_SUSPENDED,   /* waiting for the handler's answer */
	HTTP_REQ_ANSWERED,    /* the answer is made, not yet queued */
	HTTP_REQ_SENT,        /* queued to MHD */
};
static const char *const http_req_states[] = {
	[HTTP_REQ_RECEIVING] = "receiving",
	[HTTP_REQ_DISCARDING] = "discarding",
	[HTTP_REQ_DISPATCHING] = "dispatching",
	[HTTP_REQ_SUSPENDED] = "suspended",
	[HTTP_REQ_ANSWERED] = "answered",
	[HTTP_REQ_SENT] = "sent",
};
static const struct fsm http_req_fsm =
	FSM("request", http_req_states, HTTP_REQ_SENT);

/* A client connection, watched for requests that come too slowly. */
/* The seconds a connection has to send a request's headers (at most
 * request_timeout, which its body has): a browser sends them at once. */
#define HTTPD_HEADER_TIMEOUT 10
/* libmicrohttpd's own cap is this far above max_connections, which
 * robotd keeps by closing the oldest connections that have sent no
 * headers (httpd_evict()): at its cap libmicrohttpd stops accepting, and
 * then did not start again until a connection timed out. */
#define HTTPD_CAP_ROOM 64

struct http_conn {
	struct httpd *h;
	int fd;
	double since;         /* its start, or its last request's end */
	struct http_req *req; /* the request in flight, or NULL */
	char addr[64];        /* for logs */
	bool closing;         /* shut down by robotd, not yet gone */
	TAILQ_ENTRY(http_conn) entry;
};

TAILQ_HEAD(http_conn_list, http_conn);

struct http_req {
	struct httpd *h;
	struct MHD_Connection *conn;
	struct http_conn *c; /* its connection (NULL once it closed) */
	enum http_req_state state;
	int reject;          /* a status to answer at once, or 0 */
	const char *raw_uri; /* MHD's URI as on_uri() saw it, and its */
	size_t raw_len;      /* length then (before MHD unescapes it) */
	char *reject_why;
	char *method;
	char *path;
	struct http_arg *args;
	size_t nargs;
	struct buf body;
	size_t limit;
	unsigned long long received; /* the body's bytes so far */
	bool drop_now; /* DISCARDING: too many to drop; answer now */
	/* the answer, until queued */
	struct MHD_Response *resp;
	int status;
	const void *data;
	/* hang-up watch while suspended */
	http_gone_cb gone;
	void *gone_arg;
	struct event *watch;
};

struct httpd {
	struct event_base *base;
	struct MHD_Daemon *mhd;
	struct event *ev;    /* the epoll fd */
	struct event *timer; /* MHD's timeouts */
	httpd_handler handler;
	httpd_limit limit;
	void *arg;
	int port;
	size_t in_flight;
	struct defer_list *later;    /* completed requests, to be freed */
	struct http_conn_list conns; /* open client connections, oldest
				      * first */
	size_t nconns;
	size_t max_connections;
	unsigned long evicted; /* closed at the cap, since the last sweep */
	struct event *sweep;   /* once a second: slow requests */
	int request_timeout;
	int header_timeout;
	char *tls_cert, *tls_key; /* NULL: plain HTTP */
};

static void httpd_run(struct httpd *h);
static void http_req_watch_start(struct http_req *req);

static void
http_req_set_state(struct http_req *req, enum http_req_state s)
{
	/* (before its method and path are read, its URI as it came) */
	FSM_SET(&http_req_fsm, req->state, s, "%s %s",
		req->method != NULL ? req->method : "request",
		req->path != NULL ? req->path : req->raw_uri);
}

static enum MHD_Result
collect_arg(void *cls, enum MHD_ValueKind kind, const char *key,
	    const char *value)
{
	struct http_req *req = cls;

	(void)kind;
	req->args = xreallocarray(req->args, req->nargs + 1, sizeof *req->args);
	req->args[req->nargs].name = xstrdup(key);
	req->args[req->nargs].value = xstrdup(value ? value : "");
	req->nargs++;
	return MHD_YES;
}

static struct MHD_Response *
make_response(int status, const char *type, const char *body, size_t len)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
		len, (void *)body, MHD_RESPMEM_MUST_COPY);

	(void)status;
	MHD_add_response_header(r, "Content-Type", type);
	MHD_add_response_header(r, "Cache-Control", "no-store");
	/* Pages run no script, and nothing of ours is framed or sniffed. */
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(r, "Content-Security-Policy",
				"default-src 'none'; style-src 'self'; "
				"img-src 'self'; form-action 'self'; "
				"frame-ancestors 'none'; base-uri 'none'");
	return r;
}

/* Hands the answer to libmicrohttpd. */
static enum MHD_Result
http_req_queue(struct http_req *req)
{
	enum MHD_Result ret =
		MHD_queue_response(req->conn, (unsigned)req->status, req->resp);

	MHD_destroy_response(req->resp);
	req->resp = NULL;
	http_req_set_state(req, HTTP_REQ_SENT);
	return ret;
}

static double
now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The most bytes dropped from a body over its limit before answering. */
#define HTTP_DISCARD_MAX (8u << 20)
/* More than a request line can be (MHD reads it into the connection's
 * memory, at most a few hundred KiB). */
#define HTTP_LINE_MAX (1u << 20)

/*
 * Answers a request that cannot be one of ours straight into its socket
 * and closes it: MHD would store every query argument in the
 * connection's few KiB first, and then have no room left to answer.
 */
static void
http_conn_refuse(struct MHD_Connection *conn, int status, const char *why)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(
		conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	char body[256], msg[512];
	int n;

	if (ci == NULL)
		return;
	/* why is ours: no quote or backslash to escape. */
	snprintf(body, sizeof body, "{\"error\": \"%s\", \"details\": []}",
		 why);
	n = snprintf(msg, sizeof msg,
		     "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\n"
		     "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
		     status, status == 414 ? "URI Too Long" : "Bad Request",
		     strlen(body), body);
	if (send(ci->connect_fd, msg, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT) <
	    0)
		log_debug("cannot answer a refused request: %s",
			  strerror(errno));
	shutdown(ci->connect_fd, SHUT_RDWR);
}

/*
 * MHD's URI callback: the request begins (its request line is in).  The
 * request object made here is MHD's con_cls for the rest of it.
 */
static void *
on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
	struct httpd *h = cls;
	struct http_req *req = xcalloc(1, sizeof *req);
	const union MHD_ConnectionInfo *ci;
	char *why;
	int status;

	req->h = h;
	req->conn = conn;
	req->raw_uri = uri;
	req->raw_len = strlen(uri);
	http_req_set_state(req, HTTP_REQ_RECEIVING);
	buf_init(&req->body);
	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	if (ci != NULL && ci->socket_context != NULL) {
		req->c = ci->socket_context;
		req->c->req = req;
	}
	h->in_flight++;
	status = uri_check(uri, &why);
	if (status == 414) {
		http_conn_refuse(conn, status, why);
		http_req_set_state(req, HTTP_REQ_SENT);
		free(why);
	} else if (status != 0) {
		req->reject = status;
		req->reject_why = why;
	}
	return req;
}

/* Whether a header is fit to read: no NUL, no control character, and
 * no second Content-Length that says otherwise (a proxy that reads the
 * other one would see another request: smuggling). */
static enum MHD_Result
check_header(void *cls, enum MHD_ValueKind kind, const char *key,
	     size_t key_size, const char *value, size_t value_size)
{
	struct http_req *req = cls;
	const char *first;

	(void)kind;
	if (strcasecmp(key, "Content-Length") == 0 && value != NULL &&
	    (first = MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND,
						 "Content-Length")) != NULL &&
	    strcmp(first, value) != 0) {
		req->reject = 400;
		req->reject_why =
			xstrdup("two Content-Length headers that differ");
		return MHD_NO;
	}
	if (strlen(key) != key_size ||
	    (value != NULL && strlen(value) != value_size)) {
		req->reject = 400;
		req->reject_why = xstrdup("a header holds a NUL");
		return MHD_NO;
	}
	for (size_t i = 0; value != NULL && i < value_size; i++) {
		unsigned char c = (unsigned char)value[i];

		if ((c < 0x20 && c != '\t') || c == 0x7f) {
			req->reject = 400;
			req->reject_why =
				xstrdup("a header holds a control character");
			return MHD_NO;
		}
	}
	return MHD_YES;
}

/*
 * Whether the request line held a NUL inside its URI ("GET /a\0/b
 * HTTP/1.1"): MHD's strings end at it, so the path robotd would serve
 * is not the one sent.  MHD hands out the URI and the version as
 * pointers into the one line it read, the version just after the URI
 * (the space between made a NUL); anything but spaces and NULs between
 * the URI's end, as on_uri() saw it, and the version followed a NUL.
 * Said only while MHD's URI is where on_uri() saw it.
 */
static bool
nul_in_line(const struct http_req *req, const char *url, const char *version)
{
	const char *end = req->raw_uri + req->raw_len;

	if (url != req->raw_uri || version == NULL || version <= end ||
	    version > end + HTTP_LINE_MAX)
		return false;
	for (const char *p = end; p < version; p++)
		if (*p != '\0' && *p != ' ')
			return true;
	return false;
}

/* The headers are in: method, path, arguments and the body's limit. */
static void
http_req_start(struct http_req *req, const char *url, const char *method)
{
	struct httpd *h = req->h;
	const char *cl;

	req->method = xstrdup(method);
	req->path = xstrdup(url);
	req->limit = h->limit ? h->limit(method, url) : 65536;
	if (req->reject == 0)
		MHD_get_connection_values_n(req->conn, MHD_HEADER_KIND,
					    check_header, req);
	for (const char *p = url; req->reject == 0 && *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			req->reject = 400;
			req->reject_why =
				xstrdup("the path holds a control character");
		}
	MHD_get_connection_values(req->conn, MHD_GET_ARGUMENT_KIND, collect_arg,
				  req);
	cl = MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND,
					 "Content-Length");
	if (cl != NULL && strtoull(cl, NULL, 10) > req->limit) {
		http_req_set_state(req, HTTP_REQ_DISCARDING);
		/* Too much to drop: answer now. */
		req->drop_now =
			strtoull(cl, NULL, 10) > req->limit + HTTP_DISCARD_MAX;
	}
}

/* The end of the request: the handler's turn (or 413, or a refusal). */
static void
http_req_dispatch(struct http_req *req)
{
	if (req->reject != 0) {
		http_req_set_state(req, HTTP_REQ_DISPATCHING);
		http_req_reply_error(req, req->reject, req->reject_why, NULL);
		return;
	}
	if (req->state == HTTP_REQ_DISCARDING) {
		char *msg = xasprintf("the body is larger than %zu bytes, the "
				      "limit of %s",
				      req->limit, req->path);

		http_req_reply_error(req, 413, msg, NULL);
		free(msg);
		return;
	}
	http_req_set_state(req, HTTP_REQ_DISPATCHING);
	req->h->handler(req, req->h->arg);
}

static enum MHD_Result
on_access(void *cls, struct MHD_Connection *conn, const char *url,
	  const char *method, const char *version, const char *upload_data,
	  size_t *upload_data_size, void **con_cls)
{
	struct httpd *h = cls;
	struct http_req *req = *con_cls;

	(void)h;
	if (req == NULL)
		return MHD_NO; /* on_uri() makes every request */
	if (req->method == NULL) {
		if (req->reject == 0 && nul_in_line(req, url, version)) {
			req->reject = 400;
			req->reject_why =
				xstrdup("the request line holds a NUL");
		}
		http_req_start(req, url, method);
		if (req->reject == 0 &&
		    (req->state == HTTP_REQ_RECEIVING ||
		     (req->state == HTTP_REQ_DISCARDING && !req->drop_now)))
			return MHD_YES;
	}
	switch (req->state) {
	case HTTP_REQ_RECEIVING:
	case HTTP_REQ_DISCARDING:
		if (*upload_data_size > 0) {
			req->received += *upload_data_size;
			if (req->state == HTTP_REQ_DISCARDING ||
			    req->received > req->limit) {
				if (req->body.cap > 64) {
					buf_release(&req->body);
					buf_init(&req->body);
				}
				http_req_set_state(req, HTTP_REQ_DISCARDING);
				req->drop_now = req->received >
						req->limit + HTTP_DISCARD_MAX;
			} else
				buf_add(&req->body, upload_data,
					*upload_data_size);
			*upload_data_size = 0;
			if (!req->drop_now)
				return MHD_YES;
		}
		http_req_dispatch(req);
		if (req->state == HTTP_REQ_ANSWERED)
			return http_req_queue(req);
		MHD_suspend_connection(conn);
		http_req_set_state(req, HTTP_REQ_SUSPENDED);
		http_req_watch_start(req);
		return MHD_YES;
	case HTTP_REQ_ANSWERED:
		return http_req_queue(req); /* a suspended request's answer */
	case HTTP_REQ_SENT:
		return MHD_NO; /* refused in on_uri(): close */
	case HTTP_REQ_DISPATCHING:
	case HTTP_REQ_SUSPENDED:
		break;
	}
	return MHD_YES;
}

static void
http_req_free(void *arg)
{
	struct http_req *req = arg;

	if (req->resp != NULL)
		MHD_destroy_response(req->resp);
	if (req->watch != NULL)
		event_free(req->watch);
	for (size_t i = 0; i < req->nargs; i++) {
		free(req->args[i].name);
		free(req->args[i].value);
	}
	free(req->args);
	buf_release(&req->body);
	free(req->reject_why);
	free(req->method);
	free(req->path);
	free(req);
}

/* MHD is done with the connection's request: it is freed after this
 * loop iteration. */
static void
on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
	     enum MHD_RequestTerminationCode toe)
{
	struct httpd *h = cls;
	struct http_req *req = *con_cls;

	(void)conn;
	(void)toe;
	if (req == NULL)
		return;
	if (req->c != NULL) {
		req->c->req = NULL;
		req->c->since = now_mono();
	}
	if (req->watch != NULL)
		event_del(req->watch);
	req->conn = NULL;
	defer_add(h->later, http_req_free, req);
	*con_cls = NULL;
	h->in_flight--;
}

/* MHD's connection callback: a client connects or goes. */
/* A connection closed by robotd (once): shut down, for libmicrohttpd to
 * see it gone and free its slot. */
static void
http_conn_close(struct http_conn *c)
{
	shutdown(c->fd, SHUT_RDWR);
	c->closing = true;
}

/*
 * At the connection cap: the oldest connection that has not sent a
 * request's headers (a slowloris, or an idle keep-alive) is closed, so
 * that libmicrohttpd accepts the next one; without it, connections that
 * send nothing held every slot until their deadline (issue 28).  A
 * connection whose request is in is never closed for room.
 */
static void
httpd_evict(struct httpd *h, struct http_conn *newest)
{
	struct http_conn *c;

	TAILQ_FOREACH(c, &h->conns, entry)
	{
		if (c == newest)
			break;
		if (c->req == NULL && !c->closing && c->fd != -1) {
			http_conn_close(c);
			h->evicted++;
			/* libmicrohttpd sees it closed at its next run */
			event_active(h->ev, EV_READ, 0);
			return;
		}
	}
}

static void
on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
	      enum MHD_ConnectionNotificationCode code)
{
	struct httpd *h = cls;
	struct http_conn *c = *socket_context;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci;

		c = xcalloc(1, sizeof *c);
		c->h = h;
		c->fd = -1;
		c->since = now_mono();
		ci = MHD_get_connection_info(conn,
					     MHD_CONNECTION_INFO_CONNECTION_FD);
		if (ci != NULL)
			c->fd = ci->connect_fd;
		ci = MHD_get_connection_info(
			conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
		if (ci != NULL && ci->client_addr->sa_family == AF_INET)
			inet_ntop(AF_INET,
				  &((const struct sockaddr_in *)ci->client_addr)
					   ->sin_addr,
				  c->addr, sizeof c->addr);
		TAILQ_INSERT_TAIL(&h->conns, c, entry);
		*socket_context = c;
		/* near the cap, not at it: libmicrohttpd stops accepting at
		 * its cap, and may count a closing connection there still */
		if (++h->nconns >= h->max_connections)
			httpd_evict(h, c);
		return;
	}
	if (c == NULL)
		return;
	if (c->req != NULL)
		c->req->c = NULL;
	h->nconns--;
	TAILQ_REMOVE(&h->conns, c, entry);
	free(c);
	*socket_context = NULL;
}

/* Once a second: a connection whose request's headers have not arrived
 * within header_timeout, or whose body has not within request_timeout
 * and came slower than ROBOT_MIN_BODY_RATE on average, is closed (a
 * client sending a byte a second); a slow but live upload finishes. */
static void
httpd_on_sweep(evutil_socket_t fd, short what, void *arg)
{
	struct httpd *h = arg;
	double now = now_mono();
	struct http_conn *c;

	(void)fd;
	(void)what;
	if (h->evicted > 0) {
		log_warnx("at the connection cap (%zu): closed %lu connections "
			  "that had sent no headers",
			  h->max_connections, h->evicted);
		h->evicted = 0;
	}
	TAILQ_FOREACH(c, &h->conns, entry)
	{
		bool waiting = c->req == NULL ||
			       c->req->state == HTTP_REQ_RECEIVING ||
			       c->req->state == HTTP_REQ_DISCARDING;
		int limit =
			c->req == NULL ? h->header_timeout : h->request_timeout;

		if (!waiting || c->fd == -1 || c->closing ||
		    now - c->since < limit)
			continue;
		if (c->req != NULL &&
		    (double)c->req->received >=
			    ROBOT_MIN_BODY_RATE * (now - c->since))
			continue;
		log_warnx("closing a connection from %s: no whole request "
			  "within %d s",
			  c->addr[0] ? c->addr : "?", limit);
		http_conn_close(c);
	}
	httpd_run(h);
}

static void
httpd_on_event(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	httpd_run(arg);
}

static void
httpd_run(struct httpd *h)
{
	MHD_UNSIGNED_LONG_LONG ms;

	MHD_run(h->mhd);
	if (MHD_get_timeout(h->mhd, &ms) == MHD_YES) {
		struct timeval tv = {(long)(ms / 1000),
				     (long)(ms % 1000) * 1000};

		evtimer_add(h->timer, &tv);
	}
}

struct httpd *
httpd_new(struct event_base *base, const struct httpd_options *opt,
	  httpd_handler handler, httpd_limit limit, void *arg, char **err)
{
	struct httpd *h = xcalloc(1, sizeof *h);
	struct sockaddr_in sa;
	const union MHD_DaemonInfo *info;
	struct MHD_OptionItem tls_opts[3] = {
		{MHD_OPTION_END, 0, NULL},
		{MHD_OPTION_END, 0, NULL},
		{MHD_OPTION_END, 0, NULL},
	};

	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)opt->port);
	if (inet_pton(AF_INET, opt->addr, &sa.sin_addr) != 1) {
		*err = xasprintf("'%s' is not an IPv4 address", opt->addr);
		free(h);
		return NULL;
	}
	h->base = base;
	h->handler = handler;
	h->limit = limit;
	h->arg = arg;
	h->request_timeout =
		opt->request_timeout > 0 ? opt->request_timeout : 30;
	h->header_timeout = h->request_timeout < HTTPD_HEADER_TIMEOUT
				    ? h->request_timeout
				    : HTTPD_HEADER_TIMEOUT;
	h->max_connections = (size_t)opt->max_connections;
	TAILQ_INIT(&h->conns);
	if (opt->tls_cert != NULL) {
		if (!MHD_is_feature_supported(MHD_FEATURE_TLS)) {
			*err = xstrdup("this libmicrohttpd has no TLS: robotd "
				       "cannot serve HTTPS");
			free(h);
			return NULL;
		}
		if (!tls_load(opt->tls_cert, opt->tls_key, err)) {
			free(h);
			return NULL;
		}
		h->tls_cert = xstrdup(opt->tls_cert);
		h->tls_key = xstrdup(opt->tls_key);
		tls_opts[0] =
			(struct MHD_OptionItem){MHD_OPTION_HTTPS_CERT_CALLBACK,
						0, (void *)tls_retrieve};
		/* TLS 1.2 and 1.3 only */
		tls_opts[1] = (struct MHD_OptionItem){
			MHD_OPTION_HTTPS_PRIORITIES, 0,
			"NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"};
	}
	h->mhd = MHD_start_daemon(
		MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME |
			(h->tls_cert != NULL ? MHD_USE_TLS : 0),
		(uint16_t)opt->port, NULL, NULL, on_access, h, MHD_OPTION_ARRAY,
		tls_opts, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
		MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
		MHD_OPTION_URI_LOG_CALLBACK, on_uri, h,
		MHD_OPTION_CONNECTION_LIMIT,
		(unsigned int)opt->max_connections + HTTPD_CAP_ROOM,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT,
		(unsigned int)opt->per_client,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, opt->connection_memory,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)120,
		MHD_OPTION_STRICT_FOR_CLIENT, (int)1,
		MHD_OPTION_LISTENING_ADDRESS_REUSE, (unsigned int)1,
		MHD_OPTION_END);
	if (h->mhd == NULL) {
		*err = xasprintf("cannot listen on %s:%d (in use?)", opt->addr,
				 opt->port);
		free(h->tls_cert);
		free(h->tls_key);
		free(h);
		return NULL;
	}
	info = MHD_get_daemon_info(h->mhd, MHD_DAEMON_INFO_EPOLL_FD);
	h->ev = event_new(base, info->epoll_fd, EV_READ | EV_PERSIST,
			  httpd_on_event, h);
	h->timer = evtimer_new(base, httpd_on_event, h);
	h->later = defer_list_new(base);
	h->sweep = event_new(base, -1, EV_PERSIST, httpd_on_sweep, h);
	event_add(h->ev, NULL);
	{
		struct timeval tv = {1, 0};

		event_add(h->sweep, &tv);
	}
	info = MHD_get_daemon_info(h->mhd, MHD_DAEMON_INFO_BIND_PORT);
	h->port = info ? info->port : opt->port;
	httpd_run(h);
	return h;
}

bool
httpd_tls_reload(struct httpd *h, char **err)
{
	return h->tls_cert == NULL || tls_load(h->tls_cert, h->tls_key, err);
}

bool
httpd_tls(const struct httpd *h)
{
	return h->tls_cert != NULL;
}

void
httpd_quiesce(struct httpd *h)
{
	MHD_socket s = MHD_quiesce_daemon(h->mhd);

	if (s != MHD_INVALID_SOCKET)
		close(s);
}

void
httpd_free(struct httpd *h)
{
	if (h == NULL)
		return;
	MHD_stop_daemon(h->mhd);
	defer_list_free(h->later);
	event_free(h->ev);
	event_free(h->timer);
	event_free(h->sweep);
	if (h->tls_cert != NULL)
		tls_free();
	free(h->tls_cert);
	free(h->tls_key);
	free(h);
}

int
httpd_port(const struct httpd *h)
{
	return h->port;
}

size_t
httpd_in_flight(const struct httpd *h)
{
	return h->in_flight;
}

const char *
http_req_method(const struct http_req *req)
{
	return req->method;
}

const char *
http_req_path(const struct http_req *req)
{
	return req->path;
}

const char *
http_req_header(const struct http_req *req, const char *name)
{
	return MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND, name);
}

/* A header's last occurrence (http_req_header_last()). */
struct header_last {
	const char *name;
	const char *value;
};

static enum MHD_Result
on_header_last(void *arg, enum MHD_ValueKind kind, const char *key,
	       const char *value)
{
	struct header_last *h = arg;

	(void)kind;
	if (key != NULL && strcasecmp(key, h->name) == 0)
		h->value = value;
	return MHD_YES;
}

const char *
http_req_header_last(const struct http_req *req, const char *name)
{
	struct header_last h = {name, NULL};

	MHD_get_connection_values(req->conn, MHD_HEADER_KIND, on_header_last,
				  &h);
	return h.value;
}

const char *
http_req_arg(const struct http_req *req, const char *name, size_t nth)
{
	for (size_t i = 0; i < req->nargs; i++)
		if (strcmp(req->args[i].name, name) == 0 && nth-- == 0)
			return req->args[i].value;
	return NULL;
}

const char *
http_req_body(const struct http_req *req, size_t *len)
{
	*len = req->body.len;
	return req->body.data;
}

const char *
http_req_client(const struct http_req *req)
{
	return req->c != NULL ? req->c->addr : "";
}

/* The watch is one-shot: once it fired it is not added again (it is
 * freed with the request). */
static void
http_req_on_watch(evutil_socket_t fd, short what, void *arg)
{
	struct http_req *req = arg;
	char c;
	ssize_t n = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);

	(void)what;
	if (n > 0 || (n == -1 && (errno == EAGAIN || errno == EINTR)))
		return; /* data, not a hang-up: stop watching */
	if (req->gone != NULL) {
		http_gone_cb gone = req->gone;

		req->gone = NULL;
		gone(req, req->gone_arg);
	}
	if (req->state == HTTP_REQ_SUSPENDED)
		http_req_reply(req, 503, "application/json", "", 0);
}

static void
http_req_watch_start(struct http_req *req)
{
	const union MHD_ConnectionInfo *ci;

	if (req->gone == NULL || req->state != HTTP_REQ_SUSPENDED ||
	    req->watch != NULL)
		return;
	ci = MHD_get_connection_info(req->conn,
				     MHD_CONNECTION_INFO_CONNECTION_FD);
	if (ci == NULL)
		return;
	req->watch = event_new(req->h->base, ci->connect_fd, EV_READ,
			       http_req_on_watch, req);
	event_add(req->watch, NULL);
}

void
http_req_watch_gone(struct http_req *req, http_gone_cb gone, void *arg)
{
	req->gone = gone;
	req->gone_arg = arg;
	http_req_watch_start(req);
}

void
http_req_reply(struct http_req *req, int status, const char *content_type,
	       const char *body, size_t len)
{
	bool suspended = req->state == HTTP_REQ_SUSPENDED;

	if (req->state != HTTP_REQ_DISPATCHING && !suspended &&
	    req->state != HTTP_REQ_DISCARDING)
		return; /* answered already */
	if (req->watch != NULL)
		event_del(req->watch);
	req->gone = NULL;
	req->resp = make_response(status, content_type, body, len);
	req->status = status;
	http_req_set_state(req, HTTP_REQ_ANSWERED);
	if (suspended) {
		MHD_resume_connection(req->conn);
		event_active(req->h->ev, EV_READ, 0);
	}
}

void
http_req_reply_etag(struct http_req *req, const char *content_type,
		    const char *body, size_t len, const char *etag)
{
	const char *inm = http_req_header(req, "If-None-Match");
	bool same = inm != NULL && strcmp(inm, etag) == 0;

	http_req_reply(req, same ? 304 : 200, content_type, same ? "" : body,
		       same ? 0 : len);
	if (req->resp == NULL)
		return;
	/* Final data: the browser keeps it and asks whether it changed. */
	MHD_del_response_header(req->resp, "Cache-Control", "no-store");
	MHD_add_response_header(req->resp, "Cache-Control",
				"public, max-age=60");
	MHD_add_response_header(req->resp, "ETag", etag);
}

void
http_req_add_header(struct http_req *req, const char *name, const char *value)
{
	for (const char *p = value; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			return;
	if (req->resp != NULL)
		MHD_add_response_header(req->resp, name, value);
}

void
http_req_reply_json(struct http_req *req, int status, json_t *j)
{
	char *s = rjson_dumps(j, JSON_COMPACT);

	json_decref(j);
	http_req_reply(req, status, "application/json", s, strlen(s));
	free(s);
}

void
http_req_reply_error(struct http_req *req, int status, const char *error,
		     json_t *details)
{
	json_t *j = json_object();

	json_object_set_new(j, "error",
			    rjson_string_lossy(error, strlen(error)));
	json_object_set_new(j, "details", details ? details : json_array());
	http_req_reply_json(req, status, j);
}

bool
http_req_answered(const struct http_req *req)
{
	return req->state == HTTP_REQ_ANSWERED || req->state == HTTP_REQ_SENT;
}

void
http_req_set_data(struct http_req *req, const void *data)
{
	req->data = data;
}

const void *
http_req_data(const struct http_req *req)
{
	return req->data;
}
