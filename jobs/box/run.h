/*
 * run.h: robot-box run, a job file's atomic jobs on this box.
 */
#ifndef ROBOT_RUN_H
#define ROBOT_RUN_H

/* Returns the exit status: 0, 1 when a run failed, 2 for bad input, or
 * 128 + the signal that stopped it. */
int run_main(int argc, char **argv);

#endif
