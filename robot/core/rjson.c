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

/* Whether c may be in a JSON number after its first character. */
static bool
number_char(char c)
{
	return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' ||
	       c == '+' || c == '-';
}

/* Whether the integer at s, of that many digits, is beyond int64. */
static bool
beyond_int64(const char *s, size_t digits)
{
	bool minus = *s == '-';

	if (digits != 19)
		return digits > 19;
	return strncmp(s + minus,
		       minus ? "9223372036854775808" : "9223372036854775807",
		       19) > 0;
}

json_t *
rjson_loadb(const char *buf, size_t len, json_error_t *err)
{
	json_error_t e;
	json_t *j;
	struct buf b;
	bool in_string = false;
	size_t i = 0;

	if (err == NULL)
		err = &e;
	j = json_loadb(buf, len, 0, err);
	if (j != NULL || json_error_code(err) != json_error_numeric_overflow)
		return j;
	/* Again, with every integer beyond int64 made a real. */
	buf_init(&b);
	while (i < len) {
		char c = buf[i];
		size_t k = i + 1, digits = 0;
		bool integer = true;

		if (in_string) {
			if (c == '\\' && i + 1 < len) {
				buf_add(&b, buf + i, 2);
				i += 2;
				continue;
			}
			in_string = c != '"';
			buf_addc(&b, c);
			i++;
			continue;
		}
		if (c == '"')
			in_string = true;
		if (c != '-' && (c < '0' || c > '9')) {
			buf_addc(&b, c);
			i++;
			continue;
		}
		digits = c != '-';
		while (k < len && number_char(buf[k])) {
			if (buf[k] >= '0' && buf[k] <= '9')
				digits++;
			else if (buf[k] != '-')
				integer = false;
			k++;
		}
		buf_add(&b, buf + i, k - i);
		if (integer && beyond_int64(buf + i, digits))
			buf_adds(&b, ".0");
		i = k;
	}
	j = json_loadb(b.data, b.len, 0, err);
	buf_release(&b);
	return j;
}

json_t *
rjson_loads(const char *text, json_error_t *err)
{
	return rjson_loadb(text, strlen(text), err);
}

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
