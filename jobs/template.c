/*
 * template.c: an evaluator for LKP's "{{ ... }}" templates.
 *
 * A tokenizer and a recursive-descent parser that evaluates as it
 * parses (the expressions are a few tokens long); a branch not taken is
 * parsed with evaluation off, so that its syntax is still checked and
 * its names never looked up.  Values are nil, strings, integers, reals,
 * booleans, and "other" (a list or a mapping of the job, which compares
 * equal to nothing).  Truth is Ruby's: only nil and false are false.
 */
#include <ctype.h>
#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/template.h"
#include "robot/core/buf.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

enum tval_kind {
	TVAL_NIL,
	TVAL_STR,
	TVAL_INT,
	TVAL_REAL,
	TVAL_BOOL,
	TVAL_OTHER, /* a list or a mapping */
};

struct tval {
	enum tval_kind kind;
	char *s; /* TVAL_STR, owned */
	long long i;
	double r;
	bool b;
};

enum tok_kind {
	TOK_END,
	TOK_STR,
	TOK_NUM,
	TOK_NAME, /* an identifier, dotted: fsmark.filesize */
	TOK_REGEX,
	TOK_OP, /* == != =~ && || ! ? : ( ) , */
};

struct tparse {
	const char *p; /* next character */
	const struct node *job;
	enum tok_kind tok;
	char *text; /* the token's text (strings unquoted) */
	char op[3]; /* TOK_OP */
	bool eval;  /* false while parsing a branch not taken */
	char *err;  /* the first problem */
};

static void tval_release(struct tval *v);

static void
fail(struct tparse *t, const char *fmt, ...)
{
	va_list ap;

	if (t->err != NULL)
		return;
	va_start(ap, fmt);
	t->err = xvasprintf(fmt, ap);
	va_end(ap);
}

static bool
is_word(int c)
{
	return isalnum(c) || c == '_';
}

/* Reads a quoted string starting at t->p (a quote). */
static void
lex_string(struct tparse *t)
{
	char q = *t->p++;
	struct buf b;

	buf_init(&b);
	while (*t->p != '\0' && *t->p != q) {
		if (q == '"' && t->p[0] == '#' && t->p[1] == '{') {
			fail(t, "string interpolation ('#{') is not "
				"supported");
			break;
		}
		if (*t->p == '\\' && t->p[1] != '\0')
			t->p++;
		buf_addc(&b, *t->p++);
	}
	if (*t->p != q)
		fail(t, "a string is not closed");
	else
		t->p++;
	t->tok = TOK_STR;
	t->text = buf_detach(&b);
}

static void
lex_regex(struct tparse *t)
{
	struct buf b;

	buf_init(&b);
	t->p++;
	while (*t->p != '\0' && *t->p != '/') {
		if (*t->p == '\\' && t->p[1] == '/')
			t->p++;
		buf_addc(&b, *t->p++);
	}
	if (*t->p != '/')
		fail(t, "a regular expression is not closed");
	else
		t->p++;
	while (isalpha((unsigned char)*t->p)) {
		if (*t->p != 'i')
			fail(t,
			     "regular expression flag '%c' is not "
			     "supported",
			     *t->p);
		t->p++;
	}
	t->tok = TOK_REGEX;
	t->text = buf_detach(&b);
}

/* The next token; a '/' after an operator starts a regex. */
static void
lex(struct tparse *t)
{
	static const char *const ops[] = {"==", "!=", "=~", "&&", "||", "!",
					  "?",  ":",  "(",  ")",  ",",  NULL};
	const char *start;

	free(t->text);
	t->text = NULL;
	while (isspace((unsigned char)*t->p))
		t->p++;
	if (*t->p == '\0') {
		t->tok = TOK_END;
		return;
	}
	if (*t->p == '\'' || *t->p == '"') {
		lex_string(t);
		return;
	}
	if (*t->p == '/') {
		lex_regex(t);
		return;
	}
	if (isdigit((unsigned char)*t->p) ||
	    (*t->p == '-' && isdigit((unsigned char)t->p[1]))) {
		start = t->p++;
		while (isalnum((unsigned char)*t->p) || *t->p == '.' ||
		       *t->p == '_')
			t->p++;
		t->tok = TOK_NUM;
		t->text = xstrndup(start, (size_t)(t->p - start));
		return;
	}
	if (isalpha((unsigned char)*t->p) || *t->p == '_') {
		start = t->p;
		while (is_word((unsigned char)*t->p) ||
		       (*t->p == '.' && is_word((unsigned char)t->p[1])))
			t->p++;
		t->tok = TOK_NAME;
		t->text = xstrndup(start, (size_t)(t->p - start));
		if (*t->p == '?' || *t->p == '!')
			fail(t, "method call '%s%c' is not supported", t->text,
			     *t->p);
		return;
	}
	for (size_t i = 0; ops[i] != NULL; i++) {
		size_t n = strlen(ops[i]);

		if (strncmp(t->p, ops[i], n) == 0) {
			t->tok = TOK_OP;
			memcpy(t->op, ops[i], n + 1);
			t->p += n;
			return;
		}
	}
	if (*t->p == '`')
		fail(t, "backticks (a shell command) are not supported");
	else if (*t->p == '=')
		fail(t, "assignment ('=') is not supported");
	else
		fail(t, "'%c' is not supported in a template", *t->p);
	t->tok = TOK_END;
}

static bool
is_op(const struct tparse *t, const char *op)
{
	return t->tok == TOK_OP && strcmp(t->op, op) == 0;
}

static bool
is_name(const struct tparse *t, const char *word)
{
	return t->tok == TOK_NAME && strcmp(t->text, word) == 0;
}

static void
expect_name(struct tparse *t, const char *word)
{
	if (!is_name(t, word))
		fail(t, "'%s' expected", word);
	else
		lex(t);
}

static bool
truthy(const struct tval *v)
{
	return v->kind != TVAL_NIL && !(v->kind == TVAL_BOOL && !v->b);
}

static void
tval_release(struct tval *v)
{
	free(v->s);
	memset(v, 0, sizeof *v);
}

/* Ruby's ==: numbers by value, strings by content, else the same kind. */
static bool
tval_equal(const struct tval *a, const struct tval *b)
{
	bool an = a->kind == TVAL_INT || a->kind == TVAL_REAL;
	bool bn = b->kind == TVAL_INT || b->kind == TVAL_REAL;

	if (an && bn)
		return (a->kind == TVAL_INT ? (double)a->i : a->r) ==
		       (b->kind == TVAL_INT ? (double)b->i : b->r);
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case TVAL_NIL:
		return true;
	case TVAL_STR:
		return strcmp(a->s, b->s) == 0;
	case TVAL_BOOL:
		return a->b == b->b;
	default:
		return false;
	}
}

/* A value as Ruby's to_s writes it. */
static char *
tval_to_s(const struct tval *v)
{
	switch (v->kind) {
	case TVAL_STR:
		return xstrdup(v->s);
	case TVAL_INT:
		return xasprintf("%lld", v->i);
	case TVAL_REAL:
		return str_ruby_float(v->r);
	case TVAL_BOOL:
		return xstrdup(v->b ? "true" : "false");
	default:
		return xstrdup("");
	}
}

/* The job's value at a dotted name: nil when absent. */
static void
lookup(struct tparse *t, const char *name, struct tval *out)
{
	const struct node *n = t->job;
	char *copy = xstrdup(name), *part = copy, *dot;
	const char *owner = NULL; /* the part holding this one */

	memset(out, 0, sizeof *out);
	if (isupper((unsigned char)name[0])) {
		fail(t,
		     "constant '%s' is not supported (only the job's own "
		     "keys)",
		     name);
		free(copy);
		return;
	}
	for (;;) {
		dot = strchr(part, '.');
		if (dot != NULL)
			*dot = '\0';
		if (n->kind != NODE_MAP) {
			fail(t,
			     "method call '%s' is not supported ('%s' is "
			     "not a mapping of the job)",
			     name, owner);
			break;
		}
		n = node_get(n, part);
		if (n == NULL || dot == NULL)
			break;
		owner = part;
		part = dot + 1;
	}
	if (t->err == NULL && n != NULL) {
		switch (n->kind) {
		case NODE_NULL:
			break;
		case NODE_SCALAR:
			if (n->stype == NODE_INT) {
				out->kind = TVAL_INT;
				out->i = n->ival;
			} else if (n->stype == NODE_FLOAT) {
				out->kind = TVAL_REAL;
				out->r = n->fval;
			} else if (n->stype == NODE_BOOL) {
				out->kind = TVAL_BOOL;
				out->b = n->bval;
			} else {
				out->kind = TVAL_STR;
				out->s = xstrdup(n->text);
			}
			break;
		default:
			out->kind = TVAL_OTHER;
		}
	}
	free(copy);
}

static void parse_expr(struct tparse *t, struct tval *out);

static void
parse_number(struct tparse *t, struct tval *out)
{
	char *end;

	errno = 0;
	out->i = strtoll(t->text, &end, 10);
	if (*end == '\0' && errno == 0) {
		out->kind = TVAL_INT;
	} else {
		out->r = strtod(t->text, &end);
		out->kind = TVAL_REAL;
		if (*end != '\0')
			fail(t, "'%s' is not a number", t->text);
	}
	lex(t);
}

/* The end of an if or a case: [else W] end.  outer: whether the whole
 * construct is evaluated; done: whether a branch was taken. */
static void
parse_else_end(struct tparse *t, bool outer, bool done, struct tval *out)
{
	struct tval v;

	if (is_name(t, "else")) {
		lex(t);
		t->eval = outer && !done;
		parse_expr(t, &v);
		if (t->eval)
			*out = v;
		else
			tval_release(&v);
	}
	t->eval = outer;
	expect_name(t, "end");
}

/* case X when A[, B] then V ... [else W] end */
static void
parse_case(struct tparse *t, struct tval *out)
{
	struct tval subject = {0}, v;
	bool outer = t->eval, matched = false;

	lex(t);
	parse_expr(t, &subject);
	if (!is_name(t, "when"))
		fail(t, "'when' expected after 'case'");
	while (t->err == NULL && is_name(t, "when")) {
		bool hit = false;

		do {
			lex(t);
			if (t->tok == TOK_REGEX) {
				regex_t re;

				if (outer && !matched && !hit &&
				    subject.kind == TVAL_STR &&
				    regcomp(&re, t->text,
					    REG_EXTENDED | REG_NOSUB) == 0) {
					hit = regexec(&re, subject.s, 0, NULL,
						      0) == 0;
					regfree(&re);
				}
				lex(t);
			} else {
				parse_expr(t, &v);
				hit = hit || (outer && !matched &&
					      tval_equal(&subject, &v));
				tval_release(&v);
			}
		} while (t->err == NULL && is_op(t, ","));
		if (is_name(t, "then"))
			lex(t);
		t->eval = outer && !matched && hit;
		parse_expr(t, &v);
		if (t->eval) {
			*out = v;
			matched = true;
		} else {
			tval_release(&v);
		}
	}
	parse_else_end(t, outer, matched, out);
	tval_release(&subject);
}

/* if C [then] V (elsif C [then] V)* [else W] end */
static void
parse_if(struct tparse *t, struct tval *out)
{
	bool outer = t->eval, taken = false;
	struct tval c, v;

	do {
		lex(t); /* "if" or "elsif" */
		t->eval = outer && !taken;
		parse_expr(t, &c);
		if (is_name(t, "then"))
			lex(t);
		t->eval = outer && !taken && truthy(&c);
		tval_release(&c);
		parse_expr(t, &v);
		if (t->eval) {
			*out = v;
			taken = true;
		} else {
			tval_release(&v);
		}
	} while (t->err == NULL && is_name(t, "elsif"));
	parse_else_end(t, outer, taken, out);
}

/* Ruby words that cannot stand where a value is expected: true (after
 * failing) for those. */
static bool
keyword(struct tparse *t)
{
	static const char *const misplaced[] = {"when",  "then", "else",
						"elsif", "end",  NULL};
	static const char *const unsupported[] = {
		"unless", "while",  "until", "for",    "do",    "def",
		"class",  "module", "begin", "rescue", "yield", "return",
		"and",    "or",     "not",   "self",   "super", "defined",
		"lambda", "proc",   "eval",  "system", "exec",  "require",
		"load",   "open",   "puts",  "print",  NULL};

	for (size_t i = 0; misplaced[i] != NULL; i++)
		if (is_name(t, misplaced[i])) {
			fail(t, "'%s' is not expected here", t->text);
			return true;
		}
	for (size_t i = 0; unsupported[i] != NULL; i++)
		if (is_name(t, unsupported[i])) {
			fail(t, "'%s' is not supported in a template", t->text);
			return true;
		}
	return false;
}

static void
parse_primary(struct tparse *t, struct tval *out)
{
	memset(out, 0, sizeof *out);
	if (t->err != NULL)
		return;
	switch (t->tok) {
	case TOK_STR:
		out->kind = TVAL_STR;
		out->s = t->text;
		t->text = NULL;
		lex(t);
		return;
	case TOK_NUM:
		parse_number(t, out);
		return;
	case TOK_REGEX:
		fail(t, "a regular expression stands only after '=~' or "
			"'when'");
		return;
	case TOK_END:
		fail(t, "the template ends too early");
		return;
	case TOK_OP:
		if (is_op(t, "(")) {
			lex(t);
			parse_expr(t, out);
			if (!is_op(t, ")"))
				fail(t, "')' expected");
			else
				lex(t);
			return;
		}
		fail(t, "'%s' cannot start an expression", t->op);
		return;
	case TOK_NAME:
		break;
	}
	if (keyword(t))
		return;
	if (is_name(t, "nil")) {
		lex(t);
	} else if (is_name(t, "true") || is_name(t, "false")) {
		out->kind = TVAL_BOOL;
		out->b = is_name(t, "true");
		lex(t);
	} else if (is_name(t, "case")) {
		parse_case(t, out);
	} else if (is_name(t, "if")) {
		parse_if(t, out);
	} else {
		char *name = xstrdup(t->text);

		lex(t);
		if (is_op(t, "("))
			fail(t, "method call '%s(' is not supported", name);
		else if (t->eval)
			lookup(t, name, out);
		free(name);
	}
}

static void
parse_unary(struct tparse *t, struct tval *out)
{
	if (is_op(t, "!")) {
		struct tval v;

		lex(t);
		parse_unary(t, &v);
		memset(out, 0, sizeof *out);
		out->kind = TVAL_BOOL;
		out->b = !truthy(&v);
		tval_release(&v);
		return;
	}
	parse_primary(t, out);
}

static void
parse_compare(struct tparse *t, struct tval *out)
{
	struct tval r;
	bool ne;

	parse_unary(t, out);
	if (is_op(t, "=~")) {
		regex_t re;
		bool hit = false;

		lex(t);
		if (t->tok != TOK_REGEX) {
			fail(t, "'=~' wants a regular expression (/.../)");
			return;
		}
		if (regcomp(&re, t->text, REG_EXTENDED | REG_NOSUB) != 0) {
			fail(t, "/%s/ is not a regular expression we read",
			     t->text);
			return;
		}
		if (out->kind == TVAL_STR)
			hit = regexec(&re, out->s, 0, NULL, 0) == 0;
		regfree(&re);
		lex(t);
		tval_release(out);
		out->kind = TVAL_BOOL;
		out->b = hit;
		return;
	}
	if (!is_op(t, "==") && !is_op(t, "!="))
		return;
	ne = is_op(t, "!=");
	lex(t);
	parse_unary(t, &r);
	{
		bool eq = tval_equal(out, &r);

		tval_release(out);
		tval_release(&r);
		out->kind = TVAL_BOOL;
		out->b = ne ? !eq : eq;
	}
}

/* a && b, a || b: Ruby gives the operand that decided. */
static void
parse_logic(struct tparse *t, struct tval *out, bool is_or)
{
	if (is_or)
		parse_logic(t, out, false);
	else
		parse_compare(t, out);
	while (t->err == NULL && is_op(t, is_or ? "||" : "&&")) {
		bool outer = t->eval, decided = is_or == truthy(out);
		struct tval r;

		lex(t);
		t->eval = outer && !decided;
		if (is_or)
			parse_logic(t, &r, false);
		else
			parse_compare(t, &r);
		t->eval = outer;
		if (!decided) {
			tval_release(out);
			*out = r;
		} else {
			tval_release(&r);
		}
	}
}

static void
parse_expr(struct tparse *t, struct tval *out)
{
	bool outer = t->eval, cond;
	struct tval a, b;

	parse_logic(t, out, true);
	if (!is_op(t, "?"))
		return;
	cond = truthy(out);
	tval_release(out);
	lex(t);
	t->eval = outer && cond;
	parse_expr(t, &a);
	if (!is_op(t, ":"))
		fail(t, "':' expected in 'a ? b : c'");
	else
		lex(t);
	t->eval = outer && !cond;
	parse_expr(t, &b);
	t->eval = outer;
	if (cond) {
		*out = a;
		tval_release(&b);
	} else {
		*out = b;
		tval_release(&a);
	}
}

bool
template_has(const struct node *value)
{
	const char *open;

	if (value->kind != NODE_SCALAR || value->stype != NODE_STR)
		return false;
	open = strstr(value->text, "{{");
	return open != NULL && strstr(open + 2, "}}") != NULL;
}

/* The expression's value as a job value (NULL for nil). */
static struct node *
tval_node(const struct tval *v, int line, int column)
{
	struct node *n;

	switch (v->kind) {
	case TVAL_NIL:
		return NULL;
	case TVAL_STR:
		return node_new_str(v->s, strlen(v->s), line, column);
	case TVAL_INT:
		return node_new_int(v->i, line, column);
	default:
		n = node_new_str("", 0, line, column);
		free(n->text);
		n->text = tval_to_s(v);
		n->len = strlen(n->text);
		if (v->kind == TVAL_REAL) {
			n->stype = NODE_FLOAT;
			n->fval = v->r;
		} else if (v->kind == TVAL_BOOL) {
			n->stype = NODE_BOOL;
			n->bval = v->b;
		}
		return n;
	}
}

/* As LKP's /^(.*){{(.*)}}(.*)$/m: the last "{{" and the last "}}". */
static void
template_span(const char *text, const char **open, const char **close)
{
	const char *o, *c;

	for (o = strstr(text, "{{"); strstr(o + 1, "{{") != NULL;)
		o = strstr(o + 1, "{{");
	for (c = strstr(o + 2, "}}"); strstr(c + 1, "}}") != NULL;)
		c = strstr(c + 1, "}}");
	*open = o;
	*close = c;
}

/* Parses (and, with job, evaluates) the expression between open and
 * close; false with *err. */
static bool
template_parse(const char *open, const char *close, const struct node *job,
	       struct tval *v, char **err)
{
	struct tparse t = {.job = job, .eval = job != NULL};
	char *expr = xstrndup(open + 2, (size_t)(close - open - 2));

	t.p = expr;
	lex(&t);
	parse_expr(&t, v);
	if (t.err == NULL && t.tok != TOK_END)
		fail(&t, "'%s' is not understood here",
		     t.tok == TOK_OP ? t.op
		     : t.text        ? t.text
				     : "?");
	free(t.text);
	if (t.err != NULL) {
		char *q = str_printable(expr, strlen(expr), 60);

		*err = xasprintf("template {{%s}}: %s", q, t.err);
		free(q);
		free(t.err);
		tval_release(v);
	}
	free(expr);
	return *err == NULL;
}

bool
template_check(const struct node *value, char **err)
{
	const char *open, *close;
	struct tval v;

	*err = NULL;
	template_span(value->text, &open, &close);
	if (!template_parse(open, close, NULL, &v, err))
		return false;
	tval_release(&v);
	return true;
}

bool
template_eval(const struct node *value, const struct node *job,
	      struct node **out, char **err)
{
	const char *text = value->text, *open, *close;
	struct tval v;
	char *head, *tail;
	size_t hn, tn;

	*out = NULL;
	*err = NULL;
	template_span(text, &open, &close);
	if (!template_parse(open, close, job, &v, err))
		return false;
	/* HEAD and TAIL: blank ones vanish, else a string is made. */
	head = xstrndup(text, (size_t)(open - text));
	tail = xstrdup(close + 2);
	for (hn = 0; isspace((unsigned char)head[hn]); hn++)
		;
	tn = strlen(tail);
	while (tn > 0 && isspace((unsigned char)tail[tn - 1]))
		tail[--tn] = '\0';
	if (v.kind == TVAL_NIL) {
		*out = NULL;
	} else if (head[hn] == '\0' && tn == 0) {
		*out = tval_node(&v, value->line, value->column);
	} else {
		char *s = tval_to_s(&v), *joined;

		joined = xasprintf("%s%s%s", head + hn, s, tail);
		*out = node_new_str(joined, strlen(joined), value->line,
				    value->column);
		free(joined);
		free(s);
	}
	free(head);
	free(tail);
	tval_release(&v);
	return true;
}
