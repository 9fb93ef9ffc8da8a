/*
 * log.c: the one place that writes diagnostics.  Everything goes to stderr
 * so that stdout stays free for a command's output (JSON, tables).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "robot/core/log.h"
#include "robot/core/banned.h"

static const char *log_progname = "robot";
static enum log_level log_level = LOG_LEVEL_INFO;
static bool log_timestamps;
static bool log_priorities;

void
log_init(const char *progname, enum log_level level)
{
	log_progname = progname;
	log_level = level;
}

void
log_set_timestamps(bool on)
{
	log_timestamps = on;
}

void
log_set_priorities(bool on)
{
	log_priorities = on;
}

enum log_level
log_get_level(void)
{
	return log_level;
}

static void __attribute__((format(printf, 3, 0)))
log_vwrite(int priority, const char *tag, const char *fmt, va_list ap,
	   int errnum)
{
	char stamp[32] = "";
	char msg[2048];

	if (log_priorities) {
		snprintf(stamp, sizeof stamp, "<%d>", priority);
	} else if (log_timestamps) {
		struct timespec ts;
		struct tm tm;

		clock_gettime(CLOCK_REALTIME, &ts);
		gmtime_r(&ts.tv_sec, &tm);
		strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ ", &tm);
	}
	vsnprintf(msg, sizeof msg, fmt, ap);
	if (errnum != 0)
		fprintf(stderr, "%s%s: %s%s: %s\n", stamp, log_progname, tag,
			msg, strerror(errnum));
	else
		fprintf(stderr, "%s%s: %s%s\n", stamp, log_progname, tag, msg);
}

void
log_warn(const char *fmt, ...)
{
	int errnum = errno;
	va_list ap;

	va_start(ap, fmt);
	log_vwrite(4, "", fmt, ap, errnum);
	va_end(ap);
	errno = errnum;
}

void
log_warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vwrite(4, "", fmt, ap, 0);
	va_end(ap);
}

void
log_info(const char *fmt, ...)
{
	va_list ap;

	if (log_level < LOG_LEVEL_INFO)
		return;
	va_start(ap, fmt);
	log_vwrite(6, "", fmt, ap, 0);
	va_end(ap);
}

void
log_debug(const char *fmt, ...)
{
	va_list ap;

	if (log_level < LOG_LEVEL_DEBUG)
		return;
	va_start(ap, fmt);
	log_vwrite(7, "debug: ", fmt, ap, 0);
	va_end(ap);
}

void
fatal(const char *fmt, ...)
{
	int errnum = errno;
	va_list ap;

	va_start(ap, fmt);
	log_vwrite(2, "fatal: ", fmt, ap, errnum);
	va_end(ap);
	exit(1);
}

void
fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vwrite(2, "fatal: ", fmt, ap, 0);
	va_end(ap);
	exit(1);
}
