/*
 * client.c: libcurl's easy interface, loaded when the first request is
 * made.  libcurl and the 30 libraries it needs cost every process that
 * links them about 450 page faults and 6 ms before main(); most robot
 * commands (compare, split) never talk to a server, and robot-box run
 * does not either (docs/analysis.md, "Comparison speed").
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "robot/core/buf.h"
#include "robot/core/client.h"
#include "robot/core/docload.h"
#include "robot/core/errlist.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

static bool (*client_cancel)(void);

/* The functions of libcurl used here, typed from curl.h. */
static struct {
	__typeof__(curl_global_init) *global_init;
	__typeof__(curl_easy_init) *easy_init;
	__typeof__(curl_easy_setopt) *easy_setopt;
	__typeof__(curl_easy_perform) *easy_perform;
	__typeof__(curl_easy_getinfo) *easy_getinfo;
	__typeof__(curl_easy_strerror) *easy_strerror;
	__typeof__(curl_easy_cleanup) *easy_cleanup;
	__typeof__(curl_slist_append) *slist_append;
	__typeof__(curl_slist_free_all) *slist_free_all;
} lc;

/*
 * Loads libcurl and its functions once; false, with *why, when it cannot
 * be loaded.  Its sonames: OpenSSL's build, then GnuTLS's (Debian's
 * libcurl4 and libcurl3-gnutls).
 */
static bool
client_load(char **why)
{
	static const char *const names[] = {"libcurl.so.4",
					    "libcurl-gnutls.so.4"};
	static char *failed;
	static bool loaded;
	void *h = NULL;

	if (loaded)
		return true;
	if (failed != NULL) {
		*why = xstrdup(failed);
		return false;
	}
	for (size_t i = 0; i < sizeof names / sizeof names[0] && h == NULL; i++)
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		failed = xasprintf("cannot load libcurl (%s): install "
				   "libcurl4",
				   dlerror());
		*why = xstrdup(failed);
		return false;
	}
#define CLIENT_SYM(f, name)                                                    \
	do {                                                                   \
		*(void **)&lc.f = dlsym(h, name);                              \
		if (lc.f == NULL) {                                            \
			failed =                                               \
				xasprintf("libcurl has no %s: too old", name); \
			*why = xstrdup(failed);                                \
			return false;                                          \
		}                                                              \
	} while (0)
	CLIENT_SYM(global_init, "curl_global_init");
	CLIENT_SYM(easy_init, "curl_easy_init");
	CLIENT_SYM(easy_setopt, "curl_easy_setopt");
	CLIENT_SYM(easy_perform, "curl_easy_perform");
	CLIENT_SYM(easy_getinfo, "curl_easy_getinfo");
	CLIENT_SYM(easy_strerror, "curl_easy_strerror");
	CLIENT_SYM(easy_cleanup, "curl_easy_cleanup");
	CLIENT_SYM(slist_append, "curl_slist_append");
	CLIENT_SYM(slist_free_all, "curl_slist_free_all");
#undef CLIENT_SYM
	lc.global_init(CURL_GLOBAL_DEFAULT);
	loaded = true;
	return true;
}

void
client_set_cancel(bool (*cancel)(void))
{
	client_cancel = cancel;
}

static int
client_on_progress(void *arg, curl_off_t dltotal, curl_off_t dlnow,
		   curl_off_t ultotal, curl_off_t ulnow)
{
	(void)arg;
	(void)dltotal;
	(void)dlnow;
	(void)ultotal;
	(void)ulnow;
	return client_cancel != NULL && client_cancel();
}

static size_t
client_on_data(char *data, size_t size, size_t n, void *arg)
{
	buf_add(arg, data, size * n);
	return size * n;
}

/* The TLS policy (client_set_tls()). */
static char *client_ca_file;
static bool client_insecure;
static bool client_tls_set; /* else the environment's and config's */

/* One more header for every request (client_set_header()). */
static char client_header[128];

void
client_set_header(const char *line)
{
	snprintf(client_header, sizeof client_header, "%s", line ? line : "");
}

bool
client_request(const char *method, const char *url, const char *token,
	       const char *body, size_t len, double timeout,
	       struct client_resp *r)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	struct curl_slist *hdrs = NULL;
	struct buf b;
	CURL *c;
	CURLcode rc;

	memset(r, 0, sizeof *r);
	if (!client_tls_set)
		client_set_tls(NULL, false);
	if ((r->error = client_refused(url)) != NULL)
		return false;
	if (!client_load(&r->error))
		return false;
	buf_init(&b);
	c = lc.easy_init();
	if (c == NULL) {
		r->error = xstrdup("cannot start libcurl");
		return false;
	}
	if (token != NULL) {
		char *h = xasprintf("Authorization: Bearer %s", token);

		hdrs = lc.slist_append(hdrs, h);
		free(h);
	}
	hdrs = lc.slist_append(hdrs, "Content-Type: application/json");
	hdrs = lc.slist_append(hdrs, "Expect:");
	if (client_header[0] != '\0')
		hdrs = lc.slist_append(hdrs, client_header);
	lc.easy_setopt(c, CURLOPT_URL, url);
	lc.easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	lc.easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	lc.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	lc.easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
	lc.easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)(timeout * 1000));
	lc.easy_setopt(c, CURLOPT_WRITEFUNCTION, client_on_data);
	lc.easy_setopt(c, CURLOPT_WRITEDATA, &b);
	lc.easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	lc.easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	if (client_ca_file != NULL)
		lc.easy_setopt(c, CURLOPT_CAINFO, client_ca_file);
	if (client_cancel != NULL) {
		/* libcurl calls it about once a second, also while idle. */
		lc.easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
		lc.easy_setopt(c, CURLOPT_XFERINFOFUNCTION, client_on_progress);
	}
	if (body != NULL) {
		lc.easy_setopt(c, CURLOPT_POSTFIELDS, body);
		lc.easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	} else if (strcmp(method, "POST") == 0) {
		lc.easy_setopt(c, CURLOPT_POSTFIELDS, "");
	}
	rc = lc.easy_perform(c);
	if (rc == CURLE_OK) {
		lc.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
	} else {
		r->error = xasprintf("%s: %s", url,
				     errbuf[0] ? errbuf : lc.easy_strerror(rc));
	}
	buf_addc(&b, '\0');
	r->len = b.len - 1;
	r->body = buf_detach(&b);
	lc.slist_free_all(hdrs);
	lc.easy_cleanup(c);
	return rc == CURLE_OK;
}

void
client_resp_release(struct client_resp *r)
{
	free(r->body);
	free(r->error);
	memset(r, 0, sizeof *r);
}

json_t *
client_resp_json(const struct client_resp *r)
{
	return r->body != NULL ? rjson_loadb(r->body, r->len, NULL) : NULL;
}

char *
client_resp_error(const struct client_resp *r)
{
	json_t *j, *d;
	struct buf b;

	if (r->status == 0)
		return xstrdup(r->error ? r->error : "no answer");
	buf_init(&b);
	j = client_resp_json(r);
	if (j != NULL && rjson_get_str(j, "error") != NULL) {
		buf_addf(&b, "%s", rjson_get_str(j, "error"));
		d = json_object_get(j, "details");
		for (size_t i = 0; i < json_array_size(d); i++)
			if (json_is_string(json_array_get(d, i)))
				buf_addf(&b, "\n  %s",
					 json_string_value(
						 json_array_get(d, i)));
	} else {
		buf_addf(&b, "HTTP %ld", r->status);
	}
	json_decref(j);
	buf_addc(&b, '\0');
	return buf_detach(&b);
}

/* As curl_easy_escape(): every byte but RFC 3986's unreserved as %XX. */
char *
client_escape(const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	struct buf b;

	buf_init(&b);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		    (*p >= '0' && *p <= '9') || strchr("-._~", *p) != NULL) {
			buf_addc(&b, (char)*p);
		} else {
			buf_addc(&b, '%');
			buf_addc(&b, hex[*p >> 4]);
			buf_addc(&b, hex[*p & 15]);
		}
	}
	buf_addc(&b, '\0');
	return buf_detach(&b);
}

/* The user's config file's server, token, ca_file and insecure_http,
 * each where its pointer is not NULL and nothing set it yet. */
static void
client_config(char **server, char **token, char **ca_file, bool *insecure)
{
	static const char *const known[] = {"server", "token", "ca_file",
					    "insecure_http", NULL};
	const char *home = getenv("HOME");
	const struct node *map;
	struct node *docs;
	struct errlist el;
	char *path;

	if (home == NULL)
		return;
	path = xasprintf("%s/.config/robot/config", home);
	errlist_init(&el);
	docs = access(path, R_OK) == 0 ? docload_config(path, known, &map, &el)
				       : NULL;
	if (docs != NULL && map != NULL) {
		const struct node *s = node_get(map, "server");
		const struct node *t = node_get(map, "token");
		const struct node *c = node_get(map, "ca_file");
		const struct node *i = node_get(map, "insecure_http");

		if (server != NULL && *server == NULL && s != NULL &&
		    s->kind == NODE_SCALAR)
			*server = node_to_s(s);
		if (token != NULL && *token == NULL && t != NULL &&
		    t->kind == NODE_SCALAR)
			*token = node_to_s(t);
		if (ca_file != NULL && *ca_file == NULL && c != NULL &&
		    c->kind == NODE_SCALAR)
			*ca_file = node_to_s(c);
		if (insecure != NULL && i != NULL && i->kind == NODE_SCALAR) {
			char *v = node_to_s(i);

			*insecure = *insecure || strcmp(v, "yes") == 0 ||
				    strcmp(v, "true") == 0;
			free(v);
		}
	}
	if (el.nerrors > 0)
		errlist_print(&el, stderr);
	node_free(docs);
	errlist_release(&el);
	free(path);
}

void
client_defaults(char **server, char **token)
{
	if (*server == NULL && getenv("ROBOT_SERVER") != NULL)
		*server = xstrdup(getenv("ROBOT_SERVER"));
	if (*token == NULL && getenv("ROBOT_TOKEN") != NULL)
		*token = xstrdup(getenv("ROBOT_TOKEN"));
	if (*server == NULL || *token == NULL)
		client_config(server, token, NULL, NULL);
}

void
client_set_tls(const char *ca_file, bool insecure_http)
{
	const char *env = getenv("ROBOT_INSECURE_HTTP");

	client_tls_set = true;
	free(client_ca_file);
	client_ca_file = NULL;
	client_insecure =
		insecure_http || (env != NULL && strcmp(env, "1") == 0);
	if (ca_file == NULL)
		ca_file = getenv("ROBOT_CA_FILE");
	if (ca_file != NULL)
		client_ca_file = xstrdup(ca_file);
	client_config(NULL, NULL, &client_ca_file, &client_insecure);
}

/* Whether host (of a URL, without brackets) is this machine. */
static bool
loopback(const char *host, size_t n)
{
	return (n == 9 && strncmp(host, "localhost", 9) == 0) ||
	       (n >= 4 && strncmp(host, "127.", 4) == 0) ||
	       (n == 3 && strncmp(host, "::1", 3) == 0);
}

char *
client_refused(const char *url)
{
	const char *h, *end;

	if (client_insecure || strncmp(url, "http://", 7) != 0)
		return NULL;
	h = url + 7;
	if (*h == '[') {
		end = strchr(++h, ']');
	} else {
		end = h + strcspn(h, ":/?#");
	}
	if (end != NULL && loopback(h, (size_t)(end - h)))
		return NULL;
	return xasprintf("refusing plain http to %.*s: a token would cross "
			 "the network in clear; give robotd a certificate "
			 "and use https:// (docs/deploy.md), or allow it with "
			 "--insecure-http (ROBOT_INSECURE_HTTP=1)",
			 end != NULL ? (int)(end - h) : 64, h);
}
