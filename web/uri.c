/*
 * uri.c: the checks of a URI before libmicrohttpd parses it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "web/uri.h"
#include "robot/core/banned.h"

/* Where s has "%XX" decoding to a control character (NUL included);
 * NULL when nowhere. */
static const char *
encoded_control(const char *s)
{
	for (const char *p = strchr(s, '%'); p != NULL;
	     p = strchr(p + 1, '%')) {
		unsigned v;

		if (p[1] != '\0' && p[2] != '\0' &&
		    sscanf(p + 1, "%2x", &v) == 1 && (v < 0x20 || v == 0x7f))
			return p;
	}
	return NULL;
}

/* Why uri, with an encoded control character at bad, is refused: naming
 * the query argument it is in, when it is in one. */
static char *
encoded_control_why(const char *uri, const char *bad)
{
	const char *q = strchr(uri, '?'), *start, *eq;
	char *name, *why;

	if (q == NULL || bad < q)
		return xstrdup("the path holds a NUL or a control character");
	for (start = bad; start > q + 1 && start[-1] != '&'; start--)
		;
	eq = memchr(start, '=', (size_t)(bad - start));
	if (eq == NULL)
		return xstrdup("a query argument's name holds a NUL or a "
			       "control character");
	name = str_printable(start, (size_t)(eq - start), 40);
	why = xasprintf("the query argument %s holds a NUL or a control "
			"character",
			name);
	free(name);
	return why;
}

int
uri_check(const char *uri, char **why)
{
	size_t args = 0;
	const char *bad;

	*why = NULL;
	for (const char *p = strchr(uri, '?'); p != NULL;
	     p = strchr(p + 1, '&'))
		args++;
	if (args > URI_MAX_ARGS) {
		*why = xasprintf("more than %d query arguments", URI_MAX_ARGS);
		return 414;
	}
	if (strlen(uri) > URI_MAX_LEN) {
		*why = xasprintf("the URI is longer than %d bytes",
				 URI_MAX_LEN);
		return 414;
	}
	if ((bad = encoded_control(uri)) != NULL) {
		*why = encoded_control_why(uri, bad);
		return 400;
	}
	return 0;
}
