/*
 * test_triage.c: the triage commands (robot/analysis/triage.h), as a
 * mail's reply, the API and the CLI give them, and hostile ones.
 */
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/triage.h"
#include "tap.h"

static struct triage_cmd c;
static char err[256];

static bool
parse(const char *line)
{
	return triage_parse(line, strlen(line), &c, err, sizeof err);
}

static void
test_commands(void)
{
	CHECK(parse("#robot ack"));
	CHECK_INT(c.action, TRIAGE_ACK);
	CHECK_STR(c.arg, "");
	CHECK_STR(triage_action_state(c.action), "acknowledged");
	CHECK(parse("  #robot ack: Jan Kara <jack@suse.cz>  "));
	CHECK_STR(c.arg, "Jan Kara <jack@suse.cz>");
	CHECK(parse("ack bob"));
	CHECK_STR(c.arg, "bob");
	CHECK(parse("#robot invalid: the RAID controller changed its cache "
		    "mode"));
	CHECK_INT(c.action, TRIAGE_INVALID);
	CHECK_STR(c.reason, "other");
	CHECK_STR(c.text, "the RAID controller changed its cache mode");
	CHECK(parse("#robot invalid: box: the RAID controller changed its "
		    "cache mode"));
	CHECK_STR(c.reason, "box");
	CHECK_STR(c.text, "the RAID controller changed its cache mode");
	CHECK(parse("#ROBOT Invalid: Noise"));
	CHECK_STR(c.reason, "noise");
	CHECK_STR(c.text, "");
	/* a word that begins as a reason is no reason */
	CHECK(parse("invalid: boxes were swapped"));
	CHECK_STR(c.reason, "other");
	CHECK_STR(c.text, "boxes were swapped");
	CHECK(parse("wontfix: the old number was a bug in the test"));
	CHECK_INT(c.action, TRIAGE_WONTFIX);
	CHECK_STR(triage_action_state(c.action), "wontfix");
	CHECK(parse("#robot dup-of: 12"));
	CHECK_INT(c.action, TRIAGE_DUP);
	CHECK_INT(c.dup, 12);
	CHECK(parse("#robot dup-of: https://robot.example.org/regressions/"
		    "345/"));
	CHECK_INT(c.dup, 345);
	CHECK(parse("#robot fixed-by: 1A2B3C4D5E"));
	CHECK_INT(c.action, TRIAGE_FIXED_BY);
	CHECK_STR(c.arg, "1a2b3c4d5e");
	CHECK_STR(triage_action_state(c.action), "fixed");
	CHECK(parse("#robot note: bisected by hand to the writeback "
		    "change\tas well"));
	CHECK_STR(c.text, "bisected by hand to the writeback change as well");
	CHECK(triage_action_state(c.action) == NULL);
	CHECK(parse("link: https://bugzilla.kernel.org/show_bug.cgi?id=1"));
	CHECK_STR(c.arg, "https://bugzilla.kernel.org/show_bug.cgi?id=1");
	CHECK(parse("tag: xfs, writeback  raid"));
	CHECK_STR(c.arg, "xfs,writeback,raid");
	CHECK(parse("#robot mute: 30d the controller is being replaced"));
	CHECK_INT(c.action, TRIAGE_MUTE);
	CHECK_INT(c.seconds, 30 * 86400);
	CHECK_STR(c.arg, "30d");
	CHECK_STR(c.text, "the controller is being replaced");
	CHECK(triage_action_state(c.action) == NULL);
	CHECK(parse("mute: 12h"));
	CHECK_INT(c.seconds, 12 * 3600);
	CHECK_STR(c.text, "");
	CHECK(parse("mute: 52w"));
	CHECK_INT(c.seconds, 52 * 7 * 86400);
	{
		char *j = triage_cmd_json(&c);

		CHECK_STR(j, "{\"action\":\"mute\",\"reason\":null,\"text\":"
			     "\"\",\"arg\":"
			     "\"52w\",\"seconds\":31449600}");
		free(j);
	}
	CHECK(parse("#robot: untriage"));
	CHECK_INT(c.action, TRIAGE_UNTRIAGE);
	CHECK_STR(triage_action_name(TRIAGE_FIXED_BY), "fixed-by");
	CHECK(triage_state_valid("recovered"));
	CHECK(!triage_state_valid("reported"));
	CHECK(!triage_state_valid(NULL));
}

/* Each refused with a reason, never half taken. */
static void
test_bad_commands(void)
{
	static const struct {
		const char *line, *why;
	} bad[] = {
		{"", "no command ''"},
		{"#robot", "no command ''"},
		{"#robot snooze: 30d", "no command 'snooze'"},
		{"mute", "mute wants how long"},
		{"mute: forever", "mute wants how long"},
		{"mute: 366d", "mute wants how long"},
		{"mute: 0d", "mute wants how long"},
		{"mute: 30 d", "mute wants how long"},
		{"mute: 99999999999999999999d", "mute wants how long"},
		{"#robotx ack", "no command '#robotx"},
		{"fix-by: 1234567", "no command 'fix-by'"},
		{"invalid", "invalid wants its text"},
		{"invalid:   ", "invalid wants its text"},
		{"wontfix", "wontfix wants its text"},
		{"note:", "note wants its text"},
		{"invalid because", "a command is NAME or NAME: ARGUMENT"},
		{"dup-of: twelve", "dup-of wants a finding"},
		{"dup-of: 0", "dup-of wants a finding"},
		{"dup-of: https://x.org/bisections/12", "dup-of wants"},
		{"dup-of: javascript:alert(1)/regressions/1", "dup-of wants"},
		{"dup-of: 99999999999999999999", "dup-of wants"},
		{"fixed-by: 123456", "fixed-by wants a commit"},
		{"fixed-by: 123456g", "fixed-by wants a commit"},
		{"fixed-by: HEAD~1", "fixed-by wants a commit"},
		{"link: ftp://x.org/1", "link wants its bug's URL"},
		{"link: https://x.org/a b", "link wants its bug's URL"},
		{"link: https://x.org/\"><script>", "link wants"},
		{"tag:", "tag wants a name"},
		{"tag: a;b", "a tag is letters"},
		{"tag: a,b,c,d,e,f,g,h,i", "at most 8 tags"},
		{"tag: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		 "a tag is at most 32"},
		{"untriage: now", "untriage takes no argument"},
		{"note: a\x01"
		 "b",
		 "the text has a control character"},
		{"note: \xff\xfe", "the text is not UTF-8"},
		{"ack: \x1b[31mred", "the assignee has a control character"},
	};
	char big[TRIAGE_TEXT_MAX + 64];

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		bool ok = parse(bad[i].line);

		CHECK(!ok);
		if (strstr(err, bad[i].why) == NULL)
			tap_diag("'%s': %s (wanted %s)", bad[i].line, err,
				 bad[i].why);
		CHECK(strstr(err, bad[i].why) != NULL);
	}
	memcpy(big, "note: ", 6);
	memset(big + 6, 'x', TRIAGE_TEXT_MAX + 1);
	big[6 + TRIAGE_TEXT_MAX + 1] = '\0';
	CHECK(!parse(big));
	CHECK(strstr(err, "more than 1000") != NULL);
	big[6 + TRIAGE_TEXT_MAX] = '\0';
	CHECK(parse(big));
	CHECK_INT(strlen(c.text), TRIAGE_TEXT_MAX);
	/* a line given by its length: nothing read past it */
	CHECK(triage_parse("fixed-by: 1234567890abc", 17, &c, err, sizeof err));
	CHECK_STR(c.arg, "1234567");
}

int
main(void)
{
	static const struct tap_case cases[] = {TAP_CASE(test_commands),
						TAP_CASE(test_bad_commands),
						{NULL, NULL}};

	return tap_run(cases);
}
