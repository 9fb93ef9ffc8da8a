/*
 * direction.c: the table of metric directions.
 *
 * Rules are POSIX extended regular expressions anchored at both ends.  A
 * comparison looks up thousands of metrics, and regexec() costs more
 * than comparing one, so each rule keeps what every match must have: the
 * literal prefix of its pattern ("fsmark." of "fsmark\.files_per_sec"),
 * for ".+\.time\..." the literal every match contains (".time."), the
 * literal suffix ("/s" of "iostat\..+\.[rw]/s"); and the two commonest
 * shapes need no regexec() at all: a pattern that is all literal is a
 * string compare, one that is a literal and ".+" a prefix compare.
 */
#include <ctype.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/direction.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

enum rule_shape {
	RULE_REGEX,   /* regexec() decides, after the literals */
	RULE_LITERAL, /* the prefix is the whole pattern */
	RULE_ANY,     /* the prefix and then ".+" */
};

struct rule {
	regex_t re;
	char *pattern;
	char *prefix; /* literal text every match starts with */
	size_t prefix_len;
	char *must;   /* literal text every match contains, or NULL */
	char *suffix; /* literal text every match ends with */
	size_t suffix_len;
	enum rule_shape shape;
	int sign;
	double floor_pct;
	double abs_floor;
};

struct direction_table {
	struct rule *v;
	size_t n;
};

/* The literal start of an ERE: up to the first special character. */
static char *
literal_prefix(const char *p)
{
	char *out = xmalloc(strlen(p) + 1);
	size_t n = 0;

	for (; *p != '\0'; p++) {
		if (*p == '\\' && p[1] != '\0' &&
		    strchr(".+*?()[]{}|^$\\/-", p[1])) {
			out[n++] = *++p;
			continue;
		}
		if (strchr(".[]()*+?{}|^$\\", *p) != NULL)
			break;
		out[n++] = *p;
	}
	/* A quantifier applies to the character before it. */
	if (*p == '*' || *p == '?' || *p == '{')
		n = n > 0 ? n - 1 : 0;
	out[n] = '\0';
	return out;
}

/*
 * For a pattern that starts with ".+" or ".*" and has no top-level '|',
 * the literal that follows: every match contains it.
 */
static char *
literal_after_any(const char *p)
{
	int depth = 0;

	for (const char *q = p; *q != '\0'; q++) {
		if (*q == '\\' && q[1] != '\0')
			q++;
		else if (*q == '(')
			depth++;
		else if (*q == ')')
			depth--;
		else if (*q == '|' && depth == 0)
			return NULL;
	}
	if (p[0] != '.' || (p[1] != '+' && p[1] != '*'))
		return NULL;
	return literal_prefix(p + 2);
}

/* Whether p has a '|' outside parentheses (then no literal is common
 * to every match). */
static bool
top_level_bar(const char *p)
{
	int depth = 0;

	for (; *p != '\0'; p++) {
		if (*p == '\\' && p[1] != '\0')
			p++;
		else if (*p == '(')
			depth++;
		else if (*p == ')')
			depth--;
		else if (*p == '|' && depth == 0)
			return true;
	}
	return false;
}

/*
 * The literal end of an ERE: the characters after its last special one
 * (a bracket expression is special as a whole), escapes resolved; "" if
 * it ends with one.  Every match ends with it.
 */
static char *
literal_suffix(const char *p)
{
	char *out = xmalloc(strlen(p) + 1);
	size_t n = 0;

	for (; *p != '\0'; p++) {
		if (*p == '\\' && p[1] != '\0') {
			out[n++] = *++p;
			continue;
		}
		if (*p == '[') {
			/* to its ']': "[]...]" and "[^]...]" hold one */
			p++;
			if (*p == '^')
				p++;
			if (*p == ']')
				p++;
			while (*p != '\0' && *p != ']')
				p++;
			if (*p == '\0')
				break;
			n = 0;
			continue;
		}
		if (strchr(".()*+?{}|^$", *p) != NULL) {
			n = 0;
			continue;
		}
		out[n++] = *p;
	}
	out[n] = '\0';
	return out;
}

/* What a rule's pattern needs to be matched (the literals, the shape). */
static void
rule_shape(struct rule *r)
{
	size_t len = strlen(r->pattern);
	bool bar = top_level_bar(r->pattern);

	r->prefix = bar ? xstrdup("") : literal_prefix(r->pattern);
	r->prefix_len = strlen(r->prefix);
	r->suffix = bar ? xstrdup("") : literal_suffix(r->pattern);
	r->suffix_len = strlen(r->suffix);
	r->must = bar ? NULL : literal_after_any(r->pattern);
	if (r->must != NULL && r->must[0] == '\0') {
		free(r->must);
		r->must = NULL;
	}
	r->shape = RULE_REGEX;
	if (bar)
		return;
	/* All literal: the prefix took every character, escapes and all. */
	{
		char *lit = literal_prefix(r->pattern);
		size_t plain = 0;

		for (const char *q = r->pattern; *q != '\0'; q++, plain++)
			if (*q == '\\' && q[1] != '\0')
				q++;
		if (strlen(lit) == plain && strcmp(lit, r->suffix) == 0) {
			/* the prefix says it all; the suffix would
			 * count its characters twice */
			r->shape = RULE_LITERAL;
			r->suffix[0] = '\0';
			r->suffix_len = 0;
		}
		free(lit);
	}
	if (len >= 2 && strcmp(r->pattern + len - 2, ".+") == 0 &&
	    (len < 3 || r->pattern[len - 3] != '\\')) {
		/* "literal.+": nothing but the prefix before the ".+" */
		char *head = xstrndup(r->pattern, len - 2), *lit;
		size_t plain = 0;

		for (const char *q = head; *q != '\0'; q++, plain++)
			if (*q == '\\' && q[1] != '\0')
				q++;
		lit = literal_prefix(head);
		if (strlen(lit) == plain && plain == r->prefix_len)
			r->shape = RULE_ANY;
		free(lit);
		free(head);
	}
}

static bool
parse_line(char *line, struct rule *r, const char *name, int lineno,
	   struct errlist *el)
{
	char *save = NULL, *word, *anchored;
	char errbuf[256];
	int rc;

	word = strtok_r(line, " \t", &save);
	r->pattern = xstrdup(word);
	word = strtok_r(NULL, " \t", &save);
	if (word == NULL ||
	    (strcmp(word, "+1") != 0 && strcmp(word, "1") != 0 &&
	     strcmp(word, "-1") != 0 && strcmp(word, "0") != 0)) {
		errlist_error(el, name, lineno,
			      "'%s': the sign must be +1, -1 or 0", r->pattern);
		free(r->pattern);
		return false;
	}
	r->sign = atoi(word);
	r->floor_pct = r->abs_floor = 0;
	while ((word = strtok_r(NULL, " \t", &save)) != NULL) {
		char *end;

		if (str_has_prefix(word, "floor=")) {
			r->floor_pct = strtod(word + 6, &end);
			if (end == word + 6 || strcmp(end, "%") != 0 ||
			    !(r->floor_pct > 0 && r->floor_pct < 1000)) {
				errlist_error(el, name, lineno,
					      "'%s': floor= takes a percentage "
					      "like floor=5%%",
					      word);
				free(r->pattern);
				return false;
			}
		} else if (str_has_prefix(word, "abs=")) {
			r->abs_floor = strtod(word + 4, &end);
			if (end == word + 4 || *end != '\0' ||
			    !(r->abs_floor >= 0)) {
				errlist_error(el, name, lineno,
					      "'%s': abs= takes a number",
					      word);
				free(r->pattern);
				return false;
			}
		} else {
			errlist_error(el, name, lineno,
				      "unknown field '%s' (fields are floor= "
				      "and abs=)",
				      word);
			free(r->pattern);
			return false;
		}
	}
	anchored = xasprintf("^(%s)$", r->pattern);
	rc = regcomp(&r->re, anchored, REG_EXTENDED | REG_NOSUB);
	free(anchored);
	if (rc != 0) {
		regerror(rc, &r->re, errbuf, sizeof errbuf);
		errlist_error(el, name, lineno,
			      "'%s' is not a regular "
			      "expression: %s",
			      r->pattern, errbuf);
		free(r->pattern);
		return false;
	}
	rule_shape(r);
	return true;
}

static void
rule_release(struct rule *r)
{
	regfree(&r->re);
	free(r->pattern);
	free(r->prefix);
	free(r->suffix);
	free(r->must);
}

bool
direction_table_add(struct direction_table *t, const char *name,
		    const char *text, size_t len, struct errlist *el)
{
	char *copy = xstrndup(text, len), *line, *next;
	struct rule *rules = NULL;
	size_t n = 0, before = el->nerrors;
	int lineno = 0;

	for (line = copy; line != NULL; line = next) {
		struct rule r;
		char *p;

		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		lineno++;
		/* A comment starts a line or follows a blank: metric names
		 * may hold '#' themselves (LKP's dmesg.*). */
		for (p = line; *p != '\0'; p++)
			if (*p == '#' &&
			    (p == line || p[-1] == ' ' || p[-1] == '\t'))
				break;
		*p = '\0';
		while (isspace((unsigned char)*line))
			line++;
		if (*line == '\0')
			continue;
		if (!parse_line(line, &r, name, lineno, el))
			continue;
		rules = xreallocarray(rules, n + 1, sizeof *rules);
		rules[n++] = r;
	}
	free(copy);
	if (el->nerrors > before) {
		for (size_t i = 0; i < n; i++)
			rule_release(&rules[i]);
		free(rules);
		return false;
	}
	t->v = xreallocarray(t->v, t->n + n, sizeof *t->v);
	memmove(t->v + n, t->v, t->n * sizeof *t->v);
	memcpy(t->v, rules, n * sizeof *rules);
	t->n += n;
	free(rules);
	return true;
}

struct direction_table *
direction_table_new(void)
{
	struct direction_table *t = xcalloc(1, sizeof *t);
	struct errlist el;

	errlist_init(&el);
	if (!direction_table_add(t, "robot/directions", direction_default_text,
				 strlen(direction_default_text), &el)) {
		errlist_print(&el, stderr);
		abort(); /* the built-in table is checked by the tests */
	}
	errlist_release(&el);
	return t;
}

void
direction_table_free(struct direction_table *t)
{
	if (t == NULL)
		return;
	for (size_t i = 0; i < t->n; i++)
		rule_release(&t->v[i]);
	free(t->v);
	free(t);
}

/* Whether metric (len bytes) matches the rule. */
static bool
rule_matches(const struct rule *r, const char *metric, size_t len)
{
	/* the first and last characters first: most rules end there */
	if (len < r->prefix_len + r->suffix_len ||
	    (r->prefix_len > 0 && metric[0] != r->prefix[0]) ||
	    (r->suffix_len > 0 &&
	     metric[len - 1] != r->suffix[r->suffix_len - 1]) ||
	    memcmp(metric, r->prefix, r->prefix_len) != 0 ||
	    memcmp(metric + len - r->suffix_len, r->suffix, r->suffix_len) != 0)
		return false;
	switch (r->shape) {
	case RULE_LITERAL:
		return len == r->prefix_len;
	case RULE_ANY:
		/* '.' is any character but NUL, and a name has none */
		return len > r->prefix_len;
	case RULE_REGEX:
		break;
	}
	if (r->must != NULL && strstr(metric + r->prefix_len, r->must) == NULL)
		return false;
	return regexec(&r->re, metric, 0, NULL, 0) == 0;
}

struct direction
direction_lookup(const struct direction_table *t, const char *metric)
{
	struct direction d = {0, 0, 0, NULL};
	size_t len = strlen(metric);

	for (size_t i = 0; i < t->n; i++) {
		const struct rule *r = &t->v[i];

		if (rule_matches(r, metric, len)) {
			d.sign = r->sign;
			d.floor_pct = r->floor_pct;
			d.abs_floor = r->abs_floor;
			d.pattern = r->pattern;
			break;
		}
	}
	return d;
}
