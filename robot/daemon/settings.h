/*
 * settings.h: robotd's settings, from one table (settings.c) that gives
 * each its name, type, default, range and whether SIGHUP may change it.
 * The configuration file (--config FILE, YAML, every key optional), the
 * command-line flags (--listen, --state-dir, --db) and SIGHUP all go
 * through that table:
 *
 *   listen: 127.0.0.1:8420   # ADDR:PORT of the HTTP API
 *   state_dir: /var/lib/robot   # the embedded database lives in pg/
 *   db: "host=... dbname=..."   # an existing PostgreSQL instead
 *   db_pool: 8               # connections for queries (+1 for LISTEN)
 *   lease_seconds: 120       # a lease lives this long without heartbeats
 *   lease_max_life: 21600    # and this long at most, heartbeats or not
 *   max_attempts: 3          # leases of a job before it fails
 *   broken_after: 3          # failed jobs in a row that break a box
 *   max_jobs: 1000           # atomic jobs per submitted file
 *   long_poll: 30            # seconds a box's lease request may wait
 *   tbox_group: lab-xfs      # for submits that name no group
 *   max_connections: 4000    # HTTP connections at once
 *   max_connections_per_client: 64   # from one address at once
 *   request_timeout: 30      # seconds a request may take to arrive
 *   max_runs: 14             # runs per side analysis may ask for
 *   analysis_claim: 30       # seconds a robotd holds a pair it analyses
 *   tree_fetch_timeout: 600  # seconds a tree's git fetch may take
 *   smtp: smtp://127.0.0.1:25   # where reports are mailed (none: held)
 *   smtp_user: robot         # a login, with smtp_password
 *   smtp_starttls: false     # require STARTTLS
 *   mail_from: robot@localhost   # the reports' sender
 *   public_url: https://robot.example.org   # links in mails (else
 *                            # http://LISTEN)
 *   trusted_proxy: 127.0.0.1 # a reverse proxy in front (docs/deploy.md):
 *                            # its requests name their client in
 *                            # X-Forwarded-For, and it is not held to
 *                            # max_connections_per_client
 *   tls_cert: /etc/robot/tls/robotd.pem   # HTTPS: the chain, with
 *   tls_key: /etc/robot/tls/robotd.key    # its key (SIGHUP rereads)
 *   report_window: 600       # seconds a report waits for the rest of
 *                            # its commit's analyses
 *   report_bisect_wait: 21600   # seconds a report waits for its
 *                            # bisection (then: the range, and the
 *                            # first bad commit later in its thread)
 *   report_claim: 300        # seconds a robotd holds a report or a
 *                            # mail it sends (killed: another sends it)
 *   webhook: https://...     # reports as JSON, signed with
 *   webhook_secret: ...      # X-Robot-Signature
 *   chat_webhook: https://...   # {"text": ...}, Slack/Mattermost-style
 *   operator_mail: lab@example.org     # the lab's operators: boxes too
 *   operator_webhook: https://...      # noisy for a job (lab notes)
 *   reference_every: 3600    # seconds a box idles before a reference
 *                            # run of its canary (0: never)
 *   power_cycle: /usr/local/sbin/power-cycle   # run (sh -c, the box's
 *                            # name as $1) for a box silent since its
 *                            # lease expired mid-run (none by default)
 *   box_false_alarms: 2      # findings marked "invalid: box" in 30 days
 *                            # that make a box suspect (0: never)
 *   mail_in_maildir: /var/mail/robot   # replies delivered there are
 *                            # taken as robot mail-in takes them
 *
 * SIGHUP reloads the file; what needs a restart (listen, state_dir, db,
 * db_pool, the connection limits, request_timeout) keeps its old value,
 * with a warning.
 */
#ifndef ROBOT_SETTINGS_H
#define ROBOT_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "robot/core/errlist.h"

struct settings {
	char *path; /* the file read, or NULL */
	char *listen_addr;
	int listen_port;
	char *state_dir;
	char *db; /* NULL: the embedded database */
	int db_pool;
	int lease_seconds;
	int lease_max_life; /* seconds a lease may live, heartbeats or not */
	int max_attempts;
	int broken_after;
	int max_jobs;
	int long_poll;
	char *tbox_group; /* NULL: none */
	int max_connections;
	int max_connections_per_client;
	int request_timeout;
	int max_runs;
	int analysis_claim;
	int compare_max_running; /* comparisons made on request at once */
	int compare_max_values;  /* the values one may read */
	int tree_fetch_timeout;
	char *smtp;      /* smtp://HOST:PORT; NULL: no mail goes out */
	char *smtp_user; /* NULL: no login */
	char *smtp_password;
	int smtp_starttls; /* STARTTLS required */
	char *mail_from;
	char *public_url;       /* NULL: http://LISTEN (https with TLS) */
	char *trusted_proxy;    /* addresses of a reverse proxy, or NULL */
	char *tls_cert;         /* HTTPS: the certificate chain (PEM), with */
	char *tls_key;          /* its key; NULL: plain HTTP */
	int report_window;      /* seconds a report waits for its commit */
	int report_bisect_wait; /* seconds a report waits for its bisection */
	int report_claim;       /* seconds a claimed report or mail is ours */
	char *webhook;          /* a URL for reports as JSON, or NULL */
	char *webhook_secret;   /* the key of X-Robot-Signature, or NULL */
	char *chat_webhook;     /* a URL for {"text": ...}, or NULL */
	char *operator_mail;    /* the lab's operators' address, or NULL */
	char *operator_webhook; /* their webhook (lab notes), or NULL */
	int reference_every;    /* idle seconds before a reference run */
	char *power_cycle;      /* the lab's command for a silent box */
	int box_false_alarms;   /* invalid: box findings in 30 days that
				   make a box suspect; 0: never */
	char *mail_in_maildir;  /* a maildir of replies, or NULL */
};

/* Fills s with every default. */
void settings_defaults(struct settings *s);
/* The name of setting i (0, 1, ...), NULL past the last. */
const char *settings_name(size_t i);
void settings_release(struct settings *s);
/* Reads the file at path over s.  Returns false with the problems in el. */
bool settings_load(const char *path, struct settings *s, struct errlist *el)
	__attribute__((warn_unused_result));
/*
 * Sets the setting name from text (a flag's value).  Returns false with
 * *why (the caller frees it) when text is not a valid value.
 */
bool settings_set(struct settings *s, const char *name, const char *text,
		  char **why) __attribute__((warn_unused_result));
/*
 * SIGHUP: copies into live the reloadable settings of fresh, and returns
 * how many settings that need a restart differ (their names in *names,
 * comma-separated, which the caller frees; NULL when none).
 */
size_t settings_reload(struct settings *live, const struct settings *fresh,
		       char **names);
/* The path of tree name's bare mirror: STATE-DIR/trees/NAME.git. */
char *settings_mirror(const struct settings *s, const char *name);

/* The first of list's addresses that is not an IP address, or NULL. */
const char *settings_proxy_bad(const char *list);
/* Whether addr (as the connection's peer is written) is one of
 * trusted_proxy's. */
bool settings_proxy_is(const struct settings *s, const char *addr);

#endif
