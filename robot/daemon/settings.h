/*
 * config.h: robotd's configuration: a YAML file (--config FILE) whose
 * every key is optional, then the command-line flags over it.
 *
 *   listen: 127.0.0.1:8420   # ADDR:PORT of the HTTP API
 *   state_dir: /var/lib/robot   # the embedded database lives in pg/
 *   db: "host=... dbname=..."   # an existing PostgreSQL instead
 *   db_pool: 8               # connections for queries (+1 for LISTEN)
 *   lease_seconds: 120       # a lease lives this long without heartbeats
 *   max_attempts: 3          # leases of a job before it fails
 *   broken_after: 3          # failed jobs in a row that break a box
 *   max_jobs: 1000           # atomic jobs per submitted file
 *   long_poll: 30            # seconds a box's lease request may wait
 *   tbox_group: lab-xfs      # for submits that name no group
 *   max_connections: 4000    # HTTP connections at once
 *
 * SIGHUP reloads the file; what needs a restart (listen, state_dir, db,
 * db_pool, max_connections) keeps its old value, with a warning.
 */
#ifndef ROBOT_CONFIG_H
#define ROBOT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "robot/core/errlist.h"

struct config {
	char *path; /* the file, or NULL */
	char *listen_addr;
	int listen_port;
	char *state_dir;
	char *db; /* NULL: the embedded database */
	int db_pool;
	int lease_seconds;
	int max_attempts;
	int broken_after;
	int max_jobs;
	int long_poll;
	char *tbox_group;
	int max_connections;
};

void config_defaults(struct config *c);
/* Reads path over c.  Returns false with the problems in el. */
bool config_load(const char *path, struct config *c, struct errlist *el)
	__attribute__((warn_unused_result));
/* Sets the listen address from "ADDR:PORT" (or ":PORT", "PORT"). */
bool config_set_listen(struct config *c, const char *s);
void config_release(struct config *c);

#endif
