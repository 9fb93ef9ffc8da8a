/*
 * test_history.c: history files, CSV and JSON, good and bad: every bad
 * one is refused with each problem at its line, and nothing is lost
 * from a good one.
 */
#include <string.h>

#include "robot/analysis/history.h"
#include "tap.h"

/* Loads text as the file "h"; the errors, one a line, into errs. */
static bool
load(const char *text, struct history *h, char *errs, size_t size)
{
	struct errlist el;
	bool ok;

	errlist_init(&el);
	ok = history_load(h, "h", text, strlen(text), &el);
	errs[0] = '\0';
	for (size_t i = 0; i < el.n; i++) {
		char *e = errlist_format(&el.v[i]);

		strncat(errs, e, size - strlen(errs) - 2);
		strncat(errs, "\n", size - strlen(errs) - 1);
		free(e);
	}
	errlist_release(&el);
	return ok;
}

static void
test_csv(void)
{
	struct history h;
	char errs[1024];

	CHECK(load("commit,value\n"
		   "a1,10\n"
		   "a1,11\r\n"
		   "\n"
		   "# a comment\n"
		   " b2 , 12.5 \n"
		   "\"c3\",\"1e3\"\n"
		   "a1,12",
		   &h, errs, sizeof errs));
	CHECK_STR(errs, "");
	CHECK_INT(h.n, 3);
	CHECK_INT(h.runs, 5);
	if (h.n == 3) {
		CHECK_STR(h.pts[0].commit, "a1");
		CHECK_INT(h.pts[0].n, 3);
		CHECK_DBL(h.pts[0].v[2], 12, 0);
		CHECK_INT(h.lines[0], 2);
		CHECK_STR(h.pts[1].commit, "b2");
		CHECK_DBL(h.pts[1].v[0], 12.5, 0);
		CHECK_INT(h.lines[1], 6);
		CHECK_STR(h.pts[2].commit, "c3");
		CHECK_DBL(h.pts[2].v[0], 1000, 0);
	}
	history_release(&h);

	/* No header: the first line is data. */
	CHECK(load("x,1\ny,2\n", &h, errs, sizeof errs));
	CHECK_INT(h.n, 2);
	history_release(&h);
}

static void
test_csv_bad(void)
{
	struct history h;
	char errs[2048];

	CHECK(!load("a,1\n"
		    "b,x2\n"
		    "c\n"
		    "d,1,2\n"
		    ",5\n"
		    "e,nan\n"
		    "f,1e999\n"
		    "g,\n"
		    "h\001,3\n",
		    &h, errs, sizeof errs));
	CHECK_STR(errs, "h:2: 'x2' is not a number\n"
			"h:3: expected 'commit,value', found 1 field\n"
			"h:4: expected 'commit,value', found 3 fields\n"
			"h:5: the commit is empty\n"
			"h:6: the value is not a finite number\n"
			"h:7: the value is not a finite number\n"
			"h:8: '' is not a number\n"
			"h:9: the commit holds a control character\n");
	CHECK_INT(h.n, 0);
	history_release(&h);

	/* A first line with a digit in its value is no header. */
	CHECK(!load("a,12x\nb,3\n", &h, errs, sizeof errs));
	CHECK_STR(errs, "h:1: '12x' is not a number\n");
	history_release(&h);

	CHECK(!load("commit,value\n\n# nothing\n", &h, errs, sizeof errs));
	CHECK_STR(errs, "h: the history has no points\n");
	CHECK(!load("", &h, errs, sizeof errs));
	CHECK_STR(errs, "h: the history has no points\n");
	CHECK(!load("a,1\0b,2\n", &h, errs, sizeof errs) || h.n == 1);
	history_release(&h);
}

static void
test_json(void)
{
	struct history h;
	char errs[1024];

	CHECK(load(" [\n"
		   "  {\"commit\": \"a1\", \"values\": [10, 11.5]},\n"
		   "  {\"commit\": \"b2\", \"values\": [12]},\n"
		   "  {\"commit\": \"a1\", \"values\": [-3]}\n"
		   "]\n",
		   &h, errs, sizeof errs));
	CHECK_STR(errs, "");
	CHECK_INT(h.n, 2);
	CHECK_INT(h.runs, 4);
	if (h.n == 2) {
		CHECK_INT(h.pts[0].n, 3);
		CHECK_DBL(h.pts[0].v[1], 11.5, 0);
		CHECK_DBL(h.pts[0].v[2], -3, 0);
		CHECK_INT(h.lines[1], 3);
	}
	history_release(&h);
}

static void
test_json_bad(void)
{
	struct history h;
	char errs[2048];

	CHECK(!load("[\n"
		    "{\"commit\": 3, \"values\": [1]},\n"
		    "{\"commit\": \"b\", \"values\": []},\n"
		    "{\"commit\": \"c\", \"values\": [1, \"2\", null]},\n"
		    "{\"comit\": \"d\", \"values\": [1]},\n"
		    "{\"commit\": \"e\"},\n"
		    "5,\n"
		    "{\"commit\": \"\", \"values\": 7}\n"
		    "]",
		    &h, errs, sizeof errs));
	CHECK_STR(errs,
		  "h:2: \"commit\" is an integer, not a string\n"
		  "h:3: \"values\" is empty, not an array of numbers\n"
		  "h:4: values[1] is a string, not a number\n"
		  "h:4: values[2] is empty, not a number\n"
		  "h:5: unknown key 'comit' (a point has \"commit\" and "
		  "\"values\")\n"
		  "h:5: point 4 has no \"commit\"\n"
		  "h:6: point 5 has no \"values\"\n"
		  "h:7: point 6 is an integer, not an object with \"commit\" "
		  "and \"values\"\n"
		  "h:8: the commit is empty\n"
		  "h:8: \"values\" is an integer, not an array of numbers\n");
	history_release(&h);

	CHECK(!load("[{\"commit\": \"a\", \"values\": [1]},", &h, errs,
		    sizeof errs));
	CHECK(strncmp(errs, "h:1: malformed JSON", 19) == 0);
	CHECK(!load("[]", &h, errs, sizeof errs));
	CHECK_STR(errs, "h: the history has no points\n");
	/* JSON only when it starts with '[': an object is CSV, and bad */
	CHECK(!load("{\"commit\": \"a\"}", &h, errs, sizeof errs));
	CHECK_STR(errs, "h:1: expected 'commit,value', found 1 field\n");
	history_release(&h);
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_csv),  TAP_CASE(test_csv_bad),
		TAP_CASE(test_json), TAP_CASE(test_json_bad),
		{NULL, NULL},
	};

	return tap_run(cases);
}
