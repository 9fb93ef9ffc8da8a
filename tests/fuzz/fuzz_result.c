/*
 * fuzz_result.c: libFuzzer target for the result document, as robotd
 * reads an upload (JSON, then result_parse()) and as `robot compare`
 * reads a file (one document or an array of them).  Built with
 * -Dfuzz=true (clang); run by scripts/fuzz.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <jansson.h>

#include "robot/analysis/result.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_error_t jerr;
	json_t *j = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES,
			       &jerr);
	struct result r, *v = NULL;
	struct errlist el;
	size_t n = 0;

	if (j == NULL)
		return 0;
	errlist_init(&el);
	if (result_parse("fuzz.json", j, &r, &el))
		result_release(&r);
	errlist_release(&el);
	errlist_init(&el);
	(void)result_add_json("fuzz.json", j, &v, &n, &el);
	for (size_t i = 0; i < n; i++)
		result_release(&v[i]);
	free(v);
	json_decref(errlist_to_json(&el, true));
	errlist_release(&el);
	json_decref(j);
	return 0;
}
