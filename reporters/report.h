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
#include <stddef.h>

#include <jansson.h>

#include "robot/daemon/store/reports.h"

#include "robot/core/buf.h"

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
 * Renders the claim, decoded by the store (a "report", a "followup", or
 * a "note" for the lab's operators: robot_note_next()).  False, with out
 * untouched, when the claim is not one (a bug, or a newer schema).
 */
bool report_render(const struct store_claim *claim,
		   const struct report_config *cfg, struct report_out *out);
void report_out_release(struct report_out *out);

/* The subsystem of a commit subject: its prefix before ": " ("xfs",
 * "mm/page-writeback"), when it is one; else NULL.  The caller frees it. */
char *report_subsystem(const char *subject);

/* Appends words to b, wrapped before the report's 90 columns: *col is
 * the column the line is at, indent the one a new line starts at. */
void report_wrap(struct buf *b, const char *words, size_t *col, size_t indent);

#endif
