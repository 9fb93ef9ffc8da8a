/*
 * enroll.h: how a box joins a lab: `robot-box enroll URL CODE` trades the
 * one-time code that `robotd box enroll NAME` printed for the box's own
 * token, kept mode 0600 in WORKDIR/token (or --token-file FILE), and
 * remembers robotd's URL, the box's name and its group in
 * WORKDIR/enrolled.json, which `robot-box serve` reads: after enrolling,
 * `robot-box serve [--config FILE]` needs no other flag.
 */
#ifndef ROBOT_BOX_ENROLL_H
#define ROBOT_BOX_ENROLL_H

#include <stdbool.h>

#include "jobs/box/boxconf.h"

int enroll_main(int argc, char **argv);

/* What an enrollment left in bc's workdir: robotd's URL, the box's name
 * and group, and where its token is (each to be freed).  False when the
 * box was never enrolled; false after saying why when what it left
 * cannot be read. */
struct enrolled {
	char *server, *name, *tbox_group, *token_file;
};
bool enroll_read(const struct boxconf *bc, struct enrolled *e, bool *bad);
void enroll_release(struct enrolled *e);

#endif
