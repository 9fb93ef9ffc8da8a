/*
 * curl.c: libcurl's multi interface driven by libevent (curl.h).
 *
 * curl asks, through the socket callback, for an event on each of its
 * sockets (read, write, both, or none: removed), and, through the timer
 * callback, for one timeout; each event calls curl_multi_socket_action()
 * and then reads which transfers ended.  A transfer is a small state
 * machine: RUNNING (in curl's hands) --> DONE (its callback ran; freed
 * after the loop iteration).
 */
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "reporters/curl.h"
#include "robot/core/fsm.h"
#include "robot/core/log.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/defer.h"
#include "robot/daemon/drain.h"
#include "robot/core/banned.h"

struct curlm {
	struct event_base *base;
	CURLM *multi;
	struct event *timer;
	size_t running;
	struct transfer *list; /* every transfer under way */
	struct sock *socks;    /* the sockets curl watches */
};

enum transfer_state {
	TRANSFER_RUNNING,
	TRANSFER_DONE,
};
static const char *const transfer_states[] = {
	[TRANSFER_RUNNING] = "running",
	[TRANSFER_DONE] = "done",
};
static const struct fsm transfer_fsm =
	FSM("transfer", transfer_states, TRANSFER_DONE);

struct transfer {
	enum transfer_state state;
	struct curlm *m;
	CURL *easy;
	char *body;
	size_t len, sent;
	struct curl_slist *rcpt, *headers;
	char error[CURL_ERROR_SIZE];
	curlm_cb cb;
	void *arg;
	struct transfer *prev, *next;
};

/* The event of one of curl's sockets. */
struct sock {
	struct event *ev;
	struct sock *prev, *next;
};

static void
sock_free(struct curlm *m, struct sock *k)
{
	if (k->prev != NULL)
		k->prev->next = k->next;
	else
		m->socks = k->next;
	if (k->next != NULL)
		k->next->prev = k->prev;
	event_free(k->ev);
	free(k);
}

static size_t
transfer_read(char *buf, size_t size, size_t n, void *arg)
{
	struct transfer *t = arg;
	size_t want = size * n, left = t->len - t->sent;

	if (want > left)
		want = left;
	memcpy(buf, t->body + t->sent, want);
	t->sent += want;
	return want;
}

static size_t
transfer_discard(char *buf, size_t size, size_t n, void *arg)
{
	(void)buf;
	(void)arg;
	return size * n;
}

/* Takes t out of curl's hands and off the list of transfers. */
static void
transfer_set_state(struct transfer *t, enum transfer_state s)
{
	FSM_SET(&transfer_fsm, t->state, s, "transfer %p", (void *)t);
}

static void
transfer_unlink(struct transfer *t)
{
	struct curlm *m = t->m;

	if (t->prev != NULL)
		t->prev->next = t->next;
	else
		m->list = t->next;
	if (t->next != NULL)
		t->next->prev = t->prev;
	t->prev = t->next = NULL;
	curl_multi_remove_handle(m->multi, t->easy);
}

/* Frees an unlinked transfer. */
static void
transfer_free(void *arg)
{
	struct transfer *t = arg;

	curl_easy_cleanup(t->easy);
	curl_slist_free_all(t->rcpt);
	curl_slist_free_all(t->headers);
	free(t->body);
	free(t);
}

/* The transfers that ended: each one's callback, then it is freed. */
static void
curlm_reap(struct curlm *m)
{
	CURLMsg *msg;
	int left;

	while ((msg = curl_multi_info_read(m->multi, &left)) != NULL) {
		struct transfer *t;
		long code = 0;
		char *why = NULL;

		if (msg->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &t);
		curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &code);
		if (msg->data.result != CURLE_OK && code > 0)
			why = xasprintf(
				"the server answered %ld: %s", code,
				t->error[0]
					? t->error
					: curl_easy_strerror(msg->data.result));
		else if (msg->data.result != CURLE_OK)
			why = xasprintf("%s%s%s",
					curl_easy_strerror(msg->data.result),
					t->error[0] ? ": " : "", t->error);
		else if (code >= 300) /* HTTP: curl took any answer */
			why = xasprintf("the server answered %ld", code);
		transfer_set_state(t, TRANSFER_DONE);
		m->running--;
		transfer_unlink(t);
		t->cb(code, why, t->arg);
		free(why);
		defer(m->base, transfer_free, t);
	}
}

static void
curlm_on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct curlm *m = arg;
	int running;

	(void)fd;
	(void)what;
	curl_multi_socket_action(m->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	curlm_reap(m);
}

static void
curlm_on_socket(evutil_socket_t fd, short what, void *arg)
{
	struct curlm *m = arg;
	int running, flags = 0;

	if (what & EV_READ)
		flags |= CURL_CSELECT_IN;
	if (what & EV_WRITE)
		flags |= CURL_CSELECT_OUT;
	curl_multi_socket_action(m->multi, fd, flags, &running);
	curlm_reap(m);
}

/* curl: watch socket s for what (or stop watching it). */
static int
curlm_socket_cb(CURL *e, curl_socket_t s, int what, void *userp, void *socketp)
{
	struct curlm *m = userp;
	struct sock *k = socketp;
	short events = 0;

	(void)e;
	if (what == CURL_POLL_REMOVE) {
		if (k != NULL)
			sock_free(m, k); /* curl forgets s itself */
		return 0;
	}
	if (what & CURL_POLL_IN)
		events |= EV_READ;
	if (what & CURL_POLL_OUT)
		events |= EV_WRITE;
	if (k == NULL) {
		k = xcalloc(1, sizeof *k);
		k->next = m->socks;
		if (m->socks != NULL)
			m->socks->prev = k;
		m->socks = k;
		curl_multi_assign(m->multi, s, k);
	} else {
		event_free(k->ev);
	}
	k->ev = event_new(m->base, s, events | EV_PERSIST, curlm_on_socket, m);
	event_add(k->ev, NULL);
	return 0;
}

/* curl: call back in ms milliseconds (-1: no timeout wanted). */
static int
curlm_timer_cb(CURLM *multi, long ms, void *userp)
{
	struct curlm *m = userp;
	struct timeval tv = {ms / 1000, (ms % 1000) * 1000};

	(void)multi;
	if (ms < 0)
		evtimer_del(m->timer);
	else
		evtimer_add(m->timer, &tv);
	return 0;
}

struct curlm *
curlm_new(struct event_base *base)
{
	struct curlm *m = xcalloc(1, sizeof *m);

	curl_global_init(CURL_GLOBAL_DEFAULT);
	m->base = base;
	m->multi = curl_multi_init();
	if (m->multi == NULL)
		fatalx("curl_multi_init failed");
	m->timer = evtimer_new(base, curlm_on_timer, m);
	curl_multi_setopt(m->multi, CURLMOPT_SOCKETFUNCTION, curlm_socket_cb);
	curl_multi_setopt(m->multi, CURLMOPT_SOCKETDATA, m);
	curl_multi_setopt(m->multi, CURLMOPT_TIMERFUNCTION, curlm_timer_cb);
	curl_multi_setopt(m->multi, CURLMOPT_TIMERDATA, m);
	/* Connections kept for the next transfer to the same server. */
	curl_multi_setopt(m->multi, CURLMOPT_MAXCONNECTS, 16L);
	return m;
}

void
curlm_free(struct curlm *m)
{
	if (m == NULL)
		return;
	while (m->list != NULL) {
		struct transfer *t = m->list;

		transfer_unlink(t);
		transfer_free(t);
	}
	/* curl_multi_cleanup() closes the kept connections and removes
	 * their sockets (the socket callback frees their events). */
	curl_multi_cleanup(m->multi);
	while (m->socks != NULL)
		sock_free(m, m->socks);
	event_free(m->timer);
	free(m);
}

size_t
curlm_running(const struct curlm *m)
{
	return m->running;
}

void
curlm_send(struct curlm *m, const struct curlm_request *rq, curlm_cb cb,
	   void *arg)
{
	struct transfer *t = xcalloc(1, sizeof *t);
	CURL *e = curl_easy_init();
	static const struct timeval now = {0, 0};

	if (e == NULL)
		fatalx("curl_easy_init failed");
	transfer_set_state(t, TRANSFER_RUNNING);
	t->m = m;
	t->easy = e;
	t->body = xmalloc(rq->len + 1);
	memcpy(t->body, rq->body, rq->len);
	t->len = rq->len;
	t->cb = cb;
	t->arg = arg;
	curl_easy_setopt(e, CURLOPT_URL, rq->url);
	curl_easy_setopt(e, CURLOPT_PRIVATE, t);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t->error);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_TIMEOUT, (long)rq->timeout);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT, 30L);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "smtp,smtps,http,https");
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, transfer_discard);
	if (rq->rcpt != NULL) {
		t->rcpt = curl_slist_append(NULL, rq->rcpt);
		curl_easy_setopt(e, CURLOPT_MAIL_FROM, rq->mail_from);
		curl_easy_setopt(e, CURLOPT_MAIL_RCPT, t->rcpt);
		curl_easy_setopt(e, CURLOPT_UPLOAD, 1L);
		curl_easy_setopt(e, CURLOPT_READFUNCTION, transfer_read);
		curl_easy_setopt(e, CURLOPT_READDATA, t);
		curl_easy_setopt(e, CURLOPT_INFILESIZE_LARGE,
				 (curl_off_t)rq->len);
		curl_easy_setopt(e, CURLOPT_USE_SSL,
				 rq->starttls ? (long)CURLUSESSL_ALL
					      : (long)CURLUSESSL_NONE);
		if (rq->user != NULL) {
			curl_easy_setopt(e, CURLOPT_USERNAME, rq->user);
			curl_easy_setopt(e, CURLOPT_PASSWORD,
					 rq->password ? rq->password : "");
		}
	} else {
		for (size_t i = 0; rq->headers != NULL && rq->headers[i]; i++)
			t->headers =
				curl_slist_append(t->headers, rq->headers[i]);
		curl_easy_setopt(e, CURLOPT_HTTPHEADER, t->headers);
		curl_easy_setopt(e, CURLOPT_POST, 1L);
		curl_easy_setopt(e, CURLOPT_POSTFIELDS, t->body);
		curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)rq->len);
		curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
	}
	t->next = m->list;
	if (m->list != NULL)
		m->list->prev = t;
	m->list = t;
	m->running++;
	curl_multi_add_handle(m->multi, e);
	/* curl starts on the timer it asked for; make sure it runs soon
	 * and that cb never runs inside this call. */
	if (!evtimer_pending(m->timer, NULL))
		evtimer_add(m->timer, &now);
}
