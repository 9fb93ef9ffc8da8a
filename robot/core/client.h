/*
 * client.h: HTTP requests to robotd, for the robot CLI and robot-box
 * serve.  The only file that includes curl.h.  Blocking (libcurl's easy
 * interface): neither caller has an event loop.
 *
 * Where the server and the token come from, first found wins: the
 * command's flags, the environment (ROBOT_SERVER, ROBOT_TOKEN), then
 * ~/.config/robot/config ("server: URL", "token: T").
 *
 * An https:// server is verified against the system's CAs, or the CA
 * file given (--ca-file, ROBOT_CA_FILE, "ca_file:"); plain http:// to an
 * address that is not this machine's is refused unless told
 * (--insecure-http, ROBOT_INSECURE_HTTP=1, "insecure_http: yes"): a
 * token would cross the network in clear (docs/deploy.md).
 */
#ifndef ROBOT_CLIENT_H
#define ROBOT_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

struct client_resp {
	long status; /* HTTP status, or 0 when no answer came */
	char *body;  /* NUL-terminated */
	size_t len;
	char *error; /* why no answer came (status 0) */
};

/*
 * Sends method url with body (may be NULL) and the token (may be NULL),
 * waiting at most timeout seconds.  Returns false when no answer came
 * (r->error says why); any HTTP status is an answer.
 */
bool client_request(const char *method, const char *url, const char *token,
		    const char *body, size_t len, double timeout,
		    struct client_resp *r);
void client_resp_release(struct client_resp *r);
/* While set, requests are given up (status 0) as soon as cancel() is
 * true: it is asked about once a second.  NULL: never. */
void client_set_cancel(bool (*cancel)(void));
/* A header line sent with every request from now on ("Name: value"),
 * or NULL for none. */
void client_set_header(const char *line);
/* The answer as JSON, or NULL. */
json_t *client_resp_json(const struct client_resp *r);
/* A one-line account of a failed answer: the error and its details. */
char *client_resp_error(const struct client_resp *r);
/* s escaped for a URL's query. */
char *client_escape(const char *s);

/*
 * Fills in *server and *token (either may stay NULL) from the
 * environment and the user's config file, unless already set; the
 * results are the caller's to free.
 */
void client_defaults(char **server, char **token);
/* The TLS policy of every request after it: ca_file (NULL: the
 * system's CAs, or the environment's and the config file's), and
 * whether plain http to another machine is allowed (or the
 * environment's and the config file's say so). */
void client_set_tls(const char *ca_file, bool insecure_http);
/* Why url may not be asked (plain http to another machine, not
 * allowed: a message the caller frees), or NULL. */
char *client_refused(const char *url);

#endif
