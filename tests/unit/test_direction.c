/*
 * test_direction.c: the table of metric directions.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/direction.h"
#include "tap.h"

/* Rules of every shape the lookup treats apart, and the traps: a '|' at
 * the top, brackets, escapes, quantifiers on the last literal. */
static const char *const tricky[] = {
	"a|b\\.c",    "x\\.y.+",   "[]a]z",      "a.+b\\.c",   "p\\.(x|y)",
	"q.*",        "r\\.+",     "s\\.[^/]/s", "t\\.u?",     "v\\.w{2}",
	"lit\\.eral", "(g|h)\\.k", "m\\..+|n",   "e\\.[rw]/s", "f\\.(.+)\\.z",
	"w\\\\.+",    NULL};

/* Names around the rules: LKP's and ours, and each cut and grown. */
static const char *const names[] = {"fsmark.files_per_sec",
				    "fsmark.app_overhead",
				    "dd.write_bytes_per_sec",
				    "dd.loop0.write_bytes_per_sec",
				    "dd.loop0.write_bytes_per_sec.max",
				    "dd.loop0.write_bytes_per_sec.cv",
				    "dd.loop0.write_bytes_per_sec.trough",
				    "unlink.unlinks_per_sec.period_s",
				    "dd.startup_time_ms",
				    "dd.x.write_bytes_per_sec.stddev",
				    "unlink.unlinks_per_sec",
				    "unlink.x_per_sec.mean",
				    "fsmark.time.elapsed_time",
				    "fsmark.time.elapsed_time.max",
				    "dd.time.user_time",
				    "x.time.minor_page_faults",
				    "y.time.voluntary_context_switches",
				    "z.time.file_system_outputs",
				    "w.time.percent_of_cpu_this_job_got",
				    "iostat.loop0.wkB/s",
				    "iostat.sda.rkB/s",
				    "iostat.sda.r/s",
				    "iostat.sda.w/s",
				    "iostat.sda.await",
				    "iostat.sda.w_await",
				    "iostat.sda.util",
				    "vmstat.io.bo",
				    "vmstat.system.cs",
				    "vmstat.cpu.us",
				    "proc-vmstat.pgpgout",
				    "meminfo.Dirty",
				    "fio.write_bw_MBps",
				    "fxmark.ssd_ext4_no_jnl_MRPL_4.works/sec",
				    "will-it-scale.per_thread_ops",
				    "a",
				    "b.c",
				    "a|b.c",
				    "x.y",
				    "x.yz",
				    "]z",
				    "az",
				    "[z",
				    "a.q.b.c",
				    "ab.c",
				    "p.x",
				    "p.y",
				    "p.z",
				    "q",
				    "qqq",
				    "r.",
				    "r..",
				    "r",
				    "s.a/s",
				    "s.//s",
				    "t.",
				    "t.u",
				    "t.uu",
				    "v.ww",
				    "v.w",
				    "lit.eral",
				    "litXeral",
				    "g.k",
				    "h.k",
				    "m.x",
				    "n",
				    "m.",
				    "e.r/s",
				    "e.x/s",
				    "f.a.b.z",
				    "f..z",
				    "w\\",
				    "w\\\\",
				    "iostat..wkB/s",
				    "meminfo.",
				    "proc-vmstat",
				    NULL};

/* The first rule whose regex matches, by regexec() alone. */
static const char *
reference(const char *const *pats, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++) {
		char anchored[512];
		regex_t re;
		bool m;

		snprintf(anchored, sizeof anchored, "^(%s)$", pats[i]);
		if (regcomp(&re, anchored, REG_EXTENDED | REG_NOSUB) != 0)
			continue;
		m = regexec(&re, name, 0, NULL, 0) == 0;
		regfree(&re);
		if (m)
			return pats[i];
	}
	return NULL;
}

static void
test_lookup_is_regexec(void)
{
	struct direction_table *t = direction_table_new();
	char path[512], *text, *line, *save = NULL;
	const char *pats[256];
	size_t n = 0, bad = 0;
	struct errlist el;
	struct strlist {
		char *v[4096];
		size_t n;
	} all = {{NULL}, 0};
	char *rules = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&rules, &len);

	for (size_t i = 0; tricky[i] != NULL; i++) {
		pats[n++] = tricky[i];
		fprintf(fp, "%s 1\n", tricky[i]);
	}
	fclose(fp);
	errlist_init(&el);
	CHECK(direction_table_add(t, "tricky", rules, len, &el));
	snprintf(path, sizeof path, "%s/robot/analysis/directions",
		 tap_source_dir());
	if (!CHECK((text = tap_read_file(path, NULL)) != NULL))
		return;
	for (line = strtok_r(text, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		char pat[256];

		if (line[0] == '#' || sscanf(line, "%255s", pat) != 1)
			continue;
		pats[n++] = strdup(pat);
	}
	for (size_t i = 0; names[i] != NULL; i++) {
		size_t l = strlen(names[i]);
		char cut[256], grown[256];

		all.v[all.n++] = strdup(names[i]);
		snprintf(cut, sizeof cut, "%.*s", (int)(l - 1), names[i]);
		all.v[all.n++] = strdup(cut);
		all.v[all.n++] = strdup(names[i] + 1);
		snprintf(grown, sizeof grown, "%sx", names[i]);
		all.v[all.n++] = strdup(grown);
		snprintf(grown, sizeof grown, "x%s", names[i]);
		all.v[all.n++] = strdup(grown);
	}
	for (size_t i = 0; i < all.n; i++) {
		const char *want = reference(pats, n, all.v[i]);
		const char *got = direction_lookup(t, all.v[i]).pattern;

		if ((want == NULL) != (got == NULL) ||
		    (want != NULL && strcmp(want, got) != 0)) {
			if (bad++ < 5)
				tap_diag("'%s': '%s', regexec '%s'", all.v[i],
					 got ? got : "-", want ? want : "-");
		}
		free(all.v[i]);
	}
	CHECK_INT(bad, 0);
	CHECK(all.n > 300 && n > 50);
	for (size_t i = sizeof tricky / sizeof tricky[0] - 1; i < n; i++)
		free((char *)pats[i]);
	free(rules);
	free(text);
	errlist_release(&el);
	direction_table_free(t);
}

static void
test_builtin_rules(void)
{
	struct direction_table *t = direction_table_new();

	CHECK_INT(direction_lookup(t, "fsmark.files_per_sec").sign, 1);
	CHECK_INT(direction_lookup(t, "fsmark.app_overhead").sign, -1);
	CHECK_INT(direction_lookup(t, "dd.startup_time_ms").sign, -1);
	CHECK_INT(direction_lookup(t, "iostat.loop0.wkB/s").sign, 1);
	CHECK_INT(direction_lookup(t, "dd.write_bytes_per_sec").sign, 1);
	CHECK_INT(direction_lookup(t, "dd.loop0.write_bytes_per_sec.min").sign,
		  1);
	CHECK_INT(direction_lookup(t, "unlink.unlinks_per_sec").sign, 1);
	/* A throughput's shape: a trough higher is better; a period is
	 * neither, yet it is a known metric. */
	CHECK_INT(
		direction_lookup(t, "dd.loop0.write_bytes_per_sec.trough").sign,
		1);
	CHECK_INT(direction_lookup(t, "dd.disks.write_bytes_per_sec.peak").sign,
		  1);
	CHECK_INT(direction_lookup(t, "unlink.unlinks_per_sec.trough").sign, 1);
	CHECK_INT(direction_lookup(t, "dd.loop0.write_bytes_per_sec.period_s")
			  .sign,
		  0);
	CHECK(direction_lookup(t, "unlink.unlinks_per_sec.period_s").pattern !=
	      NULL);
	CHECK_INT(direction_lookup(t, "fsmark.time.elapsed_time").sign, -1);
	CHECK_INT(direction_lookup(t, "vmstat.system.cs").sign, 0);
	CHECK_DBL(direction_lookup(t, "proc-vmstat.pgpgout").abs_floor, 1000,
		  0);
	CHECK(direction_lookup(t, "no.such.metric").pattern == NULL);
	/* Anchored at both ends, as LKP's =~ /^...$/. */
	CHECK_INT(direction_lookup(t, "xfsmark.files_per_sec").sign, 0);
	CHECK_INT(direction_lookup(t, "fsmark.files_per_sec2").sign, 0);
	direction_table_free(t);
}

static void
test_user_rules_come_first(void)
{
	struct direction_table *t = direction_table_new();
	const char *text = "# mine\n"
			   "fsmark\\.files_per_sec  -1  floor=5%\n"
			   "my\\.dmesg\\.BUG_#:x  0  abs=3  # '#' in a name\n";
	struct errlist el;
	struct direction d;

	errlist_init(&el);
	CHECK(direction_table_add(t, "mine", text, strlen(text), &el));
	d = direction_lookup(t, "fsmark.files_per_sec");
	CHECK_INT(d.sign, -1);
	CHECK_DBL(d.floor_pct, 5, 0);
	CHECK_DBL(direction_lookup(t, "my.dmesg.BUG_#:x").abs_floor, 3, 0);
	CHECK_INT(direction_lookup(t, "fsmark.app_overhead").sign, -1);
	direction_table_free(t);
	errlist_release(&el);
}

static void
test_bad_rules(void)
{
	struct direction_table *t = direction_table_new();
	const char *text = "ok\\.rule +1\n"
			   "missing_sign\n"
			   "bad\\.sign 2\n"
			   "bad(regex +1\n"
			   "x -1 floor=abc\n"
			   "y -1 weird=1\n";
	struct errlist el;

	errlist_init(&el);
	CHECK(!direction_table_add(t, "bad", text, strlen(text), &el));
	CHECK_INT(el.nerrors, 5);
	CHECK_INT(el.v[0].line, 2);
	CHECK_INT(el.v[2].line, 4);
	/* Nothing of the file was added. */
	CHECK_INT(direction_lookup(t, "ok.rule").sign, 0);
	direction_table_free(t);
	errlist_release(&el);
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_lookup_is_regexec),
		TAP_CASE(test_builtin_rules),
		TAP_CASE(test_user_rules_come_first),
		TAP_CASE(test_bad_rules),
		{NULL, NULL}};

	return tap_run(cases);
}
