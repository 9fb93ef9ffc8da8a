/*
 * unsubscribe.c: robot unsubscribe: follows a mail's unsubscribe link.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/cli/cli.h"
#include "robot/cli/commands.h"
#include "robot/core/client.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

static const char unsubscribe_usage[] =
	"usage: robot unsubscribe LINK|TOKEN [--server URL]\n"
	"Follows a report mail's unsubscribe link: robotd mails nothing "
	"more to its\naddress.\n" CLI_HELP_SERVER;

/* POSTs the link's one-click answer: the exit status. */
static int
unsubscribe_post(const char *server, const char *t)
{
	char *url = xasprintf("%s/subscriptions/unsubscribe?t=%s", server, t);
	struct client_resp r;
	int status = 1;

	client_request("POST", url, NULL, "List-Unsubscribe=One-Click", 26, 30,
		       &r);
	if (r.status == 200) {
		printf("unsubscribed: robotd mails nothing more to that "
		       "address\n");
		status = 0;
	} else if (r.status == 404) {
		log_warnx("robotd knows no such link: was it copied whole?");
	} else {
		char *e = client_resp_error(&r);

		log_warnx("%s", e);
		free(e);
	}
	client_resp_release(&r);
	free(url);
	return status;
}

int
cmd_unsubscribe(int argc, char **argv)
{
	struct cli_args a;
	const char *arg, *q;
	char *t;
	static const struct cli_command cmd = {unsubscribe_usage, CLI_SERVER};
	int status = cli_options(argc, argv, &cmd, NULL, &a);

	if (status == -1 && optind + 1 != argc)
		status = cli_usage_error(&cmd);
	if (status == -1) {
		/* The link of a mail (its server), or the token alone. */
		arg = argv[optind];
		q = strstr(arg, "/subscriptions/unsubscribe?t=");
		if (q != NULL && a.server == NULL)
			a.server = xstrndup(arg, (size_t)(q - arg));
		t = xstrdup(q != NULL ? q + strlen("/subscriptions/"
						   "unsubscribe?t=")
				      : arg);
		t[strcspn(t, "&# \t\r\n")] = '\0';
		status = cli_server_endpoint(&a.server)
				 ? unsubscribe_post(a.server, t)
				 : 1;
		free(t);
	}
	cli_args_release(&a);
	return status;
}
