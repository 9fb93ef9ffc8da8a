/*
 * triage.h: what a maintainer says of a finding (docs/reports.md,
 * "Triage"), in one language wherever it is said: a mail's reply
 * ("#robot invalid: box: the RAID controller changed its cache mode"),
 * the API ({"command": "invalid: box: ..."}) and the CLI (robot triage
 * 12 invalid: box: ...).  The commands, in regzbot's form:
 *
 *   ack [WHO]                      acknowledged, WHO looks at it
 *   invalid: [box|test|noise|other:] WHY   not a real change (reason:
 *                                  other when none is named)
 *   wontfix: WHY                   real, and it stays
 *   dup-of: ID|URL                 another finding's duplicate
 *   fixed-by: SHA                  a commit fixes it (robotd confirms
 *                                  when it measures the fix)
 *   note: TEXT                     a note, nothing else changes
 *   link: URL                      its bug (http or https)
 *   tag: NAME[, NAME...]           tags
 *   mute: DURATION [WHY]           its series muted (30d, 12h, 2w)
 *   untriage                       back to untriaged
 *
 * Parsing decides nothing about the finding: the store applies the
 * command and says who may (robot_regression_triage()).
 */
#ifndef ROBOT_ANALYSIS_TRIAGE_H
#define ROBOT_ANALYSIS_TRIAGE_H

#include <stdbool.h>
#include <stddef.h>

enum triage_action {
	TRIAGE_ACK,
	TRIAGE_INVALID,
	TRIAGE_WONTFIX,
	TRIAGE_DUP,
	TRIAGE_FIXED_BY,
	TRIAGE_NOTE,
	TRIAGE_LINK,
	TRIAGE_TAG,
	TRIAGE_MUTE,
	TRIAGE_UNTRIAGE,
};

#define TRIAGE_TEXT_MAX 1000 /* bytes of a reason or a note */
#define TRIAGE_ARG_MAX  500  /* of an assignee, a URL, tags, a SHA */
#define TRIAGE_TAGS_MAX 8
#define TRIAGE_TAG_MAX  32
#define TRIAGE_MUTE_MAX (365LL * 86400) /* the longest mute, seconds */

struct triage_cmd {
	enum triage_action action;
	const char *reason;             /* invalid: box, test, noise or
					    other (static); NULL else */
	char text[TRIAGE_TEXT_MAX + 1]; /* the why, or the note */
	char arg[TRIAGE_ARG_MAX + 1];   /* assignee, SHA, URL; tags
					    joined by "," */
	long long dup;                  /* dup-of: the finding's id */
	long long seconds;              /* mute: for how long */
};

/*
 * Parses one command, with or without its "#robot " (len bytes of line,
 * no line break in them).  False with why in err when it is none: an
 * unknown command, a missing or malformed argument, control characters,
 * text beyond the limits above.
 */
bool triage_parse(const char *line, size_t len, struct triage_cmd *c, char *err,
		  size_t errlen);
/* The command's name as it is written ("fixed-by"), and the state it
 * gives the finding ("acknowledged", "invalid", ...; NULL: none, as a
 * note's). */
const char *triage_action_name(enum triage_action a);
const char *triage_action_state(enum triage_action a);
/* Whether s is a triage state: untriaged, acknowledged, invalid,
 * wontfix, duplicate, fixed, recovered. */
bool triage_state_valid(const char *s);
/* A duration as a mute takes it (len bytes of s): N followed by h, d or
 * w, at most TRIAGE_MUTE_MAX; its seconds, or 0 when it is none. */
long long triage_duration(const char *s, size_t len);
/* c as the store takes it: {action, reason, text, arg, dup, seconds}
 * (the caller frees it). */
char *triage_cmd_json(const struct triage_cmd *c);

#endif
