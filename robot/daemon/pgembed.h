/*
 * pgembed.h: the embedded default database (DESIGN.md section 2): a
 * private PostgreSQL cluster in <state-dir>/pg, made with initdb on first
 * start, reached through its own unix socket only, run as the postgres
 * user when robotd is root.  Blocking: it runs before and after the loop.
 */
#ifndef ROBOT_PGEMBED_H
#define ROBOT_PGEMBED_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * Starts the cluster in state_dir (making it first if needed) unless it
 * runs already (*started says which).  Returns the conninfo string to
 * reach it, or NULL with *err.
 */
char *pgembed_start(const char *state_dir, bool *started, char **err);
/* Stops the cluster (fast shutdown); logs failures. */
void pgembed_stop(const char *state_dir);
/* Whether the cluster's postmaster runs (its postmaster.pid names a live
 * process). */
bool pgembed_alive(const char *state_dir);
/* Runs PostgreSQL's client program tool (pg_dump, pg_restore: the
 * installed server's, found as initdb is) with args (NULL-ended, without
 * the program), as this user; its stdout into *out when out is not NULL
 * (a string the caller frees), its stderr to robotd's.  Its exit status,
 * or -1 when it could not run (said). */
int pgembed_tool(const char *tool, char *const args[], char **out);
/* Starts the cluster again in a child process, which exits 0 once the
 * server takes connections and 1 when it cannot start; its PID, or -1.
 * The caller reaps it (pgwatch.c, without blocking the loop). */
pid_t pgembed_restart(const char *state_dir);

#endif
