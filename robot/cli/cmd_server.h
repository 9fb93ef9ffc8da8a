/*
 * cmd_server.h: the robot commands that talk to robotd.
 */
#ifndef ROBOT_CMD_SERVER_H
#define ROBOT_CMD_SERVER_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "robot/core/buf.h"

int cmd_submit(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_results(int argc, char **argv);

/* The help lines of every command that talks to robotd. */
#define CMD_HELP_SERVER                                                        \
	"  --server URL   robotd (else $ROBOT_SERVER, else server: in "        \
	"~/.config/robot/config)\n"
#define CMD_HELP_TOKEN                                                         \
	"  --token T      a token (else $ROBOT_TOKEN, else token: in "         \
	"~/.config/robot/config)\n"

/* An option's value (optarg) into *dst: the last given counts. */
void cmd_opt_set(char **dst);
/* Server and token: the flags, else the environment, else the config;
 * false after saying what is missing. */
bool cmd_endpoint(char **server, char **token, bool need_token);
/* A job file read into body, its includes inlined (robotd reads no
 * files); false after saying why. */
bool cmd_read_jobfile(const char *file, struct buf *body);
/*
 * Sends method path to server with the token and body (may be NULL):
 * the answer's JSON when its status is want, else NULL after saying why
 * (what: the thing it was about, or NULL) with the error's details.
 */
json_t *cmd_call(const char *method, const char *server, const char *path,
		 const char *token, const char *body, size_t len, long want,
		 const char *what);
/* The server from the flag's value, the environment or the config. */
bool cmd_server_endpoint(char **server);
/* GETs path from server: the answer's JSON, or NULL after saying why. */
json_t *cmd_get(const char *server, const char *path);
/* A string member of the server's answer fit for a terminal (control
 * characters escaped), "-" when absent; valid for the next 7 calls. */
const char *cmd_shown(json_t *o, const char *key);
/*
 * Why robotd has no runs of series at commit, with the nearest series or
 * commits it has ("robotd has no series 'x'; did you mean 'y'?"); the
 * caller frees it.
 */
char *cmd_explain_missing(const char *server, const char *series,
			  const char *commit);

#endif
