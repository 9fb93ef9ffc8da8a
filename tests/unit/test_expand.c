/*
 * test_expand.c: LKP's expansion order and path_params.
 */
#include <stdlib.h>
#include <string.h>

#include "jobs/expand.h"
#include "robot/core/buf.h"
#include "robot/core/docload.h"
#include "tap.h"

static struct node *
load(const char *text)
{
	struct errlist el;
	struct node *docs, *job;

	errlist_init(&el);
	docs = docload_yaml("t.yaml", text, strlen(text), &el);
	errlist_release(&el);
	if (docs == NULL)
		return NULL;
	job = docs->items[0];
	docs->items[0] = node_new(NODE_NULL, 0, 0);
	node_free(docs);
	return job;
}

static char *
pp(const char *text)
{
	struct node *job = load(text);
	char *s = job ? expand_path_params(job) : NULL;

	node_free(job);
	return s;
}

static void
test_issue_example(void)
{
	/* From a real 0-day report. */
	char *s = pp("cpufreq_governor: performance\ndisk: 8BRD_12G\n"
		     "fs: xfs\niterations: 1x\nmd: RAID0\nnr_threads: 1t\n"
		     "fsmark:\n  filesize: 4M\n  test_size: 60G\n"
		     "  sync_method: fsyncBeforeClose\n");

	CHECK_STR(s, "performance-8BRD_12G-4M-xfs-1x-RAID0-1t-"
		     "fsyncBeforeClose-60G");
	free(s);
}

static void
test_sorted_by_key_not_document_order(void)
{
	char *s = pp("fsmark:\n  test_size: 1G\n  filesize: 4K\nfs: ext4\n"
		     "disk: 1HDD\n");

	CHECK_STR(s, "1HDD-4K-ext4-1G");
	free(s);
}

static void
test_sysctl_options_and_nulls(void)
{
	char *s = pp("sysctl:\n  sc_dirty_ratio: 10\n  sc_swappiness:\n"
		     "dd:\nfs2:\nfs: xfs\n");

	/* LKP's sysctl settings are '-' options: their values, sorted by
	 * name; a setting, a program without a value (sc_swappiness, dd,
	 * fs2) show nothing. */
	CHECK_STR(s, "xfs-10");
	free(s);
}

static void
test_defaults_when_empty(void)
{
	char *s = pp("suite: dd\ndd:\n");

	CHECK_STR(s, "defaults");
	free(s);
}

static void
test_cut_to_31_and_replace(void)
{
	char *s = pp("fs:\n  mount_option: "
		     "inode64,logbsize=262144,noatime,nodiratime,x\n"
		     "disk: 1HDD\n");

	/* 31 characters of the value; "," is outside the allowed set. */
	CHECK_STR(s, "1HDD-inode64_logbsize=262144_noatime");
	free(s);
	s = pp("fsmark:\n  sync_method: \"a b/\xc3\xa9\"\n");
	CHECK_STR(s, "a_b__"); /* one '_' per character, as Ruby's tr */
	free(s);
}

static void
test_monitor_options_skipped(void)
{
	char *s = pp("perf-profile:\n  nr_threads: 9\nfsmark:\n"
		     "  nr_threads: 2t\n");

	CHECK_STR(s, "2t");
	free(s);
}

static void
test_false_skipped_as_ruby(void)
{
	char *s = pp("fs:\n  format: false\ndisk: 1HDD\n");

	CHECK_STR(s, "1HDD");
	free(s);
}

static void
collect(const struct node *atomic, void *arg)
{
	char *s = expand_path_params(atomic);

	buf_addf(arg, "%s;", s);
	free(s);
}

static void
test_cross_product_order(void)
{
	struct node *job = load("fs: [xfs, ext4]\nfs2: [nfsv4, ~]\n"
				"fsmark:\n  filesize: [9B, 5K]\n");
	struct expand_dims *d = expand_dims_new(job);
	struct buf b;

	buf_init(&b);
	expand_each(job, d, NULL, collect, &b);
	/* The first list in the document varies slowest. */
	CHECK_STR(b.data, "9B-xfs-nfsv4;5K-xfs-nfsv4;9B-xfs;5K-xfs;"
			  "9B-ext4-nfsv4;5K-ext4-nfsv4;9B-ext4;5K-ext4;");
	CHECK_INT(expand_count(job, d, NULL, 1000), 8);
	CHECK_INT(expand_count(job, d, NULL, 5), 6); /* stops past the limit */
	CHECK_INT(expand_estimate(job, d), 8);
	/* Restored after walking. */
	CHECK_INT(node_get(job, "fs")->kind, NODE_SEQ);
	buf_release(&b);
	expand_dims_free(d);
	node_free(job);
}

static void
test_lists_under_other_keys_stay(void)
{
	struct node *job =
		load("mail_to: [a@b.c, d@e.f]\nneed_kconfig: [A, B]\n"
		     "commit: [aaaaaaa, bbbbbbb]\ndd:\n");
	struct expand_dims *d = expand_dims_new(job);

	CHECK(!expand_dims_has(d, "mail_to"));
	CHECK(expand_dims_has(d, "commit"));
	CHECK(!expand_dims_is_param(d, "commit"));
	CHECK_INT(expand_count(job, d, NULL, 1000), 2);
	expand_dims_free(d);
	node_free(job);
}

static void
test_options_of_programs_not_in_job_do_not_expand(void)
{
	struct node *job = load("test_size: [1G, 2G]\ndd:\n");
	struct expand_dims *d = expand_dims_new(job);

	CHECK_INT(expand_count(job, d, NULL, 1000), 1);
	expand_dims_free(d);
	node_free(job);
}

static void
test_nested_lists_in_elements(void)
{
	struct node *job = load("dd:\n  - bs: [4k, 8k]\n  - bs: 1m\n");
	struct expand_dims *d = expand_dims_new(job);
	struct buf b;

	buf_init(&b);
	expand_each(job, d, NULL, collect, &b);
	CHECK_STR(b.data, "4k;8k;1m;");
	CHECK_INT(expand_count(job, d, NULL, 1000), 3);
	buf_release(&b);
	expand_dims_free(d);
	node_free(job);
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_issue_example),
		TAP_CASE(test_sorted_by_key_not_document_order),
		TAP_CASE(test_sysctl_options_and_nulls),
		TAP_CASE(test_defaults_when_empty),
		TAP_CASE(test_cut_to_31_and_replace),
		TAP_CASE(test_monitor_options_skipped),
		TAP_CASE(test_false_skipped_as_ruby),
		TAP_CASE(test_cross_product_order),
		TAP_CASE(test_lists_under_other_keys_stay),
		TAP_CASE(test_options_of_programs_not_in_job_do_not_expand),
		TAP_CASE(test_nested_lists_in_elements),
		{NULL, NULL}};

	return tap_run(cases);
}
