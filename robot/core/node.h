/*
 * node.h: the tree a job file is parsed into.  YAML and JSON both load
 * into it, so that merging, validation and expansion see one structure
 * with the line each value came from (for "file:line: message" errors).
 *
 * A mapping keeps its keys in document order, as LKP's Ruby hashes do:
 * expansion order and path_params depend on it.  Every node owns its
 * children; node_free() frees a whole tree.
 */
#ifndef ROBOT_NODE_H
#define ROBOT_NODE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

enum node_kind {
	NODE_NULL,   /* "~", "null", an empty value, JSON null */
	NODE_SCALAR, /* a string, number or boolean */
	NODE_SEQ,    /* a sequence (list) */
	NODE_MAP,    /* a mapping with string keys, in document order */
};

enum node_stype {
	NODE_STR,   /* a string */
	NODE_INT,   /* an integer that fits in long long */
	NODE_FLOAT, /* a finite real number */
	NODE_BOOL,  /* true or false */
};

struct node_pair {
	char *key;          /* the key, as written */
	int line;           /* the key's line */
	struct node *value; /* never NULL */
};

struct node {
	enum node_kind kind;
	int line;   /* where the value starts, 1-based */
	int column; /* where the value starts, 1-based */
	/* NODE_SCALAR */
	enum node_stype stype;
	char *text;  /* the scalar as written (unquoted), NUL-terminated */
	size_t len;  /* bytes of text (it may hold NUL bytes) */
	bool quoted; /* written in quotes, so never a number */
	long long ival;
	double fval;
	bool bval;
	/* NODE_SEQ */
	struct node **items;
	size_t nitems;
	/* NODE_MAP */
	struct node_pair *pairs;
	size_t npairs;
	size_t cap; /* allocated items or pairs */
};

struct node *node_new(enum node_kind kind, int line, int column);
/* A string scalar holding len bytes of s (copied). */
struct node *node_new_str(const char *s, size_t len, int line, int column);
struct node *node_new_int(long long v, int line, int column);
void node_free(struct node *n);
/* A deep copy of n, with the same lines. */
struct node *node_copy(const struct node *n);
/* Whether a and b hold the same values (lines are not compared). */
bool node_equal(const struct node *a, const struct node *b);

/* The value at key in map, or NULL.  map may be NULL or not a mapping. */
struct node *node_get(const struct node *map, const char *key);
/* The pair at key in map, or NULL. */
struct node_pair *node_get_pair(const struct node *map, const char *key);
/*
 * Sets key to value (owned by map from now on): the old value in place
 * if the key exists, else a new pair at the end.
 */
void node_set(struct node *map, const char *key, int line, struct node *value);
/* Appends a pair without looking for the key: the caller knows it is new. */
void node_push_pair(struct node *map, const char *key, int line,
		    struct node *value);
/* Removes key from map; returns whether it was there. */
bool node_del(struct node *map, const char *key);
void node_append(struct node *seq, struct node *item);

/* Whether n is a string scalar. */
bool node_is_str(const struct node *n);
/*
 * The value as LKP's Ruby would print it with to_s: strings as they are,
 * integers in decimal, reals with a ".0" when integral, true and false.
 * NULL for anything that is not a scalar.  The caller frees the result.
 */
char *node_to_s(const struct node *n);
/* A short name of the node's type for messages ("a mapping", "a list"). */
const char *node_type_name(const struct node *n);

/* Converts the tree to JSON (new reference). */
json_t *node_to_json(const struct node *n);

#endif
