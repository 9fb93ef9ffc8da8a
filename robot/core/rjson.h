/*
 * rjson.h: helpers over jansson used by every part that reads or writes
 * JSON: safe strings from untrusted bytes, typed getters that say what is
 * wrong, and dumping with out-of-memory treated as fatal.
 */
#ifndef ROBOT_RJSON_H
#define ROBOT_RJSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

/* json_loadb() (flags 0) that also reads an integer beyond jansson's
 * int64 as a real, as PostgreSQL's jsonb prints one: 1e300 comes back as
 * 301 digits and no exponent, and one such number in a batch of rows
 * once made all of them unreadable.  For JSON from the database and from
 * robotd; err may be NULL. */
json_t *rjson_loadb(const char *buf, size_t len, json_error_t *err);
/* rjson_loadb() of a string. */
json_t *rjson_loads(const char *text, json_error_t *err);
/* A JSON string of s; invalid UTF-8 becomes U+FFFD.  Never NULL. */
json_t *rjson_string_lossy(const char *s, size_t len);
/* json_dumps() that never returns NULL; the caller frees the result. */
char *rjson_dumps(const json_t *j, size_t flags);
/* Writes j to fp, indented, with a final newline.  Returns false on error. */
bool rjson_print(const json_t *j, FILE *fp) __attribute__((warn_unused_result));
/* The string at key, or NULL when absent or not a string. */
const char *rjson_get_str(const json_t *obj, const char *key);
/* A finite number (integer or real) at key into *out; false otherwise. */
bool rjson_get_number(const json_t *obj, const char *key, double *out);

#endif
