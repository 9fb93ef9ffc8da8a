/*
 * test_result.c: result documents: what is accepted and every way one
 * is refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "robot/analysis/result.h"
#include "tap.h"

static const char *good =
	"{\"version\": 1, \"job\": {\"suite\": \"fsmark\"},"
	" \"key\": \"fsmark/1HDD-xfs\", \"tbox_group\": \"lab\","
	" \"box\": \"lab-1\", \"tree\": \"linux\", \"commit\": \"abc1234\","
	" \"started\": \"2026-11-30T10:00:00Z\","
	" \"finished\": \"2026-11-30T10:05:00Z\", \"status\": \"ok\","
	" \"error\": null, \"stats\": {\"fsmark.files_per_sec\": 8324.8,"
	" \"fsmark.time.voluntary_context_switches\": 25339},"
	" \"series\": {\"dd.loop0.write_bytes_per_sec\": [2.1e8, 1.9e8]},"
	" \"outputs\": {\"fsmark\": \"raw\"}}";

static void
release_all(struct result *v, int n)
{
	for (int i = 0; i < n; i++)
		result_release(&v[i]);
	free(v);
}

/* Reads text with result_read(); the documents read, or -1 on failure. */
static int
read_text(const char *text, struct errlist *el, struct result_names *names,
	  struct result **v)
{
	size_t n = 0;
	bool ok;

	*v = NULL;
	ok = result_read("t.json", text, strlen(text), names, v, &n, el);
	if (!ok) {
		release_all(*v, (int)n);
		*v = NULL;
	}
	return ok ? (int)n : -1;
}

/*
 * Whether result_read() of doc's text says what result_parse() of doc
 * says: the same verdict, the same messages, the same stats.
 */
static bool
read_agrees(json_t *doc, bool ok, const struct errlist *el,
	    const struct result *parsed)
{
	char *text = json_dumps(doc, JSON_INDENT(1));
	struct result_names *names = result_names_new();
	struct errlist el2;
	struct result *v;
	int n;
	bool same;

	errlist_init(&el2);
	n = read_text(text, &el2, names, &v);
	same = (n == 1) == ok && el2.n == el->n;
	for (size_t i = 0; same && i < el->n; i++)
		same = strcmp(el->v[i].message, el2.v[i].message) == 0;
	if (same && ok) {
		same = v[0].nstats == parsed->nstats &&
		       strcmp(v[0].series, parsed->series) == 0;
		for (size_t i = 0; same && i < parsed->nstats; i++)
			same = strcmp(v[0].stats[i].name,
				      parsed->stats[i].name) == 0 &&
			       v[0].stats[i].value == parsed->stats[i].value;
	}
	if (!same) {
		tap_diag("result_read() disagrees on %.200s", text);
		for (size_t i = 0; i < el2.n; i++)
			tap_diag("  read: %s", el2.v[i].message);
		for (size_t i = 0; i < el->n; i++)
			tap_diag("  parse: %s", el->v[i].message);
	}
	release_all(v, n);
	errlist_release(&el2);
	result_names_free(names);
	free(text);
	return same;
}

/* Parses text with one member replaced: "key":value, both ways. */
static bool
parse_with(const char *member, const char *value, struct errlist *el)
{
	json_t *doc = json_loads(good, 0, NULL), *v;
	struct result r;
	bool ok;

	if (member != NULL) {
		v = value ? json_loads(value, JSON_DECODE_ANY, NULL) : NULL;
		if (v == NULL)
			json_object_del(doc, member);
		else
			json_object_set_new(doc, member, v);
	}
	errlist_init(el);
	ok = result_parse("t.json", doc, &r, el);
	CHECK(read_agrees(doc, ok, el, &r));
	if (ok)
		result_release(&r);
	json_decref(doc);
	return ok;
}

static bool
refused(const char *member, const char *value, const char *text)
{
	struct errlist el;
	bool ok = parse_with(member, value, &el), found = false;

	for (size_t i = 0; i < el.n; i++)
		if (strstr(el.v[i].message, text) != NULL)
			found = true;
	if (!found)
		tap_diag("%s=%s: no error with '%s'", member,
			 value ? value : "(removed)", text);
	errlist_release(&el);
	return !ok && found;
}

static bool
accepted(const char *member, const char *value)
{
	struct errlist el;
	bool ok = parse_with(member, value, &el);

	errlist_release(&el);
	return ok;
}

static void
test_good_document(void)
{
	json_t *doc = json_loads(good, 0, NULL);
	struct result r;
	struct errlist el;

	errlist_init(&el);
	if (!CHECK(result_parse("t.json", doc, &r, &el)))
		return;
	CHECK_STR(r.series, "fsmark/1HDD-xfs/lab");
	CHECK_STR(r.commit, "abc1234");
	CHECK_INT(r.status, RESULT_OK);
	CHECK_INT(r.nstats, 2);
	CHECK_STR(r.stats[0].name, "fsmark.files_per_sec");
	CHECK_DBL(r.stats[0].value, 8324.8, 0);
	CHECK_DBL(r.stats[1].value, 25339, 0);
	result_release(&r);
	json_decref(doc);
	errlist_release(&el);
}

static void
test_bad_documents(void)
{
	CHECK(refused("version", "2", "'version' must be 1"));
	CHECK(refused("version", NULL, "'version' must be 1"));
	CHECK(refused("key", NULL, "'key' is missing"));
	CHECK(refused("key", "\"\"", "'key' is empty"));
	CHECK(refused("tbox_group", "3", "'tbox_group' is not a string"));
	CHECK(refused("status", "\"great\"", "ok, failed or incomplete"));
	CHECK(refused("status", "\"failed\"", "needs an 'error'"));
	CHECK(refused("stats", "{\"a\": \"12\"}", "not a finite number"));
	CHECK(refused("stats", "{\"a\": true}", "not a finite number"));
	CHECK(refused("stats", "[1, 2]", "'stats' is not an object"));
	CHECK(refused("stats", NULL, "'stats' is missing"));
	CHECK(refused("series", "{\"s\": [1, \"x\"]}", "not an array"));
	CHECK(refused("job", "[]", "'job' is not an object"));
	CHECK(refused("outputs", "3", "'outputs' is not an object"));
	CHECK(refused("fault", "\"mine\"", "'fault' is \"job\", \"box\""));
	CHECK(refused("fault", "1", "'fault' is \"job\", \"box\""));
	CHECK(refused("warnings", "3", "'warnings' is not a list of strings"));
	CHECK(refused("warnings", "[\"a\", 1]",
		      "'warnings' is not a list of strings"));
	CHECK(refused("stats", "{\"a b\": 1}", "holds a space"));
	CHECK(refused("stats", "{\"\": 1}", "is empty"));
	CHECK(refused("stats", "{\"a\": 1, \"b\": null, \"c d\": 2}",
		      "stats 'b' is not a finite number"));
	CHECK(refused("stats", "{\"a\": 1e200}", "'a' is beyond +-1e+100"));
	CHECK(refused("stats", "{\"a\": -1.5e100}", "'a' is beyond +-1e+100"));
	CHECK(refused("series", "{\"s\": [1, 1e155]}",
		      "'s' holds a value beyond +-1e+100"));
	CHECK(accepted("stats",
		       "{\"a\": 1e100, \"b\": -1e100, \"c\": 1e-300}"));
	CHECK(accepted("stats", "{\"a\\u002eb\": 1, \"c\\/d\": -0}"));
	CHECK(accepted("stats", "{}"));
	CHECK(accepted("series", NULL));
}

/* What only the bytes can hold wrong: result_read() says where. */
static bool
read_refused(const char *text, const char *what, int line)
{
	struct result_names *names = result_names_new();
	struct errlist el;
	struct result *v;
	int n;
	bool found = false;

	errlist_init(&el);
	n = read_text(text, &el, names, &v);
	for (size_t i = 0; i < el.n; i++)
		if (strstr(el.v[i].message, what) != NULL &&
		    (line < 0 || el.v[i].line == line))
			found = true;
	if (n >= 0 || !found) {
		tap_diag("'%s': read %d, no error with '%s' on line %d", text,
			 n, what, line);
		for (size_t i = 0; i < el.n; i++)
			tap_diag("  %d: %s", el.v[i].line, el.v[i].message);
	}
	release_all(v, n);
	errlist_release(&el);
	result_names_free(names);
	return n < 0 && found;
}

#define DOC_HEAD                                                               \
	"{\"version\": 1, \"key\": \"k\", \"tbox_group\": \"g\", "             \
	"\"status\": \"ok\", "

static void
test_read_malformed(void)
{
	CHECK(read_refused("", "malformed JSON", 1));
	CHECK(read_refused("   \n", "malformed JSON", 2));
	CHECK(read_refused(DOC_HEAD "\"stats\": {\"x\": NaN}}",
			   "malformed JSON", 1));
	CHECK(read_refused(DOC_HEAD "\"stats\": {\"x\": 01}}", "malformed JSON",
			   1));
	CHECK(read_refused(DOC_HEAD "\"stats\": {\"x\": 1.}}", "invalid number",
			   1));
	CHECK(read_refused(DOC_HEAD "\"stats\": {\"x\": -}}", "invalid number",
			   1));
	CHECK(read_refused(DOC_HEAD "\"stats\": {\"x\": +1}}", "malformed JSON",
			   1));
	CHECK(read_refused(DOC_HEAD "\"stats\":\n{\"x\": 1e999}}",
			   "real number overflow", 2));
	CHECK(read_refused(DOC_HEAD "\"stats\": {\"x\": -1e200}}",
			   "'x' is beyond +-1e+100", -1));
	CHECK(read_refused(DOC_HEAD
			   "\"stats\": {\"x\": 123456789012345678901}}",
			   "too big integer", 1));
	CHECK(read_refused(DOC_HEAD "\"stats\": {\"x\": 1, \"x\": 2}}",
			   "duplicate object key", 1));
	CHECK(read_refused(DOC_HEAD "\"stats\": {\"x\": 1}, \"stats\": {}}",
			   "duplicate object key", 1));
	CHECK(read_refused(DOC_HEAD "\"key\": \"j\", \"stats\": {}}",
			   "duplicate object key", 1));
	CHECK(read_refused(DOC_HEAD "\"stats\": {\"x\": 1}", "expected", 1));
	CHECK(read_refused(DOC_HEAD "\"stats\": {\"x\" 1}}", "':' expected",
			   1));
	CHECK(read_refused(DOC_HEAD "\"stats\": {\"x\": 1 \"y\": 2}}",
			   "',' or '}' expected", 1));
	CHECK(read_refused(DOC_HEAD "\"stats\": {\"x\\q\": 1}}",
			   "invalid escape", 1));
	CHECK(read_refused(DOC_HEAD "\"stats\": {\"x\\u00\": 1}}",
			   "invalid escape", 1));
	CHECK(read_refused(DOC_HEAD "\"stats\": {\"x\\ud800\": 1}}",
			   "invalid escape", 1));
	CHECK(read_refused(DOC_HEAD "\"stats\": {\"x\\u0000\": 1}}",
			   "invalid escape", 1));
	CHECK(read_refused(DOC_HEAD "\"stats\": {\"x\ty\": 1}}",
			   "control character", 1));
	CHECK(read_refused(DOC_HEAD "\"stats\": {\"\xc3(\": 1}}", "UTF-8", 1));
	CHECK(read_refused(DOC_HEAD "\"stats\": {\"x", "premature end", 1));
	CHECK(read_refused(DOC_HEAD "\"stats\": {}} {}", "end of file expected",
			   1));
	CHECK(read_refused(DOC_HEAD "\"job\": {\"a\": [1,}, \"stats\": {}}",
			   "malformed JSON", 1));
	CHECK(read_refused(DOC_HEAD "\"stats\": {\"x\": [1, 2}}",
			   "malformed JSON", 1));
	CHECK(read_refused("[" DOC_HEAD "\"stats\": {}}, 3]",
			   "a result document is a JSON object", 0));
	CHECK(read_refused("[" DOC_HEAD "\"stats\": {}} " DOC_HEAD "}]",
			   "',' or ']' expected", 1));
	CHECK(read_refused("\"just a string\"", "a result document is a JSON",
			   0));
	/* A syntax error anywhere gives no documents, not the ones before
	 * it. */
	CHECK(read_refused("[" DOC_HEAD "\"stats\": {}}, " DOC_HEAD
			   "\"stats\": {\"x\": NaN}}]",
			   "malformed JSON", 1));
}

/* Escapes, the names' order changing between runs, metrics only some
 * runs have: what result_read() gives is what jansson gives. */
static void
test_read_values(void)
{
	struct result_names *names = result_names_new();
	struct errlist el;
	struct result *v;
	int n;

	errlist_init(&el);
	n = read_text("[" DOC_HEAD "\"stats\": {\"a\\u002eb\": 1.5, \"c\": -0,"
		      " \"d\\/e\": 1e2}},\n" DOC_HEAD
		      "\"stats\": {\"c\": 7, \"a.b\": 2.5, \"f\": 0.1}}]",
		      &el, names, &v);
	if (CHECK_INT(n, 2)) {
		CHECK_INT(v[0].nstats, 3);
		CHECK_STR(v[0].stats[0].name, "a.b");
		CHECK_STR(v[0].stats[2].name, "d/e");
		CHECK(v[0].stats[2].value == 100);
		CHECK(v[0].stats[1].value == 0);
		CHECK_INT(v[1].nstats, 3);
		/* one copy of each name, shared by the runs */
		CHECK(v[1].stats[1].name == v[0].stats[0].name);
		CHECK(v[1].stats[0].name == v[0].stats[1].name);
		CHECK_STR(v[1].stats[2].name, "f");
		CHECK(v[1].stats[2].value == 0.1);
		CHECK_INT(result_names_count(names), 4);
		CHECK(json_object_get(v[0].json, "stats") == NULL);
	}
	release_all(v, n);
	errlist_release(&el);
	result_names_free(names);
}

/* A metric name refused at some place of one document's stats, then
 * documents with more names: the reader's memory of the previous
 * document's names must not keep a hole there (the fuzzer's find). */
static void
test_read_bad_name_then_more(void)
{
	static const char *const texts[] = {
		"[" DOC_HEAD "\"stats\": {\"a b\": 1}},\n" DOC_HEAD
		"\"stats\": {\"a\": 1}}]",
		"[" DOC_HEAD "\"stats\": {\"a\": 1}},\n" DOC_HEAD
		"\"stats\": {\"a\": 1, \"b\": 2, \"c d\": 3}},\n" DOC_HEAD
		"\"stats\": {\"a\": 1, \"b\": 2, \"c\": 3}}]",
	};

	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
		struct result_names *names = result_names_new();
		struct errlist el;
		struct result *v;
		bool said = false;
		int n;

		errlist_init(&el);
		n = read_text(texts[i], &el, names, &v);
		CHECK_INT(n, -1);
		for (size_t j = 0; j < el.n; j++)
			if (strstr(el.v[j].message, "holds a space") != NULL)
				said = true;
		CHECK(said);
		release_all(v, n);
		errlist_release(&el);
		result_names_free(names);
	}
}

static void
test_failed_and_incomplete_accepted(void)
{
	struct errlist el;
	json_t *doc = json_loads(good, 0, NULL);
	struct result r;

	json_object_set_new(doc, "status", json_string("failed"));
	json_object_set_new(doc, "error", json_string("mkfs failed"));
	json_object_del(doc, "stats");
	errlist_init(&el);
	CHECK(result_parse("t.json", doc, &r, &el));
	CHECK_INT(r.status, RESULT_FAILED);
	CHECK_STR(r.error, "mkfs failed");
	CHECK_INT(r.nstats, 0);
	CHECK(!r.job_fault);
	result_release(&r);
	/* The job's fault, not the box's: a commit that cannot be provisioned. */
	json_object_set_new(doc, "fault", json_string("job"));
	CHECK(result_parse("t.json", doc, &r, &el));
	CHECK(r.job_fault);
	result_release(&r);
	json_decref(doc);
	errlist_release(&el);
}

static void
test_files(void)
{
	char dir[] = "/tmp/robot-test-result.XXXXXX", path[256];
	struct result_names *names;
	struct result *v = NULL;
	size_t n = 0;
	struct errlist el;
	FILE *fp;

	if (!CHECK(mkdtemp(dir) != NULL))
		return;
	snprintf(path, sizeof path, "%s/a.json", dir);
	fp = fopen(path, "w");
	fprintf(fp, "[%s, %s]", good, good);
	fclose(fp);
	snprintf(path, sizeof path, "%s/b.json", dir);
	fp = fopen(path, "w");
	fprintf(fp, "{\"version\": 1, \"stats\": {\"x\": NaN}}");
	fclose(fp);
	snprintf(path, sizeof path, "%s/c.json", dir);
	fp = fopen(path, "w");
	fprintf(fp, "{\"version\": 1, \"stats\": {\"x\": 1e999}}");
	fclose(fp);
	snprintf(path, sizeof path, "%s/notes.txt", dir);
	fp = fopen(path, "w");
	fprintf(fp, "ignored: not .json");
	fclose(fp);
	errlist_init(&el);
	names = result_names_new();
	CHECK(!result_load_path(dir, names, &v, &n, &el));
	CHECK_INT(n, 2);          /* both documents of a.json */
	CHECK_INT(el.nerrors, 2); /* NaN and the overflow */
	for (size_t i = 0; i < el.n; i++)
		CHECK(strstr(el.v[i].message, "malformed JSON") != NULL);
	for (size_t i = 0; i < n; i++)
		result_release(&v[i]);
	free(v);
	result_names_free(names);
	errlist_release(&el);
	snprintf(path, sizeof path, "rm -rf '%s'", dir);
	CHECK_INT(system(path), 0);
}

/* The one writer's documents are what the one reader accepts, members
 * in DESIGN.md's order. */
static void
test_writer(void)
{
	struct result_head h = {json_pack("{s:s}", "suite", "dd"),
				"dd-write/x",
				"lab",
				"lab-1",
				NULL,
				"abc1234",
				"2026-11-30T10:00:00Z",
				"2026-11-30T10:05:00Z",
				RESULT_OK,
				NULL};
	json_t *doc = result_doc_new(&h);
	const char *keys[] = {"version",  "job",    "key",    "tbox_group",
			      "box",      "tree",   "commit", "started",
			      "finished", "status", "error",  NULL};
	struct errlist el;
	struct result r;
	void *it = json_object_iter(doc);

	for (size_t i = 0; keys[i] != NULL;
	     i++, it = json_object_iter_next(doc, it))
		CHECK_STR(json_object_iter_key(it), keys[i]);
	json_object_set_new(doc, "stats", json_pack("{s:f}", "dd.x", 1.5));
	errlist_init(&el);
	CHECK(result_parse("w", doc, &r, &el));
	CHECK_STR(r.series, "dd-write/x/lab");
	CHECK(r.tree == NULL);
	result_release(&r);
	errlist_release(&el);
	json_decref(doc);
	/* A run that never began: no job, no times; still a document. */
	h = (struct result_head){NULL,          "dd-write/x", "lab", "lab-1",
				 NULL,          NULL,         NULL,  NULL,
				 RESULT_FAILED, "no such job"};
	doc = result_doc_new(&h);
	errlist_init(&el);
	CHECK(result_parse("w", doc, &r, &el));
	CHECK(json_object_get(doc, "job") == NULL);
	result_release(&r);
	errlist_release(&el);
	json_decref(doc);
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_good_document),
		TAP_CASE(test_bad_documents),
		TAP_CASE(test_failed_and_incomplete_accepted),
		TAP_CASE(test_files),
		TAP_CASE(test_read_malformed),
		TAP_CASE(test_read_values),
		TAP_CASE(test_read_bad_name_then_more),
		TAP_CASE(test_writer),
		{NULL, NULL}};

	return tap_run(cases);
}
