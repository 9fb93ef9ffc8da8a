/*
 * settings.c: the table of robotd's settings and the three ways in: the
 * file, a flag, and SIGHUP.
 */
#include <errno.h>
#include <limits.h>
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "robot/core/buf.h"
#include "robot/core/docload.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/settings.h"
#include "robot/core/banned.h"

enum setting_type {
	SETTING_INT,    /* a whole number in [min, max] */
	SETTING_STRING, /* any single value */
	SETTING_PATH,   /* an absolute path */
	SETTING_LISTEN, /* ADDR:PORT, ":PORT" or "PORT" */
	SETTING_BOOL,   /* true or false (yes/no, on/off, 1/0), in an int */
};

struct setting {
	const char *name;
	enum setting_type type;
	const char *dflt; /* as it would be written in the file; NULL: unset */
	long min, max;    /* SETTING_INT */
	bool reloadable;  /* SIGHUP may change it */
	size_t offset;    /* of the field in struct settings */
};

#define AT(field) offsetof(struct settings, field)

static const struct setting table[] = {
	{"listen", SETTING_LISTEN, "127.0.0.1:8420", 0, 0, false,
	 AT(listen_addr)},
	{"state_dir", SETTING_PATH, "/var/lib/robot", 0, 0, false,
	 AT(state_dir)},
	{"db", SETTING_STRING, NULL, 0, 0, false, AT(db)},
	{"db_pool", SETTING_INT, "8", 1, 64, false, AT(db_pool)},
	{"lease_seconds", SETTING_INT, "120", 2, 86400, true,
	 AT(lease_seconds)},
	{"lease_max_life", SETTING_INT, "21600", 60, 604800, true,
	 AT(lease_max_life)},
	{"max_attempts", SETTING_INT, "3", 1, 100, true, AT(max_attempts)},
	{"broken_after", SETTING_INT, "3", 1, 1000, true, AT(broken_after)},
	{"max_jobs", SETTING_INT, "1000", 1, 100000, true, AT(max_jobs)},
	{"long_poll", SETTING_INT, "30", 0, 300, true, AT(long_poll)},
	{"tbox_group", SETTING_STRING, NULL, 0, 0, true, AT(tbox_group)},
	{"max_connections", SETTING_INT, "4000", 16, 100000, false,
	 AT(max_connections)},
	{"max_connections_per_client", SETTING_INT, "64", 1, 100000, false,
	 AT(max_connections_per_client)},
	{"request_timeout", SETTING_INT, "30", 1, 3600, false,
	 AT(request_timeout)},
	{"max_runs", SETTING_INT, "14", 1, 100, true, AT(max_runs)},
	{"analysis_claim", SETTING_INT, "30", 2, 3600, true,
	 AT(analysis_claim)},
	{"compare_max_running", SETTING_INT, "2", 1, 64, true,
	 AT(compare_max_running)},
	{"compare_max_values", SETTING_INT, "4000000", 1000, 1000000000, true,
	 AT(compare_max_values)},
	{"tree_fetch_timeout", SETTING_INT, "600", 2, 86400, true,
	 AT(tree_fetch_timeout)},
	{"smtp", SETTING_STRING, NULL, 0, 0, true, AT(smtp)},
	{"smtp_user", SETTING_STRING, NULL, 0, 0, true, AT(smtp_user)},
	{"smtp_password", SETTING_STRING, NULL, 0, 0, true, AT(smtp_password)},
	{"smtp_starttls", SETTING_BOOL, "false", 0, 0, true, AT(smtp_starttls)},
	{"mail_from", SETTING_STRING, "robot@localhost", 0, 0, true,
	 AT(mail_from)},
	{"public_url", SETTING_STRING, NULL, 0, 0, true, AT(public_url)},
	{"trusted_proxy", SETTING_STRING, NULL, 0, 0, false, AT(trusted_proxy)},
	{"tls_cert", SETTING_PATH, NULL, 0, 0, false, AT(tls_cert)},
	{"tls_key", SETTING_PATH, NULL, 0, 0, false, AT(tls_key)},
	{"report_window", SETTING_INT, "600", 0, 86400, true,
	 AT(report_window)},
	{"report_bisect_wait", SETTING_INT, "21600", 0, 30 * 86400, true,
	 AT(report_bisect_wait)},
	{"report_claim", SETTING_INT, "300", 10, 3600, true, AT(report_claim)},
	{"webhook", SETTING_STRING, NULL, 0, 0, true, AT(webhook)},
	{"webhook_secret", SETTING_STRING, NULL, 0, 0, true,
	 AT(webhook_secret)},
	{"chat_webhook", SETTING_STRING, NULL, 0, 0, true, AT(chat_webhook)},
	{"operator_mail", SETTING_STRING, NULL, 0, 0, true, AT(operator_mail)},
	{"operator_webhook", SETTING_STRING, NULL, 0, 0, true,
	 AT(operator_webhook)},
	{"reference_every", SETTING_INT, "3600", 0, 30 * 86400, true,
	 AT(reference_every)},
	{"power_cycle", SETTING_STRING, NULL, 0, 0, true, AT(power_cycle)},
	{"box_false_alarms", SETTING_INT, "2", 0, 1000, true,
	 AT(box_false_alarms)},
	{"mail_in_maildir", SETTING_PATH, NULL, 0, 0, true,
	 AT(mail_in_maildir)},
	{NULL, 0, NULL, 0, 0, false, 0},
};

static const struct setting *
setting_find(const char *name)
{
	for (const struct setting *t = table; t->name != NULL; t++)
		if (strcmp(t->name, name) == 0)
			return t;
	return NULL;
}

static int *
int_field(struct settings *s, const struct setting *t)
{
	return (int *)((char *)s + t->offset);
}

static char **
str_field(struct settings *s, const struct setting *t)
{
	return (char **)((char *)s + t->offset);
}

/* Parses text as t's value into s; NULL, or why it is not one. */
static char *
setting_parse(struct settings *s, const struct setting *t, const char *text)
{
	switch (t->type) {
	case SETTING_INT: {
		char *end;
		long v;

		errno = 0;
		v = strtol(text, &end, 10);
		if (errno != 0 || end == text || *end != '\0' || v < t->min ||
		    v > t->max)
			return xasprintf("a whole number from %ld to %ld is "
					 "expected",
					 t->min, t->max);
		*int_field(s, t) = (int)v;
		return NULL;
	}
	case SETTING_BOOL:
		if (strcmp(text, "true") == 0 || strcmp(text, "yes") == 0 ||
		    strcmp(text, "on") == 0 || strcmp(text, "1") == 0)
			*int_field(s, t) = 1;
		else if (strcmp(text, "false") == 0 ||
			 strcmp(text, "no") == 0 || strcmp(text, "off") == 0 ||
			 strcmp(text, "0") == 0)
			*int_field(s, t) = 0;
		else
			return xasprintf("true or false is expected, not '%s'",
					 text);
		return NULL;
	case SETTING_PATH:
		if (text[0] != '/')
			return xstrdup("an absolute path is expected");
		/* fall through */
	case SETTING_STRING:
		free(*str_field(s, t));
		*str_field(s, t) = xstrdup(text);
		return NULL;
	case SETTING_LISTEN: {
		const char *colon = strrchr(text, ':');
		const char *port = colon ? colon + 1 : text;
		char *end;
		long p;

		errno = 0;
		p = strtol(port, &end, 10);
		if (errno != 0 || end == port || *end != '\0' || p < 0 ||
		    p > 65535)
			return xasprintf("ADDR:PORT is expected, not '%s'",
					 text);
		s->listen_port = (int)p;
		if (colon != NULL && colon != text) {
			free(s->listen_addr);
			s->listen_addr = xstrndup(text, (size_t)(colon - text));
		}
		return NULL;
	}
	}
	return xstrdup("unknown setting type");
}

const char *
settings_name(size_t i)
{
	return i < sizeof table / sizeof table[0] ? table[i].name : NULL;
}

void
settings_defaults(struct settings *s)
{
	memset(s, 0, sizeof *s);
	for (const struct setting *t = table; t->name != NULL; t++) {
		char *why;

		if (t->dflt == NULL)
			continue;
		if ((why = setting_parse(s, t, t->dflt)) != NULL)
			abort(); /* the table is wrong */
	}
}

void
settings_release(struct settings *s)
{
	free(s->path);
	for (const struct setting *t = table; t->name != NULL; t++)
		if (t->type != SETTING_INT && t->type != SETTING_BOOL)
			free(*str_field(s, t));
	memset(s, 0, sizeof *s);
}

bool
settings_set(struct settings *s, const char *name, const char *text, char **why)
{
	const struct setting *t = setting_find(name);

	if (t == NULL) {
		*why = xasprintf("no setting '%s'", name);
		return false;
	}
	*why = setting_parse(s, t, text);
	return *why == NULL;
}

bool
settings_load(const char *path, struct settings *s, struct errlist *el)
{
	const char *known[sizeof table / sizeof table[0]];
	size_t before = el->nerrors, n = 0;
	const struct node *map;
	struct node *docs;

	for (const struct setting *t = table; t->name != NULL; t++)
		known[n++] = t->name;
	known[n] = NULL;
	free(s->path);
	s->path = xstrdup(path);
	if ((docs = docload_config(path, known, &map, el)) == NULL)
		return false;
	for (const struct setting *t = table; map != NULL && t->name; t++) {
		const struct node_pair *p = node_get_pair(map, t->name);
		char *text, *why;

		if (p == NULL || p->value->kind == NODE_NULL)
			continue;
		if (p->value->kind != NODE_SCALAR ||
		    (t->type == SETTING_INT && p->value->stype != NODE_INT)) {
			why = t->type == SETTING_INT
				      ? xasprintf("a whole number from %ld to "
						  "%ld is expected",
						  t->min, t->max)
				      : xstrdup("a single value is expected");
		} else {
			text = node_to_s(p->value);
			why = setting_parse(s, t, text);
			free(text);
		}
		if (why != NULL) {
			errlist_error(el, path, p->line, "%s: %s", t->name,
				      why);
			free(why);
		}
	}
	/* a proxy's addresses, each one */
	if (map != NULL && s->trusted_proxy != NULL) {
		const struct node_pair *p = node_get_pair(map, "trusted_proxy");
		const char *bad = settings_proxy_bad(s->trusted_proxy);

		if (bad != NULL)
			errlist_error(
				el, path, p != NULL ? p->line : 0,
				"trusted_proxy: '%.*s' is not an IP "
				"address (addresses, with spaces or commas "
				"between them)",
				(int)strcspn(bad, " ,"), bad);
	}
	/* HTTPS wants both files */
	if (map != NULL && (s->tls_cert == NULL) != (s->tls_key == NULL)) {
		const struct node_pair *p = node_get_pair(
			map, s->tls_cert != NULL ? "tls_cert" : "tls_key");

		errlist_error(el, path, p != NULL ? p->line : 0,
			      "%s without %s: HTTPS needs the certificate "
			      "and its key",
			      s->tls_cert != NULL ? "tls_cert" : "tls_key",
			      s->tls_cert != NULL ? "tls_key" : "tls_cert");
	}
	node_free(docs);
	return el->nerrors == before;
}

const char *
settings_proxy_bad(const char *list)
{
	const char *p = list;

	while (*(p += strspn(p, " ,")) != '\0') {
		char one[INET6_ADDRSTRLEN + 1];
		unsigned char bin[sizeof(struct in6_addr)];
		size_t n = strcspn(p, " ,");

		if (n >= sizeof one)
			return p;
		memcpy(one, p, n);
		one[n] = '\0';
		if (inet_pton(AF_INET, one, bin) != 1 &&
		    inet_pton(AF_INET6, one, bin) != 1)
			return p;
		p += n;
	}
	return NULL;
}

bool
settings_proxy_is(const struct settings *s, const char *addr)
{
	const char *p = s->trusted_proxy;
	size_t len = strlen(addr);

	if (p == NULL || len == 0)
		return false;
	while (*(p += strspn(p, " ,")) != '\0') {
		size_t n = strcspn(p, " ,");

		if (n == len && strncmp(p, addr, n) == 0)
			return true;
		p += n;
	}
	return false;
}

/* Whether a setting has the same value in a and b. */
static bool
setting_same(const struct settings *a, const struct settings *b,
	     const struct setting *t)
{
	struct settings *ma = (struct settings *)a, *mb = (struct settings *)b;
	const char *x, *y;

	switch (t->type) {
	case SETTING_INT:
	case SETTING_BOOL:
		return *int_field(ma, t) == *int_field(mb, t);
	case SETTING_LISTEN:
		if (a->listen_port != b->listen_port)
			return false;
		/* fall through */
	default:
		x = *str_field(ma, t);
		y = *str_field(mb, t);
		return (x == NULL) == (y == NULL) &&
		       (x == NULL || strcmp(x, y) == 0);
	}
}

size_t
settings_reload(struct settings *live, const struct settings *fresh,
		char **names)
{
	struct settings *f = (struct settings *)fresh;
	size_t n = 0;
	struct buf b;

	buf_init(&b);
	for (const struct setting *t = table; t->name != NULL; t++) {
		if (setting_same(live, fresh, t))
			continue;
		if (!t->reloadable) {
			buf_addf(&b, "%s%s", n++ ? ", " : "", t->name);
		} else if (t->type == SETTING_INT || t->type == SETTING_BOOL) {
			*int_field(live, t) = *int_field(f, t);
		} else {
			char *v = *str_field(f, t);

			free(*str_field(live, t));
			*str_field(live, t) = v ? xstrdup(v) : NULL;
		}
	}
	*names = n ? buf_detach(&b) : NULL;
	buf_release(&b);
	return n;
}

char *
settings_mirror(const struct settings *s, const char *name)
{
	return xasprintf("%s/trees/%s.git", s->state_dir, name);
}
