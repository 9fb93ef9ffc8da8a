/*
 * triage.c: the triage commands (triage.h).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "robot/analysis/triage.h"
#include "robot/core/str.h"
#include "robot/core/banned.h"

static const struct {
	const char *name, *state;
	enum triage_action action;
} commands[] = {
	{"ack", "acknowledged", TRIAGE_ACK},
	{"invalid", "invalid", TRIAGE_INVALID},
	{"wontfix", "wontfix", TRIAGE_WONTFIX},
	{"dup-of", "duplicate", TRIAGE_DUP},
	{"fixed-by", "fixed", TRIAGE_FIXED_BY},
	{"note", NULL, TRIAGE_NOTE},
	{"link", NULL, TRIAGE_LINK},
	{"tag", NULL, TRIAGE_TAG},
	{"mute", NULL, TRIAGE_MUTE},
	{"untriage", "untriaged", TRIAGE_UNTRIAGE},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static const char *const reasons[] = {"box", "test", "noise", "other", NULL};
static const char *const states[] = {
	"untriaged", "acknowledged", "invalid",   "wontfix",
	"duplicate", "fixed",        "recovered", NULL};

const char *
triage_action_name(enum triage_action a)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (commands[i].action == a)
			return commands[i].name;
	return "?";
}

const char *
triage_action_state(enum triage_action a)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (commands[i].action == a)
			return commands[i].state;
	return NULL;
}

bool
triage_state_valid(const char *s)
{
	for (size_t i = 0; s != NULL && states[i] != NULL; i++)
		if (strcmp(s, states[i]) == 0)
			return true;
	return false;
}

/* Copies s[0..len) to dst (of max + 1 bytes) if it is text a person may
 * give: UTF-8, no control characters (a tab is a space), at most max
 * bytes. */
static bool
text_copy(char *dst, size_t max, const char *s, size_t len, const char *what,
	  char *err, size_t errlen)
{
	if (len > max) {
		snprintf(err, errlen, "%s is %zu bytes, more than %zu", what,
			 len, max);
		return false;
	}
	if (!str_utf8_valid(s, len)) {
		snprintf(err, errlen, "%s is not UTF-8", what);
		return false;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];

		if ((ch < 0x20 && ch != '\t') || ch == 0x7f) {
			snprintf(err, errlen, "%s has a control character",
				 what);
			return false;
		}
		dst[i] = ch == '\t' ? ' ' : (char)ch;
	}
	dst[len] = '\0';
	return true;
}

/* A URL a finding may link to: http or https, printable ASCII, no
 * blanks. */
static bool
url_good(const char *s, size_t len)
{
	if (!(len > 7 && strncasecmp(s, "http://", 7) == 0) &&
	    !(len > 8 && strncasecmp(s, "https://", 8) == 0))
		return false;
	for (size_t i = 0; i < len; i++)
		if (s[i] <= ' ' || s[i] >= 0x7f || s[i] == '"' || s[i] == '<' ||
		    s[i] == '>')
			return false;
	return true;
}

/* dup-of's argument: an id, or a URL whose path ends in
 * /regressions/ID. */
static bool
dup_parse(const char *s, size_t len, long long *id)
{
	size_t i = len;
	char num[20];

	if (len > 0 && s[len - 1] == '/')
		len--;
	i = len;
	while (i > 0 && isdigit((unsigned char)s[i - 1]))
		i--;
	if (i == len || len - i > 15)
		return false;
	if (i > 0) {
		static const char tail[] = "/regressions/";

		if (!url_good(s, len) || i < sizeof tail - 1 ||
		    strncmp(s + i - (sizeof tail - 1), tail, sizeof tail - 1) !=
			    0)
			return false;
	}
	memcpy(num, s + i, len - i);
	num[len - i] = '\0';
	*id = strtoll(num, NULL, 10);
	return *id > 0;
}

long long
triage_duration(const char *s, size_t len)
{
	long long n = 0, unit;
	size_t i = 0;

	while (i < len && isdigit((unsigned char)s[i]) && n < 1000000)
		n = n * 10 + (s[i++] - '0');
	if (i == 0 || i + 1 != len)
		return 0;
	unit = s[i] == 'h'   ? 3600
	       : s[i] == 'd' ? 86400
	       : s[i] == 'w' ? 7 * 86400
			     : 0;
	if (unit == 0 || n == 0 || n * unit > TRIAGE_MUTE_MAX)
		return 0;
	return n * unit;
}

char *
triage_cmd_json(const struct triage_cmd *c)
{
	json_t *j = json_pack("{s:s, s:s?, s:s, s:s}", "action",
			      triage_action_name(c->action), "reason",
			      c->reason, "text", c->text, "arg", c->arg);
	char *text;

	if (c->action == TRIAGE_DUP)
		json_object_set_new(j, "dup", json_integer(c->dup));
	if (c->action == TRIAGE_MUTE)
		json_object_set_new(j, "seconds", json_integer(c->seconds));
	text = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	return text;
}

static bool
hex(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* tag's names, joined by "," into dst. */
static bool
tags_parse(const char *s, size_t len, char *dst, char *err, size_t errlen)
{
	size_t n = 0, out = 0;

	for (size_t i = 0; i < len;) {
		size_t start;

		while (i < len && (s[i] == ',' || s[i] == ' ' || s[i] == '\t'))
			i++;
		start = i;
		while (i < len && s[i] != ',' && s[i] != ' ' && s[i] != '\t')
			i++;
		if (i == start)
			break;
		if (i - start > TRIAGE_TAG_MAX) {
			snprintf(err, errlen, "a tag is at most %d bytes",
				 TRIAGE_TAG_MAX);
			return false;
		}
		for (size_t k = start; k < i; k++)
			if (!isalnum((unsigned char)s[k]) && s[k] != '.' &&
			    s[k] != '_' && s[k] != '-') {
				snprintf(err, errlen,
					 "a tag is letters, digits, '.', "
					 "'_' and '-'");
				return false;
			}
		if (++n > TRIAGE_TAGS_MAX) {
			snprintf(err, errlen, "at most %d tags at once",
				 TRIAGE_TAGS_MAX);
			return false;
		}
		if (out > 0)
			dst[out++] = ',';
		memcpy(dst + out, s + start, i - start);
		out += i - start;
	}
	dst[out] = '\0';
	if (n == 0) {
		snprintf(err, errlen, "tag wants a name: tag: NAME[, NAME...]");
		return false;
	}
	return true;
}

bool
triage_parse(const char *line, size_t len, struct triage_cmd *c, char *err,
	     size_t errlen)
{
	const char *word, *arg;
	size_t wlen, alen;
	size_t k;

	memset(c, 0, sizeof *c);
	err[0] = '\0';
	line = str_trim_blanks(line, &len);
	if (len >= 6 && strncasecmp(line, "#robot", 6) == 0 &&
	    (len == 6 || line[6] == ' ' || line[6] == '\t' || line[6] == ':')) {
		line += 6;
		len -= 6;
		if (len > 0 && *line == ':') {
			line++;
			len--;
		}
		line = str_trim_blanks(line, &len);
	}
	word = line;
	for (wlen = 0; wlen < len && (isalpha((unsigned char)word[wlen]) ||
				      word[wlen] == '-');
	     wlen++)
		;
	arg = word + wlen;
	alen = len - wlen;
	arg = str_trim_blanks(arg, &alen);
	if (alen > 0 && *arg == ':') {
		arg++;
		alen--;
		arg = str_trim_blanks(arg, &alen);
	} else if (alen > 0 && wlen > 0) {
		/* "ack bob" is ack's assignee; the others want a ':' */
		if (!(wlen == 3 && strncasecmp(word, "ack", 3) == 0)) {
			snprintf(err, errlen,
				 "a command is NAME or NAME: ARGUMENT");
			return false;
		}
	}
	for (k = 0; k < NCOMMANDS; k++)
		if (strlen(commands[k].name) == wlen &&
		    strncasecmp(commands[k].name, word, wlen) == 0)
			break;
	if (wlen == 0 || k == NCOMMANDS) {
		char *shown = str_printable(word, wlen > 0 ? wlen : len, 40);

		snprintf(err, errlen,
			 "no command '%s': ack, invalid, wontfix, dup-of, "
			 "fixed-by, note, link, tag, mute or untriage",
			 shown);
		free(shown);
		return false;
	}
	c->action = commands[k].action;
	switch (c->action) {
	case TRIAGE_ACK:
		return text_copy(c->arg, TRIAGE_ARG_MAX, arg, alen,
				 "the assignee", err, errlen);
	case TRIAGE_UNTRIAGE:
		if (alen > 0) {
			snprintf(err, errlen, "untriage takes no argument");
			return false;
		}
		return true;
	case TRIAGE_INVALID:
		c->reason = "other";
		for (size_t i = 0; reasons[i] != NULL; i++) {
			size_t rl = strlen(reasons[i]);

			if (alen >= rl &&
			    strncasecmp(arg, reasons[i], rl) == 0 &&
			    (alen == rl || arg[rl] == ':')) {
				c->reason = reasons[i];
				arg += rl;
				alen -= rl;
				if (alen > 0) {
					arg++;
					alen--;
				}
				arg = str_trim_blanks(arg, &alen);
				if (alen == 0)
					return true;
				break;
			}
		}
		/* its why, as for the two below */
		/* fall through */
	case TRIAGE_WONTFIX:
	case TRIAGE_NOTE:
		if (alen == 0) {
			snprintf(err, errlen, "%s wants its text: %s: WHY",
				 commands[k].name, commands[k].name);
			return false;
		}
		return text_copy(c->text, TRIAGE_TEXT_MAX, arg, alen,
				 "the text", err, errlen);
	case TRIAGE_DUP:
		if (!dup_parse(arg, alen, &c->dup)) {
			snprintf(err, errlen,
				 "dup-of wants a finding: its id, or its "
				 "page's URL (.../regressions/ID)");
			return false;
		}
		return true;
	case TRIAGE_FIXED_BY:
		if (alen < 7 || alen > 40 || !hex(arg, alen)) {
			snprintf(err, errlen,
				 "fixed-by wants a commit: 7 to 40 hex digits "
				 "of its SHA");
			return false;
		}
		for (size_t i = 0; i < alen; i++)
			c->arg[i] = (char)tolower((unsigned char)arg[i]);
		c->arg[alen] = '\0';
		return true;
	case TRIAGE_LINK:
		if (alen > TRIAGE_ARG_MAX || !url_good(arg, alen)) {
			snprintf(err, errlen,
				 "link wants its bug's URL: http or https, "
				 "at most %d bytes, no blanks",
				 TRIAGE_ARG_MAX);
			return false;
		}
		memcpy(c->arg, arg, alen);
		c->arg[alen] = '\0';
		return true;
	case TRIAGE_TAG:
		return tags_parse(arg, alen, c->arg, err, errlen);
	case TRIAGE_MUTE: {
		/* its duration, then its why, if any */
		size_t dl = 0;

		while (dl < alen && arg[dl] != ' ' && arg[dl] != '\t')
			dl++;
		c->seconds = triage_duration(arg, dl);
		if (c->seconds == 0) {
			snprintf(err, errlen,
				 "mute wants how long: N and h, d or w (30d), "
				 "at most 365 days; then why, if you will");
			return false;
		}
		memcpy(c->arg, arg, dl);
		c->arg[dl] = '\0';
		arg += dl;
		alen -= dl;
		arg = str_trim_blanks(arg, &alen);
		return text_copy(c->text, TRIAGE_TEXT_MAX, arg, alen,
				 "the text", err, errlen);
	}
	}
	return false;
}
