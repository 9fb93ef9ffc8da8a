/*
 * test_series.c: runs grouped by series, and each run's KPI prefix from
 * its job's program keys or its testcase.
 */
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/series.h"
#include "tap.h"

/* A document of key at commit, with job (JSON text, may be NULL). */
static void
doc(struct result *r, const char *key, const char *job)
{
	char *text = NULL;
	json_t *j;
	struct errlist el;

	if (asprintf(&text,
		     "{\"version\": 1, %s%s%s \"key\": \"%s\", \"tbox_group\": "
		     "\"lab\", \"status\": \"ok\", \"stats\": {}}",
		     job ? "\"job\": " : "", job ? job : "", job ? "," : "",
		     key) < 0)
		abort();
	j = json_loads(text, 0, NULL);
	errlist_init(&el);
	if (!result_parse("t", j, r, &el))
		abort();
	errlist_release(&el);
	json_decref(j);
	free(text);
}

/* The workloads of a little catalogue, as jobs/catalog.c would say. */
static const char *
workload(const char *name)
{
	if (strcmp(name, "fsmark") == 0 || strcmp(name, "dd") == 0)
		return name;
	if (strcmp(name, "dd-write") == 0)
		return "dd";
	return NULL;
}

static void
test_group(void)
{
	struct result b[3], h[2];
	struct series_set set;

	doc(&b[0], "fsmark/a", NULL);
	doc(&b[1], "dd-write/b", NULL);
	doc(&b[2], "fsmark/a", NULL);
	doc(&h[0], "fsmark/a", NULL);
	doc(&h[1], "unlink/c", NULL);
	series_group(b, 3, h, 2, &set);
	CHECK_INT(set.n, 3);
	CHECK_STR(set.v[0].series, "fsmark/a/lab");
	CHECK_INT(set.v[0].nbase, 2);
	CHECK_INT(set.v[0].nhead, 1);
	CHECK_STR(set.v[1].series, "dd-write/b/lab");
	CHECK_INT(set.v[1].nhead, 0);
	CHECK_STR(set.v[2].series, "unlink/c/lab");
	CHECK_INT(set.v[2].nbase, 0);
	series_set_release(&set);
	for (int i = 0; i < 3; i++)
		result_release(&b[i]);
	for (int i = 0; i < 2; i++)
		result_release(&h[i]);
}

static void
test_kpi_prefix(void)
{
	struct result r;
	char buf[32];

	/* The job's program key names the workload... */
	doc(&r, "mytest/x", "{\"suite\": \"s\", \"dd\": {\"bs\": \"1M\"}}");
	CHECK(series_kpi_prefix(&r, workload, buf, sizeof buf));
	CHECK_STR(buf, "dd.");
	result_release(&r);
	/* ...else the testcase does, aliases included. */
	doc(&r, "dd-write/x", NULL);
	CHECK(series_kpi_prefix(&r, workload, buf, sizeof buf));
	CHECK_STR(buf, "dd.");
	result_release(&r);
	doc(&r, "fsmark/x", "{\"suite\": \"fsmark\"}");
	CHECK(series_kpi_prefix(&r, workload, buf, sizeof buf));
	CHECK_STR(buf, "fsmark.");
	result_release(&r);
	/* No workload: no prefix; nor one that does not fit. */
	doc(&r, "mystery/x", NULL);
	CHECK(!series_kpi_prefix(&r, workload, buf, sizeof buf));
	result_release(&r);
	doc(&r, "fsmark/x", NULL);
	CHECK(!series_kpi_prefix(&r, workload, buf, 4));
	result_release(&r);
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_group),
		TAP_CASE(test_kpi_prefix),
		{NULL, NULL},
	};

	return tap_run(cases);
}
