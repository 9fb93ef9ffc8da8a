/*
 * mailin.c: mail to robot (mailin.h): a reply parsed, its triage
 * commands found, applied through the store and answered.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "reporters/crypto.h"
#include "reporters/mail.h"
#include "reporters/mailin.h"
#include "robot/analysis/triage.h"
#include "robot/core/buf.h"
#include "robot/core/fsm.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/defer.h"
#include "robot/daemon/problem.h"
#include "robot/daemon/store/reports.h"
#include "robot/core/banned.h"

#define HEADERS_MAX 500   /* header fields read of one part */
#define DEPTH_MAX   8     /* multiparts within multiparts */
#define HEADER_MAX  65536 /* bytes of one unfolded field */

/* One part's header fields, unfolded. */
struct fields {
	char *name[HEADERS_MAX], *value[HEADERS_MAX];
	size_t n;
};

static void
fields_release(struct fields *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->name[i]);
		free(f->value[i]);
	}
	f->n = 0;
}

/* The end of the line at p (its '\n', or end), and its length without a
 * '\r' before the '\n'. */
static const char *
line_end(const char *p, const char *end, size_t *len)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	if (nl == NULL)
		nl = end;
	*len = (size_t)(nl - p);
	if (*len > 0 && p[*len - 1] == '\r')
		(*len)--;
	return nl;
}

/* Reads the header fields at p into f: where the body starts (after the
 * blank line), or end when there is none. */
static const char *
fields_read(const char *p, const char *end, struct fields *f)
{
	struct buf v;
	char *name = NULL;

	buf_init(&v);
	f->n = 0;
	while (p < end) {
		size_t len;
		const char *nl = line_end(p, end, &len), *colon;

		if (len == 0) {
			p = nl < end ? nl + 1 : end;
			break;
		}
		if ((*p == ' ' || *p == '\t') && name != NULL) {
			/* a folded line goes on the field before */
			if (v.len + len < HEADER_MAX) {
				buf_addc(&v, ' ');
				buf_add(&v, p, len);
			}
		} else if ((colon = memchr(p, ':', len)) != NULL && colon > p) {
			if (name != NULL && f->n < HEADERS_MAX) {
				f->name[f->n] = name;
				f->value[f->n++] = buf_detach(&v);
				buf_init(&v);
			} else {
				free(name);
				buf_reset(&v);
			}
			name = xstrndup(p, (size_t)(colon - p));
			colon++;
			while (colon < p + len &&
			       (*colon == ' ' || *colon == '\t'))
				colon++;
			buf_add(&v, colon, (size_t)(p + len - colon));
		}
		/* (else: an mbox "From " line, or junk: not a field) */
		p = nl < end ? nl + 1 : end;
	}
	if (name != NULL && f->n < HEADERS_MAX) {
		f->name[f->n] = name;
		f->value[f->n++] = buf_detach(&v);
	} else {
		free(name);
		buf_release(&v);
	}
	return p;
}

static const char *
field(const struct fields *f, const char *name)
{
	for (size_t i = 0; i < f->n; i++)
		if (strcasecmp(f->name[i], name) == 0)
			return f->value[i];
	return NULL;
}

/* A Content-Type's parameter (boundary, charset), unquoted, or NULL. */
static char *
ct_param(const char *ct, const char *name)
{
	size_t nl = strlen(name);

	for (const char *p = ct ? strchr(ct, ';') : NULL; p != NULL;
	     p = strchr(p + 1, ';')) {
		const char *q = p + 1, *e;

		while (*q == ' ' || *q == '\t')
			q++;
		if (strncasecmp(q, name, nl) != 0 || q[nl] != '=')
			continue;
		q += nl + 1;
		if (*q == '"') {
			e = strchr(++q, '"');
			return e ? xstrndup(q, (size_t)(e - q)) : NULL;
		}
		for (e = q; *e && *e != ';' && *e != ' ' && *e != '\t'; e++)
			;
		return e > q ? xstrndup(q, (size_t)(e - q)) : NULL;
	}
	return NULL;
}

/* Whether ct's type is type ("text/plain"); a missing one is text/plain. */
static bool
ct_is(const char *ct, const char *type)
{
	size_t n = strlen(type);

	if (ct == NULL)
		return strcmp(type, "text/plain") == 0;
	while (*ct == ' ')
		ct++;
	return strncasecmp(ct, type, n) == 0 &&
	       (ct[n] == '\0' || ct[n] == ';' || ct[n] == ' ');
}

static int
hexval(int c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				      : -1;
}

static void
qp_decode(const char *p, size_t len, struct buf *out)
{
	for (size_t i = 0; i < len; i++) {
		if (p[i] != '=') {
			buf_addc(out, p[i]);
		} else if (i + 2 < len && hexval(p[i + 1]) >= 0 &&
			   hexval(p[i + 2]) >= 0) {
			buf_addc(out, (char)(hexval(p[i + 1]) * 16 +
					     hexval(p[i + 2])));
			i += 2;
		} else if (i + 1 < len &&
			   (p[i + 1] == '\n' || p[i + 1] == '\r')) {
			/* a soft break */
			i++;
			if (p[i] == '\r' && i + 1 < len && p[i + 1] == '\n')
				i++;
		} else {
			buf_addc(out, '=');
		}
	}
}

static int
b64val(int c)
{
	return c >= 'A' && c <= 'Z'   ? c - 'A'
	       : c >= 'a' && c <= 'z' ? c - 'a' + 26
	       : c >= '0' && c <= '9' ? c - '0' + 52
	       : c == '+'             ? 62
	       : c == '/'             ? 63
				      : -1;
}

static void
b64_decode(const char *p, size_t len, struct buf *out)
{
	unsigned acc = 0;
	int bits = 0;

	for (size_t i = 0; i < len && p[i] != '='; i++) {
		int v = b64val((unsigned char)p[i]);

		if (v < 0)
			continue; /* line breaks, blanks, junk */
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			buf_addc(out, (char)((acc >> bits) & 0xff));
		}
	}
}

/* A part's body, decoded as its fields say, as UTF-8 text in out. */
static void
body_text(const struct fields *f, const char *p, size_t len, struct buf *out)
{
	const char *cte = field(f, "Content-Transfer-Encoding");
	char *charset = ct_param(field(f, "Content-Type"), "charset");
	struct buf raw;
	char *fixed;

	buf_init(&raw);
	while (cte != NULL && (*cte == ' ' || *cte == '\t'))
		cte++;
	if (cte != NULL && strncasecmp(cte, "quoted-printable", 16) == 0)
		qp_decode(p, len, &raw);
	else if (cte != NULL && strncasecmp(cte, "base64", 6) == 0)
		b64_decode(p, len, &raw);
	else
		buf_add(&raw, p, len);
	if (charset != NULL && (strcasecmp(charset, "iso-8859-1") == 0 ||
				strcasecmp(charset, "latin1") == 0 ||
				strcasecmp(charset, "iso-8859-15") == 0 ||
				strcasecmp(charset, "windows-1252") == 0)) {
		/* Latin-1: each byte its code point */
		for (size_t i = 0; i < raw.len; i++) {
			unsigned char c = (unsigned char)raw.data[i];

			if (c < 0x80) {
				buf_addc(out, (char)c);
			} else {
				buf_addc(out, (char)(0xc0 | (c >> 6)));
				buf_addc(out, (char)(0x80 | (c & 0x3f)));
			}
		}
	} else {
		/* UTF-8 and ASCII; any other, its ASCII kept */
		fixed = str_utf8_fix(raw.data, raw.len);
		buf_adds(out, fixed);
		free(fixed);
	}
	free(charset);
	buf_release(&raw);
}

/* HTML made text: tags dropped, line breaks where blocks end, a few
 * entities, and the lines of a blockquote quoted ("> "). */
static void
html_text_of(const char *h, struct buf *out)
{
	int quote = 0;
	bool bol = true;

	for (const char *p = h; *p;) {
		if (*p == '<') {
			const char *e = strchr(p, '>');
			bool close = p[1] == '/';
			const char *tag = p + 1 + close;

			if (e == NULL)
				break;
			if (strncasecmp(tag, "blockquote", 10) == 0)
				quote += close ? (quote > 0 ? -1 : 0) : 1;
			if (strncasecmp(tag, "br", 2) == 0 ||
			    (close &&
			     (strncasecmp(tag, "p", 1) == 0 ||
			      strncasecmp(tag, "div", 3) == 0 ||
			      strncasecmp(tag, "blockquote", 10) == 0))) {
				buf_addc(out, '\n');
				bol = true;
			}
			if (!close && (strncasecmp(tag, "style", 5) == 0 ||
				       strncasecmp(tag, "script", 6) == 0)) {
				const char *c = strcasestr(
					e,
					tag[1] == 't' ? "</style" : "</script");

				e = c ? strchr(c, '>') : NULL;
				if (e == NULL)
					break;
			}
			p = e + 1;
			continue;
		}
		if (bol && quote > 0)
			buf_adds(out, "> ");
		bol = false;
		if (*p == '&') {
			static const struct {
				const char *e, *c;
			} ents[] = {{"&lt;", "<"},   {"&gt;", ">"},
				    {"&amp;", "&"},  {"&quot;", "\""},
				    {"&#39;", "'"},  {"&nbsp;", " "},
				    {"&#160;", " "}, {NULL, NULL}};
			size_t k;

			for (k = 0; ents[k].e != NULL; k++)
				if (strncasecmp(p, ents[k].e,
						strlen(ents[k].e)) == 0)
					break;
			if (ents[k].e != NULL) {
				buf_adds(out, ents[k].c);
				p += strlen(ents[k].e);
				continue;
			}
		}
		if (*p == '\n') {
			buf_addc(out, '\n');
			bol = true;
		} else if (*p != '\r') {
			buf_addc(out, *p);
		}
		p++;
	}
}

/* What the walk of the parts found: the first plain text, else the
 * first HTML. */
struct found {
	struct buf plain, html;
	bool have_plain, have_html;
	size_t parts;
};

static void
walk(const struct fields *f, const char *p, const char *end, int depth,
     struct found *fd)
{
	const char *ct = field(f, "Content-Type");
	const char *cd = field(f, "Content-Disposition");
	char *boundary;

	if (++fd->parts > MAILIN_PARTS)
		return;
	if (cd != NULL) {
		while (*cd == ' ')
			cd++;
		if (strncasecmp(cd, "attachment", 10) == 0)
			return;
	}
	if (ct != NULL &&
	    strncasecmp(ct + strspn(ct, " "), "multipart/", 10) == 0) {
		size_t bl;
		const char *q = p, *start = NULL;

		boundary = ct_param(ct, "boundary");
		if (boundary == NULL || depth >= DEPTH_MAX) {
			free(boundary);
			return;
		}
		bl = strlen(boundary);
		while (q < end) {
			size_t len;
			const char *nl = line_end(q, end, &len);
			bool delim = len >= bl + 2 && q[0] == '-' &&
				     q[1] == '-' &&
				     memcmp(q + 2, boundary, bl) == 0;

			if (delim && fd->parts > MAILIN_PARTS)
				break;
			if (delim) {
				if (start != NULL) {
					struct fields pf;
					const char *body, *pend = q;

					/* (the line break before the
					 * delimiter is the delimiter's) */
					if (pend > start && pend[-1] == '\n')
						pend--;
					if (pend > start && pend[-1] == '\r')
						pend--;
					body = fields_read(start, pend, &pf);
					walk(&pf, body, pend, depth + 1, fd);
					fields_release(&pf);
				}
				if (len >= bl + 4 && q[bl + 2] == '-' &&
				    q[bl + 3] == '-')
					break; /* the closing delimiter */
				start = nl < end ? nl + 1 : end;
			}
			q = nl < end ? nl + 1 : end;
		}
		free(boundary);
		return;
	}
	if (ct_is(ct, "text/plain") && !fd->have_plain) {
		body_text(f, p, (size_t)(end - p), &fd->plain);
		fd->have_plain = true;
	} else if (ct_is(ct, "text/html") && !fd->have_html) {
		struct buf h;

		buf_init(&h);
		body_text(f, p, (size_t)(end - p), &h);
		html_text_of(h.data, &fd->html);
		buf_release(&h);
		fd->have_html = true;
	}
}

/* The reply token in an address list: "+rREPORT.HASH@" (20 hex). */
static char *
token_in(const char *v)
{
	for (const char *p = v ? strstr(v, "+r") : NULL; p != NULL;
	     p = strstr(p + 1, "+r")) {
		const char *q = p + 2;
		size_t d = strspn(q, "0123456789");

		if (d < 1 || d > 18 || q[d] != '.')
			continue;
		q += d + 1;
		if (strspn(q, "0123456789abcdef") == 20 && q[20] == '@')
			return xstrndup(p + 1, (size_t)(q + 20 - (p + 1)));
	}
	return NULL;
}

void
mailin_release(struct mailin *m)
{
	free(m->from);
	free(m->message_id);
	free(m->subject);
	free(m->token);
	free(m->text);
	memset(m, 0, sizeof *m);
}

bool
mailin_parse(const char *msg, size_t len, struct mailin *m, char *err,
	     size_t errlen)
{
	static const char *const to_fields[] = {"To",           "Cc",
						"Delivered-To", "X-Original-To",
						"Envelope-To",  NULL};
	struct fields *f = xcalloc(1, sizeof *f);
	struct found fd;
	const char *body, *end = msg + len, *v;

	memset(m, 0, sizeof *m);
	err[0] = '\0';
	if (len > MAILIN_MAX) {
		snprintf(err, errlen, "a mail of %zu bytes: at most %u", len,
			 MAILIN_MAX);
		free(f);
		return false;
	}
	body = fields_read(msg, end, f);
	if (f->n == 0 || field(f, "From") == NULL) {
		snprintf(err, errlen, "no mail: no header fields, or no From");
		fields_release(f);
		free(f);
		return false;
	}
	v = field(f, "From");
	m->from = mail_address_of(v);
	v = field(f, "Message-ID");
	if (v != NULL) {
		char *id = mail_address_of(v); /* (its "<...>" checked) */

		if (id != NULL && strchr(v, '<') != NULL)
			m->message_id = xasprintf("<%s>", id);
		free(id);
	}
	if (m->message_id == NULL) {
		char *s = xstrndup(msg, len), *h = crypto_sha256(s);

		m->message_id = xasprintf("<sha256.%s@mail-in>", h);
		free(s);
		free(h);
	}
	if ((v = field(f, "Subject")) != NULL)
		m->subject = str_utf8_fix(v, strlen(v));
	for (size_t i = 0; to_fields[i] != NULL && m->token == NULL; i++)
		for (size_t k = 0; k < f->n && m->token == NULL; k++)
			if (strcasecmp(f->name[k], to_fields[i]) == 0)
				m->token = token_in(f->value[k]);
	/* A bounce or an auto-reply is never answered (RFC 3834). */
	v = field(f, "Auto-Submitted");
	m->automatic =
		(v != NULL && strncasecmp(v, "no", 2) != 0) ||
		field(f, "X-Autoreply") != NULL ||
		field(f, "X-Autorespond") != NULL ||
		((v = field(f, "Precedence")) != NULL &&
		 (strcasecmp(v, "bulk") == 0 || strcasecmp(v, "junk") == 0 ||
		  strcasecmp(v, "list") == 0)) ||
		((v = field(f, "Return-Path")) != NULL &&
		 strcmp(v, "<>") == 0) ||
		(m->from != NULL &&
		 (strncmp(m->from, "mailer-daemon@", 14) == 0 ||
		  strncmp(m->from, "postmaster@", 11) == 0));
	memset(&fd, 0, sizeof fd);
	buf_init(&fd.plain);
	buf_init(&fd.html);
	walk(f, body, end, 0, &fd);
	if (fd.have_plain) {
		m->text = buf_detach(&fd.plain);
		buf_release(&fd.html);
	} else {
		m->text = buf_detach(&fd.html);
		buf_release(&fd.plain);
	}
	fields_release(f);
	free(f);
	return true;
}

json_t *
mailin_commands(const char *text)
{
	json_t *list = json_array();
	size_t n = 0;

	for (const char *p = text; p != NULL && *p;) {
		const char *nl = strchr(p, '\n'), *s = p;
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		struct triage_cmd c;
		char err[256], *line;

		if (len > 0 && p[len - 1] == '\r')
			len--;
		/* the signature, an original quoted below */
		if ((len == 3 && memcmp(p, "-- ", 3) == 0) ||
		    (len >= 26 &&
		     strncasecmp(p, "-----Original Message-----", 26) == 0))
			break;
		while (s < p + len && (*s == ' ' || *s == '\t'))
			s++;
		if (s < p + len && *s != '>' && (size_t)(p + len - s) >= 6 &&
		    strncasecmp(s, "#robot", 6) == 0 &&
		    (s + 6 == p + len || s[6] == ' ' || s[6] == '\t' ||
		     s[6] == ':')) {
			line = str_printable(s, (size_t)(p + len - s), 200);
			if (++n > MAILIN_COMMANDS) {
				json_array_append_new(
					list, json_pack("{s:s, s:s}", "line",
							line, "error",
							"at most 20 commands a "
							"mail: this one and "
							"those after it are "
							"not taken"));
				free(line);
				break;
			}
			if (triage_parse(s, (size_t)(p + len - s), &c, err,
					 sizeof err)) {
				char *cmd = triage_cmd_json(&c);

				json_array_append_new(
					list,
					json_pack("{s:s, s:o}", "line", line,
						  "command",
						  json_loads(cmd, 0, NULL)));
				free(cmd);
			} else {
				json_array_append_new(
					list, json_pack("{s:s, s:s}", "line",
							line, "error", err));
			}
			free(line);
		}
		p = nl ? nl + 1 : NULL;
	}
	return list;
}

char *
mailin_answer(json_t *taken, const char *subject_in, char **subject)
{
	const char *state = rjson_get_str(taken, "state");
	const char *refused = rjson_get_str(taken, "refused");
	const char *report = rjson_get_str(taken, "subject");
	json_t *results = json_object_get(taken, "results"), *r;
	struct buf b;
	size_t i;

	*subject = NULL;
	if (state == NULL || strcmp(state, "answering") != 0)
		return NULL;
	/* its subject: the report's, else the mail's own */
	if (report != NULL)
		*subject = xasprintf("Re: %s", report);
	else if (subject_in != NULL && strncasecmp(subject_in, "Re:", 3) == 0)
		*subject = xstrdup(subject_in);
	else
		*subject = xasprintf("Re: %s",
				     subject_in ? subject_in : "your mail");
	buf_init(&b);
	buf_adds(&b, "Hello,\n\n");
	if (refused != NULL) {
		buf_addf(&b,
			 "robot took none of the commands of your mail: %s.\n"
			 "Nothing changed.\n",
			 refused);
	} else {
		buf_adds(&b, "robot took your mail's commands:\n");
		json_array_foreach(results, i, r)
		{
			json_t *fs = json_object_get(r, "findings"), *x;
			size_t k;

			buf_addf(&b, "\n  %s\n", rjson_get_str(r, "line"));
			if (rjson_get_str(r, "error") != NULL) {
				buf_addf(&b, "    refused: %s\n",
					 rjson_get_str(r, "error"));
				continue;
			}
			if (json_array_size(fs) == 0)
				buf_adds(&b, "    the report tells of no "
					     "finding: nothing changed\n");
			json_array_foreach(fs, k, x)
			{
				buf_addf(&b, "    regression %lld: %s",
					 (long long)json_integer_value(
						 json_object_get(x, "id")),
					 rjson_get_str(x, "triage"));
				if (rjson_get_str(x, "triage_reason") != NULL)
					buf_addf(&b, " (%s)",
						 rjson_get_str(
							 x, "triage_reason"));
				buf_adds(&b, "\n");
			}
		}
	}
	buf_adds(&b, "\nThe commands are lines of their own, not quoted:\n"
		     "  #robot ack [WHO]\n"
		     "  #robot invalid: [box|test|noise|other:] WHY\n"
		     "  #robot wontfix: WHY\n"
		     "  #robot dup-of: ID\n"
		     "  #robot fixed-by: SHA\n"
		     "  #robot note: TEXT\n"
		     "  #robot link: URL\n"
		     "  #robot tag: NAME[, NAME...]\n"
		     "  #robot mute: 30d [WHY]     (its series, 30 days)\n"
		     "  #robot untriage\n");
	return buf_detach(&b);
}

/*
 * A mail being taken:
 *
 *   APPLYING (robot_mail_in()) --(answering)--> ANSWERING
 *       (robot_mail_in_answer()) --> done
 *   APPLYING --(ignored, replayed, or a problem)--> done
 */
enum take_state {
	TAKE_APPLYING,
	TAKE_ANSWERING,
};
static const char *const take_names[] = {
	[TAKE_APPLYING] = "applying",
	[TAKE_ANSWERING] = "answering",
};
static const struct fsm take_fsm =
	FSM("mail taken", take_names, TAKE_ANSWERING);

struct take {
	enum take_state state;
	struct store *s;
	char *subject_in;
	char *taken; /* robot_mail_in()'s answer */
	store_text_cb cb;
	void *arg;
};

static void
take_set_state(struct take *t, enum take_state to)
{
	FSM_SET(&take_fsm, t->state, to, "mail");
}

static void
take_free(struct take *t)
{
	free(t->subject_in);
	free(t->taken);
	free(t);
}

static void
take_on_answered(const char *text, const struct problem *p, void *arg)
{
	struct take *t = arg;

	(void)text;
	t->cb(p ? NULL : t->taken, p, t->arg);
	take_free(t);
}

static void
take_on_applied(const char *text, const struct problem *p, void *arg)
{
	struct take *t = arg;
	json_t *j;
	char *answer, *subject;

	if (p != NULL || text == NULL) {
		t->cb(text, p, t->arg);
		take_free(t);
		return;
	}
	t->taken = xstrdup(text);
	j = json_loads(text, 0, NULL);
	answer = j ? mailin_answer(j, t->subject_in, &subject) : NULL;
	log_info("mail %s from %s: %s%s%s",
		 j ? rjson_get_str(j, "message_id") : "?",
		 j && rjson_get_str(j, "from") ? rjson_get_str(j, "from")
					       : "nobody",
		 j ? rjson_get_str(j, "state") : "?",
		 j && rjson_get_str(j, "refused") ? ", refused: " : "",
		 j && rjson_get_str(j, "refused") ? rjson_get_str(j, "refused")
						  : "");
	if (answer == NULL) {
		t->cb(t->taken, NULL, t->arg);
		take_free(t);
	} else {
		take_set_state(t, TAKE_ANSWERING);
		store_mail_in_answer(
			t->s, json_integer_value(json_object_get(j, "id")),
			subject, answer, take_on_answered, t);
		free(answer);
		free(subject);
	}
	json_decref(j);
}

void
mailin_take(struct event_base *base, struct store *s, const char *msg,
	    size_t len, int box_limit, store_text_cb cb, void *arg)
{
	struct mailin m;
	struct take *t;
	char err[256], *text;
	json_t *in;

	if (!mailin_parse(msg, len, &m, err, sizeof err)) {
		mailin_release(&m);
		defer_problem(base,
			      problem_new(PROBLEM_INVALID, NULL, "%s", err), cb,
			      arg);
		return;
	}
	in = json_pack("{s:s, s:s?, s:s?, s:b, s:o, s:i}", "message_id",
		       m.message_id, "from", m.from, "token", m.token,
		       "automatic", m.automatic, "commands",
		       mailin_commands(m.text), "box_false_alarms", box_limit);
	text = rjson_dumps(in, JSON_COMPACT);
	t = xmalloc(sizeof *t);
	*t = (struct take){
		TAKE_APPLYING, s,  m.subject ? xstrdup(m.subject) : NULL,
		NULL,          cb, arg};
	store_mail_in(s, text, take_on_applied, t);
	free(text);
	json_decref(in);
	mailin_release(&m);
}

/*
 * A mail of the maildir being taken:
 *
 *   TAKING (mailin_take()) --(taken, or no mail)--> MOVED (to cur/)
 *   TAKING --(a problem of the database)--> LEFT (in new/, for the next
 *       look)
 */
enum maildir_state {
	MAILDIR_TAKING,
	MAILDIR_MOVED,
	MAILDIR_LEFT,
};
static const char *const maildir_names[] = {
	[MAILDIR_TAKING] = "taking",
	[MAILDIR_MOVED] = "moved",
	[MAILDIR_LEFT] = "left",
};
static const struct fsm maildir_fsm =
	FSM("maildir mail", maildir_names, MAILDIR_LEFT);

struct mailin_watch {
	struct event_base *base;
	struct store *s;
	const struct settings *set;
	struct drain_worker *w;
	time_t rest_until; /* a mail was left: no look before (a tick) */
};

struct maildir_mail {
	enum maildir_state state;
	struct mailin_watch *mw;
	char *dir, *name; /* the maildir, as it was when claimed */
};

static void
maildir_set_state(struct maildir_mail *m, enum maildir_state to)
{
	FSM_SET(&maildir_fsm, m->state, to, "maildir mail %s", m->name);
}

/* Moves the mail from new/ to cur/ with flags. */
static void
maildir_move(struct maildir_mail *m, const char *flags)
{
	char *from = xasprintf("%s/new/%s", m->dir, m->name);
	char *to = xasprintf("%s/cur/%s:2,%s", m->dir, m->name, flags);

	if (rename(from, to) == -1)
		log_warn("mail-in: cannot move %s to %s", from, to);
	free(from);
	free(to);
}

static void
maildir_on_taken(const char *text, const struct problem *p, void *arg)
{
	struct maildir_mail *m = arg;

	(void)text;
	if (p == NULL) {
		maildir_move(m, "S");
		maildir_set_state(m, MAILDIR_MOVED);
	} else if (p->kind == PROBLEM_INVALID) {
		log_warnx("mail-in: %s/new/%s is no mail (%s): moved to cur/, "
			  "trashed",
			  m->dir, m->name, p->message);
		maildir_move(m, "T");
		maildir_set_state(m, MAILDIR_MOVED);
	} else {
		log_warnx("mail-in: %s/new/%s: %s (taken at the next look)",
			  m->dir, m->name, p->message);
		m->mw->rest_until = time(NULL) + 5;
		maildir_set_state(m, MAILDIR_LEFT);
	}
	drain_done(m->mw->w, m);
}

static void
maildir_start(struct drain_worker *w, void *work)
{
	struct maildir_mail *m = work;
	char *path = xasprintf("%s/new/%s", m->dir, m->name);
	struct buf b;

	(void)w;
	buf_init(&b);
	if (!buf_add_file(&b, path, MAILIN_MAX)) {
		log_warn("mail-in: cannot read %s (at the next look)", path);
		m->mw->rest_until = time(NULL) + 5;
		maildir_set_state(m, MAILDIR_LEFT);
		drain_done(m->mw->w, m);
	} else {
		/* (one over MAILIN_MAX is refused as no mail: trashed) */
		mailin_take(m->mw->base, m->mw->s, b.data, b.len,
			    m->mw->set->box_false_alarms, maildir_on_taken, m);
	}
	buf_release(&b);
	free(path);
}

static void
maildir_claim(struct drain_worker *w, int n)
{
	struct mailin_watch *mw = drain_ctx(w);
	const char *dir = mw->set->mail_in_maildir;
	struct maildir_mail *m = NULL;
	struct dirent *e;
	char *path;
	DIR *d;

	(void)n;
	if (dir == NULL || dir[0] == '\0' || time(NULL) < mw->rest_until) {
		drain_claimed(w, NULL, 0, false);
		return;
	}
	path = xasprintf("%s/new", dir);
	if ((d = opendir(path)) == NULL) {
		log_warn("mail-in: cannot read the maildir %s", path);
		free(path);
		drain_claimed(w, NULL, 0, false);
		return;
	}
	/* one at a time: the oldest name first would want them all read;
	 * readdir's order will do, each taken in its turn */
	while (m == NULL && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		m = xmalloc(sizeof *m);
		*m = (struct maildir_mail){MAILDIR_TAKING, mw, xstrdup(dir),
					   xstrdup(e->d_name)};
	}
	closedir(d);
	free(path);
	if (m == NULL)
		drain_claimed(w, NULL, 0, false);
	else
		drain_claimed(w, (void *const *)&m, 1, false);
}

static void
maildir_free(void *work)
{
	struct maildir_mail *m = work;

	free(m->dir);
	free(m->name);
	free(m);
}

static const struct drain_ops maildir_ops = {
	.name = "mail-in",
	.topic = NULL,
	.tick = 5,
	.slots = 1,
	.batch = 1,
	.look_after_each = true,
	.claim = maildir_claim,
	.start = maildir_start,
	.free = maildir_free,
};

struct mailin_watch *
mailin_watch_new(struct drain *d, struct event_base *base, struct store *s,
		 const struct settings *set)
{
	struct mailin_watch *mw = xmalloc(sizeof *mw);

	*mw = (struct mailin_watch){base, s, set, NULL, 0};
	mw->w = drain_add(d, &maildir_ops, mw);
	return mw;
}

void
mailin_watch_free(struct mailin_watch *mw)
{
	free(mw);
}
