/*
 * test_catalog.c: the value checks and suggestions of the catalogue.
 */
#include <stdlib.h>
#include <string.h>

#include "jobs/catalog.h"
#include "jobs/sysctl.h"
#include "robot/core/docload.h"
#include "tap.h"

/* Checks a plain YAML scalar as a value of the given kind. */
static char *
check(enum catalog_value kind, const char *const *choices, const char *text)
{
	struct node *n = node_new_str(text, strlen(text), 1, 1);
	char *msg;

	docload_resolve_plain(n);
	msg = catalog_check(kind, choices, n);
	node_free(n);
	return msg;
}

static bool
valid(enum catalog_value kind, const char *text)
{
	char *msg = check(kind, NULL, text);
	bool ok = msg == NULL;

	if (msg != NULL)
		tap_diag("'%s': %s", text, msg);
	free(msg);
	return ok;
}

static bool
invalid(enum catalog_value kind, const char *text)
{
	char *msg = check(kind, NULL, text);
	bool bad = msg != NULL;

	free(msg);
	return bad;
}

static void
test_disks(void)
{
	CHECK(valid(CV_DISK, "1BRD_48G"));
	CHECK(valid(CV_DISK, "8BRD_12G"));
	CHECK(valid(CV_DISK, "3HDD"));
	CHECK(valid(CV_DISK, "1SSD"));
	CHECK(valid(CV_DISK, "2LOOP_1G"));
	CHECK(valid(CV_DISK, "1FILE_4G"));
	CHECK(invalid(CV_DISK, "0HDD"));
	CHECK(invalid(CV_DISK, "1BRD"));
	CHECK(invalid(CV_DISK, "1BRD_0G"));
	CHECK(invalid(CV_DISK, "1BRD_1M"));
	CHECK(invalid(CV_DISK, "HDD"));
	CHECK(invalid(CV_DISK, "1NVME"));
	CHECK(invalid(CV_DISK, "100HDD"));
}

static void
test_counts_and_sizes(void)
{
	CHECK(valid(CV_THREADS, "1t"));
	CHECK(valid(CV_THREADS, "100dd"));
	CHECK(valid(CV_THREADS, "50%"));
	CHECK(valid(CV_THREADS, "64"));
	CHECK(invalid(CV_THREADS, "2000%"));
	CHECK(invalid(CV_THREADS, "1.5"));
	CHECK(valid(CV_ITERATIONS, "1x"));
	CHECK(valid(CV_ITERATIONS, "1"));
	CHECK(invalid(CV_ITERATIONS, "0x"));
	CHECK(valid(CV_FPD, "256fpd"));
	CHECK(valid(CV_DIRS, "16d"));
	CHECK(invalid(CV_DIRS, "16fpd"));
	CHECK(valid(CV_SIZE, "60G"));
	CHECK(invalid(CV_SIZE, "0"));
	CHECK(valid(CV_FILESIZE, "0"));
	CHECK(valid(CV_FILESIZE, "9B"));
	CHECK(invalid(CV_FILESIZE, "-1"));
	CHECK(valid(CV_DURATION, "5m"));
	CHECK(invalid(CV_DURATION, "-5m"));
	CHECK(valid(CV_UINT, "0"));
	CHECK(invalid(CV_UINT, "1.0"));
}

static void
test_names_refs_mail_opts(void)
{
	CHECK(valid(CV_NAME, "dd-write"));
	CHECK(invalid(CV_NAME, "a b"));
	CHECK(invalid(CV_NAME, "a/b"));
	CHECK(valid(CV_REF, "4e159150a9a56d66d247f4b5510ad2a6b47a38f8"));
	CHECK(valid(CV_REF, "v6.8-rc1"));
	CHECK(valid(CV_REF, "origin/master"));
	CHECK(invalid(CV_REF, "../../etc"));
	CHECK(invalid(CV_REF, "-rf"));
	CHECK(invalid(CV_REF, "a;b"));
	CHECK(valid(CV_MAIL, "lkp@intel.com"));
	CHECK(invalid(CV_MAIL, "lkp"));
	CHECK(invalid(CV_MAIL, "a@b\r\nBcc: x@y"));
	CHECK(valid(CV_OPTS, "inode64,logbsize=262144"));
	CHECK(valid(CV_OPTS, "-d agcount=4"));
	CHECK(invalid(CV_OPTS, "-l logdev=/dev/sda"));
	CHECK(invalid(CV_OPTS, "x; rm -rf"));
	CHECK(valid(CV_YN, "y"));
	CHECK(invalid(CV_YN, "maybe"));
}

static void
test_wrong_type(void)
{
	struct node *n = node_new(NODE_SEQ, 4, 1);
	char *msg = catalog_check(CV_SIZE, NULL, n);

	CHECK_STR(msg, "is a list; a single value is expected here");
	free(msg);
	node_free(n);
}

static void
test_enum_suggests(void)
{
	const struct catalog_program *fs = catalog_program("fs");
	char *msg = check(CV_ENUM, fs->choices, "btrfz");

	CHECK_STR(msg, "'btrfz' is not a known value (did you mean 'btrfs'?)");
	free(msg);
	msg = check(CV_ENUM, fs->choices, "zfs");
	CHECK(msg != NULL);
	free(msg);
	msg = check(CV_ENUM_CI, catalog_program("md")->choices, "raid5");
	CHECK(msg == NULL);
	free(msg);
}

static void
test_programs_and_options(void)
{
	const struct catalog_program *p = catalog_program("fsmark");

	CHECK(p != NULL && p->kind == CATALOG_WORKLOAD && p->runs);
	CHECK(catalog_option(p, "filesize") != NULL);
	CHECK(catalog_option(p, "bs") == NULL);
	CHECK_STR(catalog_suggest_option(p, "filsize"), "filesize");
	CHECK_STR(catalog_suggest_program("fsmrk"), "fsmark");
	CHECK(catalog_program("perf-profile")->kind == CATALOG_MONITOR);
	CHECK(catalog_program("perf-profile")->runs);
	CHECK(catalog_option(catalog_program("perf-profile"), "delay") != NULL);
	CHECK(catalog_option(catalog_program("perf-stat"), "interval") != NULL);
	CHECK(!catalog_program("perf-c2c")->runs);
	CHECK(catalog_program("md") != NULL && !catalog_program("md")->runs);
	CHECK_STR(catalog_testcase_workload("dd-write"), "dd");
	CHECK_STR(catalog_testcase_workload("fsmark"), "fsmark");
	CHECK(catalog_testcase_workload("disk") == NULL);
	CHECK(catalog_accumulates("mail_to"));
	CHECK(catalog_accumulates("need_kconfig"));
	CHECK(!catalog_accumulates("need_memory"));
	CHECK(!catalog_accumulates("fs"));
	CHECK(sysctl_applies("sc_dirty_ratio"));
	CHECK(!sysctl_applies("sc_drop_caches"));
	CHECK_STR(sysctl_suggest("sc_dirty_ration"), "sc_dirty_ratio");
	CHECK_STR(catalog_option_owner("sync_method")->name, "fsmark");
	CHECK(catalog_global_option("nr_instances") != NULL);
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_disks),
		TAP_CASE(test_counts_and_sizes),
		TAP_CASE(test_names_refs_mail_opts),
		TAP_CASE(test_wrong_type),
		TAP_CASE(test_enum_suggests),
		TAP_CASE(test_programs_and_options),
		{NULL, NULL}};

	return tap_run(cases);
}
