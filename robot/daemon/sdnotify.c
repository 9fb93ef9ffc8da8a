/*
 * sdnotify.c: sd_notify(3)'s protocol (sdnotify.h).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "robot/core/log.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/sdnotify.h"
#include "robot/core/banned.h"

/* The socket's path and the watchdog's interval, from the environment
 * (sdnotify_init()). */
static char *notify_path;
static uint64_t watchdog_usec;

/* $WATCHDOG_USEC, when $WATCHDOG_PID is absent or this process's. */
static uint64_t
watchdog_env(void)
{
	const char *usec = getenv("WATCHDOG_USEC");
	const char *pid = getenv("WATCHDOG_PID");
	char *end;
	unsigned long long v;

	if (usec == NULL)
		return 0;
	if (pid != NULL && strtol(pid, NULL, 10) != (long)getpid())
		return 0;
	errno = 0;
	v = strtoull(usec, &end, 10);
	if (errno != 0 || end == usec || *end != '\0')
		return 0;
	return (uint64_t)v;
}

void
sdnotify_init(void)
{
	const char *path = getenv("NOTIFY_SOCKET");

	free(notify_path);
	notify_path = path != NULL && path[0] != '\0' ? xstrdup(path) : NULL;
	watchdog_usec = watchdog_env();
	unsetenv("NOTIFY_SOCKET");
	unsetenv("WATCHDOG_USEC");
	unsetenv("WATCHDOG_PID");
}

bool
sdnotify(const char *state)
{
	const char *path = notify_path;
	struct sockaddr_un sa;
	socklen_t len;
	size_t n;
	ssize_t sent;
	int fd;

	if (path == NULL || path[0] == '\0')
		return false;
	n = strlen(path);
	/* a path, or an abstract name ('@' for its leading NUL) */
	if ((path[0] != '/' && path[0] != '@') || n >= sizeof sa.sun_path) {
		log_warnx("NOTIFY_SOCKET '%.80s' is no socket robotd can "
			  "reach",
			  path);
		return false;
	}
	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, path, n);
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n +
			  (path[0] == '/'));
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd == -1) {
		log_warn("cannot tell the service manager: socket");
		return false;
	}
	do
		sent = sendto(fd, state, strlen(state), MSG_NOSIGNAL,
			      (struct sockaddr *)&sa, len);
	while (sent == -1 && errno == EINTR);
	if (sent == -1)
		log_warn("cannot tell the service manager '%.40s'", state);
	close(fd);
	return sent != -1;
}

uint64_t
sdnotify_watchdog_usec(void)
{
	return watchdog_usec;
}
