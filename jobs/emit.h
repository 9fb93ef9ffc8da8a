/*
 * emit.h: writing a node tree back out as YAML (libyaml's emitter), for
 * the atomic job files of "robot split -o DIR".  Reading the output back
 * gives the same tree: strings that would read as numbers, booleans or
 * null are quoted.
 */
#ifndef ROBOT_EMIT_H
#define ROBOT_EMIT_H

#include "robot/core/node.h"

/*
 * One YAML document for doc, after a comment line "# comment" if comment
 * is not NULL.  Returns a new string, or NULL if libyaml refused (invalid
 * UTF-8 in a string).
 */
char *emit_yaml(const struct node *doc, const char *comment);

#endif
