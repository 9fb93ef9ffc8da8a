/*
 * cmd_reports.h: robot subscribe, unsubscribe, subscriptions, reports.
 */
#ifndef ROBOT_CMD_REPORTS_H
#define ROBOT_CMD_REPORTS_H

int cmd_subscribe(int argc, char **argv);
int cmd_unsubscribe(int argc, char **argv);
int cmd_subscriptions(int argc, char **argv);
int cmd_reports(int argc, char **argv);

#endif
