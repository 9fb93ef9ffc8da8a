/*
 * test_workloads.c: the table of workloads (robot/analysis/workloads.h)
 * holds together with the catalogue and robot-box: each row is a
 * catalogue program that robot runs and a runner robot-box has, and the
 * places that read the table (the metrics' owners, LKP's perf metrics,
 * the job check's message) follow it.
 */
#include <string.h>

#include "jobs/box/workload.h"
#include "jobs/catalog.h"
#include "jobs/validate.h"
#include "robot/analysis/lkpstat.h"
#include "robot/analysis/workloads.h"
#include "robot/core/docload.h"
#include "robot/core/errlist.h"
#include "tap.h"

/* Each row: a workload of the catalogue that runs, with its runner. */
static void
test_rows_have_catalog_and_runner(void)
{
	size_t n = 0;

	for (const struct workload_kind *k = workload_kinds; k->name; k++) {
		const struct catalog_program *p = catalog_program(k->name);
		struct workload_env env;
		struct workload *w;

		memset(&env, 0, sizeof env);
		w = workload_new(k->name, &env);
		CHECK(p != NULL && p->kind == CATALOG_WORKLOAD && p->runs);
		CHECK(w != NULL);
		workload_free(w);
		CHECK(strlen(k->prefix) == strlen(k->name) + 1 &&
		      strncmp(k->prefix, k->name, strlen(k->name)) == 0);
		n++;
	}
	CHECK(n == 3);
}

static void
test_lookups(void)
{
	CHECK(workload_of_metric("dd.loop0.write_bytes_per_sec") ==
	      workload_named("dd", 2));
	CHECK(workload_of_metric("dd.loop0.write_bytes_per_sec")->per_device);
	CHECK(workload_of_metric("fsmark.files_per_sec") ==
	      workload_named("fsmark", 6));
	CHECK(workload_of_metric("iostat.loop0.wkB/s") == NULL);
	CHECK(workload_of_metric("ddx.y") == NULL);
	CHECK(workload_named("dd-write", 8) == NULL);
	CHECK(workload_named("unlinkx", 6) != NULL); /* its first 6 bytes */
	/* LKP's perf metrics take every workload's */
	for (const struct workload_kind *k = workload_kinds; k->name; k++) {
		char name[64];

		strcpy(name, k->prefix);
		strcat(name, "x");
		CHECK(lkpstat_is_perf_metric(name));
	}
}

/* A job that runs none is told the workloads there are. */
static void
test_validate_names_them(void)
{
	const char *text = "suite: x\ntestcase: x\nfs: xfs\n";
	struct errlist el, el2;
	struct node *docs;
	bool found = false;

	errlist_init(&el);
	errlist_init(&el2);
	docs = docload_yaml("t.yaml", text, strlen(text), &el2);
	if (!CHECK(docs != NULL && docs->nitems == 1))
		return;
	CHECK(validate_job("t.yaml", docs->items[0], &el) == NULL);
	for (size_t i = 0; i < el.n; i++)
		found = found || strstr(el.v[i].message,
					"the job runs no workload: add one "
					"of dd, fsmark or unlink") != NULL;
	CHECK(found);
	node_free(docs);
	errlist_release(&el);
	errlist_release(&el2);
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_rows_have_catalog_and_runner),
		TAP_CASE(test_lookups),
		TAP_CASE(test_validate_names_them),
		{NULL, NULL}};

	return tap_run(cases);
}
