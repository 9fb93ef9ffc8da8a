/*
 * serve.h: robot-box serve, a test box working for robotd.
 */
#ifndef ROBOT_SERVE_H
#define ROBOT_SERVE_H

int serve_main(int argc, char **argv);

#endif
