/*
 * strmap.c: string to index hash map.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "robot/core/strmap.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

struct slot {
	const char *key; /* NULL when empty */
	uint64_t hash;
	size_t value;
};

struct strmap {
	struct slot *slots;
	size_t cap; /* a power of two */
	size_t count;
};

static uint64_t
hash_of(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s != '\0'; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h;
}

struct strmap *
strmap_new(size_t expected)
{
	struct strmap *m = xcalloc(1, sizeof *m);

	m->cap = 16;
	while (m->cap < expected * 2)
		m->cap *= 2;
	m->slots = xcalloc(m->cap, sizeof *m->slots);
	return m;
}

void
strmap_free(struct strmap *m)
{
	if (m == NULL)
		return;
	free(m->slots);
	free(m);
}

static struct slot *
find(const struct strmap *m, const char *key, uint64_t h)
{
	size_t i = (size_t)h & (m->cap - 1);

	for (;;) {
		struct slot *s = &m->slots[i];

		if (s->key == NULL ||
		    (s->hash == h && strcmp(s->key, key) == 0))
			return s;
		i = (i + 1) & (m->cap - 1);
	}
}

bool
strmap_get(const struct strmap *m, const char *key, size_t *value)
{
	struct slot *s = find(m, key, hash_of(key));

	if (s->key == NULL)
		return false;
	*value = s->value;
	return true;
}

static void
grow(struct strmap *m)
{
	struct slot *old = m->slots;
	size_t oldcap = m->cap;

	m->cap *= 2;
	m->slots = xcalloc(m->cap, sizeof *m->slots);
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].key != NULL)
			*find(m, old[i].key, old[i].hash) = old[i];
	free(old);
}

void
strmap_put(struct strmap *m, const char *key, size_t value)
{
	uint64_t h = hash_of(key);
	struct slot *s;

	if ((m->count + 1) * 2 > m->cap)
		grow(m);
	s = find(m, key, h);
	if (s->key == NULL) {
		s->key = key;
		s->hash = h;
		m->count++;
	}
	s->value = value;
}

size_t
strmap_count(const struct strmap *m)
{
	return m->count;
}
