/*
 * backoff.c: exponential backoff, capped (backoff.h).
 */
#include "robot/core/backoff.h"
#include "robot/core/banned.h"

double
backoff_delay(double first, double cap, int failures)
{
	double d = first;

	for (int i = 1; i < failures && d < cap; i++)
		d *= 2;
	return d < cap ? d : cap;
}
