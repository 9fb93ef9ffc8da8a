/*
 * cmd_findings.h: what robotd found: `robot regressions`, `robot
 * regression ID` and `robot series [PATTERN]`.
 */
#ifndef ROBOT_CMD_FINDINGS_H
#define ROBOT_CMD_FINDINGS_H

int cmd_regressions(int argc, char **argv);
int cmd_regression(int argc, char **argv);
int cmd_series(int argc, char **argv);

#endif
