/*
 * settle.h: a quiet machine before a measurement.  After the box has
 * dropped the caches and set up the run's disks, it waits until the rest
 * of the machine is quiet: the CPUs others keep busy (the box itself
 * idles meanwhile) stay under SETTLE_BUSY for SETTLE_QUIET_MS, at most
 * the box's settle: seconds (docs/box.md, "Noise between identical
 * runs, and the settle": two CPU hogs cost dd 37% and raised its spread
 * from 10% to 17%).  What it found goes into the result ("run":
 * {"settle": ...}) whether or not it waited, so that a busy box shows.
 */
#ifndef ROBOT_SETTLE_H
#define ROBOT_SETTLE_H

#include <stdbool.h>

#define SETTLE_BUSY     0.2 /* CPUs busy with others' work */
#define SETTLE_QUIET_MS 300
#define SETTLE_STEP_MS  100

struct settle {
	double waited; /* seconds */
	double busy;   /* CPUs others kept busy over the last step */
	bool quiet;    /* it became quiet (else it waited the most) */
};

/* Waits at most max seconds (0: only measures one step) for a quiet
 * machine; what it found in *s.  /proc/stat unreadable: quiet at once. */
void settle_wait(double max, struct settle *s);

#endif
