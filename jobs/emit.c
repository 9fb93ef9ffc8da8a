/*
 * emit.c: node trees to YAML text through libyaml's emitter.
 */
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "jobs/emit.h"
#include "robot/core/buf.h"
#include "robot/core/docload.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

static int
emit_on_write(void *data, unsigned char *bytes, size_t size)
{
	buf_add(data, bytes, size);
	return 1;
}

/* Whether a string, written plainly, would read back as something else. */
static bool
needs_quotes(const struct node *n)
{
	struct node *tmp;
	bool differs;

	if (n->len != strlen(n->text))
		return true;
	tmp = node_new_str(n->text, n->len, 0, 0);
	docload_resolve_plain(tmp);
	differs = tmp->kind != NODE_SCALAR || tmp->stype != NODE_STR;
	node_free(tmp);
	return differs;
}

static bool
emit_scalar(yaml_emitter_t *em, const char *text, size_t len, bool quote)
{
	yaml_event_t ev;

	/* Refused for invalid UTF-8, which the emitter cannot write. */
	if (!yaml_scalar_event_initialize(
		    &ev, NULL, NULL, (yaml_char_t *)text, (int)len, !quote, 1,
		    quote ? YAML_SINGLE_QUOTED_SCALAR_STYLE
			  : YAML_ANY_SCALAR_STYLE))
		return false;
	return yaml_emitter_emit(em, &ev) != 0;
}

static bool
emit_node(yaml_emitter_t *em, const struct node *n)
{
	yaml_event_t ev;

	switch (n->kind) {
	case NODE_NULL:
		return emit_scalar(em, "~", 1, false);
	case NODE_SCALAR:
		if (n->stype != NODE_STR) {
			char *s = node_to_s(n);
			bool ok = emit_scalar(em, s, strlen(s), false);

			free(s);
			return ok;
		}
		return emit_scalar(em, n->text, n->len, needs_quotes(n));
	case NODE_SEQ:
		yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
						     YAML_BLOCK_SEQUENCE_STYLE);
		if (!yaml_emitter_emit(em, &ev))
			return false;
		for (size_t i = 0; i < n->nitems; i++)
			if (!emit_node(em, n->items[i]))
				return false;
		yaml_sequence_end_event_initialize(&ev);
		return yaml_emitter_emit(em, &ev) != 0;
	case NODE_MAP:
		yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
						    YAML_BLOCK_MAPPING_STYLE);
		if (!yaml_emitter_emit(em, &ev))
			return false;
		for (size_t i = 0; i < n->npairs; i++) {
			const char *k = n->pairs[i].key;
			struct node *kn = node_new_str(k, strlen(k), 0, 0);
			bool ok =
				emit_scalar(em, k, strlen(k), needs_quotes(kn));

			node_free(kn);
			if (!ok || !emit_node(em, n->pairs[i].value))
				return false;
		}
		yaml_mapping_end_event_initialize(&ev);
		return yaml_emitter_emit(em, &ev) != 0;
	}
	return false;
}

char *
emit_yaml(const struct node *doc, const char *comment)
{
	yaml_emitter_t em;
	yaml_event_t ev;
	struct buf b;
	bool ok;

	buf_init(&b);
	if (comment != NULL)
		buf_addf(&b, "# %s\n", comment);
	yaml_emitter_initialize(&em);
	yaml_emitter_set_output(&em, emit_on_write, &b);
	yaml_emitter_set_unicode(&em, 1);
	yaml_emitter_set_width(&em, 1000);
	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	ok = yaml_emitter_emit(&em, &ev);
	yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
	ok = ok && yaml_emitter_emit(&em, &ev);
	ok = ok && emit_node(&em, doc);
	yaml_document_end_event_initialize(&ev, 1);
	ok = ok && yaml_emitter_emit(&em, &ev);
	yaml_stream_end_event_initialize(&ev);
	ok = ok && yaml_emitter_emit(&em, &ev);
	yaml_emitter_delete(&em);
	if (!ok) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b);
}
