/*
 * log.h: logging to stderr (STYLE.md rule 16).  Messages are lowercase,
 * without a full stop, failure first, subject quoted.  log_warn() and
 * fatal() append strerror(errno); the x variants do not.
 */
#ifndef ROBOT_LOG_H
#define ROBOT_LOG_H

#include <stdarg.h>
#include <stdbool.h>

enum log_level {
	LOG_LEVEL_WARN,  /* warnings only */
	LOG_LEVEL_INFO,  /* the default: progress and warnings */
	LOG_LEVEL_DEBUG, /* everything */
};

/* Sets the name prefixed to every line and the most verbose level shown. */
void log_init(const char *progname, enum log_level level);
/* Prefixes each line with an ISO 8601 UTC time stamp (for daemons). */
void log_set_timestamps(bool on);
/* Prefixes each line with its syslog priority ("<4>" a warning, "<6>"
 * progress, "<7>" debug, "<2>" fatal), as the journal reads a service's
 * stderr (sd-daemon(3)); with them the journal's time stamps stand. */
void log_set_priorities(bool on);
enum log_level log_get_level(void);

void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A bug or impossible state, or a failure nothing can recover from: exit. */
void fatal(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
void fatalx(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

#endif
