/*
 * lkpfloor.h: LKP's perf-metrics-threshold, the absolute floors its
 * changed-stat code applies (robot/analysis/lkp-thresholds, built in),
 * for the lkp comparison method.
 */
#ifndef ROBOT_LKPFLOOR_H
#define ROBOT_LKPFLOOR_H

/* The floor of metric (the first rule that matches it), or 0. */
double lkpfloor_of(const char *metric);

/* The built-in table's text. */
extern const char lkpfloor_default_text[];

#endif
