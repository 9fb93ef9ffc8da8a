/*
 * router.h: the web layer's entry point: robotd's HTTP server and its
 * route table.  Each route names the token kind it needs; the router
 * checks the token once (a 401 without one, a 403 with the wrong kind,
 * or a box token for another box) before the handler runs.
 */
#ifndef ROBOT_ROUTER_H
#define ROBOT_ROUTER_H

#include <stddef.h>

#include "web/web.h"

struct router;

/*
 * Listens on the settings' address (port 0: any free one).  NULL with
 * *err (the caller frees it) when it cannot.
 */
struct router *router_new(const struct web_deps *d, char **err);
/* Stops listening; new requests get 503; those in flight go on. */
void router_quiesce(struct router *r);
void router_free(struct router *r);
int router_port(const struct router *r);
/* Reads the TLS certificate's files again (SIGHUP: a renewed one); false
 * with *err, the old one kept. */
bool router_tls_reload(struct router *r, char **err);
/* "https" when it serves TLS, else "http". */
const char *router_scheme(const struct router *r);
/* Requests whose answer is not sent yet. */
size_t router_in_flight(const struct router *r);

#endif
