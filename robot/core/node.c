/*
 * node.c: the job-file tree.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/core/node.h"
#include "robot/core/rjson.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

struct node *
node_new(enum node_kind kind, int line, int column)
{
	struct node *n = xcalloc(1, sizeof *n);

	n->kind = kind;
	n->line = line;
	n->column = column;
	return n;
}

struct node *
node_new_str(const char *s, size_t len, int line, int column)
{
	struct node *n = node_new(NODE_SCALAR, line, column);

	n->stype = NODE_STR;
	n->text = xmalloc(len + 1);
	memcpy(n->text, s, len);
	n->text[len] = '\0';
	n->len = len;
	return n;
}

struct node *
node_new_int(long long v, int line, int column)
{
	char tmp[32];
	int len = snprintf(tmp, sizeof tmp, "%lld", v);
	struct node *n = node_new_str(tmp, (size_t)len, line, column);

	n->stype = NODE_INT;
	n->ival = v;
	return n;
}

void
node_free(struct node *n)
{
	if (n == NULL)
		return;
	free(n->text);
	for (size_t i = 0; i < n->nitems; i++)
		node_free(n->items[i]);
	free(n->items);
	for (size_t i = 0; i < n->npairs; i++) {
		free(n->pairs[i].key);
		node_free(n->pairs[i].value);
	}
	free(n->pairs);
	free(n);
}

struct node *
node_copy(const struct node *n)
{
	struct node *c = xmalloc(sizeof *c);

	*c = *n;
	c->items = NULL;
	c->pairs = NULL;
	c->nitems = c->npairs = c->cap = 0;
	if (n->text != NULL) {
		c->text = xmalloc(n->len + 1);
		memcpy(c->text, n->text, n->len + 1);
	}
	if (n->kind == NODE_SEQ) {
		for (size_t i = 0; i < n->nitems; i++)
			node_append(c, node_copy(n->items[i]));
	} else if (n->kind == NODE_MAP) {
		for (size_t i = 0; i < n->npairs; i++)
			node_push_pair(c, n->pairs[i].key, n->pairs[i].line,
				       node_copy(n->pairs[i].value));
	}
	return c;
}

bool
node_equal(const struct node *a, const struct node *b)
{
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case NODE_NULL:
		return true;
	case NODE_SCALAR:
		if (a->stype != b->stype)
			return false;
		switch (a->stype) {
		case NODE_INT:
			return a->ival == b->ival;
		case NODE_FLOAT:
			return a->fval == b->fval;
		case NODE_BOOL:
			return a->bval == b->bval;
		case NODE_STR:
			return a->len == b->len &&
			       memcmp(a->text, b->text, a->len) == 0;
		}
		return false;
	case NODE_SEQ:
		if (a->nitems != b->nitems)
			return false;
		for (size_t i = 0; i < a->nitems; i++)
			if (!node_equal(a->items[i], b->items[i]))
				return false;
		return true;
	case NODE_MAP:
		if (a->npairs != b->npairs)
			return false;
		for (size_t i = 0; i < a->npairs; i++) {
			if (strcmp(a->pairs[i].key, b->pairs[i].key) != 0 ||
			    !node_equal(a->pairs[i].value, b->pairs[i].value))
				return false;
		}
		return true;
	}
	return false;
}

struct node_pair *
node_get_pair(const struct node *map, const char *key)
{
	if (map == NULL || map->kind != NODE_MAP)
		return NULL;
	for (size_t i = 0; i < map->npairs; i++)
		if (strcmp(map->pairs[i].key, key) == 0)
			return &map->pairs[i];
	return NULL;
}

struct node *
node_get(const struct node *map, const char *key)
{
	struct node_pair *p = node_get_pair(map, key);

	return p ? p->value : NULL;
}

void
node_set(struct node *map, const char *key, int line, struct node *value)
{
	struct node_pair *p = node_get_pair(map, key);

	if (p != NULL) {
		node_free(p->value);
		p->value = value;
		p->line = line;
		return;
	}
	node_push_pair(map, key, line, value);
}

void
node_push_pair(struct node *map, const char *key, int line, struct node *value)
{
	if (map->npairs == map->cap) {
		map->cap = map->cap ? map->cap * 2 : 8;
		map->pairs =
			xreallocarray(map->pairs, map->cap, sizeof *map->pairs);
	}
	map->pairs[map->npairs++] =
		(struct node_pair){xstrdup(key), line, value};
}

bool
node_del(struct node *map, const char *key)
{
	struct node_pair *p = node_get_pair(map, key);
	size_t i;

	if (p == NULL)
		return false;
	i = (size_t)(p - map->pairs);
	free(p->key);
	node_free(p->value);
	memmove(&map->pairs[i], &map->pairs[i + 1],
		(map->npairs - i - 1) * sizeof *map->pairs);
	map->npairs--;
	return true;
}

void
node_append(struct node *seq, struct node *item)
{
	if (seq->nitems == seq->cap) {
		seq->cap = seq->cap ? seq->cap * 2 : 8;
		seq->items =
			xreallocarray(seq->items, seq->cap, sizeof *seq->items);
	}
	seq->items[seq->nitems++] = item;
}

bool
node_is_str(const struct node *n)
{
	return n != NULL && n->kind == NODE_SCALAR && n->stype == NODE_STR;
}

char *
node_to_s(const struct node *n)
{
	if (n == NULL || n->kind != NODE_SCALAR)
		return NULL;
	switch (n->stype) {
	case NODE_INT:
		return xasprintf("%lld", n->ival);
	case NODE_FLOAT:
		return str_ruby_float(n->fval);
	case NODE_BOOL:
		return xstrdup(n->bval ? "true" : "false");
	case NODE_STR:
		break;
	}
	return xstrdup(n->text);
}

const char *
node_type_name(const struct node *n)
{
	switch (n->kind) {
	case NODE_NULL:
		return "empty";
	case NODE_SEQ:
		return "a list";
	case NODE_MAP:
		return "a mapping";
	case NODE_SCALAR:
		break;
	}
	switch (n->stype) {
	case NODE_INT:
		return "an integer";
	case NODE_FLOAT:
		return "a number";
	case NODE_BOOL:
		return "a boolean";
	case NODE_STR:
		break;
	}
	return "a string";
}

json_t *
node_to_json(const struct node *n)
{
	json_t *j;

	switch (n->kind) {
	case NODE_NULL:
		return json_null();
	case NODE_SCALAR:
		switch (n->stype) {
		case NODE_INT:
			return json_integer(n->ival);
		case NODE_FLOAT:
			return json_real(n->fval);
		case NODE_BOOL:
			return json_boolean(n->bval);
		case NODE_STR:
			break;
		}
		return rjson_string_lossy(n->text, n->len);
	case NODE_SEQ:
		j = json_array();
		for (size_t i = 0; i < n->nitems; i++)
			json_array_append_new(j, node_to_json(n->items[i]));
		return j;
	case NODE_MAP:
		j = json_object();
		for (size_t i = 0; i < n->npairs; i++) {
			json_t *k = rjson_string_lossy(n->pairs[i].key,
						       strlen(n->pairs[i].key));

			json_object_set_new(j, json_string_value(k),
					    node_to_json(n->pairs[i].value));
			json_decref(k);
		}
		return j;
	}
	return json_null();
}
