/*
 * fuzz_names.c: libFuzzer target for the checks of names and URIs, the
 * first things outside input meets in robotd: uri_check() of the bytes
 * as a request's URI, then name_check() of each kind on them and on each
 * query argument's value.  A name that passes must hold only what its
 * kind allows.  Built with -Dfuzz=true (clang); run by scripts/fuzz.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "robot/core/name.h"
#include "web/uri.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
names(const char *s, size_t len)
{
	static const enum name_kind kinds[] = {NAME_LABEL, NAME_COMMIT,
					       NAME_SERIES, NAME_METRIC};

	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		if (name_check(kinds[k], s, len) != NULL)
			continue;
		/* Passed: no control byte, no byte outside ASCII. */
		for (size_t i = 0; i < len; i++)
			if ((unsigned char)s[i] < 0x20 ||
			    (unsigned char)s[i] >= 0x7f)
				abort();
		if (kinds[k] != NAME_METRIC && memmem(s, len, "..", 2) != NULL)
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *uri = malloc(size + 1), *why, *q;

	memcpy(uri, data, size);
	uri[size] = '\0';
	names(uri, size);
	if (uri_check(uri, &why) == 0 && (q = strchr(uri, '?')) != NULL) {
		for (char *a = strtok(q + 1, "&"); a != NULL;
		     a = strtok(NULL, "&")) {
			char *eq = strchr(a, '=');

			if (eq != NULL)
				names(eq + 1, strlen(eq + 1));
		}
	}
	free(why);
	free(uri);
	return 0;
}
