/*
 * str.c: string helpers.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "robot/core/buf.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

size_t
str_utf8_seq_len(const unsigned char *s, size_t len)
{
	size_t n;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4;
		cp = s[0] & 0x07;
	} else
		return 0;
	if (n > len)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) ||
	    (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

char *
str_utf8_fix(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out = xmalloc(3 * len + 1), *o = out;

	while (len > 0) {
		size_t n = *p == '\0' ? 0 : str_utf8_seq_len(p, len);

		if (n == 0) {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
			n = 1;
		} else {
			memcpy(o, p, n);
			o += n;
		}
		p += n;
		len -= n;
	}
	*o = '\0';
	return out;
}

bool
str_utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	while (len > 0) {
		size_t n = str_utf8_seq_len(p, len);

		if (n == 0)
			return false;
		p += n;
		len -= n;
	}
	return true;
}

char *
str_printable(const char *s, size_t len, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	struct buf b;
	size_t i = 0;

	buf_init(&b);
	while (i < len) {
		size_t n = str_utf8_seq_len(p + i, len - i);

		if (b.len >= max) {
			buf_adds(&b, "...");
			break;
		}
		if (n == 1 && isprint(p[i]))
			buf_addc(&b, (char)p[i]);
		else if (n > 1)
			buf_add(&b, p + i, n);
		else {
			buf_addf(&b, "\\x%02x", p[i]);
			n = 1;
		}
		i += n;
	}
	return buf_detach(&b);
}

char *
str_quote(const char *s)
{
	return str_printable(s, strlen(s), 80);
}

bool
str_has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool
str_has_suffix(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

size_t
str_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *d, r;

	if (la > 64 || lb > 64)
		return SIZE_MAX;
	d = xcalloc((la + 1) * (lb + 1), sizeof *d);
#define D(i, j) d[(i) * (lb + 1) + (j)]
	for (size_t i = 0; i <= la; i++)
		D(i, 0) = i;
	for (size_t j = 0; j <= lb; j++)
		D(0, j) = j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			size_t cost =
				tolower((unsigned char)a[i - 1]) ==
						tolower((unsigned char)b[j - 1])
					? 0
					: 1;
			size_t v = D(i - 1, j) + 1;

			if (D(i, j - 1) + 1 < v)
				v = D(i, j - 1) + 1;
			if (D(i - 1, j - 1) + cost < v)
				v = D(i - 1, j - 1) + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && D(i - 2, j - 2) + 1 < v)
				v = D(i - 2, j - 2) + 1;
			D(i, j) = v;
		}
	}
	r = D(la, lb);
#undef D
	free(d);
	return r;
}

const char *
str_closest(const char *word, const char *const *candidates)
{
	const char *best = NULL;
	size_t best_d = SIZE_MAX, len = strlen(word);
	/* One slip in a short word, two in a longer one, three at most. */
	size_t limit = len <= 4 ? 1 : len <= 8 ? 2 : 3;

	for (size_t i = 0; candidates[i] != NULL; i++) {
		size_t dist = str_edit_distance(word, candidates[i]);

		if (dist < best_d) {
			best_d = dist;
			best = candidates[i];
		}
	}
	return best_d <= limit ? best : NULL;
}

char *
str_ruby_float(double d)
{
	char tmp[64];
	int prec, exp10, decimals;
	char *dot;
	size_t len;

	if (isnan(d))
		return xstrdup("NaN");
	if (isinf(d))
		return xstrdup(d > 0 ? "Infinity" : "-Infinity");
	if (d == 0)
		return xstrdup(signbit(d) ? "-0.0" : "0.0");
	/* The fewest significant digits that read back the same. */
	for (prec = 1; prec < 17; prec++) {
		snprintf(tmp, sizeof tmp, "%.*e", prec - 1, d);
		if (strtod(tmp, NULL) == d)
			break;
	}
	exp10 = atoi(strchr(tmp, 'e') + 1);
	if (exp10 < -4 || exp10 >= 16) {
		/* Ruby: 1.0e+20, 1.5e-05 */
		char mant[32];

		snprintf(mant, sizeof mant, "%.*e", prec - 1, d);
		*strchr(mant, 'e') = '\0';
		if (strchr(mant, '.') == NULL)
			return xasprintf("%s.0e%c%02d", mant,
					 exp10 < 0 ? '-' : '+', abs(exp10));
		return xasprintf("%se%c%02d", mant, exp10 < 0 ? '-' : '+',
				 abs(exp10));
	}
	decimals = prec - 1 - exp10;
	if (decimals < 1)
		decimals = 1;
	snprintf(tmp, sizeof tmp, "%.*f", decimals, d);
	/* Drop trailing zeros, but keep one digit after the point. */
	dot = strchr(tmp, '.');
	len = strlen(tmp);
	while (len > (size_t)(dot - tmp) + 2 && tmp[len - 1] == '0')
		tmp[--len] = '\0';
	return xstrdup(tmp);
}

const char *
str_trim_blanks(const char *s, size_t *len)
{
	while (*len > 0 && (*s == ' ' || *s == '\t')) {
		s++;
		(*len)--;
	}
	while (*len > 0 && (s[*len - 1] == ' ' || s[*len - 1] == '\t'))
		(*len)--;
	return s;
}
