/*
 * rjson.c: jansson helpers.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "robot/core/buf.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/str.h"
#include "robot/core/banned.h"

json_t *
rjson_string_lossy(const char *s, size_t len)
{
	struct buf b;
	json_t *j;
	size_t i = 0;

	if (str_utf8_valid(s, len))
		return json_stringn(s, len);
	buf_init(&b);
	while (i < len) {
		size_t n =
			str_utf8_seq_len((const unsigned char *)s + i, len - i);

		if (n > 0) {
			buf_add(&b, s + i, n);
			i += n;
		} else {
			buf_adds(&b, "\xef\xbf\xbd");
			i++;
		}
	}
	j = json_stringn(b.data, b.len);
	buf_release(&b);
	if (j == NULL)
		fatalx("cannot make a JSON string");
	return j;
}

char *
rjson_dumps(const json_t *j, size_t flags)
{
	char *s = json_dumps(j, flags | JSON_ENCODE_ANY);

	if (s == NULL)
		fatalx("cannot encode JSON (out of memory or invalid value)");
	return s;
}

bool
rjson_print(const json_t *j, FILE *fp)
{
	if (json_dumpf(j, fp, JSON_INDENT(2) | JSON_ENCODE_ANY) != 0)
		return false;
	return fputc('\n', fp) != EOF;
}

const char *
rjson_get_str(const json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key));
}

bool
rjson_get_number(const json_t *obj, const char *key, double *out)
{
	const json_t *v = json_object_get(obj, key);
	double d;

	if (json_is_integer(v))
		d = (double)json_integer_value(v);
	else if (json_is_real(v))
		d = json_real_value(v);
	else
		return false;
	if (!isfinite(d))
		return false;
	*out = d;
	return true;
}
