/*
 * fuzz_result.c: libFuzzer target for the result document, as robotd
 * reads an upload (JSON, then result_parse()) and as `robot compare`
 * reads a file (result_read() of its bytes), and the two held to one
 * answer: the same documents accepted, with the same stats.  Built with
 * -Dfuzz=true (clang); run by scripts/fuzz.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "robot/analysis/result.h"
#include "robot/core/xmalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Deeper than this, jansson's nesting limit counts from where the
 * reader hands it a member, not from the file's top: not compared. */
static bool
shallow(const uint8_t *data, size_t size)
{
	size_t open = 0;

	for (size_t i = 0; i < size; i++)
		open += data[i] == '[' || data[i] == '{';
	return open < 1000;
}

/* jansson's view of a file: the document j, or each of the array j,
 * through result_parse(), named as result_read() names them. */
static bool
parse_all(json_t *j, struct result **v, size_t *n, struct errlist *el)
{
	size_t before = el->nerrors;
	struct result r;

	if (!json_is_array(j)) {
		if (result_parse("fuzz.json", j, &r, el)) {
			*v = xreallocarray(*v, *n + 1, sizeof **v);
			(*v)[(*n)++] = r;
		}
		return el->nerrors == before;
	}
	for (size_t i = 0; i < json_array_size(j); i++) {
		char w[64];

		snprintf(w, sizeof w, "fuzz.json: document %zu", i + 1);
		if (result_parse(w, json_array_get(j, i), &r, el)) {
			*v = xreallocarray(*v, *n + 1, sizeof **v);
			(*v)[(*n)++] = r;
		}
	}
	return el->nerrors == before;
}

static void
agree(const struct result *a, size_t na, const struct result *b, size_t nb)
{
	if (na != nb)
		abort();
	for (size_t i = 0; i < na; i++) {
		if (a[i].nstats != b[i].nstats ||
		    strcmp(a[i].series, b[i].series) != 0)
			abort();
		for (size_t k = 0; k < a[i].nstats; k++)
			if (strcmp(a[i].stats[k].name, b[i].stats[k].name) !=
				    0 ||
			    memcmp(&a[i].stats[k].value, &b[i].stats[k].value,
				   sizeof(double)) != 0)
				abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_error_t jerr;
	json_t *j = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES,
			       &jerr);
	struct result r, *v = NULL, *w = NULL;
	struct result_names *names = result_names_new();
	struct errlist el, el2;
	size_t n = 0, nw = 0;
	char *text = malloc(size + 1);
	bool ok = false, ok2;

	errlist_init(&el);
	if (j != NULL) {
		if (result_parse("fuzz.json", j, &r, &el))
			result_release(&r);
		errlist_release(&el);
		errlist_init(&el);
		ok = parse_all(j, &v, &n, &el);
	}
	memcpy(text, data, size);
	text[size] = '\0';
	errlist_init(&el2);
	ok2 = result_read("fuzz.json", text, size, names, &w, &nw, &el2);
	if (shallow(data, size)) {
		if (ok != ok2)
			abort();
		agree(v, n, w, nw);
	}
	for (size_t i = 0; i < n; i++)
		result_release(&v[i]);
	for (size_t i = 0; i < nw; i++)
		result_release(&w[i]);
	free(v);
	free(w);
	free(text);
	result_names_free(names);
	json_decref(errlist_to_json(&el, true));
	errlist_release(&el);
	errlist_release(&el2);
	json_decref(j);
	return 0;
}
