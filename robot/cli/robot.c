/*
 * robot.c: the user's command line tool.  Each subcommand lives in its own
 * file, robot/cli/<name>.c (commands.h); this file only dispatches.
 */
#include <stdio.h>
#include <string.h>

#include "robot/cli/commands.h"
#include "robot/core/log.h"
#include "robot/core/banned.h"

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *summary;
} commands[] = {
	{"split", cmd_split, "split job files into atomic jobs"},
	{"compare", cmd_compare, "compare the runs of two commits"},
	{"changes", cmd_changes, "the change points of a history file"},
	{"submit", cmd_submit, "queue a job file's runs on robotd"},
	{"status", cmd_status, "robotd's queue, boxes and running jobs"},
	{"results", cmd_results, "fetch result documents from robotd"},
	{"regressions", cmd_regressions, "what robotd found, newest first"},
	{"regression", cmd_regression, "one regression with its comparison"},
	{"triage", cmd_triage,
	 "what you say of a regression: ack, invalid, fixed-by, ..."},
	{"mute", cmd_mute,
	 "a series', metric's or box's findings recorded, not mailed"},
	{"mutes", cmd_mutes, "the mutes, the active ones first"},
	{"unmute", cmd_unmute, "ends a mute now"},
	{"mail-in", cmd_mail_in,
	 "one mail on stdin to robotd: a reply to a report (an MTA's pipe)"},
	{"series", cmd_series, "the series robotd has runs of"},
	{"bisect", cmd_bisect, "bisect a regression to its first bad commit"},
	{"bisections", cmd_bisections, "robotd's bisections and their steps"},
	{"tree", cmd_tree, "the git trees robotd watches"},
	{"jobs", cmd_jobs, "cancel queued runs"},
	{"box", cmd_box, "a box back to work (reset), or out of the lab"},
	{"token", cmd_token, "robotd's tokens, listed or revoked (admin)"},
	{"subscribe", cmd_subscribe, "have robotd mail its reports to you"},
	{"unsubscribe", cmd_unsubscribe, "follow a mail's unsubscribe link"},
	{"subscriptions", cmd_subscriptions, "every subscription (admin)"},
	{"reports", cmd_reports, "robotd's outbox of mails and posts (admin)"},
	{NULL, NULL, NULL},
};

static void
usage(FILE *fp)
{
	fprintf(fp, "usage: robot COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; commands[i].name != NULL; i++)
		fprintf(fp, "  %-13s %s\n", commands[i].name,
			commands[i].summary);
	fprintf(fp, "\nrobot COMMAND --help shows a command's options.\n");
}

int
main(int argc, char **argv)
{
	log_init("robot", LOG_LEVEL_INFO);
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "help") == 0 && argc > 2) {
		/* robot help CMD: CMD --help */
		for (size_t i = 0; commands[i].name != NULL; i++)
			if (strcmp(argv[2], commands[i].name) == 0) {
				char *args[] = {argv[2], "--help", NULL};

				return commands[i].fn(2, args);
			}
		log_warnx("no command '%s'", argv[2]);
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("robot %s\n", ROBOT_VERSION);
		return 0;
	}
	for (size_t i = 0; commands[i].name != NULL; i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].fn(argc - 1, argv + 1);
	log_warnx("unknown command '%s'", argv[1]);
	usage(stderr);
	return 2;
}
