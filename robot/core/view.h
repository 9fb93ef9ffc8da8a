/*
 * view.h: a JSON document decoded once into a struct, by a table of its
 * fields (a key, a kind, an offset), as settings.c reads its file.  The
 * pages, the report renderer and the workers then read fields, not keys.
 *
 * Each key a table names must be in the document (a key renamed on one
 * side fails to decode, with the key's path, instead of printing "-");
 * a null is the field's zero value (NULL, 0, NAN, false, no elements).
 * A key marked VIEW_OPT may be absent too.  A value of another kind
 * (a string where a number is named) fails.
 *
 * Strings and JSON point into the document, and arrays are allocated:
 * all of it lives until view_release() of the struct view_doc that
 * decoded it.
 */
#ifndef ROBOT_VIEW_H
#define ROBOT_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

enum view_kind {
	VIEW_STR,    /* const char * */
	VIEW_INT,    /* long long */
	VIEW_NUM,    /* double (an integer too); NAN for null */
	VIEW_BOOL,   /* bool */
	VIEW_JSON,   /* const json_t *, any value (NULL for null) */
	VIEW_OBJECT, /* a struct of .type, in place */
	VIEW_ARRAY,  /* an array of .type's structs: a pointer at .off,
			its size_t count at .count */
	VIEW_STRS,   /* an array of strings: const char ** at .off, its
			size_t count at .count */
	VIEW_NUMS,   /* an array of numbers: double * at .off (NAN for a
			null), its size_t count at .count */
	VIEW_INTS,   /* an array of integers: long long * at .off (0 for a
			null), its size_t count at .count */
};

#define VIEW_OPT 1u /* the key may be absent */

struct view_type;

struct view_field {
	const char *key;
	enum view_kind kind;
	size_t off;
	unsigned flags;
	const struct view_type *type; /* VIEW_OBJECT, VIEW_ARRAY */
	size_t count;                 /* VIEW_ARRAY, VIEW_STRS */
};

struct view_type {
	const char *name; /* for errors: "home" */
	size_t size;      /* of the struct */
	const struct view_field *fields;
	size_t nfields;
};

/* The table's rows: a field of struct st at key (VIEW_F), its objects
 * (VIEW_O), its array of structs with their count (VIEW_A), its array of
 * strings (VIEW_S), its arrays of numbers (VIEW_N) and integers
 * (VIEW_I). */
#define VIEW_F(st, key, kind, field)                                           \
	{                                                                      \
		key, kind, offsetof(struct st, field), 0, NULL, 0              \
	}
/* A field that may be absent (VIEW_OPT). */
#define VIEW_FO(st, key, kind, field)                                          \
	{                                                                      \
		key, kind, offsetof(struct st, field), VIEW_OPT, NULL, 0       \
	}
#define VIEW_O(st, key, type, field)                                           \
	{                                                                      \
		key, VIEW_OBJECT, offsetof(struct st, field), 0, &(type), 0    \
	}
#define VIEW_A(st, key, type, field, count)                                    \
	{                                                                      \
		key, VIEW_ARRAY, offsetof(struct st, field), 0, &(type),       \
			offsetof(struct st, count)                             \
	}
#define VIEW_S(st, key, field, count)                                          \
	{                                                                      \
		key, VIEW_STRS, offsetof(struct st, field), 0, NULL,           \
			offsetof(struct st, count)                             \
	}
#define VIEW_N(st, key, field, count)                                          \
	{                                                                      \
		key, VIEW_NUMS, offsetof(struct st, field), 0, NULL,           \
			offsetof(struct st, count)                             \
	}
#define VIEW_I(st, key, field, count)                                          \
	{                                                                      \
		key, VIEW_INTS, offsetof(struct st, field), 0, NULL,           \
			offsetof(struct st, count)                             \
	}

#define VIEW_TYPE(name, st, fields)                                            \
	{                                                                      \
		name, sizeof(st), fields, sizeof(fields) / sizeof((fields)[0]) \
	}

/* What decoded views hold on to (one or more documents). */
struct view_doc {
	json_t **roots;
	size_t nroots;
	void **allocs;
	size_t nallocs;
};

/* Parses text and decodes its object into out (a struct of t->size
 * bytes, zeroed first).  False with a message in err ("home: lab.boxes:
 * missing") when the text is not JSON or does not fit t (out is zeroed
 * again then).  d starts zeroed ({0}). */
bool view_load(struct view_doc *d, const struct view_type *t, const char *text,
	       void *out, char *err, size_t len);
/* The same for a value already parsed; d takes a reference to j. */
bool view_decode(struct view_doc *d, const struct view_type *t, json_t *j,
		 void *out, char *err, size_t len);
/* Frees what d holds; d may be decoded into again. */
void view_release(struct view_doc *d);

#endif
