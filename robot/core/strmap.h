/*
 * strmap.h: a hash map from strings to indexes (size_t), for joining
 * thousands of metric names across runs.  Keys are borrowed: they must
 * outlive the map.  Open addressing with linear probing, FNV-1a hashes.
 */
#ifndef ROBOT_STRMAP_H
#define ROBOT_STRMAP_H

#include <stdbool.h>
#include <stddef.h>

struct strmap;

struct strmap *strmap_new(size_t expected);
void strmap_free(struct strmap *m);
/* The value of key, or false if it is absent. */
bool strmap_get(const struct strmap *m, const char *key, size_t *value);
/* Sets key to value (replacing an existing value). */
void strmap_put(struct strmap *m, const char *key, size_t value);
size_t strmap_count(const struct strmap *m);

#endif
