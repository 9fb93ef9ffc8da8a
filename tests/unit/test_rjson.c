/*
 * test_rjson.c: jansson helpers: JSON as PostgreSQL's jsonb prints it.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "robot/core/rjson.h"
#include "tap.h"

/* jsonb prints 1e300 as 301 digits: jansson alone refuses the whole
 * document ("too big integer"); rjson_loads() takes it as a real and
 * leaves every other number, and the strings, as they were. */
static void
test_big_integers_are_reals(void)
{
	char digits[302], *text;
	json_error_t e;
	json_t *j;

	memset(digits, '0', sizeof digits);
	digits[0] = '1';
	digits[301] = '\0';
	text = malloc(strlen(digits) * 2 + 200);
	sprintf(text,
		"[{\"id\": 7, \"doc\": {\"v\": %s, \"w\": -%s, \"s\": "
		"\"12345678901234567890 \\\" 99999999999999999999\"}},"
		" {\"id\": 9223372036854775807, \"x\": -2.5e3, \"y\": "
		"9223372036854775808, \"z\": -9223372036854775808}]",
		digits, digits);
	CHECK(json_loads(text, 0, &e) == NULL);
	j = rjson_loads(text, &e);
	CHECK(j != NULL);
	if (j == NULL)
		tap_diag("%s", e.text);
	CHECK(json_integer_value(json_object_get(json_array_get(j, 0), "id")) ==
	      7);
	CHECK(json_integer_value(json_object_get(json_array_get(j, 1), "id")) ==
	      9223372036854775807LL);
	CHECK(json_is_real(json_object_get(
		json_object_get(json_array_get(j, 0), "doc"), "v")));
	CHECK(fabs(json_real_value(json_object_get(
			   json_object_get(json_array_get(j, 0), "doc"), "v")) /
			   1e300 -
		   1) < 1e-12);
	CHECK(json_real_value(json_object_get(
		      json_object_get(json_array_get(j, 0), "doc"), "w")) <
	      -1e299);
	CHECK_STR(json_string_value(json_object_get(
			  json_object_get(json_array_get(j, 0), "doc"), "s")),
		  "12345678901234567890 \" 99999999999999999999");
	CHECK(json_real_value(json_object_get(json_array_get(j, 1), "x")) ==
	      -2500);
	CHECK(json_real_value(json_object_get(json_array_get(j, 1), "y")) ==
	      9223372036854775808.0);
	CHECK(json_integer_value(json_object_get(json_array_get(j, 1), "z")) ==
	      INT64_MIN);
	json_decref(j);
	free(text);
}

/* Bad JSON stays bad, with jansson's error. */
static void
test_bad_json_is_refused(void)
{
	json_error_t e;

	CHECK(rjson_loads("[1, ", &e) == NULL);
	CHECK(rjson_loads("[123456789012345678901234, ", &e) == NULL);
	CHECK(rjson_loads("", NULL) == NULL);
	CHECK(rjson_loads("[1e999]", &e) == NULL);
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_big_integers_are_reals),
		TAP_CASE(test_bad_json_is_refused),
		{NULL, NULL}};

	return tap_run(cases);
}
