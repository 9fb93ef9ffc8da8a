/*
 * cmd_bisect.h: robot bisect, robot bisections.
 */
#ifndef ROBOT_CMD_BISECT_H
#define ROBOT_CMD_BISECT_H

int cmd_bisect(int argc, char **argv);
int cmd_bisections(int argc, char **argv);

#endif
