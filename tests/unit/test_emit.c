/*
 * test_emit.c: YAML output reads back as the same tree.
 */
#include <stdlib.h>
#include <string.h>

#include "jobs/emit.h"
#include "robot/core/docload.h"
#include "tap.h"

static struct node *
load(const char *text)
{
	struct errlist el;
	struct node *docs, *doc = NULL;

	errlist_init(&el);
	docs = docload_yaml("t.yaml", text, strlen(text), &el);
	if (docs != NULL && docs->nitems > 0) {
		doc = docs->items[0];
		docs->items[0] = node_new(NODE_NULL, 0, 0);
	}
	node_free(docs);
	errlist_release(&el);
	return doc;
}

static void
roundtrip(const char *text)
{
	struct node *a = load(text), *b;
	char *out;

	if (!CHECK(a != NULL))
		return;
	out = emit_yaml(a, "a comment");
	if (!CHECK(out != NULL)) {
		node_free(a);
		return;
	}
	b = load(out);
	if (!CHECK(b != NULL && node_equal(a, b)))
		tap_diag("in: %s\nout: %s", text, out);
	node_free(a);
	node_free(b);
	free(out);
}

static void
test_roundtrip_types(void)
{
	roundtrip("a: '1'\nb: 1\nc: 'yes'\nd: yes\ne: '~'\nf: ~\ng: 1.5\n"
		  "h: '1.5'\ni: 'null'\nj: ''\n");
}

static void
test_roundtrip_structure(void)
{
	roundtrip("suite: fsmark\nfs: [xfs, ext4]\nfs2: [nfsv4, ~]\n"
		  "fsmark:\n  filesize: 4K\n  sync_method: fsyncBeforeClose\n"
		  "sysctl:\n  vm.dirty_ratio: 10\nempty: {}\nlist: []\n");
}

static void
test_roundtrip_awkward_strings(void)
{
	roundtrip("a: 'x: y'\nb: '- z'\nc: \"tab\\there\"\nd: '#no'\n"
		  "e: \"caf\\u00e9\"\nf: 'a''b'\ng: '{{ x }}'\n'odd key': 1\n"
		  "'1': numeric key\n");
}

static void
test_comment_first(void)
{
	struct node *a = load("x: 1\n");
	char *out = emit_yaml(a, "dd/4k");

	CHECK(out != NULL && strncmp(out, "# dd/4k\n", 8) == 0);
	free(out);
	node_free(a);
}

static void
test_invalid_utf8_refused(void)
{
	struct node *m = node_new(NODE_MAP, 1, 1);
	char *out;

	node_set(m, "k", 1, node_new_str("\xff", 1, 1, 1));
	out = emit_yaml(m, NULL);
	CHECK(out == NULL);
	free(out);
	node_free(m);
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_roundtrip_types),
		TAP_CASE(test_roundtrip_structure),
		TAP_CASE(test_roundtrip_awkward_strings),
		TAP_CASE(test_comment_first),
		TAP_CASE(test_invalid_utf8_refused),
		{NULL, NULL}};

	return tap_run(cases);
}
