/*
 * cli.h: what the robot command's subcommands share: their common
 * options (--server, --token, --json, --help) parsed with their own by
 * one helper, robotd's address and token, its answers over HTTP, a job
 * file with its includes, and names fit for a terminal.
 */
#ifndef ROBOT_CLI_H
#define ROBOT_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "robot/analysis/comparison.h"
#include "robot/core/buf.h"

#define CLI_HELP_SERVER                                                        \
	"  --server URL   robotd (else $ROBOT_SERVER, else server: in "        \
	"~/.config/robot/config)\n"                                            \
	"  --ca-file FILE the CA of robotd's certificate (else "               \
	"$ROBOT_CA_FILE,\n"                                                    \
	"                 else ca_file: in the config; else the system's)\n"   \
	"  --insecure-http  allow plain http to another machine (the token "   \
	"in clear)\n"
#define CLI_HELP_TOKEN                                                         \
	"  --token T      a token (else $ROBOT_TOKEN, else token: in "         \
	"~/.config/robot/config)\n"

/* The vals of --ca-file and --insecure-http, which come with --server. */
#define CLI_OPT_CA_FILE  0x100
#define CLI_OPT_INSECURE 0x101

/* The options a command shares with others (cli_options()). */
enum {
	CLI_SERVER = 1 << 0, /* --server URL */
	CLI_TOKEN = 1 << 1,  /* --token T */
	CLI_JSON = 1 << 2,   /* --json */
};

/* What the shared options gave. */
struct cli_args {
	char *server, *token;
	bool json;
};

/* Takes one of a command's own options: c its val, arg its argument
 * (or NULL); false when the value is bad (said). */
typedef bool (*cli_option_fn)(int c, const char *arg, void *ctx);

/* A command's options, as cli_options() reads them. */
struct cli_command {
	const char *usage;        /* --help's text */
	unsigned shared;          /* CLI_SERVER | CLI_TOKEN | CLI_JSON */
	const struct option *own; /* NULL-ended, vals other than 's', 't',
				     'j', 'h'; or NULL */
	const char *shorts;       /* short forms of own ("o:"), or NULL */
	cli_option_fn on;         /* takes the own options */
	const char *hint; /* on a bad option, instead of the usage, or NULL */
};

/*
 * Parses argv as cmd says: the shared options, and its own, handed to
 * cmd->on(val, optarg, ctx).  --help prints the usage to stdout; a bad
 * option, to stderr.  Returns -1 to go on (optind at the first
 * operand), else the exit status: 0 after --help, 2 after a bad
 * option.  The caller releases a with cli_args_release() either way.
 */
int cli_options(int argc, char **argv, const struct cli_command *cmd, void *ctx,
		struct cli_args *a);
/* The usage (or the hint) on stderr: exit status 2. */
int cli_usage_error(const struct cli_command *cmd);
void cli_args_release(struct cli_args *a);

/* Replaces *dst with a copy of optarg. */
void cli_opt_set(char **dst);
/* robotd's address (and token, when need_token), from the options, the
 * environment or ~/.config/robot/config; false after saying what is
 * missing.  The address loses its trailing '/'. */
bool cli_endpoint(char **server, char **token, bool need_token);
/* cli_endpoint() without a token. */
bool cli_server_endpoint(char **server);
/* GETs path: the JSON, or NULL after saying why. */
json_t *cli_get(const char *server, const char *path);
/* cli_get(), saying nothing when quiet. */
json_t *cli_get_json(const char *server, const char *path, bool quiet);
/* method path with token and body: the JSON when the answer is want,
 * else NULL after saying why (after what: when it is not NULL). */
json_t *cli_call(const char *method, const char *server, const char *path,
		 const char *token, const char *body, size_t len, long want,
		 const char *what);
/* A job file with its includes inlined (robotd reads only the body);
 * false after saying why. */
bool cli_read_jobfile(const char *file, struct buf *body);
/* A string member of the server's answer, fit for a terminal (escaped;
 * "-" when absent); valid until the eighth call after it. */
const char *cli_shown(json_t *o, const char *key);
/* Why robotd has no runs of series at commit, naming the nearest
 * series or commit it has (the caller frees it). */
char *cli_explain_missing(const char *server, const char *series,
			  const char *commit);
/* GETs path from a->server (robotd's address found as cli_endpoint()
 * does) and prints it: as JSON with --json, else with print(j, ctx).  The exit
 * status: 0, 1 when robotd did not answer it (said), 2 without an
 * address. */
int cli_get_print(struct cli_args *a, const char *path,
		  void (*print)(json_t *j, void *ctx), void *ctx);
/* Adds "name=value" (escaped) to the query q ("?..." then "&..."). */
void cli_query_add(struct buf *q, const char *name, const char *value);
/* An ID operand: a positive number. */
bool cli_id(const char *s, long long *id);
/* A member of percent, "+1.2%", in buf ("-" when absent). */
const char *cli_pct(json_t *o, const char *key, char *buf, size_t len);
/* The verdict block above a comparison's table: each KPI's verdict,
 * %change, p and runs a side, so that the table's dozens of rows need
 * not be read to learn what happened. */
void cli_print_kpis(const struct comparison *c);
/* An admin listing (--server, --token, --json, --limit): path?limit=,
 * printed by print unless --json. */
int cli_admin_list(int argc, char **argv, const char *usage, const char *path,
		   void (*print)(json_t *));

#endif
