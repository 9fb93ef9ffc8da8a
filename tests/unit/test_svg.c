/*
 * test_svg.c: the pages' charts: SI ticks, a text alternative, hostile
 * names inert, and a bounded number of elements however many points.
 */
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/units.h"
#include "tap.h"
#include "web/html.h"
#include "web/svg.h"

static void
test_si(void)
{
	char b[32];

	unit_si(b, sizeof b, 1.234e9, "B/s");
	CHECK_STR(b, "1.23 GB/s");
	unit_si(b, sizeof b, 512000, "");
	CHECK_STR(b, "512 k");
	unit_si(b, sizeof b, 0.0005, "s");
	CHECK_STR(b, "500 µs");
	unit_si(b, sizeof b, 0, "B");
	CHECK_STR(b, "0 B");
	unit_si(b, sizeof b, -2500, "");
	CHECK_STR(b, "-2.5 k");
	unit_si(b, sizeof b, 42, "");
	CHECK_STR(b, "42");
	/* The monitors' units; shares and milliseconds take no prefix. */
	CHECK_STR(unit_of("iostat.loop0.util"), "%");
	CHECK_STR(unit_of("vmstat.cpu.wa"), "%");
	CHECK_STR(unit_of("iostat.loop0.await"), "ms");
	CHECK_STR(unit_of("iostat.loop0.wkB/s"), "kB/s");
	CHECK_STR(unit_of("iostat.loop0.w/s"), "/s");
	CHECK_STR(unit_of("vmstat.system.cs"), "/s");
	CHECK_STR(unit_of("proc-vmstat.nr_dirty"), "");
	/* A throughput's shape: its peak in its unit, its period in
	 * seconds, its coefficient of variation a plain ratio. */
	CHECK_STR(unit_of("dd.loop0.write_bytes_per_sec.peak"), "B/s");
	CHECK_STR(unit_of("dd.loop0.write_bytes_per_sec.period_s"), "s");
	CHECK_STR(unit_of("unlink.unlinks_per_sec.period_s"), "s");
	CHECK_STR(unit_of("dd.loop0.write_bytes_per_sec.cv"), "");
	unit_si(b, sizeof b, 0.5, "%");
	CHECK_STR(b, "0.5%");
	unit_si(b, sizeof b, 0.25, "ms");
	CHECK_STR(b, "250 µs");
	unit_si(b, sizeof b, 1200, "kB/s");
	CHECK_STR(b, "1.2 MB/s");
}

static void
test_chart(void)
{
	struct svg *s = svg_new(600, 300, "dd.write_bytes_per_sec </svg>\"x",
				"every run <script>");
	struct buf b;
	double x[3] = {0, 0, 1}, y[3] = {1e8, 1.1e8, 2e7};
	const char *t[3] = {"run 1", "run 2 \"onmouseover=", NULL};
	const char *cats[2] = {"base", "head <b>"};

	buf_init(&b);
	svg_range(s, -0.5, 1.5, 2e7, 1.1e8);
	svg_yaxis(s, "dd.write_bytes_per_sec", "B/s");
	svg_xcategories(s, cats, 2);
	svg_legend(s, 0, "base");
	svg_points(s, 0, x, y, 3, t, NULL);
	svg_hline(s, 1, -0.3, 0.3, 1.05e8, "mean");
	svg_finish(s, &b);
	CHECK(strncmp(b.data, "<svg ", 5) == 0);
	CHECK(strstr(b.data, "<title>dd.write_bytes_per_sec "
			     "&lt;/svg&gt;&quot;x</title>") != NULL);
	CHECK(strstr(b.data, "<desc>every run &lt;script&gt;</desc>") != NULL);
	CHECK(strstr(b.data, "run 2 &quot;onmouseover=") != NULL);
	CHECK(strstr(b.data, "head &lt;b&gt;") != NULL);
	CHECK(strstr(b.data, "</svg>") == strrchr(b.data, '<'));
	CHECK(strstr(b.data, " MB/s<") != NULL); /* SI ticks with the unit */
	CHECK(strstr(b.data, "style=") == NULL); /* the CSP: no inline style */
	/* Exactly one </svg>: the hostile title did not close it. */
	CHECK(strstr(b.data, "</svg>") == b.data + b.len - 7);
	buf_release(&b);
}

static void
test_many_points(void)
{
	size_t n = 100000;
	double *x = calloc(n, sizeof *x), *y = calloc(n, sizeof *y);
	struct svg *s = svg_new(800, 300, "t", "d");
	struct buf b;

	for (size_t i = 0; i < n; i++) {
		x[i] = (double)i;
		y[i] = (double)(i % 977);
	}
	buf_init(&b);
	svg_range(s, 0, (double)n, 0, 977);
	svg_points(s, 2, x, y, n, NULL, NULL);
	svg_line(s, 3, x, y, n);
	CHECK(svg_elements(s) <= 800);
	svg_finish(s, &b);
	CHECK(b.len < 200 * 1024);
	tap_diag("100,000 points: %zu bytes of SVG", b.len);
	buf_release(&b);
	free(x);
	free(y);
}

/* Legend entries that would leave the chart are counted, not drawn. */
static void
test_legend_fits(void)
{
	struct svg *s = svg_new(400, 200, "t", "d");
	struct buf b;
	const char *p;

	svg_range(s, 0, 1, 0, 1);
	svg_legend(s, 0, "dd.loop0.write_bytes_per_sec");
	svg_legend(s, 1, "dd.loop1.write_bytes_per_sec");
	svg_legend(s, 2, "dd.loop2.write_bytes_per_sec");
	buf_init(&b);
	svg_finish(s, &b);
	CHECK(strstr(b.data, "dd.loop0.write_bytes_per_sec") != NULL);
	CHECK(strstr(b.data, "dd.loop2.write_bytes_per_sec") == NULL);
	CHECK(strstr(b.data, ">+2 more</text>") != NULL);
	/* every legend text starts inside the chart */
	for (p = strstr(b.data, "<text x=\""); p != NULL;
	     p = strstr(p + 1, "<text x=\""))
		CHECK(atoi(p + 9) < 400);
	buf_release(&b);
}

/* An all-zero rate's axis has no negative ticks ("-500 m/s"), and an
 * axis whose values are converted (kB/s to B/s) is titled in the unit
 * of its ticks (issue 55). */
static void
test_axes_zero_and_converted(void)
{
	struct svg *s = svg_new(400, 200, "t", "d");
	struct buf b;

	svg_range(s, 0, 10, 0, 0);
	svg_yaxis(s, "iostat.*.rrqm/s", "/s");
	buf_init(&b);
	svg_finish(s, &b);
	CHECK(strstr(b.data, ">-") == NULL);
	CHECK(strstr(b.data, "m/s<") == NULL &&
	      strstr(b.data, ">0.2/s<") != NULL);
	buf_release(&b);
	s = svg_new(400, 200, "t", "d");
	svg_range(s, 0, 10, 0, 500000);
	svg_yaxis(s, "iostat.*.wkB/s", "kB/s");
	buf_init(&b);
	svg_finish(s, &b);
	CHECK(strstr(b.data, "iostat.*.wkB/s (B/s)") != NULL);
	CHECK(strstr(b.data, "(kB/s)") == NULL);
	CHECK(strstr(b.data, " MB/s<") != NULL);
	buf_release(&b);
}

/* Prose with figures: each number kept on one line, everything escaped
 * as html_text() escapes it, words that only look like numbers left. */
static void
test_prose(void)
{
	struct buf b;

	buf_init(&b);
	html_prose(&b, "-10.2%, p 4.1e-07, at 3 rounds <b>1e5</b> x-1 5a");
	CHECK_STR(b.data, "<span class=\"nw\">-10.2%,</span> p "
			  "<span class=\"nw\">4.1e-07,</span> at "
			  "<span class=\"nw\">3</span> rounds "
			  "&lt;b&gt;1e5&lt;/b&gt; x-1 5a");
	buf_release(&b);
	buf_init(&b);
	html_prose(&b, NULL);
	html_prose(&b, "  two  spaces\n");
	CHECK_STR(b.data ? b.data : "", "  two  spaces\n");
	buf_release(&b);
}

/* Timestamps as a person reads them; anything else left as text. */
static void
test_time(void)
{
	struct buf b;

	buf_init(&b);
	html_time(&b, "2026-12-03T15:32:50.212467+00:00");
	CHECK_STR(b.data, "<time datetime=\"2026-12-03T15:32:50.212467+00:00\">"
			  "2026-12-03 <span class=\"nw\">15:32:50 UTC</span>"
			  "</time>");
	buf_release(&b);
	buf_init(&b);
	html_time(&b, "2026-12-03T15:32:50+02:00");
	CHECK(strstr(b.data,
		     ">2026-12-03 <span class=\"nw\">15:32:50 +02:00<") !=
	      NULL);
	buf_release(&b);
	buf_init(&b);
	html_time(&b, "not yet");
	html_time(&b, "2026-12-03T15:3<b>");
	CHECK_STR(b.data, "not yet2026-12-03T15:3&lt;b&gt;");
	buf_release(&b);
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_si),
		TAP_CASE(test_chart),
		TAP_CASE(test_many_points),
		TAP_CASE(test_legend_fits),
		TAP_CASE(test_axes_zero_and_converted),
		TAP_CASE(test_prose),
		TAP_CASE(test_time),
		{NULL, NULL}};

	return tap_run(cases);
}
