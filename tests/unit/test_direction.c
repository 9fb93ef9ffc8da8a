/*
 * test_direction.c: the table of metric directions.
 */
#include <string.h>

#include "robot/analysis/direction.h"
#include "tap.h"

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
		TAP_CASE(test_builtin_rules),
		TAP_CASE(test_user_rules_come_first),
		TAP_CASE(test_bad_rules),
		{NULL, NULL}};

	return tap_run(cases);
}
