/*
 * sdnotify.h: the service manager's notification protocol
 * (sd_notify(3)): a datagram of "KEY=VALUE" lines to the socket named by
 * $NOTIFY_SOCKET, without libsystemd.  robotd says READY=1 once it
 * serves, STOPPING=1 when it stops, RELOADING=1 and READY=1 around a
 * SIGHUP, and WATCHDOG=1 from its event loop at half the unit's
 * WatchdogSec (a loop that hangs stops pinging, and systemd restarts
 * it).  Without $NOTIFY_SOCKET (not started by a Type=notify unit)
 * nothing is sent.
 */
#ifndef ROBOT_SDNOTIFY_H
#define ROBOT_SDNOTIFY_H

#include <stdbool.h>
#include <stdint.h>

/* Takes $NOTIFY_SOCKET, $WATCHDOG_USEC and $WATCHDOG_PID out of the
 * environment, before any child starts: they are robotd's, and its
 * PostgreSQL would say READY=1 to the same socket (sd_notify(3)'s
 * unset_environment). */
void sdnotify_init(void);
/* Sends state ("READY=1\nSTATUS=..."); true when it was sent, false
 * when there is no notification socket or sending failed (logged). */
bool sdnotify(const char *state);
/* The watchdog's interval in microseconds ($WATCHDOG_USEC, when
 * $WATCHDOG_PID was absent or this process's), 0 for none. */
uint64_t sdnotify_watchdog_usec(void);

#endif
