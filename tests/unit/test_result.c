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

/* Parses text with one member replaced: "key":value. */
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
	CHECK(!result_load_path(dir, &v, &n, &el));
	CHECK_INT(n, 2);          /* both documents of a.json */
	CHECK_INT(el.nerrors, 2); /* NaN and the overflow */
	for (size_t i = 0; i < el.n; i++)
		CHECK(strstr(el.v[i].message, "malformed JSON") != NULL);
	for (size_t i = 0; i < n; i++)
		result_release(&v[i]);
	free(v);
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
		TAP_CASE(test_writer),
		{NULL, NULL}};

	return tap_run(cases);
}
