/*
 * test_needs.c: a job's needs and the disk parameters they come from.
 */
#include <string.h>

#include "jobs/needs.h"
#include "robot/core/docload.h"
#include "robot/core/rjson.h"
#include "tap.h"

static void
test_disks(void)
{
	struct needs_disk d;

	CHECK(needs_parse_disk("2LOOP_1G", &d));
	CHECK_INT(d.n, 2);
	CHECK_STR(d.kind, "LOOP");
	CHECK_INT(d.size, 1ULL << 30);
	CHECK(needs_parse_disk("1BRD_48G", &d));
	CHECK_INT(d.size, 48ULL << 30);
	CHECK(needs_parse_disk("3HDD", &d));
	CHECK_INT(d.n, 3);
	CHECK_INT(d.size, 0);
	CHECK(needs_parse_disk("1FILE_4G", &d));
}

static void
test_bad_disks(void)
{
	struct needs_disk d;

	CHECK(!needs_parse_disk("", &d));
	CHECK(!needs_parse_disk("LOOP_1G", &d));  /* no count */
	CHECK(!needs_parse_disk("0LOOP_1G", &d)); /* zero disks */
	CHECK(!needs_parse_disk("1LOOP", &d));    /* a RAM disk needs a size */
	CHECK(!needs_parse_disk("1LOOP_1Q", &d)); /* a bad unit */
	CHECK(!needs_parse_disk("1HDD_1G", &d));  /* partitions have sizes */
	CHECK(!needs_parse_disk("1TAPE_1G", &d)); /* unknown kind */
	CHECK(!needs_parse_disk("2loop_1G", &d)); /* case matters, as in LKP */
}

/* The needs of a job written as YAML, as compact JSON. */
static char *
needs_of(const char *yaml)
{
	struct errlist el;
	struct node *docs;
	json_t *n;
	char *s;

	errlist_init(&el);
	docs = docload_yaml("t.yaml", yaml, strlen(yaml), &el);
	errlist_release(&el);
	if (docs == NULL)
		return NULL;
	n = needs_of_job(docs->items[0]);
	s = rjson_dumps(n, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(n);
	node_free(docs);
	return s;
}

static void
test_needs_of_jobs(void)
{
	char *s;

	s = needs_of("disk: 3LOOP_1G\nfs: xfs\n");
	CHECK_STR(s, "{\"fs\":\"xfs\",\"ram\":3221225472}");
	free(s);
	s = needs_of("disk: 2HDD\nfs: ext4\nfs2: nfsv4\n");
	CHECK_STR(s, "{\"fs\":\"ext4\",\"fs2\":true,\"hdd\":2}");
	free(s);
	s = needs_of("disk: 1SSD\nmd: JBOD\n");
	CHECK_STR(s, "{\"ssd\":1}");
	free(s);
	s = needs_of("disk: 1SSD\nmd: RAID0\n");
	CHECK_STR(s, "{\"md\":true,\"ssd\":1}");
	free(s);
	/* A file disk lives on the box's disk: no RAM, no partitions. */
	s = needs_of("disk: 1FILE_4G\nfs: btrfs\n");
	CHECK_STR(s, "{\"fs\":\"btrfs\"}");
	free(s);
	s = needs_of("unlink:\n  nr_files: 10\n");
	CHECK_STR(s, "{}");
	free(s);
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_disks),
		TAP_CASE(test_bad_disks),
		TAP_CASE(test_needs_of_jobs),
		{NULL, NULL},
	};

	return tap_run(cases);
}
