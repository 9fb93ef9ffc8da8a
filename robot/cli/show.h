/*
 * show.h: what several commands print: a bisection with its steps
 * (robot bisect, robot bisections), and the list of them.
 */
#ifndef ROBOT_SHOW_H
#define ROBOT_SHOW_H

#include <jansson.h>

/* An integer member of o (0 when absent). */
long long show_id(json_t *o, const char *key);
/* A commit as robotd's answers give it ({sha, subject, ...}):
 * 'sha10 ("subject")', no newline. */
void show_commit(json_t *c);
/* One step of a bisection, a line. */
void show_step(json_t *s);
/* One bisection, as GET /api/bisections/ID gives it. */
void show_bisection(json_t *b);
/* The list, as GET /api/bisections gives it. */
void show_bisections(json_t *j);

#endif
