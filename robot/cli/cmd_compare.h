/*
 * cmd_compare.h: "robot compare": reads result documents of two commits,
 * compares each series metric by metric, and prints LKP's table (or the
 * JSON of DESIGN.md section 6).
 */
#ifndef ROBOT_CMD_COMPARE_H
#define ROBOT_CMD_COMPARE_H

/* Returns the exit status: 0, 1 for I/O failures, 2 for bad input. */
int cmd_compare(int argc, char **argv);

#endif
