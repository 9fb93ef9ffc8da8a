/*
 * catalog.c: the table of known programs, options and keys, and the value
 * checks.  To teach the robot a new LKP program, add it here.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jobs/catalog.h"
#include "robot/core/name.h"
#include "jobs/template.h"
#include "jobs/unit.h"
#include "robot/core/buf.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

static const char *const fs_choices[] = {
	"xfs", "ext4", "btrfs",
	/* known to LKP, not run here */
	"ext2", "ext3", "f2fs", "tmpfs", "jfs", "reiserfs", "udf", "ocfs2",
	"bcachefs", "nfs", "nfsv3", "nfsv4", "cifs", "smbv2", "smbv2p1",
	"smbv3", "smbv3p02", "smbv3p11", NULL};
static const char *const md_choices[] = {
	"JBOD",   "RAID0",  "RAID1",  "RAID4",  "RAID5",   "RAID6", "RAID10",
	"braid0", "braid1", "braid5", "braid6", "braid10", NULL};
static const char *const iosched_choices[] = {
	"none", "mq-deadline", "kyber", "bfq", "deadline", "cfq", "noop", NULL};
static const char *const governor_choices[] = {
	"performance",  "powersave", "ondemand", "schedutil",
	"conservative", "userspace", NULL};
const char *const catalog_sync_methods[] = {"NoSync",
					    "fsyncBeforeClose",
					    "syncFsync",
					    "PostReverseFsync",
					    "syncPostReverseFsync",
					    "PostFsync",
					    "syncPostFsync",
					    NULL};

static const struct catalog_option disk_options[] = {
	{"nr_ssd", '-', CV_UINT, NULL},
	{"nr_hdd", '-', CV_UINT, NULL},
	{"nr_brd", '-', CV_UINT, NULL},
	{"nr_srd", '-', CV_UINT, NULL},
	{"nr_pmem", '-', CV_UINT, NULL},
	{"wait_disks_timeout", '-', CV_DURATION, NULL},
	{NULL, 0, 0, NULL}};
static const struct catalog_option md_options[] = {
	{"raid_level", '-', CV_ENUM_CI, md_choices},
	{"raid_chunk", '-', CV_POSINT, NULL},
	{NULL, 0, 0, NULL}};
static const struct catalog_option fs_options[] = {
	{"fs", '-', CV_ENUM, fs_choices},
	{"format", '-', CV_YN, NULL},
	{"mkfs", '-', CV_OPTS, NULL},
	{"mount", '-', CV_OPTS, NULL},
	{"mount_option", '-', CV_OPTS, NULL},
	{"nr_tmpfs", '-', CV_POSINT, NULL},
	{NULL, 0, 0, NULL}};
static const struct catalog_option iosched_options[] = {
	{"iosched", '-', CV_ENUM, iosched_choices},
	{"read_expire", '-', CV_UINT, NULL},
	{"write_expire", '-', CV_UINT, NULL},
	{"fifo_batch", '-', CV_UINT, NULL},
	{"writes_starved", '-', CV_UINT, NULL},
	{"front_merges", '-', CV_UINT, NULL},
	{"iosched_dev", '-', CV_NAME, NULL},
	{NULL, 0, 0, NULL}};
static const struct catalog_option no_options[] = {{NULL, 0, 0, NULL}};
static const struct catalog_option fuse_options[] = {
	{"mount_max", '-', CV_ANY, NULL},
	{"thread_model", '-', CV_ANY, NULL},
	{"write_ratelimit", '-', CV_ANY, NULL},
	{"writeback_cache", '-', CV_ANY, NULL},
	{NULL, 0, 0, NULL}};
static const struct catalog_option fsmark_options[] = {
	{"nr_threads", '-', CV_THREADS, NULL},
	{"test_size", '-', CV_SIZE, NULL},
	{"filesize", '-', CV_FILESIZE, NULL},
	{"nr_directories", '-', CV_DIRS, NULL},
	{"nr_files_per_directory", '-', CV_FPD, NULL},
	{"sync_method", '-', CV_ENUM, catalog_sync_methods},
	{"iterations", '-', CV_ITERATIONS, NULL},
	{NULL, 0, 0, NULL}};
static const struct catalog_option dd_options[] = {
	{"bs", '-', CV_SIZE, NULL},
	{"size", '-', CV_SIZE, NULL},
	{"runtime", '-', CV_DURATION, NULL},
	{"nr_threads", '-', CV_THREADS, NULL},
	{NULL, 0, 0, NULL}};
static const struct catalog_option unlink_options[] = {
	{"nr_files", '-', CV_POSINT, NULL},
	{"filesize", '-', CV_FILESIZE, NULL},
	{"nr_threads", '-', CV_THREADS, NULL},
	{"nr_directories", '-', CV_DIRS, NULL},
	{NULL, 0, 0, NULL}};
static const struct catalog_option splitjob_options[] = {
	{"test", '-', CV_NAME, NULL},
	{"group", '-', CV_NAME, NULL},
	{NULL, 0, 0, NULL}};
/* LKP's perf-profile and perf-stat monitors, as robot-box runs them
 * (docs/box.md). */
static const struct catalog_option perf_profile_options[] = {
	{"delay", '-', CV_DURATION, NULL},
	{"duration", '-', CV_DURATION, NULL},
	{"freq", '-', CV_POSINT, NULL},
	{"events", '-', CV_ANY, NULL},
	{NULL, 0, 0, NULL}};
static const struct catalog_option perf_stat_options[] = {
	{"delay", '-', CV_DURATION, NULL},
	{"duration", '-', CV_DURATION, NULL},
	{"interval", '-', CV_DURATION, NULL},
	{"events", '-', CV_ANY, NULL},
	{NULL, 0, 0, NULL}};
/* The options of LKP's wrappers (bin/run-test, bin/run-daemon). */
static const struct catalog_option global_options[] = {
	{"nr_instances", '-', CV_POSINT, NULL},
	{"cpu_node_bind", '-', CV_NAME, NULL},
	{"mem_node_bind", '-', CV_NAME, NULL},
	{"cluster", '-', CV_NAME, NULL},
	{NULL, 0, 0, NULL}};

#define MONITOR(n)                                                             \
	{                                                                      \
		n, CATALOG_MONITOR, false, CV_ANY, NULL, no_options, false,    \
			"the robot does not run this monitor"                  \
	}
#define MONITOR_RUN(n)                                                         \
	{                                                                      \
		n, CATALOG_MONITOR, true, CV_ANY, NULL, no_options, false,     \
			NULL                                                   \
	}

static const struct catalog_program programs[] = {
	{"disk", CATALOG_SETUP, true, CV_DISK, NULL, disk_options, false, NULL},
	{"md", CATALOG_SETUP, false, CV_ENUM_CI, md_choices, md_options, false,
	 "no box of the robot assembles md RAID yet"},
	{"fs", CATALOG_SETUP, true, CV_ENUM, fs_choices, fs_options, false,
	 NULL},
	{"fs2", CATALOG_SETUP, false, CV_ENUM, fs_choices, fs_options, false,
	 "no box of the robot exports NFS or CIFS yet"},
	{"iosched", CATALOG_SETUP, true, CV_ENUM, iosched_choices,
	 iosched_options, false, NULL},
	{"cpufreq_governor", CATALOG_SETUP, true, CV_ENUM, governor_choices,
	 no_options, false, NULL},
	{"sysctl", CATALOG_SETUP, true, CV_ANY, NULL, no_options, true, NULL},
	{"fuse", CATALOG_SETUP, false, CV_ANY, NULL, fuse_options, false,
	 "robot-box does not set up FUSE mounts yet"},
	{"nfsd", CATALOG_SETUP, false, CV_ANY, NULL, no_options, false,
	 "robot-box does not run an NFS server yet"},
	{"fsmark", CATALOG_WORKLOAD, true, CV_ANY, NULL, fsmark_options, false,
	 NULL},
	{"dd", CATALOG_WORKLOAD, true, CV_ANY, NULL, dd_options, false, NULL},
	{"unlink", CATALOG_WORKLOAD, true, CV_ANY, NULL, unlink_options, false,
	 NULL},
	{"split-job", CATALOG_WORKLOAD, false, CV_ANY, NULL, splitjob_options,
	 false, "LKP's own self-test of job splitting; nothing to run"},
	MONITOR_RUN("vmstat"),
	MONITOR_RUN("iostat"),
	MONITOR_RUN("proc-vmstat"),
	MONITOR_RUN("meminfo"),
	{"perf-profile", CATALOG_MONITOR, true, CV_ANY, NULL,
	 perf_profile_options, false, NULL},
	{"perf-stat", CATALOG_MONITOR, true, CV_ANY, NULL, perf_stat_options,
	 false, NULL},
	MONITOR("perf-c2c"),
	MONITOR("perf-sched"),
	MONITOR("ftrace"),
	MONITOR("sched_debug"),
	MONITOR("latency_stats"),
	MONITOR("turbostat"),
	MONITOR("softirqs"),
	MONITOR("interrupts"),
	MONITOR("slabinfo"),
	MONITOR("buddyinfo"),
	MONITOR("zoneinfo"),
	MONITOR("pagetypeinfo"),
	MONITOR("numa-vmstat"),
	MONITOR("numa-meminfo"),
	MONITOR("numa-numastat"),
	MONITOR("proc-stat"),
	MONITOR("mpstat"),
	MONITOR("lock_stat"),
	MONITOR("cpuidle"),
	MONITOR("cpufreq"),
	MONITOR("pmeter"),
	MONITOR("heartbeat"),
	MONITOR("uptime"),
	MONITOR("kmsg"),
	MONITOR("energy"),
	MONITOR("diskstats"),
	MONITOR("nfsstat"),
	MONITOR("oom-killer"),
	MONITOR("watchdog"),
	{NULL, 0, false, 0, NULL, NULL, false, NULL}};

static const struct catalog_param params[] = {
	{"suite", CV_NAME, NULL, false, false},
	{"testcase", CV_NAME, NULL, false, false},
	{"category", CV_NAME, NULL, false, false},
	{"commit", CV_REF, NULL, true, false},
	{"base_commit", CV_REF, NULL, false, false},
	{"tree", CV_NAME, NULL, false, false},
	{"repeat", CV_POSINT, NULL, false, false},
	{"priority", CV_INT, NULL, false, false},
	{"timeout", CV_DURATION, NULL, false, false},
	{"tbox_group", CV_NAME, NULL, false, false},
	{"testbox", CV_NAME, NULL, false, false},
	{"mail_to", CV_MAIL, NULL, false, true},
	{"mail_cc", CV_MAIL, NULL, false, true},
	{"need_memory", CV_SIZE, NULL, false, false},
	{"need_cpu", CV_POSINT, NULL, false, false},
	/* LKP's expanding dimensions that are not program options */
	{"kconfig", CV_ANY, NULL, true, false},
	{"rootfs", CV_ANY, NULL, true, false},
	/* LKP keys a lab or the scheduler adds; kept, never used */
	{"compiler", CV_ANY, NULL, false, false},
	{"arch", CV_ANY, NULL, false, false},
	{"job_origin", CV_ANY, NULL, false, false},
	{"model", CV_ANY, NULL, false, false},
	{"nr_node", CV_ANY, NULL, false, false},
	{"nr_cpu", CV_ANY, NULL, false, false},
	{"memory", CV_ANY, NULL, false, false},
	{"queue", CV_ANY, NULL, false, false},
	{"branch", CV_ANY, NULL, false, false},
	{"id", CV_ANY, NULL, false, false},
	{"submit_id", CV_ANY, NULL, false, false},
	{"job_file", CV_ANY, NULL, false, false},
	{"queuer_version", CV_ANY, NULL, false, false},
	{"queue_cmdline_keys", CV_ANY, NULL, false, false},
	{"hdd_partitions", CV_ANY, NULL, false, false},
	{"ssd_partitions", CV_ANY, NULL, false, false},
	{"rootfs_partition", CV_ANY, NULL, false, false},
	{"kernel_cmdline_hw", CV_ANY, NULL, false, false},
	{"kernel_cmdline", CV_ANY, NULL, false, false},
	{"including", CV_ANY, NULL, false, false},
	{"user", CV_ANY, NULL, false, false},
	{"os", CV_ANY, NULL, false, false},
	{"os_version", CV_ANY, NULL, false, false},
	{"os_arch", CV_ANY, NULL, false, false},
	{"upload_files", CV_ANY, NULL, false, false},
	{"boot_params", CV_ANY, NULL, false, false},
	{"kernel", CV_ANY, NULL, false, false},
	{NULL, 0, NULL, false, false}};

/*
 * Names LKP's job files use that the robot neither runs nor checks: its
 * other tests, setup scripts and daemons, the need_* keys of its
 * scheduler, a few lab keys.  Such a key is kept with a warning; only a
 * name close to none of them is taken for a typo.
 */
static const char *const lkp_names[] = {
	/* tests */
	"aim7", "aim9", "blogbench", "bonnie", "blktests", "dbench", "ebizzy",
	"filebench", "fio-basic", "fsx", "fxmark", "hackbench", "iozone",
	"iperf", "kbuild", "kernel-selftests", "kunit", "lmbench3",
	"locktorture", "ltp", "mce-test", "netperf", "nvml", "ndctl", "pbzip2",
	"perf-bench-futex", "perf-bench-numa-mem", "perf-bench-sched-pipe",
	"pft", "pigz", "pmbench", "postmark", "rcuscale", "rcutorture", "reaim",
	"stress-ng", "sysbench-cpu", "sysbench-memory", "sysbench-threads",
	"tbench", "tlbflush", "unixbench", "vm-scalability", "will-it-scale",
	"xfstests", "fio", "sockperf", "pgbench", "memtier", "mysql", "oltp",
	/* setup scripts */
	"acpi_cpufreq", "block_queue", "cgroup", "cgroup2", "chrt",
	"cooling_device", "dirty_thresh", "filebench-setup", "fio-setup-basic",
	"intel_pstate", "memcached-setup", "nvdimm", "pepc", "pgbench-setup",
	"sched_domain", "scsi_debug_swap", "setup-nic", "setup-oltp",
	"stop_daemons", "swap", "transparent_hugepage", "boot", "kmemleak",
	/* daemons */
	"cifs", "smbd", "memcached", "redis", "nginx",
	/* monitors the catalogue does not list */
	"cpufreq-stats", "ethtool", "kvm", "mdstat", "memory--numa_stat",
	"nfs-hang", "thermal", "perf-stat-extra",
	/* the scheduler's and the lab's keys */
	"need_cpuid", "need_node", "need_kconfig", "need_kernel_version",
	"need_kernel_headers", "need_modules", "need_x86_features",
	"need_linux_headers", "need_linux_selftests", "need_kselftests",
	"need_memory_bandwidth", "need_nr_node", "ip", "ipv6", "bp_memmap",
	"kconfig", "rootfs_disk", "swap_partitions", "pmem_partitions",
	"local_run", "nr_brd", "nr_hdd", "nr_ssd", "nr_pmem", "sleep",
	"runtime_kill", "timeout_kill", "disable_latency_stats", "boot_timeout",
	"send_email", "email", "mail", NULL};

/* LKP testcases whose name is not their workload's. */
static const struct {
	const char *testcase;
	const char *workload;
} testcase_aliases[] = {{"dd-write", "dd"},
			{"dd-write-nfs", "dd"},
			{"fs_mark", "fsmark"},
			{"create-unlink", "unlink"},
			{NULL, NULL}};

const struct catalog_program *
catalog_program(const char *name)
{
	for (size_t i = 0; programs[i].name != NULL; i++)
		if (strcmp(programs[i].name, name) == 0)
			return &programs[i];
	return NULL;
}

const struct catalog_option *
catalog_option(const struct catalog_program *p, const char *name)
{
	for (size_t i = 0; p->options[i].name != NULL; i++)
		if (strcmp(p->options[i].name, name) == 0)
			return &p->options[i];
	return NULL;
}

const struct catalog_option *
catalog_global_option(const char *name)
{
	for (size_t i = 0; global_options[i].name != NULL; i++)
		if (strcmp(global_options[i].name, name) == 0)
			return &global_options[i];
	return NULL;
}

const struct catalog_program *
catalog_option_owner(const char *name)
{
	for (size_t i = 0; programs[i].name != NULL; i++)
		if (catalog_option(&programs[i], name) != NULL)
			return &programs[i];
	return NULL;
}

const struct catalog_param *
catalog_param(const char *name)
{
	for (size_t i = 0; params[i].name != NULL; i++)
		if (strcmp(params[i].name, name) == 0)
			return &params[i];
	return NULL;
}

bool
catalog_accumulates(const char *key)
{
	const struct catalog_param *p = catalog_param(key);

	if (p != NULL)
		return p->accumulate;
	return str_has_prefix(key, "need_");
}

bool
catalog_lkp_known(const char *key)
{
	for (size_t i = 0; lkp_names[i] != NULL; i++)
		if (strcmp(lkp_names[i], key) == 0)
			return true;
	return str_has_prefix(key, "need_");
}

bool
catalog_role_section(const char *key)
{
	return str_has_prefix(key, "if role ") && key[8] != '\0';
}

const char *
catalog_testcase_workload(const char *testcase)
{
	const struct catalog_program *p = catalog_program(testcase);

	if (p != NULL && p->kind == CATALOG_WORKLOAD)
		return p->name;
	for (size_t i = 0; testcase_aliases[i].testcase != NULL; i++)
		if (strcmp(testcase_aliases[i].testcase, testcase) == 0)
			return testcase_aliases[i].workload;
	return NULL;
}

/* ---- value checks ----------------------------------------------------- */

static bool
is_name(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && strchr("_-.+", *s) == NULL)
			return false;
	return true;
}

static bool
is_ref(const char *s)
{
	if (*s == '\0' || *s == '-' || strlen(s) > 200 || strstr(s, "..") ||
	    str_has_suffix(s, ".lock") || str_has_suffix(s, "/"))
		return false;
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && strchr("_-./+", *s) == NULL)
			return false;
	return true;
}

static bool
is_mail(const char *s)
{
	const char *at = strchr(s, '@');

	if (at == NULL || at == s || at[1] == '\0' || strchr(at + 1, '@'))
		return false;
	for (; *s != '\0'; s++)
		if ((unsigned char)*s <= ' ' || strchr("<>,;\"\\", *s))
			return false;
	return true;
}

static char *
check_enum(const char *s, const char *const *choices, bool ci, const char *what)
{
	const char *near;
	size_t n;

	for (size_t i = 0; choices[i] != NULL; i++)
		if ((ci ? strcasecmp : strcmp)(s, choices[i]) == 0)
			return NULL;
	/* A few choices: all of them, which says more than a guess. */
	for (n = 0; choices[n] != NULL; n++)
		;
	if (n <= 12) {
		struct buf b;

		buf_init(&b);
		buf_addf(&b, "'%s' is not a known %s: one of", s, what);
		for (size_t i = 0; i < n; i++)
			buf_addf(&b, "%s %s", i ? "," : "", choices[i]);
		return buf_detach(&b);
	}
	near = str_closest(s, choices);
	if (near != NULL)
		return xasprintf("'%s' is not a known %s (did you mean '%s'?)",
				 s, what, near);
	return xasprintf("'%s' is not a known %s", s, what);
}

static char *
check_disk(const char *s)
{
	const char *p = s, *kind;
	uint64_t bytes;
	const char *err;
	char *end;
	unsigned long n;

	n = strtoul(p, &end, 10);
	if (end == p || !isdigit((unsigned char)*p))
		goto bad;
	if (n == 0 || n > 64)
		return xasprintf("'%s' asks for %lu disks; 1 to 64 are "
				 "possible",
				 s, n);
	kind = end;
	if (strcmp(kind, "HDD") == 0 || strcmp(kind, "SSD") == 0 ||
	    strcasecmp(kind, "pmem") == 0)
		return NULL;
	if (!str_has_prefix(kind, "BRD_") && !str_has_prefix(kind, "LOOP_") &&
	    !str_has_prefix(kind, "FILE_"))
		goto bad;
	if ((err = unit_size(strchr(kind, '_') + 1, &bytes)) != NULL)
		return xasprintf("'%s': the disk size %s", s, err);
	if (bytes < 16 << 20)
		return xasprintf("'%s': disks of less than 16M cannot hold a "
				 "filesystem",
				 s);
	return NULL;
bad:
	return xasprintf("'%s' is not a disk (disks are NBRD_SIZE, NLOOP_SIZE, "
			 "NFILE_SIZE, NHDD, NSSD or Npmem, e.g. 1BRD_48G or "
			 "3HDD)",
			 s);
}

char *
catalog_check(enum catalog_value value, const char *const *choices,
	      const struct node *n)
{
	static const char *const threads[] = {"t", "dd", "%", NULL};
	static const char *const iters[] = {"x", NULL};
	static const char *const dirs[] = {"d", NULL};
	static const char *const fpd[] = {"fpd", NULL};
	const char *err = NULL, *what = NULL;
	char *s, *q, *msg;
	uint64_t u;
	double d;

	if (n->kind == NODE_NULL || template_has(n))
		return NULL; /* a template is checked once evaluated */
	if (n->kind != NODE_SCALAR)
		return xasprintf("is %s; a single value is expected here",
				 node_type_name(n));
	if (value == CV_ANY)
		return NULL;
	s = node_to_s(n);
	if (strlen(s) != n->len && n->stype == NODE_STR) {
		free(s);
		return xstrdup("holds a NUL byte");
	}
	switch (value) {
	case CV_ANY:
		break;
	case CV_NAME:
		if (!is_name(s) || !name_ok(NAME_LABEL, s))
			err = "is not a name (1 to 100 letters, digits, '_', "
			      "'-', '.', '+'; no '..')";
		break;
	case CV_SIZE:
		what = "a size";
		err = unit_size(s, &u);
		break;
	case CV_FILESIZE:
		what = "a size";
		if (strcmp(s, "0") != 0)
			err = unit_size(s, &u);
		break;
	case CV_THREADS: {
		const char *suffix = "";

		what = "a thread count (like 32, 32t, 2dd or 50%)";
		err = unit_count(s, threads, &u, &suffix);
		if (err == NULL && strcmp(suffix, "%") == 0 && u > 1000)
			err = "is more than 1000%";
		break;
	}
	case CV_ITERATIONS:
		what = "an iteration count (like 1x)";
		err = unit_count(s, iters, &u, NULL);
		break;
	case CV_DIRS:
		what = "a directory count (like 16d)";
		err = unit_count(s, dirs, &u, NULL);
		break;
	case CV_FPD:
		what = "a files-per-directory count (like 256fpd)";
		err = unit_count(s, fpd, &u, NULL);
		break;
	case CV_DURATION:
		what = "a duration";
		err = unit_duration(s, &d);
		break;
	case CV_UINT:
		err = unit_uint_zero(s, &u);
		break;
	case CV_POSINT:
		err = unit_count(s, NULL, &u, NULL);
		break;
	case CV_INT:
		if (n->stype != NODE_INT)
			err = "is not a whole number";
		break;
	case CV_ENUM:
	case CV_ENUM_CI:
		msg = check_enum(s, choices, value == CV_ENUM_CI, "value");
		free(s);
		return msg;
	case CV_DISK:
		msg = check_disk(s);
		free(s);
		return msg;
	case CV_OPTS:
		for (const char *p = s; *p != '\0' && err == NULL; p++)
			if (!isalnum((unsigned char)*p) &&
			    strchr("-_=,.: ", *p) == NULL)
				err = "may hold only letters, digits, spaces "
				      "and -_=,.: (no paths, no shell)";
		break;
	case CV_YN:
		if (strcmp(s, "y") != 0 && strcmp(s, "n") != 0 &&
		    n->stype != NODE_BOOL)
			err = "is not y or n";
		break;
	case CV_REF:
		if (!is_ref(s))
			err = "is not a git commit or ref";
		break;
	case CV_MAIL:
		if (!is_mail(s))
			err = "is not a mail address (name@domain)";
		break;
	}
	if (err == NULL) {
		free(s);
		return NULL;
	}
	q = str_quote(s);
	free(s);
	if (what != NULL &&
	    (strncmp(err, "has ", 4) == 0 || strncmp(err, "does ", 5) == 0))
		msg = xasprintf("'%s' is not %s: it %s", q, what, err);
	else
		msg = xasprintf("'%s' %s", q, err);
	free(q);
	return msg;
}

/* ---- suggestions ------------------------------------------------------ */

static const char *
suggest_from(const char *word, const char **names)
{
	const char *best = str_closest(word, names);

	free(names);
	return best;
}

const char *
catalog_suggest_program(const char *word)
{
	size_t n = 0;
	const char **names;

	while (programs[n].name != NULL)
		n++;
	names = xcalloc(n + 1, sizeof *names);
	for (size_t i = 0; i < n; i++)
		names[i] = programs[i].name;
	return suggest_from(word, names);
}

const char *
catalog_suggest_option(const struct catalog_program *p, const char *word)
{
	size_t n = 0;
	const char **names;

	while (p->options[n].name != NULL)
		n++;
	names = xcalloc(n + 1, sizeof *names);
	for (size_t i = 0; i < n; i++)
		names[i] = p->options[i].name;
	return suggest_from(word, names);
}

const char *
catalog_suggest_key(const char *word)
{
	size_t n = 0, k = 0;
	const char **names;

	for (size_t i = 0; programs[i].name != NULL; i++) {
		n++;
		for (size_t j = 0; programs[i].options[j].name != NULL; j++)
			n++;
	}
	for (size_t i = 0; params[i].name != NULL; i++)
		n++;
	for (size_t i = 0; global_options[i].name != NULL; i++)
		n++;
	names = xcalloc(n + 1, sizeof *names);
	for (size_t i = 0; programs[i].name != NULL; i++) {
		names[k++] = programs[i].name;
		for (size_t j = 0; programs[i].options[j].name != NULL; j++)
			names[k++] = programs[i].options[j].name;
	}
	for (size_t i = 0; params[i].name != NULL; i++)
		names[k++] = params[i].name;
	for (size_t i = 0; global_options[i].name != NULL; i++)
		names[k++] = global_options[i].name;
	return suggest_from(word, names);
}
