/*
 * test_toolparse.c: the tool-output parsers against LKP's fixtures (the
 * expected "key: value" text, byte for byte), output captured on a box of
 * this kind, and malformed input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/box/toolparse.h"
#include "robot/core/buf.h"
#include "robot/core/xmalloc.h"
#include "tap.h"

static void
collect(const char *key, const char *value, void *arg)
{
	buf_addf(arg, "%s: %s\n", key, value);
}

/* Runs program on a file; the output text, or NULL if it failed. */
static char *
run_file(const char *program, const char *path)
{
	size_t len;
	char *text = tap_read_file(path, &len);
	const char *err = NULL;
	struct buf b;

	if (text == NULL) {
		tap_diag("cannot read %s", path);
		return NULL;
	}
	buf_init(&b);
	if (!toolparse_run(program, text, len, collect, &b, &err)) {
		tap_diag("%s %s: %s", program, path, err);
		buf_release(&b);
		free(text);
		return NULL;
	}
	free(text);
	return buf_detach(&b);
}

static void
expect_fixture(const char *program, const char *rel)
{
	char in[4096], out[4200];
	char *got, *want;

	snprintf(in, sizeof in, "%s/fixtures/lkp/%s", tap_shared_dir(), rel);
	snprintf(out, sizeof out, "%s.yaml", in);
	got = run_file(program, in);
	want = tap_read_file(out, NULL);
	if (CHECK(got != NULL && want != NULL)) {
		/* LKP's spec strips the final newline of the expected text. */
		size_t wl = strlen(want);

		while (wl > 0 && want[wl - 1] == '\n')
			want[--wl] = '\0';
		size_t gl = strlen(got);

		while (gl > 0 && got[gl - 1] == '\n')
			got[--gl] = '\0';
		if (!CHECK_STR(got, want))
			tap_diag("fixture %s", rel);
	}
	free(got);
	free(want);
}

static void
test_lkp_fixtures(void)
{
	expect_fixture("fsmark", "fsmark/1");
	expect_fixture("fsmark", "fsmark/2"); /* binary garbage first */
	expect_fixture("vmstat", "vmstat/1");
	expect_fixture("iostat", "derived/iostat/1");
	expect_fixture("proc-vmstat", "derived/proc-vmstat/1");
	expect_fixture("time", "derived/time/1");
	expect_fixture("time", "derived/time/2");
}

static void
test_iostat_new_header(void)
{
	char in[4096], out[4200];
	char *got, *want, *p;

	/* LKP matches only "Device:" and drops the devices of the newer
	 * sysstat; the robot reads them too.  Every line LKP gives must be
	 * there, in order. */
	snprintf(in, sizeof in, "%s/fixtures/lkp/derived/iostat/2",
		 tap_shared_dir());
	snprintf(out, sizeof out, "%s.yaml", in);
	got = run_file("iostat", in);
	want = tap_read_file(out, NULL);
	if (!CHECK(got != NULL && want != NULL))
		return;
	p = got;
	for (char *line = strtok(want, "\n"); line; line = strtok(NULL, "\n")) {
		char *at = strstr(p, line);

		if (!CHECK(at != NULL)) {
			tap_diag("missing '%s'", line);
			break;
		}
		p = at + strlen(line);
	}
	CHECK(strstr(got, "sda.w/s: 310.00\n") != NULL);
	CHECK(strstr(got, "sda.wkB/s: 79360.00\n") != NULL);
	CHECK(strstr(got, "sda.util: 100.00\n") != NULL);
	CHECK(strstr(got, "sda.aqu-sz: 143.21\n") != NULL);
	free(got);
	free(want);
}

static void
test_captured_output(void)
{
	char path[4096];
	char *got;

	snprintf(path, sizeof path, "%s/fixtures/captured/fsmark-basic.txt",
		 tap_shared_dir());
	got = run_file("fsmark", path);
	CHECK_STR(got, "files_per_sec: 1321.7\napp_overhead: 7492.0\n");
	free(got);
	/* Two -L rows: the average of both, as LKP. */
	snprintf(path, sizeof path,
		 "%s/fixtures/captured/fsmark-2dirs-t2-S0.txt",
		 tap_shared_dir());
	got = run_file("fsmark", path);
	CHECK_STR(got, "files_per_sec: 49200.25\napp_overhead: 9621.5\n");
	free(got);
	snprintf(path, sizeof path, "%s/fixtures/captured/time-v-fsmark.txt",
		 tap_shared_dir());
	got = run_file("time", path);
	CHECK(got != NULL && strstr(got, "elapsed_time: 0.91\n") != NULL);
	CHECK(got != NULL &&
	      strstr(got, "voluntary_context_switches: 3003\n") != NULL);
	free(got);
	snprintf(path, sizeof path, "%s/fixtures/captured/iostat-x-1-2.txt",
		 tap_shared_dir());
	got = run_file("iostat", path);
	CHECK(got != NULL && strstr(got, "loop0.wkB/s: 524288.00\n") != NULL);
	CHECK(got != NULL && strstr(got, "cpu.system: 50.51\n") != NULL);
	free(got);
	snprintf(path, sizeof path,
		 "%s/fixtures/captured/proc-vmstat-after.txt",
		 tap_shared_dir());
	got = run_file("proc-vmstat", path);
	CHECK(got != NULL && strncmp(got, "nr_free_pages: ", 15) == 0);
	free(got);
}

/* Parses text with program; the records, or NULL with the error shown. */
static char *
run_text(const char *program, const char *text)
{
	const char *err = NULL;
	struct buf b;

	buf_init(&b);
	if (!toolparse_run(program, text, strlen(text), collect, &b, &err)) {
		tap_diag("%s: %s", program, err);
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b);
}

/* Whether got holds exactly the lines of want, in any order. */
static bool
same_lines(const char *got, const char *const *want)
{
	size_t n = 0, lines = 0;

	for (const char *p = got; *p != '\0'; p++)
		lines += *p == '\n';
	for (; want[n] != NULL; n++) {
		char line[512];
		size_t len =
			(size_t)snprintf(line, sizeof line, "\n%s\n", want[n]);

		if (strncmp(got, line + 1, len - 1) != 0 &&
		    strstr(got, line) == NULL) {
			tap_diag("missing '%s'", want[n]);
			return false;
		}
	}
	if (lines != n)
		tap_diag("%zu lines, %zu expected:\n%s", lines, n, got);
	return lines == n;
}

/*
 * Four cycles:pp samples and one cpu-clock sample, folded by hand: each
 * cycles sample is 25%.  The second runs seven frames deep, so that its
 * deepest calltraces name the function and only four callers; the
 * fourth recurses (rec twice), and counts once in children.rec.
 */
static void
test_perf_profile_fold(void)
{
	static const char text[] = "swapper     0 cycles:ppH: \n"
				   "\tffffffff8220 idle_fn\n"
				   "\tffffffff8221 do_idle\n"
				   "\tffffffff8222 start\n"
				   "\n"
				   "dd 12 [001] cycles:ppH: \n"
				   "\tffffffff8230 b+0x1f ([kernel.kallsyms])\n"
				   "\tffffffff8231 vfs_write\n"
				   "\tffffffff8232 ksys_write\n"
				   "\tffffffff8233 do_syscall_64\n"
				   "\tffffffff8234 entry\n"
				   "\t       d4ad7 write\n"
				   "\t       d4ad8 main\n"
				   "\n"
				   "dd 12 cycles:ppH: \n"
				   "\tffffffff8231 vfs_write\n"
				   "\tffffffff8232 ksys_write\n"
				   "\tffffffff8233 do_syscall_64\n"
				   "\tffffffff8234 entry\n"
				   "\t       d4ad7 write\n"
				   "\t       d4ad8 main\n"
				   "\n"
				   "a.out 13 cycles:ppH: \n"
				   "\t       1000 rec\n"
				   "\t       1001 rec\n"
				   "\t       1002 main\n"
				   "\n"
				   "kworker 14 cpu-clock: \n"
				   "\t        12 \n"
				   "\n";
	static const char *const want[] = {
		"calltrace.cpu-clock.[unknown]: 100.00",
		"children.cpu-clock.[unknown]: 100.00",
		"self.cpu-clock.[unknown]: 100.00",
		"calltrace.cycles-pp.start: 25.00",
		"calltrace.cycles-pp.do_idle.start: 25.00",
		"calltrace.cycles-pp.idle_fn.do_idle.start: 25.00",
		"calltrace.cycles-pp.main: 75.00",
		"calltrace.cycles-pp.write.main: 50.00",
		"calltrace.cycles-pp.entry.write.main: 50.00",
		"calltrace.cycles-pp.do_syscall_64.entry.write.main: 50.00",
		"calltrace.cycles-pp.ksys_write.do_syscall_64.entry.write.main:"
		" "
		"50.00",
		"calltrace.cycles-pp.vfs_write.ksys_write.do_syscall_64.entry."
		"write: 50.00",
		"calltrace.cycles-pp.b.vfs_write.ksys_write.do_syscall_64."
		"entry: "
		"25.00",
		"calltrace.cycles-pp.rec.main: 25.00",
		"calltrace.cycles-pp.rec.rec.main: 25.00",
		"children.cycles-pp.idle_fn: 25.00",
		"children.cycles-pp.do_idle: 25.00",
		"children.cycles-pp.start: 25.00",
		"children.cycles-pp.b: 25.00",
		"children.cycles-pp.vfs_write: 50.00",
		"children.cycles-pp.ksys_write: 50.00",
		"children.cycles-pp.do_syscall_64: 50.00",
		"children.cycles-pp.entry: 50.00",
		"children.cycles-pp.write: 50.00",
		"children.cycles-pp.main: 75.00",
		"children.cycles-pp.rec: 25.00",
		"self.cycles-pp.idle_fn: 25.00",
		"self.cycles-pp.b: 25.00",
		"self.cycles-pp.vfs_write: 25.00",
		"self.cycles-pp.rec: 25.00",
		NULL};
	char *got = run_text("perf-profile", text);

	CHECK(got != NULL && same_lines(got, want));
	free(got);
}

/* The value of "key: value" in records, or -1. */
static double
value_of(const char *records, const char *key)
{
	char k[512];
	const char *p;

	snprintf(k, sizeof k, "\n%s: ", key);
	if (strncmp(records, k + 1, strlen(k + 1)) == 0)
		return strtod(records + strlen(k + 1), NULL);
	p = strstr(records, k);
	return p != NULL ? strtod(p + strlen(k), NULL) : -1;
}

/*
 * A real profile, recorded on a box of this kind while dd wrote to ext4
 * (perf record -a -g -e cycles:pp, which this VM gives as cpu-clock):
 * rows name kernel functions, and add up as perf's own do.
 */
static void
test_perf_profile_captured(void)
{
	char path[4096], *got, *all, *line, *save = NULL;
	double self_sum = 0;
	size_t rows = 0;

	snprintf(path, sizeof path, "%s/tests/fixtures/perf/perf-script-dd.txt",
		 tap_source_dir());
	if (!CHECK((got = run_file("perf-profile", path)) != NULL))
		return;
	/* The write path of dd, and the idle loop of the other CPU. */
	CHECK(value_of(got, "children.cpu-clock.vfs_write") > 5);
	CHECK(value_of(got, "children.cpu-clock.ksys_write") >=
	      value_of(got, "children.cpu-clock.vfs_write"));
	CHECK(value_of(got, "calltrace.cpu-clock.common_startup_64") > 5);
	/* The root of a stack: its calltrace is all of its children. */
	CHECK(value_of(got, "calltrace.cpu-clock.common_startup_64") ==
	      value_of(got, "children.cpu-clock.common_startup_64"));
	all = xstrdup(got);
	for (line = strtok_r(got, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		char *colon = strrchr(line, ':'), fn[512];
		double v = strtod(colon + 2, NULL);

		rows++;
		*colon = '\0';
		if (!CHECK(strncmp(line, "calltrace.cpu-clock.", 20) == 0 ||
			   strncmp(line, "children.cpu-clock.", 19) == 0 ||
			   strncmp(line, "self.cpu-clock.", 15) == 0))
			tap_diag("row %s", line);
		CHECK(v > 0 && v <= 100);
		if (strncmp(line, "self.", 5) == 0) {
			self_sum += v;
			/* A function's own samples are among its children. */
			snprintf(fn, sizeof fn, "children.%s", line + 5);
			if (!CHECK(value_of(all, fn) >= v))
				tap_diag("%s below %s", fn, line);
		}
	}
	/* Each sample has one leaf: the self rows make up the whole, less
	 * the rows under PERFPARSE_FUNCTION_MIN left out. */
	if (!CHECK(self_sum > 90 && self_sum < 100.5))
		tap_diag("self rows sum to %.2f", self_sum);
	CHECK(rows > 50);
	free(all);
	free(got);
}

/*
 * perf stat's interval counts: i.E is the mean of the intervals' rates,
 * ps.E the total over the seconds recorded, and overall.* the ratios of
 * the totals; counters the kernel does not give are left out.
 */
static void
test_perf_stat(void)
{
	static const char text[] =
		"# started on Fri Dec  4 20:51:16 2026\n"
		"\n"
		"     0.500,100,,cycles,500000,100.00,,\n"
		"     0.500,350,,instructions,500000,100.00,3.5,insn per "
		"cycle\n"
		"     0.500,<not supported>,,cache-misses,0,100.00,,\n"
		"     0.500,20,,context-switches,500000,100.00,40,/sec\n"
		"     2.000,600,,cycles,1500000,100.00,,\n"
		"     2.000,1050,,instructions,1500000,100.00,,\n"
		"     2.000,<not supported>,,cache-misses,0,100.00,,\n"
		"     2.000,10,,context-switches,1500000,100.00,,\n";
	static const char *const want[] = {
		"i.cycles: 300.0",
		"ps.cycles: 350.0",
		"i.instructions: 700.0",
		"ps.instructions: 700.0",
		"i.context-switches: 23.333333333333332",
		"ps.context-switches: 15.0",
		"overall.ipc: 2.0",
		"overall.cpi: 0.5",
		NULL};
	char path[4096], *got = run_text("perf-stat", text);

	CHECK(got != NULL && same_lines(got, want));
	free(got);
	snprintf(path, sizeof path, "%s/tests/fixtures/perf/perf-stat-dd.txt",
		 tap_source_dir());
	if (CHECK((got = run_file("perf-stat", path)) != NULL)) {
		CHECK(value_of(got, "ps.context-switches") > 0);
		CHECK(value_of(got, "i.cpu-clock") > 500);
		/* This VM has no hardware counters. */
		CHECK(strstr(got, "cycles") == NULL);
		CHECK(strstr(got, "overall.") == NULL);
		free(got);
	}
}

static void
test_malformed(void)
{
	static const char binary[] = "\xff\xfe\x00garbage\x00\x01";
	static const struct {
		const char *program, *text;
		size_t len; /* 0: strlen(text) */
	} bad[] = {
		{"fsmark", "", 0},
		{"fsmark", "FSUse%        Count         Size    Files/sec\n",
		 0},
		{"fsmark", "FSUse%  Count\n  5  51200  8192  x  390190\n", 0},
		{"fsmark", binary, sizeof binary - 1},
		{"vmstat", "procs ---memory---\n r b swpd\n", 0},
		{"iostat", "nothing here\n", 0},
		{"time", "no colons at all\n", 0},
		{"proc-vmstat", "\n\n", 0},
		{"perf-profile", "", 0},
		{"perf-profile", binary, sizeof binary - 1},
		/* frames with no sample line, a sample line with no event */
		{"perf-profile", "\tffffffff81 vfs_write\n\tffff81 ksys\n", 0},
		{"perf-profile", "dd 12 cycles\n\tffffffff81 vfs_write\n", 0},
		{"perf-stat", "", 0},
		{"perf-stat", "# started on Fri Dec  4\n\n", 0},
		{"perf-stat", "1.0,<not supported>,,cycles,0,100.00,,\n", 0},
		{"perf-stat", "x,y,z\n1.0,12\n-1.0,5,,cycles\n", 0},
		{"perf-stat", "1.0,nan,,cycles\n1.0,1e999,,cycles\n", 0},
		{"perf-stat", binary, sizeof binary - 1},
		{"nosuch", "x", 0},
	};
	const char *err;
	struct buf b;

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err = NULL;
		buf_init(&b);
		size_t len = bad[i].len ? bad[i].len : strlen(bad[i].text);

		if (!CHECK(!toolparse_run(bad[i].program, bad[i].text, len,
					  collect, &b, &err)))
			tap_diag("accepted %s input %zu", bad[i].program, i);
		CHECK(err != NULL);
		buf_release(&b);
	}
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_lkp_fixtures),
		TAP_CASE(test_iostat_new_header),
		TAP_CASE(test_captured_output),
		TAP_CASE(test_perf_profile_fold),
		TAP_CASE(test_perf_profile_captured),
		TAP_CASE(test_perf_stat),
		TAP_CASE(test_malformed),
		{NULL, NULL}};

	return tap_run(cases);
}
