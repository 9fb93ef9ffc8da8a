/*
 * mail.h: one mail as RFC 5322 text: plain UTF-8, headers that never
 * carry a CR, an LF or a control character from their input, and words
 * of other scripts encoded as RFC 2047 says.  A commit's subject and an
 * author's name are untrusted: they reach the headers only through here.
 */
#ifndef ROBOT_MAIL_H
#define ROBOT_MAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/* The longest address mail_address_check() takes (RFC 5321's path). */
#define MAIL_ADDRESS_MAX 254

struct mail {
	const char *from;        /* an address (checked) */
	const char *from_name;   /* its display name, or NULL */
	const char *to;          /* an address (checked) */
	const char *subject;     /* untrusted UTF-8 */
	const char *message_id;  /* "<...@...>" */
	const char *in_reply_to; /* the thread's first Message-ID, or NULL */
	const char *list_id;     /* "<...>", or NULL */
	const char *unsubscribe; /* the one-click URL, or NULL */
	const char *report;      /* X-Robot-Report's value, or NULL */
	time_t date;
	const char *body;     /* UTF-8 text, lines ending in "\n" */
	const char *footer;   /* appended after "-- \n", or NULL */
	const char *reply_to; /* an address (checked), or NULL */
};

/*
 * The whole message: headers, a blank line and the body, every line
 * ending in CRLF and none longer than 998 bytes (longer ones are cut
 * into several).  The caller frees it.
 */
char *mail_format(const struct mail *m);

/*
 * An unstructured header's value from untrusted text: control
 * characters become spaces, bidi controls go, invalid UTF-8 becomes U+FFFD, runs of space
 * shrink to one; words with non-ASCII are RFC 2047 encoded-words (B,
 * UTF-8, at most 75 bytes each); lines are folded before 78 columns
 * where a space allows.  name is the header's name (for the first line's
 * length).  The caller frees it.
 */
char *mail_header_value(const char *name, const char *text);

/*
 * Whether s is an address we send to: local@domain in printable ASCII,
 * no spaces, quotes, angle brackets, commas or semicolons, a domain of
 * dot-separated labels, at most MAIL_ADDRESS_MAX bytes.  NULL, or why
 * not.
 */
const char *mail_address_check(const char *s);

/* The address in "Name <local@domain>" (or a bare address), lowercase,
 * if it passes mail_address_check(); else NULL.  The caller frees it. */
char *mail_address_of(const char *text);

/* The domain of an address (after its '@'). */
const char *mail_domain(const char *address);

#endif
