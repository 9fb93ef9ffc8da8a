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

/* The largest document file: a job file, an included file. */
#define DOCLOAD_MAX_BYTES (1024 * 1024)
#define DOCLOAD_MAX_DEPTH 64
#define DOCLOAD_MAX_NODES 200000

/*
 * LKP's includes: "<<: FILE" and "<<: {file: FILE, key: value...}" in a
 * mapping.  The callback resolves one (spec is the value after "<<:", a
 * string or a mapping with "file"; line is where it stands) and returns
 * the mapping to merge, which docload takes over, or NULL after adding
 * its errors to el.  The mapping's keys merge as LKP's textual include
 * does: in place of the include, a key already there takes the included
 * value where it stands, and a key that follows the include overrides
 * the included value.
 */
typedef struct node *(*docload_include_fn)(const struct node *spec, int line,
					   void *arg);

struct docload_options {
	docload_include_fn include; /* NULL: includes are refused */
	void *include_arg;
};

struct node *docload_yaml(const char *name, const char *data, size_t len,
			  struct errlist *el);
/*
 * docload_yaml() with options.  Before parsing, LKP's unquoted templates
 * ("key: {{ ... }}", possibly over several lines) are made strings, as
 * LKP's literal_double_braces() does; their line numbers are kept.
 */
struct node *docload_yaml_opt(const char *name, const char *data, size_t len,
			      const struct docload_options *opt,
			      struct errlist *el);
struct node *docload_json(const char *name, const char *data, size_t len,
			  struct errlist *el);
/* One JSON value of any kind, with its lines (docload_json() is this,
 * framed as a job file's documents); NULL after adding the errors. */
struct node *docload_json_value(const char *name, const char *data, size_t len,
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
