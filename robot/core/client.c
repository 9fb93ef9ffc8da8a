/*
 * client.c: libcurl's easy interface.
 */
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

bool
client_request(const char *method, const char *url, const char *token,
	       const char *body, size_t len, double timeout,
	       struct client_resp *r)
{
	static bool inited;
	char errbuf[CURL_ERROR_SIZE] = "";
	struct curl_slist *hdrs = NULL;
	struct buf b;
	CURL *c;
	CURLcode rc;

	if (!inited) {
		curl_global_init(CURL_GLOBAL_DEFAULT);
		inited = true;
	}
	memset(r, 0, sizeof *r);
	buf_init(&b);
	c = curl_easy_init();
	if (c == NULL) {
		r->error = xstrdup("cannot start libcurl");
		return false;
	}
	if (token != NULL) {
		char *h = xasprintf("Authorization: Bearer %s", token);

		hdrs = curl_slist_append(hdrs, h);
		free(h);
	}
	hdrs = curl_slist_append(hdrs, "Content-Type: application/json");
	hdrs = curl_slist_append(hdrs, "Expect:");
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)(timeout * 1000));
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, client_on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	if (client_cancel != NULL) {
		/* libcurl calls it about once a second, also while idle. */
		curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
		curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION,
				 client_on_progress);
	}
	if (body != NULL) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)len);
	} else if (strcmp(method, "POST") == 0) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, "");
	}
	rc = curl_easy_perform(c);
	if (rc == CURLE_OK) {
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
	} else {
		r->error =
			xasprintf("%s: %s", url,
				  errbuf[0] ? errbuf : curl_easy_strerror(rc));
	}
	buf_addc(&b, '\0');
	r->len = b.len - 1;
	r->body = buf_detach(&b);
	curl_slist_free_all(hdrs);
	curl_easy_cleanup(c);
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
	return r->body != NULL ? json_loadb(r->body, r->len, 0, NULL) : NULL;
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

char *
client_escape(const char *s)
{
	char *e = curl_easy_escape(NULL, s, 0), *out;

	if (e == NULL)
		return xstrdup("");
	out = xstrdup(e);
	curl_free(e);
	return out;
}

void
client_defaults(char **server, char **token)
{
	static const char *const known[] = {"server", "token", NULL};
	const char *home = getenv("HOME");
	const struct node *map;
	struct node *docs;
	struct errlist el;
	char *path;

	if (*server == NULL && getenv("ROBOT_SERVER") != NULL)
		*server = xstrdup(getenv("ROBOT_SERVER"));
	if (*token == NULL && getenv("ROBOT_TOKEN") != NULL)
		*token = xstrdup(getenv("ROBOT_TOKEN"));
	if ((*server != NULL && *token != NULL) || home == NULL)
		return;
	path = xasprintf("%s/.config/robot/config", home);
	errlist_init(&el);
	docs = access(path, R_OK) == 0 ? docload_config(path, known, &map, &el)
				       : NULL;
	if (docs != NULL && map != NULL) {
		const struct node *s = node_get(map, "server");
		const struct node *t = node_get(map, "token");

		if (*server == NULL && s != NULL && s->kind == NODE_SCALAR)
			*server = node_to_s(s);
		if (*token == NULL && t != NULL && t->kind == NODE_SCALAR)
			*token = node_to_s(t);
	}
	if (el.nerrors > 0)
		errlist_print(&el, stderr);
	node_free(docs);
	errlist_release(&el);
	free(path);
}
