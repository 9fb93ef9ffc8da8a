/*
 * config.c: robotd's configuration file.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "robot/core/docload.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/settings.h"
#include "robot/core/banned.h"

void
config_defaults(struct config *c)
{
	memset(c, 0, sizeof *c);
	c->listen_addr = xstrdup("127.0.0.1");
	c->listen_port = 8420;
	c->state_dir = xstrdup("/var/lib/robot");
	c->db_pool = 8;
	c->lease_seconds = 120;
	c->max_attempts = 3;
	c->broken_after = 3;
	c->max_jobs = 1000;
	c->long_poll = 30;
	c->max_connections = 4000;
}

void
config_release(struct config *c)
{
	free(c->path);
	free(c->listen_addr);
	free(c->state_dir);
	free(c->db);
	free(c->tbox_group);
	memset(c, 0, sizeof *c);
}

bool
config_set_listen(struct config *c, const char *s)
{
	const char *colon = strrchr(s, ':');
	const char *port = colon ? colon + 1 : s;
	char *end;
	long p;

	errno = 0;
	p = strtol(port, &end, 10);
	if (errno != 0 || end == port || *end != '\0' || p < 0 || p > 65535)
		return false;
	c->listen_port = (int)p;
	if (colon != NULL && colon != s) {
		free(c->listen_addr);
		c->listen_addr = xstrndup(s, (size_t)(colon - s));
	}
	return true;
}

static void
get_int(const char *path, const struct node *map, const char *key, long lo,
	long hi, int *out, struct errlist *el)
{
	const struct node_pair *p = node_get_pair(map, key);

	if (p == NULL || p->value->kind == NODE_NULL)
		return;
	if (p->value->kind != NODE_SCALAR || p->value->stype != NODE_INT ||
	    p->value->ival < lo || p->value->ival > hi) {
		errlist_error(el, path, p->line,
			      "%s: a whole number from %ld to %ld is expected",
			      key, lo, hi);
		return;
	}
	*out = (int)p->value->ival;
}

static void
get_str(const char *path, const struct node *map, const char *key, char **out,
	struct errlist *el)
{
	const struct node_pair *p = node_get_pair(map, key);

	if (p == NULL || p->value->kind == NODE_NULL)
		return;
	if (p->value->kind != NODE_SCALAR) {
		errlist_error(el, path, p->line,
			      "%s: a single value is "
			      "expected",
			      key);
		return;
	}
	free(*out);
	*out = node_to_s(p->value);
}

bool
config_load(const char *path, struct config *c, struct errlist *el)
{
	static const char *const known[] = {
		"listen",       "state_dir",       "db",
		"db_pool",      "lease_seconds",   "max_attempts",
		"broken_after", "max_jobs",        "long_poll",
		"tbox_group",   "max_connections", NULL};
	size_t before = el->nerrors;
	const struct node *map;
	struct node *docs;
	char *listen = NULL;

	free(c->path);
	c->path = xstrdup(path);
	if ((docs = docload_config(path, known, &map, el)) == NULL)
		return false;
	if (map == NULL) {
		node_free(docs);
		return true;
	}
	get_str(path, map, "listen", &listen, el);
	if (listen != NULL && !config_set_listen(c, listen))
		errlist_error(el, path, node_get_pair(map, "listen")->line,
			      "listen: ADDR:PORT is expected, not '%s'",
			      listen);
	free(listen);
	get_str(path, map, "state_dir", &c->state_dir, el);
	if (c->state_dir[0] != '/')
		errlist_error(el, path, node_get_pair(map, "state_dir")->line,
			      "state_dir: an absolute path is expected");
	get_str(path, map, "db", &c->db, el);
	get_str(path, map, "tbox_group", &c->tbox_group, el);
	get_int(path, map, "db_pool", 1, 64, &c->db_pool, el);
	get_int(path, map, "lease_seconds", 2, 86400, &c->lease_seconds, el);
	get_int(path, map, "max_attempts", 1, 100, &c->max_attempts, el);
	get_int(path, map, "broken_after", 1, 1000, &c->broken_after, el);
	get_int(path, map, "max_jobs", 1, 100000, &c->max_jobs, el);
	get_int(path, map, "long_poll", 0, 300, &c->long_poll, el);
	get_int(path, map, "max_connections", 16, 100000, &c->max_connections,
		el);
	node_free(docs);
	return el->nerrors == before;
}
