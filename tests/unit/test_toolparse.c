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
		TAP_CASE(test_malformed),
		{NULL, NULL}};

	return tap_run(cases);
}
