/*
 * test_mail.c: mails as RFC 5322 text: untrusted text in headers stays
 * on its line and is encoded where it is not ASCII; addresses are
 * checked; no line is too long.
 */
#include <stdlib.h>
#include <string.h>

#include "reporters/mail.h"
#include "tap.h"

/* Whether every line of s ends in CRLF, and none is longer than max. */
static bool
lines_ok(const char *s, size_t max)
{
	for (const char *p = s; *p;) {
		const char *nl = strchr(p, '\n');

		if (nl == NULL || nl == p || nl[-1] != '\r' ||
		    (size_t)(nl - p - 1) > max)
			return false;
		p = nl + 1;
	}
	return true;
}

static bool
ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return false;
	return true;
}

static void
test_header_folds_and_stays_put(void)
{
	char *v = mail_header_value(
		"Subject", "[robot] [linux:master] [mm/page-writeback] "
			   "b6aefd0a21: dd.write_bytes_per_sec -85.2% "
			   "regression and 1 more");

	CHECK(strstr(v, "\r\n ") != NULL); /* folded */
	CHECK(strstr(v, "-85.2%") != NULL);
	free(v);
	/* A subject that tries to add a header, or end the headers. */
	v = mail_header_value("Subject",
			      "fix\r\nBcc: evil@example.org\n\nbody");
	CHECK(strchr(v, '\r') == NULL && strchr(v, '\n') == NULL);
	CHECK_STR(v, "fix Bcc: evil@example.org body");
	free(v);
	v = mail_header_value("Subject", "tab\there\x1b[31m\x7f");
	CHECK_STR(v, "tab here [31m");
	free(v);
	/* U+202E (right-to-left override) would show the text reversed. */
	v = mail_header_value("Subject", "evil \xe2\x80\xaetxt.exe");
	CHECK_STR(v, "evil txt.exe");
	free(v);
}

static void
test_header_encodes_other_scripts(void)
{
	char *v = mail_header_value("Subject", "fs: caf\xc3\xa9 und \xc3\xbc"
					       "ber \xce\xa9 <b>html</b>");

	CHECK(ascii(v));
	/* "fs:" stays as it is; the run "café und über Ω" is one phrase
	 * (the spaces between two encoded-words would be lost). */
	CHECK(strncmp(v, "fs: =?UTF-8?B?", 14) == 0);
	CHECK(strstr(v, "<b>html</b>") != NULL);
	free(v);
	/* Long non-ASCII text: several encoded-words, none over 75. */
	v = mail_header_value(
		"Subject", "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x81\xae"
			   "\xe4\xbb\xb6\xe5\x90\x8d\xe3\x81\xaf\xe9\x95\xb7"
			   "\xe3\x81\x84\xe3\x81\xa7\xe3\x81\x99\xe3\x80\x82"
			   "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x81\xae"
			   "\xe4\xbb\xb6\xe5\x90\x8d\xe3\x81\xaf\xe9\x95\xb7");
	CHECK(ascii(v));
	for (char *w = strstr(v, "=?"); w != NULL; w = strstr(w + 2, "=?")) {
		size_t n = strcspn(w, " \r");

		CHECK(n <= 75);
	}
	CHECK(strstr(v, "\r\n ") != NULL);
	free(v);
	/* Invalid UTF-8 becomes U+FFFD, still encoded. */
	v = mail_header_value("Subject", "bad \xff\xfe bytes");
	CHECK(ascii(v) && strstr(v, "=?UTF-8?B?") != NULL);
	free(v);
	/* An ASCII word that looks like an encoded-word is encoded. */
	v = mail_header_value("Subject", "=?UTF-8?B?ZXZpbA==?=");
	CHECK(strncmp(v, "=?UTF-8?B?PT9VVEYtOD9CP1pYWnBiQT09Pz0=?=", 40) == 0);
	free(v);
}

static void
test_addresses(void)
{
	char *a;

	CHECK(mail_address_check("dev@example.org") == NULL);
	CHECK(mail_address_check("first.last+tag@mail.example.org") == NULL);
	CHECK(mail_address_check("root@localhost") == NULL);
	CHECK(mail_address_check("no-at.example.org") != NULL);
	CHECK(mail_address_check("@example.org") != NULL);
	CHECK(mail_address_check("a b@example.org") != NULL);
	CHECK(mail_address_check("a@b@example.org") != NULL);
	CHECK(mail_address_check("x@example.org\r\nBcc: y@z") != NULL);
	CHECK(mail_address_check("x@-bad.org") != NULL);
	CHECK(mail_address_check("x@bad..org") != NULL);
	CHECK(mail_address_check(".x@example.org") != NULL);
	CHECK(mail_address_check("<x@example.org>") != NULL);
	a = mail_address_of("A Developer <Dev@Example.ORG>");
	CHECK_STR(a, "dev@example.org");
	free(a);
	a = mail_address_of("  dev@example.org ");
	CHECK_STR(a, "dev@example.org");
	free(a);
	CHECK(mail_address_of("A Developer") == NULL);
	/* Only the address in brackets is taken, and checked. */
	a = mail_address_of("Evil <a@b.org>\r\nBcc: c@d.org");
	CHECK_STR(a, "a@b.org");
	free(a);
	CHECK(mail_address_of("Evil <a@b.org\r\nBcc: c@d.org>") == NULL);
	CHECK_STR(mail_domain("robot@robot.example.org"), "robot.example.org");
}

static void
test_message(void)
{
	char *body = malloc(3001), *text;
	struct mail m = {"robot@example.org",
			 "robot",
			 "dev@example.org",
			 "a subject",
			 "<robot.1.abc@example.org>",
			 "<robot.0.abc@example.org>",
			 "<reports.example.org>",
			 "http://robot.example.org/subscriptions/"
			 "unsubscribe?t=ab",
			 "1",
			 0,
			 NULL,
			 "the footer\n"};

	memset(body, 'x', 3000);
	body[3000] = '\0';
	body[10] = '\n';
	m.body = body;
	text = mail_format(&m);
	CHECK(lines_ok(text, 998));
	CHECK(strncmp(text, "Date: Thu, 01 Jan 1970 00:00:00 +0000\r\n", 39) ==
	      0);
	CHECK(strstr(text, "\r\nFrom: robot <robot@example.org>\r\n") != NULL);
	CHECK(strstr(text,
		     "\r\nIn-Reply-To: <robot.0.abc@example.org>\r\n"
		     "References: <robot.0.abc@example.org>\r\n") != NULL);
	CHECK(strstr(text, "\r\nList-Unsubscribe: <http://robot.example.org/"
			   "subscriptions/unsubscribe?t=ab>\r\n"
			   "List-Unsubscribe-Post: List-Unsubscribe=One-Click"
			   "\r\n") != NULL);
	CHECK(strstr(text, "\r\n\r\nxxxxxxxxxx\r\n") != NULL);
	CHECK(strstr(text, "\r\n-- \r\nthe footer\r\n") != NULL);
	free(text);
	free(body);
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_header_folds_and_stays_put),
		TAP_CASE(test_header_encodes_other_scripts),
		TAP_CASE(test_addresses),
		TAP_CASE(test_message),
		{NULL, NULL}};

	return tap_run(cases);
}
