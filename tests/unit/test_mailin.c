/*
 * test_mailin.c: replies to reports as mail clients send them (plain,
 * multipart with quoted-printable and base64, Latin-1, HTML only,
 * top-posted and inline, with signatures), their triage commands and
 * reply tokens; hostile mail (no headers, endless nesting, too many
 * parts, too large, broken encodings); and the answer's text.
 */
#include <stdlib.h>
#include <string.h>

#include "reporters/mailin.h"
#include "tap.h"

static struct mailin m;
static char err[256];

static bool
parse(const char *msg)
{
	mailin_release(&m);
	return mailin_parse(msg, strlen(msg), &m, err, sizeof err);
}

/* The commands of m's text: "action|line" or "!error", joined by "; ". */
static char *
commands(void)
{
	static char out[4096];
	json_t *c = mailin_commands(m.text), *x;
	size_t i;

	out[0] = '\0';
	json_array_foreach(c, i, x)
	{
		const char *e = json_string_value(json_object_get(x, "error"));
		json_t *cmd = json_object_get(x, "command");

		if (i > 0)
			strcat(out, "; ");
		if (e != NULL) {
			strcat(out, "!");
			strncat(out, e, 200);
		} else {
			strncat(out,
				json_string_value(
					json_object_get(cmd, "action")),
				20);
			strcat(out, "|");
			strncat(out,
				json_string_value(json_object_get(cmd, "text")),
				300);
		}
	}
	json_decref(c);
	return out;
}

static void
test_inline_reply(void)
{
	CHECK(parse("Return-Path: <jack@suse.cz>\r\n"
		    "From: Jan Kara <Jack@SUSE.cz>\r\n"
		    "To: robot+r12.0123456789abcdef0123@robot.test\r\n"
		    "Subject: Re: [robot] dd.write_bytes_per_sec -93.1%\r\n"
		    "  regression at 1234567890ab\r\n"
		    "Message-ID: <20261207.abc@suse.cz>\r\n"
		    "\r\n"
		    "On Mon, robot wrote:\r\n"
		    "> #robot invalid: quoted, so no command\r\n"
		    ">> #robot ack\r\n"
		    "\r\n"
		    "#robot invalid: box: the RAID controller changed its "
		    "cache mode\r\n"
		    "  #ROBOT ack\r\n"
		    "Thanks, Jan\r\n"
		    "-- \r\n"
		    "#robot note: a signature is no command\r\n"));
	CHECK_STR(m.from, "jack@suse.cz");
	CHECK_STR(m.token, "r12.0123456789abcdef0123");
	CHECK_STR(m.message_id, "<20261207.abc@suse.cz>");
	CHECK_STR(m.subject, "Re: [robot] dd.write_bytes_per_sec -93.1%   "
			     "regression at 1234567890ab");
	CHECK(!m.automatic);
	CHECK_STR(commands(), "invalid|the RAID controller changed its "
			      "cache mode; ack|");
}

static void
test_multipart_qp_and_html(void)
{
	CHECK(parse("From: jack@suse.cz\n"
		    "To: someone@x.org\n"
		    "Cc: \"robot\" <robot+r7.fedcba9876543210fedc@robot.test>\n"
		    "Content-Type: multipart/alternative; "
		    "boundary=\"=_b1\"\n"
		    "\n"
		    "preamble\n"
		    "--=_b1\n"
		    "Content-Type: text/plain; charset=utf-8\n"
		    "Content-Transfer-Encoding: quoted-printable\n"
		    "\n"
		    "#robot invalid: box: the RAID controller changed its ca=\n"
		    "che mode =3D write-back\n"
		    "#robot note: caf=C3=A9\n"
		    "--=_b1\n"
		    "Content-Type: text/html\n"
		    "\n"
		    "<p>#robot wontfix: from the HTML part, not taken</p>\n"
		    "--=_b1--\n"
		    "epilogue #robot ack\n"));
	CHECK_STR(m.token, "r7.fedcba9876543210fedc");
	/* no Message-ID: one made of the mail's sha256, the same each
	 * time */
	CHECK(strncmp(m.message_id, "<sha256.", 8) == 0);
	CHECK_STR(commands(), "invalid|the RAID controller changed its cache "
			      "mode = write-back; note|café");
}

static void
test_base64_latin1_and_nested(void)
{
	/* "#robot note: café" in Latin-1, base64; inside a
	 * multipart/mixed with an attachment that says "#robot ack" */
	CHECK(parse("From: <jack@suse.cz>\n"
		    "Delivered-To: robot+r3.00000000000000000000@robot.test\n"
		    "Content-Type: multipart/mixed; boundary=outer\n"
		    "\n"
		    "--outer\n"
		    "Content-Type: multipart/alternative; boundary=inner\n"
		    "\n"
		    "--inner\n"
		    "Content-Type: text/plain; charset=ISO-8859-1\n"
		    "Content-Transfer-Encoding: base64\n"
		    "\n"
		    "I3JvYm90IG5vdGU6IGNh\n"
		    "Zuk=\n"
		    "--inner--\n"
		    "--outer\n"
		    "Content-Type: text/plain\n"
		    "Content-Disposition: attachment; filename=log.txt\n"
		    "\n"
		    "#robot ack\n"
		    "--outer--\n"));
	CHECK_STR(m.token, "r3.00000000000000000000");
	CHECK_STR(commands(), "note|café");
}

static void
test_html_only_and_top_posted(void)
{
	CHECK(parse("From: jack@suse.cz\n"
		    "Content-Type: text/html; charset=utf-8\n"
		    "\n"
		    "<html><head><style>p { color: red }</style></head><body>"
		    "<div>#robot invalid: noise: a &lt;1%&gt; box</div>"
		    "<div>On Mon, robot wrote:<br>"
		    "<blockquote>#robot ack<br>the report</blockquote></div>"
		    "</body></html>\n"));
	CHECK_STR(commands(), "invalid|a <1%> box");
	CHECK(parse("From: jack@suse.cz\n"
		    "\n"
		    "#robot fixed-by: 0123456789ab\n"
		    "\n"
		    "-----Original Message-----\n"
		    "#robot invalid: in the original\n"));
	CHECK_STR(commands(), "fixed-by|");
}

static void
test_bad_commands_and_automatic(void)
{
	char big[8192], *p = big;

	CHECK(parse("From: jack@suse.cz\n\n#robot snooze: 30d\n#robot ack\n"
		    "#robotics is no command\n"));
	CHECK(strstr(commands(), "!no command 'snooze'") == commands());
	p += sprintf(p, "From: jack@suse.cz\n\n");
	for (int i = 0; i < 25; i++)
		p += sprintf(p, "#robot note: %d\n", i);
	CHECK(parse(big));
	CHECK(strstr(commands(), "!at most 20 commands a mail") != NULL);
	CHECK(parse("From: jack@suse.cz\nAuto-Submitted: auto-replied\n\n"
		    "#robot ack\n"));
	CHECK(m.automatic);
	CHECK(parse("From: jack@suse.cz\nAuto-Submitted: no\n\nx\n"));
	CHECK(!m.automatic);
	CHECK(parse("From: MAILER-DAEMON@mx.example.org\n\nx\n"));
	CHECK(m.automatic);
	CHECK(parse("Return-Path: <>\nFrom: jack@suse.cz\n\nx\n"));
	CHECK(m.automatic);
	/* a token of the wrong shape is none */
	CHECK(parse("From: jack@suse.cz\n"
		    "To: robot+r12.0123@robot.test, "
		    "robot+rx.0123456789abcdef0123@a, "
		    "robot+r1.0123456789ABCDEF0123@b\n\nx\n"));
	CHECK(m.token == NULL);
	/* a From that is no address: none, and no answer can go */
	CHECK(parse("From: \"Jan\" <not an address>\n\n#robot ack\n"));
	CHECK(m.from == NULL);
}

/* Mail that is no mail, or that would take too long: refused or read
 * within the limits, never a crash. */
static void
test_hostile(void)
{
	size_t n = 200000;
	char *s = malloc(n * 40 + 1000), *p;

	CHECK(!parse(""));
	CHECK(strstr(err, "no mail") != NULL);
	CHECK(!parse("just a line of text\n\n#robot ack\n"));
	CHECK(!parse("Subject: no From\n\n#robot ack\n"));
	mailin_release(&m);
	CHECK(!mailin_parse("x", (size_t)MAILIN_MAX + 1, &m, err, sizeof err));
	CHECK(strstr(err, "at most") != NULL);
	/* a multipart without a boundary, one never closed, one nested
	 * beyond the depth read */
	CHECK(parse("From: a@b.org\nContent-Type: multipart/mixed\n\n"
		    "#robot ack\n"));
	CHECK_STR(commands(), "");
	CHECK(parse("From: a@b.org\nContent-Type: multipart/mixed; "
		    "boundary=b\n\n--b\n\n#robot ack\n"));
	CHECK_STR(commands(), "");
	p = s + sprintf(s, "From: a@b.org\n");
	for (int i = 0; i < 20; i++)
		p += sprintf(p,
			     "Content-Type: multipart/mixed; boundary=b%d\n\n"
			     "--b%d\n",
			     i, i);
	sprintf(p, "\n#robot ack\n");
	CHECK(parse(s));
	CHECK_STR(commands(), "");
	/* 100,000 parts: the first MAILIN_PARTS read */
	p = s + sprintf(s, "From: a@b.org\nContent-Type: multipart/mixed; "
			   "boundary=b\n\n");
	for (size_t i = 0; i < n / 2; i++)
		p += sprintf(p, "--b\nContent-Type: image/png\n\nx\n");
	sprintf(p, "--b--\n");
	CHECK(parse(s));
	CHECK_STR(m.text, "");
	/* a header folded on and on, NUL bytes, broken encodings */
	p = s + sprintf(s, "From: a@b.org\nSubject: x\n");
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, " more\n");
	sprintf(p, "Content-Transfer-Encoding: quoted-printable\n\n"
		   "#robot note: =ZZ =4\n");
	CHECK(parse(s));
	CHECK(strlen(m.subject) < 70000);
	CHECK_STR(commands(), "note|=ZZ =4");
	mailin_release(&m);
	CHECK(mailin_parse("From: a@b.org\n\n#robot note: a\0b\n", 30, &m, err,
			   sizeof err));
	CHECK(parse("From: a@b.org\nContent-Transfer-Encoding: base64\n\n"
		    "!!!!\n"));
	CHECK_STR(m.text, "");
	free(s);
}

static void
test_answer(void)
{
	json_t *refused = json_pack(
		"{s:s, s:s, s:[], s:n}", "state", "answering", "refused",
		"the reply address is not the one report 3 gave x@y.org",
		"results", "subject");
	json_t *done = json_pack(
		"{s:s, s:s, s:[{s:s, s:[{s:i, s:s, s:s}, {s:i, s:s, s:n}]}, "
		"{s:s, s:s}]}",
		"state", "answering", "subject", "[robot] a -93% regression",
		"results", "line", "#robot invalid: box: RAID", "findings",
		"id", 12, "triage", "invalid", "triage_reason", "box", "id", 13,
		"triage", "invalid", "triage_reason", "line",
		"#robot dup-of: 9", "error", "dup-of: 9 is no other finding");
	json_t *ignored = json_pack("{s:s}", "state", "ignored");
	char *subject, *text;

	text = mailin_answer(refused, "Re: [robot] x", &subject);
	CHECK_STR(subject, "Re: [robot] x");
	CHECK(strstr(text, "robot took none of the commands of your mail: "
			   "the reply address is not the one report 3 gave "
			   "x@y.org.\nNothing changed.") != NULL);
	free(text);
	free(subject);
	text = mailin_answer(done, "Re: whatever", &subject);
	tap_diag("%s", text);
	CHECK_STR(subject, "Re: [robot] a -93% regression");
	CHECK(strstr(text,
		     "\n  #robot invalid: box: RAID\n    regression 12: "
		     "invalid (box)\n    regression 13: invalid\n") != NULL);
	CHECK(strstr(text, "\n  #robot dup-of: 9\n    refused: dup-of: 9 is "
			   "no other finding\n") != NULL);
	free(text);
	free(subject);
	CHECK(mailin_answer(ignored, NULL, &subject) == NULL);
	json_decref(refused);
	json_decref(done);
	json_decref(ignored);
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_inline_reply),
		TAP_CASE(test_multipart_qp_and_html),
		TAP_CASE(test_base64_latin1_and_nested),
		TAP_CASE(test_html_only_and_top_posted),
		TAP_CASE(test_bad_commands_and_automatic),
		TAP_CASE(test_hostile),
		TAP_CASE(test_answer),
		{NULL, NULL}};
	int rc = tap_run(cases);

	mailin_release(&m);
	return rc;
}
