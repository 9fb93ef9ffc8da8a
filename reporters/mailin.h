/*
 * mailin.h: mail to robot (docs/reports.md, "Replies by mail"): a reply
 * to a report, taken from an MTA's pipe (robot mail-in, POST /api/mail).
 * Its triage commands are the lines "#robot COMMAND" of its text
 * (robot/analysis/triage.h), never quoted ones; its reply address
 * (robot+rREPORT.HASH@domain) says which report it answers and, keyed
 * to the sender, that the sender got it (robot_mail_in()).  Each mail
 * is answered once, in its thread.
 *
 * The parse is RFC 5322 headers (folded lines unfolded), MIME multipart
 * (nested, at most MAILIN_PARTS parts), quoted-printable and base64,
 * UTF-8 and Latin-1; the first text/plain part that is no attachment,
 * else the first text/html made text (blockquotes as quoted lines).
 */
#ifndef ROBOT_MAILIN_H
#define ROBOT_MAILIN_H

#include <stdbool.h>
#include <stddef.h>

#include <event2/event.h>
#include <jansson.h>

#include "robot/core/protocol.h"
#include "robot/daemon/drain.h"
#include "robot/daemon/settings.h"
#include "robot/daemon/store.h"

#define MAILIN_MAX      ROBOT_MAIL_MAX /* bytes of a mail taken */
#define MAILIN_PARTS    100            /* MIME parts read */
#define MAILIN_COMMANDS 20             /* commands taken from one mail */

struct mailin {
	char *from;       /* the sender's address, lowercase; NULL: none */
	char *message_id; /* its Message-ID, or one made of its sha256 */
	char *subject;    /* as sent (unfolded), or NULL */
	char *token;      /* its reply address's "rREPORT.HASH", or NULL */
	bool automatic;   /* a bounce or an auto-reply: never answered */
	char *text;       /* its text, UTF-8 */
};

/* Parses the mail msg (len bytes) into m (mailin_release() it either
 * way); false with why in err when it is no mail at all. */
bool mailin_parse(const char *msg, size_t len, struct mailin *m, char *err,
		  size_t errlen);
void mailin_release(struct mailin *m);
/* The commands of text: [{"line", "command": {action, reason, text,
 * arg, dup}} or {"line", "error"}], at most MAILIN_COMMANDS (one more
 * entry says so), each line "#robot ..." not quoted ("> "), before the
 * signature ("-- ") or a quoted original ("-----Original Message-----"). */
json_t *mailin_commands(const char *text);
/* The answer to a mail robot_mail_in() took (its JSON): its text and
 * subject (*subject, the caller frees both); NULL when it gets none. */
char *mailin_answer(json_t *taken, const char *subject_in, char **subject);

/*
 * Takes the mail msg: parsed, its commands applied by the store
 * (robot_mail_in(), box_limit the setting box_false_alarms), its answer
 * queued (robot_mail_in_answer()).  cb
 * gets robot_mail_in()'s JSON, or a problem (400 for no mail at all).
 */
void mailin_take(struct event_base *base, struct store *s, const char *msg,
		 size_t len, int box_limit, store_text_cb cb, void *arg);

/*
 * The maildir robotd watches (the setting mail_in_maildir; SIGHUP may
 * set it): every 5 s each mail in its new/ is taken as mailin_take()
 * takes one, one at a time, then moved to its cur/, flagged seen
 * (":2,S"), or trashed (":2,T") when it was no mail; one that could not
 * be taken (the database down) waits for the next look.
 */
struct mailin_watch;
struct mailin_watch *mailin_watch_new(struct drain *d, struct event_base *base,
				      struct store *s,
				      const struct settings *set);
void mailin_watch_free(struct mailin_watch *mw);

#endif
