/*
 * mail.c: RFC 5322 messages (mail.h).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "reporters/mail.h"
#include "robot/core/buf.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

#define MAIL_FOLD       78  /* columns a header line aims for */
#define MAIL_LINE_MAX   998 /* bytes a line may have, CRLF aside */
#define MAIL_HEADER_MAX 900 /* bytes of text a header value keeps */
#define MAIL_WORD_BYTES 45  /* text bytes per encoded-word: 60 in base64 */

/*
 * Untrusted text as clean UTF-8: invalid bytes become U+FFFD; control
 * characters (C0, DEL, C1) become spaces and bidi controls go (they make
 * text read otherwise than it is), except that keep_lines keeps
 * "\n" and "\t" (a body) where a header keeps neither.
 */
static void
clean_utf8(struct buf *out, const char *s, bool keep_lines)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s);

	for (size_t i = 0; i < len;) {
		size_t n = str_utf8_seq_len(p + i, len - i);

		if (n == 0) {
			buf_adds(out, "\xef\xbf\xbd");
			i++;
		} else if (n == 1 && (p[i] < 0x20 || p[i] == 0x7f)) {
			if (keep_lines && (p[i] == '\n' || p[i] == '\t'))
				buf_addc(out, (char)p[i]);
			else
				buf_addc(out, ' ');
			i++;
		} else if (n == 2 && p[i] == 0xc2 && p[i + 1] < 0xa0) {
			buf_addc(out, ' '); /* C1 controls */
			i += 2;
		} else if (n == 3 && p[i] == 0xe2 &&
			   ((p[i + 1] == 0x80 &&
			     ((p[i + 2] >= 0xaa && p[i + 2] <= 0xae) ||
			      p[i + 2] == 0x8e || p[i + 2] == 0x8f)) ||
			    (p[i + 1] == 0x81 && p[i + 2] >= 0xa6 &&
			     p[i + 2] <= 0xa9))) {
			i += 3; /* bidi controls: text that reads otherwise */
		} else {
			buf_add(out, p + i, n);
			i += n;
		}
	}
}

static bool
is_ascii_word(const char *w, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)w[i] >= 0x80)
			return false;
	/* An ASCII word that reads as an encoded-word, or too long to fold,
	 * is encoded too. */
	return len <= MAIL_FOLD - 10 && memmem(w, len, "=?", 2) == NULL;
}

static void
base64(struct buf *out, const unsigned char *p, size_t len)
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqr"
				  "stuvwxyz0123456789+/";

	for (size_t i = 0; i < len; i += 3) {
		unsigned v = (unsigned)p[i] << 16;

		if (i + 1 < len)
			v |= (unsigned)p[i + 1] << 8;
		if (i + 2 < len)
			v |= p[i + 2];
		buf_addc(out, abc[(v >> 18) & 63]);
		buf_addc(out, abc[(v >> 12) & 63]);
		buf_addc(out, i + 1 < len ? abc[(v >> 6) & 63] : '=');
		buf_addc(out, i + 2 < len ? abc[v & 63] : '=');
	}
}

/* The tokens of a header line, each on the line as it is or folded
 * before it. */
struct tokens {
	char **v;
	size_t n;
};

static void
tokens_add(struct tokens *t, char *s)
{
	t->v = xreallocarray(t->v, t->n + 1, sizeof *t->v);
	t->v[t->n++] = s;
}

/* The phrase p[0..len) (clean UTF-8, spaces inside) as encoded-words of
 * at most MAIL_WORD_BYTES bytes each, never cutting a character. */
static void
encode_phrase(struct tokens *t, const char *p, size_t len)
{
	for (size_t i = 0; i < len;) {
		size_t end = i;
		struct buf b;

		while (end < len) {
			size_t n = str_utf8_seq_len(
				(const unsigned char *)p + end, len - end);

			if (n == 0)
				n = 1;
			if (end + n - i > MAIL_WORD_BYTES && end > i)
				break;
			end += n;
		}
		buf_init(&b);
		buf_adds(&b, "=?UTF-8?B?");
		base64(&b, (const unsigned char *)p + i, end - i);
		buf_adds(&b, "?=");
		tokens_add(t, buf_detach(&b));
		i = end;
	}
}

char *
mail_header_value(const char *name, const char *text)
{
	struct buf clean, out;
	struct tokens t = {NULL, 0};
	char *s;
	size_t len, col, i = 0;

	buf_init(&clean);
	clean_utf8(&clean, text != NULL ? text : "", false);
	s = buf_detach(&clean);
	len = strlen(s);
	if (len > MAIL_HEADER_MAX) {
		len = MAIL_HEADER_MAX;
		char *cut;

		while (len > 0 && ((unsigned char)s[len] & 0xc0) == 0x80)
			len--; /* not inside a character */
		cut = xasprintf("%.*s...", (int)len, s);
		free(s);
		s = cut;
		len += 3;
	}
	/* Words; a run of words that need encoding is one phrase (the space
	 * between two encoded-words would be lost when read). */
	while (i < len) {
		size_t start, end;

		while (i < len && s[i] == ' ')
			i++;
		if (i == len)
			break;
		start = i;
		while (i < len && s[i] != ' ')
			i++;
		if (is_ascii_word(s + start, i - start)) {
			tokens_add(&t, xstrndup(s + start, i - start));
			continue;
		}
		end = i;
		for (;;) {
			size_t j = end, ws;

			while (j < len && s[j] == ' ')
				j++;
			ws = j;
			while (j < len && s[j] != ' ')
				j++;
			if (ws == len || is_ascii_word(s + ws, j - ws))
				break;
			end = j;
		}
		encode_phrase(&t, s + start, end - start);
		i = end;
	}
	buf_init(&out);
	col = strlen(name) + 2;
	for (size_t k = 0; k < t.n; k++) {
		size_t n = strlen(t.v[k]);

		if (k > 0 && col + 1 + n > MAIL_FOLD) {
			buf_adds(&out, "\r\n ");
			col = 1;
		} else if (k > 0) {
			buf_addc(&out, ' ');
			col++;
		}
		buf_adds(&out, t.v[k]);
		col += n;
		free(t.v[k]);
	}
	free(t.v);
	free(s);
	return buf_detach(&out);
}

const char *
mail_address_check(const char *s)
{
	static const char local_ok[] = "!#$%&'*+/=?^_`{|}~.-";
	const char *at = strrchr(s, '@'), *p;
	size_t llen;

	if (strlen(s) > MAIL_ADDRESS_MAX)
		return "an address has at most 254 characters";
	if (at == NULL)
		return "an address is local@domain";
	llen = (size_t)(at - s);
	if (llen == 0 || llen > 64)
		return "the part before '@' has 1 to 64 characters";
	for (p = s; p < at; p++)
		if (!isalnum((unsigned char)*p) && strchr(local_ok, *p) == NULL)
			return "the part before '@' has letters, digits and "
			       "!#$%&'*+/=?^_`{|}~.- only";
	if (s[0] == '.' || at[-1] == '.' || memmem(s, llen, "..", 2) != NULL)
		return "the part before '@' has no leading, trailing or "
		       "double dot";
	for (p = at + 1;;) {
		size_t n = strcspn(p, ".");

		if (n == 0 || n > 63)
			return "the domain is labels of 1 to 63 characters "
			       "between dots";
		for (size_t i = 0; i < n; i++)
			if (!isalnum((unsigned char)p[i]) && p[i] != '-')
				return "the domain has letters, digits, '-' "
				       "and dots only";
		if (p[0] == '-' || p[n - 1] == '-')
			return "a domain label neither starts nor ends with "
			       "'-'";
		if (p[n] == '\0')
			return NULL;
		p += n + 1;
	}
}

char *
mail_address_of(const char *text)
{
	const char *lt = strrchr(text, '<'), *gt;
	char *a;

	if (lt != NULL && (gt = strchr(lt, '>')) != NULL)
		a = xstrndup(lt + 1, (size_t)(gt - lt - 1));
	else {
		while (isspace((unsigned char)*text))
			text++;
		a = xstrdup(text);
		for (size_t n = strlen(a);
		     n > 0 && isspace((unsigned char)a[n - 1]); n--)
			a[n - 1] = '\0';
	}
	for (char *c = a; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	if (mail_address_check(a) != NULL) {
		free(a);
		return NULL;
	}
	return a;
}

const char *
mail_domain(const char *address)
{
	const char *at = strrchr(address, '@');

	return at != NULL ? at + 1 : address;
}

/* One of our own header values (an address, a Message-ID, a URL): made
 * of checked parts, and still kept to printable ASCII. */
static void
add_own(struct buf *b, const char *name, const char *value)
{
	buf_adds(b, name);
	buf_adds(b, ": ");
	for (const char *p = value; *p; p++)
		if ((unsigned char)*p > 0x20 && (unsigned char)*p < 0x7f)
			buf_addc(b, *p);
	buf_adds(b, "\r\n");
}

static void
add_header(struct buf *b, const char *name, const char *text)
{
	char *v = mail_header_value(name, text);

	buf_adds(b, name);
	buf_adds(b, ": ");
	buf_adds(b, v);
	buf_adds(b, "\r\n");
	free(v);
}

/* Text as body lines: CRLF, none over MAIL_LINE_MAX bytes. */
static void
add_body(struct buf *b, const char *text)
{
	struct buf clean;
	const char *p;

	buf_init(&clean);
	clean_utf8(&clean, text, true);
	buf_addc(&clean, '\0');
	for (p = clean.data; *p != '\0';) {
		size_t n = strcspn(p, "\n");

		while (n > MAIL_LINE_MAX) {
			size_t cut = MAIL_LINE_MAX;

			while (cut > 0 &&
			       ((unsigned char)p[cut] & 0xc0) == 0x80)
				cut--;
			buf_add(b, p, cut);
			buf_adds(b, "\r\n");
			p += cut;
			n -= cut;
		}
		buf_add(b, p, n);
		buf_adds(b, "\r\n");
		p += n;
		if (*p == '\n')
			p++;
	}
	buf_release(&clean);
}

char *
mail_format(const struct mail *m)
{
	struct buf b;
	struct tm tm;
	char date[64];
	bool name_ok = m->from_name != NULL && m->from_name[0] != '\0';

	for (const char *p = m->from_name; name_ok && *p; p++)
		name_ok = isalnum((unsigned char)*p) || strchr(" ._-", *p);
	gmtime_r(&m->date, &tm);
	strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S +0000", &tm);
	buf_init(&b);
	buf_addf(&b, "Date: %s\r\n", date);
	buf_adds(&b, "From: ");
	if (name_ok) {
		buf_adds(&b, m->from_name);
		buf_adds(&b, " ");
	}
	buf_adds(&b, "<");
	for (const char *p = m->from; *p; p++)
		if ((unsigned char)*p > 0x20 && (unsigned char)*p < 0x7f)
			buf_addc(&b, *p);
	buf_adds(&b, ">\r\n");
	add_own(&b, "To", m->to);
	if (m->reply_to != NULL) {
		char *r = xasprintf("<%s>", m->reply_to);

		add_own(&b, "Reply-To", r);
		free(r);
	}
	add_header(&b, "Subject", m->subject);
	add_own(&b, "Message-ID", m->message_id);
	if (m->in_reply_to != NULL) {
		add_own(&b, "In-Reply-To", m->in_reply_to);
		add_own(&b, "References", m->in_reply_to);
	}
	buf_adds(&b, "MIME-Version: 1.0\r\n"
		     "Content-Type: text/plain; charset=utf-8\r\n"
		     "Content-Transfer-Encoding: 8bit\r\n"
		     "Auto-Submitted: auto-generated\r\n");
	if (m->list_id != NULL)
		add_own(&b, "List-Id", m->list_id);
	if (m->unsubscribe != NULL) {
		char *u = xasprintf("<%s>", m->unsubscribe);

		add_own(&b, "List-Unsubscribe", u);
		free(u);
		buf_adds(&b, "List-Unsubscribe-Post: "
			     "List-Unsubscribe=One-Click\r\n");
	}
	if (m->report != NULL)
		add_own(&b, "X-Robot-Report", m->report);
	buf_adds(&b, "\r\n");
	add_body(&b, m->body);
	if (m->footer != NULL) {
		buf_adds(&b, "-- \r\n");
		add_body(&b, m->footer);
	}
	return buf_detach(&b);
}
