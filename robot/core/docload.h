/*
 * docload.h: loading the documents of a job file, YAML (libyaml) or JSON
 * (jansson), into node trees with line numbers.
 *
 * Both loaders return the documents as the items of one NODE_SEQ node, in
 * file order, or NULL after adding at least one error to el.  A JSON file
 * holds one document (an object) or several (an array of objects).
 *
 * Limits that keep a hostile file from exhausting memory or the stack are
 * errors like any other: nesting deeper than DOCLOAD_MAX_DEPTH, more than
 * DOCLOAD_MAX_NODES values after YAML aliases are expanded.
 */
#ifndef ROBOT_DOCLOAD_H
#define ROBOT_DOCLOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "robot/core/errlist.h"
#include "robot/core/node.h"

#define DOCLOAD_MAX_DEPTH 64
#define DOCLOAD_MAX_NODES 200000

struct node *docload_yaml(const char *name, const char *data, size_t len,
			  struct errlist *el);
struct node *docload_json(const char *name, const char *data, size_t len,
			  struct errlist *el);
/*
 * Resolves a plain YAML scalar the way LKP's Ruby (Psych, YAML 1.1) does
 * for the types a job file uses: null, booleans, integers, reals; anything
 * else stays a string.  n must be a string scalar; it is changed in place
 * (into NODE_NULL for nulls).
 */
void docload_resolve_plain(struct node *n);
/*
 * Loads a configuration file: one YAML mapping whose keys must be among
 * known (each unknown key is an error, with the closest known name, and
 * the caller goes on to check the others).  Returns the documents (free
 * them with node_free()) and sets *map to the mapping, or to NULL for an
 * empty file; returns NULL when the file cannot be read or parsed.
 */
struct node *docload_config(const char *path, const char *const *known,
			    const struct node **map, struct errlist *el);

#endif
