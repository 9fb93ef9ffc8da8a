/*
 * cmd_trees.h: the commands that manage what robotd does by itself:
 * the trees it watches (robot tree), cancelling queued work (robot jobs
 * cancel), and resetting a box (robot box reset).
 */
#ifndef ROBOT_CMD_TREES_H
#define ROBOT_CMD_TREES_H

int cmd_tree(int argc, char **argv);
int cmd_jobs(int argc, char **argv);
int cmd_box(int argc, char **argv);

#endif
