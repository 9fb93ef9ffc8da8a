/*
 * backoff.h: how long to wait before trying again after failures: the
 * one rule for every retry whose delay robotd stores (the outbox's
 * deliveries, a tree's fetches).
 */
#ifndef ROBOT_BACKOFF_H
#define ROBOT_BACKOFF_H

/*
 * The seconds to wait after failures failed tries in a row (at least 1):
 * first after the first, doubling after each further one, at most cap.
 */
double backoff_delay(double first, double cap, int failures);

#endif
