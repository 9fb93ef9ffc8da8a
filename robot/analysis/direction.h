/*
 * direction.h: which way each metric is better, from a table of regular
 * expressions with signs (LKP's index-perf idea), and the per-metric
 * floors of the comparison.  The robot's table is the data file
 * robot/directions, built in; users put their own rules first.
 */
#ifndef ROBOT_DIRECTION_H
#define ROBOT_DIRECTION_H

#include <stdbool.h>
#include <stddef.h>

#include "robot/core/errlist.h"

struct direction {
	int sign;         /* +1 higher is better, -1 lower is better, 0 none */
	double floor_pct; /* minimum effect in percent, 0 for the default */
	double abs_floor; /* changes below this size are noise, 0 for none */
	const char *pattern; /* the rule that matched, NULL if none did */
};

struct direction_table;

/* A table holding the built-in rules. */
struct direction_table *direction_table_new(void);
void direction_table_free(struct direction_table *t);
/*
 * Adds the rules of a file (name for messages) before all earlier ones.
 * Returns false, with every bad line in el, if any line is bad; then no
 * rule of the file is added.
 */
bool direction_table_add(struct direction_table *t, const char *name,
			 const char *text, size_t len, struct errlist *el)
	__attribute__((warn_unused_result));
/* The first rule matching metric; sign 0 and no floors if none does. */
struct direction direction_lookup(const struct direction_table *t,
				  const char *metric);
/* The built-in table's text. */
extern const char direction_default_text[];

#endif
