/*
 * commands.h: the robot command's subcommands, one file each
 * (robot/cli/<name>.c), as robot.c's table dispatches them (in the
 * manner of git's builtin.h).  Each takes its argv (argv[0] its name)
 * and returns the exit status: 0 done, 1 failed, 2 a bad command line.
 */
#ifndef ROBOT_COMMANDS_H
#define ROBOT_COMMANDS_H

int cmd_split(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_changes(int argc, char **argv);
int cmd_submit(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_results(int argc, char **argv);
int cmd_regressions(int argc, char **argv);
int cmd_regression(int argc, char **argv);
int cmd_triage(int argc, char **argv);
int cmd_mail_in(int argc, char **argv);
int cmd_mute(int argc, char **argv);
int cmd_mutes(int argc, char **argv);
int cmd_unmute(int argc, char **argv);
int cmd_series(int argc, char **argv);
int cmd_bisect(int argc, char **argv);
int cmd_bisections(int argc, char **argv);
int cmd_tree(int argc, char **argv);
int cmd_jobs(int argc, char **argv);
int cmd_box(int argc, char **argv);
int cmd_token(int argc, char **argv);
int cmd_subscribe(int argc, char **argv);
int cmd_unsubscribe(int argc, char **argv);
int cmd_subscriptions(int argc, char **argv);
int cmd_reports(int argc, char **argv);

#endif
