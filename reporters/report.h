/*
 * report.h: a report as maintainers read it (DESIGN.md section 8): the
 * mail's subject and text in 0-day's shape, the same report as JSON for
 * webhooks (docs/reports.md), and who gets it.
 *
 * The input is what robot_report_next() or robot_followup_next() gives
 * (sql/functions/reports.sql): a commit's final regressions with their pairs'
 * tables, jobs and boxes, or a thread's news; and the subscribers.
 * Everything here is pure: no I/O, no clock.
 */
#ifndef ROBOT_REPORT_H
#define ROBOT_REPORT_H

#include <stdbool.h>

#include <jansson.h>

struct report_config {
	const char *public_url; /* "http://host:port", no trailing '/' */
	const char *mail_from;  /* robot@example.org */
	/* The recipients every report has, in pairs: a channel, its
	 * recipient ("webhook", URL, ...), ending with NULL; or NULL. */
	const char *const *fixed;
	/* The lab's operators, the same way: who gets a lab note. */
	const char *const *operators;
};

struct report_out {
	char *subject;
	char *body;     /* the mail's text, lines ending in "\n" */
	json_t *doc;    /* the webhook's JSON */
	json_t *outbox; /* [{"channel", "recipient"}], each once */
};

/*
 * Renders the claim (a "report", a "followup", or a "note" for the lab's
 * operators: robot_note_next()).  False, with out untouched, when the
 * claim is not one (a bug, or a newer schema).
 */
bool report_render(json_t *claim, const struct report_config *cfg,
		   struct report_out *out);
void report_out_release(struct report_out *out);

/*
 * The confirmation mail of a subscription (its JSON: email and filters)
 * with its one-time link; its subject in *subject.  Both for the caller
 * to free.
 */
char *report_confirmation(const struct report_config *cfg, json_t *sub,
			  const char *link, char **subject);

/* The subsystem of a commit subject: its prefix before ": " ("xfs",
 * "mm/page-writeback"), when it is one; else NULL.  The caller frees it. */
char *report_subsystem(const char *subject);

/*
 * Checks a subscription as asked (POST /api/subscriptions): an object of
 * email (an address, mail_address_check()), tree, branch, testcase and
 * metric (globs of printable ASCII, at most 200 bytes), min_change (a
 * number of percent, 0 to 10000, or a string "5%"), regressions and
 * improvements (booleans; not both false).  Normalizes it in place
 * (min_change a number, the email lowercase).  Returns the faults, one
 * string each, or NULL when it is good; the caller frees them.
 */
json_t *report_subscription_check(json_t *sub);

/* Whether glob (NULL: anything) matches s, as fnmatch(3) without flags. */
bool report_glob(const char *glob, const char *s);

#endif
