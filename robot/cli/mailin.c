/*
 * mailin.c: robot mail-in: one mail on stdin handed to robotd, for an
 * MTA's pipe delivery (docs/reports.md, "Replies by mail").  Its exit
 * status is what an MTA understands (sysexits.h): 0 taken, 65 not a
 * mail (bounced), 75 robotd not reached (the MTA tries again).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "robot/cli/cli.h"
#include "robot/cli/commands.h"
#include "robot/core/buf.h"
#include "robot/core/client.h"
#include "robot/core/log.h"
#include "robot/core/protocol.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

static const char mail_in_usage[] =
	"usage: robot mail-in [--server URL] [--json] < MAIL\n"
	"Hands one mail (RFC 5322, on stdin) to robotd: a reply to a "
	"report, whose\n#robot lines are triage commands "
	"(docs/reports.md).  For an MTA's pipe\ndelivery: exit 0 when "
	"robotd took it, 65 when it is no mail, 75 when robotd\ncould not "
	"be reached (try again).\n" CLI_HELP_SERVER;

int
cmd_mail_in(int argc, char **argv)
{
	struct cli_args a;
	struct client_resp r;
	struct buf msg;
	char chunk[65536], *url, *e;
	size_t n;
	json_t *j;
	static const struct cli_command cmd = {mail_in_usage,
					       CLI_SERVER | CLI_JSON};
	int status = cli_options(argc, argv, &cmd, NULL, &a);

	if (status == -1 && optind != argc)
		status = cli_usage_error(&cmd);
	if (status != -1) {
		cli_args_release(&a);
		return status;
	}
	buf_init(&msg);
	while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0 &&
	       msg.len <= ROBOT_MAIL_MAX)
		buf_add(&msg, chunk, n);
	if (ferror(stdin) || msg.len > ROBOT_MAIL_MAX) {
		log_warnx("%s", ferror(stdin) ? "cannot read the mail on stdin"
					      : "a mail over 4 MiB: not taken");
		buf_release(&msg);
		cli_args_release(&a);
		return ferror(stdin) ? EX_TEMPFAIL : EX_DATAERR;
	}
	if (!cli_server_endpoint(&a.server)) {
		buf_release(&msg);
		cli_args_release(&a);
		return EX_TEMPFAIL;
	}
	url = xasprintf("%s/api/mail", a.server);
	client_request("POST", url, NULL, msg.data, msg.len, 60, &r);
	free(url);
	if (r.status == 200 && (j = client_resp_json(&r)) != NULL) {
		if (a.json) {
			json_dumpf(j, stdout, JSON_INDENT(2));
			printf("\n");
		} else {
			printf("robotd took mail %s: %s%s%s\n",
			       cli_shown(j, "message_id"),
			       cli_shown(j, "state"),
			       rjson_get_str(j, "refused") ? ", refused: " : "",
			       rjson_get_str(j, "refused")
				       ? cli_shown(j, "refused")
				       : "");
		}
		json_decref(j);
		status = 0;
	} else {
		e = client_resp_error(&r);
		log_warnx("%s", e);
		free(e);
		/* a mail robotd cannot read is bounced; anything else is
		 * tried again */
		status = r.status == 400 || r.status == 413 ? EX_DATAERR
							    : EX_TEMPFAIL;
	}
	client_resp_release(&r);
	buf_release(&msg);
	cli_args_release(&a);
	return status;
}
