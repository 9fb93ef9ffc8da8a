/*
 * recipients.h: who gets a report (DESIGN.md section 8): the
 * subscribers whose filters it matches, its jobs' mail_to and mail_cc,
 * the author of the commit at fault where the tree allows it, and every
 * report's fixed recipients (a webhook's URL).  Pure, as report.h.
 */
#ifndef ROBOT_RECIPIENTS_H
#define ROBOT_RECIPIENTS_H

#include <stdbool.h>

#include <jansson.h>

#include "robot/daemon/store/reports.h"

/* A report's outbox rows: [{"channel", "recipient"}], each once; fixed
 * are the recipients every report has (a channel, its recipient, ...,
 * NULL; or NULL). */
json_t *recipients_of(const struct store_claim *claim,
		      const char *const *fixed);
/* Adds (channel, recipient) to outbox unless it is there. */
void recipients_add(json_t *outbox, const char *channel, const char *recipient);
/* Adds the recipients every report has (fixed, as above). */
void recipients_fixed(json_t *outbox, const char *const *fixed);
/* Whether glob (NULL: anything) matches s, as fnmatch(3) without flags. */
bool report_glob(const char *glob, const char *s);

#endif
