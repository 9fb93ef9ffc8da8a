/*
 * cmd_split.h: "robot split [--json] [-o DIR] FILE...": prints the atomic
 * jobs of job files, or writes one YAML file per atomic job as LKP's
 * split-job does.
 */
#ifndef ROBOT_CMD_SPLIT_H
#define ROBOT_CMD_SPLIT_H

/* Returns the exit status: 0, 1 for I/O failures, 2 for bad job files. */
int cmd_split(int argc, char **argv);

#endif
