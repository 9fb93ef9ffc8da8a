/*
 * name.c: the name checker.
 */
#include <string.h>

#include "robot/core/name.h"
#include "robot/core/banned.h"

static bool
is_alnum(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

/* Whether c may stand in a name of kind. */
static bool
allowed(enum name_kind kind, unsigned char c)
{
	if (is_alnum(c) || strchr("._+-", c) != NULL)
		return c != '\0';
	switch (kind) {
	case NAME_LABEL:
		return false;
	case NAME_COMMIT:
		return c == '/' || c == '~' || c == '^';
	case NAME_SERIES:
		return c == '/' || c == '=' || c == ':' || c == '%';
	case NAME_METRIC:
		return c > 0x20 && c < 0x7f;
	}
	return false;
}

static size_t
max_of(enum name_kind kind)
{
	switch (kind) {
	case NAME_LABEL:
		return NAME_LABEL_MAX;
	case NAME_COMMIT:
		return NAME_COMMIT_MAX;
	case NAME_SERIES:
		return NAME_SERIES_MAX;
	case NAME_METRIC:
		return NAME_METRIC_MAX;
	}
	return 0;
}

const char *
name_check(enum name_kind kind, const char *s, size_t len)
{
	if (len == 0)
		return "is empty";
	if (len > max_of(kind))
		return "is too long";
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f)
			return "holds a control character";
		if (c >= 0x80)
			return "holds a character outside ASCII";
		if (!allowed(kind, c))
			return kind == NAME_METRIC
				       ? "holds a space"
				       : "holds a character a name cannot hold";
	}
	if (s[0] == '-')
		return "starts with '-'";
	if (kind != NAME_METRIC && s[0] == '.')
		return "starts with '.'";
	if (kind != NAME_METRIC && memmem(s, len, "..", 2) != NULL)
		return "holds '..'";
	return NULL;
}

bool
name_ok(enum name_kind kind, const char *s)
{
	return s != NULL && name_check(kind, s, strlen(s)) == NULL;
}

const char *
name_kind_text(enum name_kind kind)
{
	switch (kind) {
	case NAME_LABEL:
		return "a name (box, group, tree or file)";
	case NAME_COMMIT:
		return "a commit";
	case NAME_SERIES:
		return "a series";
	case NAME_METRIC:
		return "a metric name";
	}
	return "a name";
}
