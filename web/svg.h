/*
 * svg.h: the charts of robotd's pages, drawn by the server as inline SVG
 * (no script): axes with readable ticks in SI prefixes and their units,
 * a legend, a text alternative (<title> and <desc>), and at most a few
 * thousand drawn elements (points beyond SVG_MAX_POINTS a series are
 * drawn as one range per pixel column).  Every text goes through
 * html_text(); colours are presentation attributes, so that the pages'
 * Content-Security-Policy (no inline style) holds.
 */
#ifndef ROBOT_SVG_H
#define ROBOT_SVG_H

#include <stddef.h>

#include "robot/core/buf.h"

#define SVG_MAX_POINTS 2000

struct svg;

/*
 * A chart of width x height pixels; title and desc are its text
 * alternative.  xmin..xmax and ymin..ymax are the data's ranges (the y
 * range is widened to nice ticks, and to include 0 when near).
 */
struct svg *svg_new(int width, int height, const char *title, const char *desc);
void svg_range(struct svg *s, double xmin, double xmax, double ymin,
	       double ymax);
/* The y axis' label and unit ("B/s": ticks as 1.2 GB/s). */
void svg_yaxis(struct svg *s, const char *label, const char *unit);
/* The x axis: a label, and numeric ticks with a unit ("s"), or none. */
void svg_xaxis(struct svg *s, const char *label, const char *unit);
/* Category ticks at x = 0, 1, ...: labels[i] (shown thinned to fit). */
void svg_xcategories(struct svg *s, const char *const *labels, size_t n);
/* Series colour c (0..7): a legend entry; one that would not fit in the
 * chart's width is left out, and "+N more" says how many were. */
void svg_legend(struct svg *s, int c, const char *name);
/* Points of colour c; titles[i] (may be NULL) a tooltip each, hrefs[i]
 * (may be NULL) a link each. */
void svg_points(struct svg *s, int c, const double *x, const double *y,
		size_t n, const char *const *titles, const char *const *hrefs);
/* The same drawn as rings: runs shown beside those that count. */
void svg_points_hollow(struct svg *s, int c, const double *x, const double *y,
		       size_t n, const char *const *titles,
		       const char *const *hrefs);
/* A line through (x[i], y[i]). */
void svg_line(struct svg *s, int c, const double *x, const double *y, size_t n);
/* A band between lo[i] and hi[i] at x[i] (a spread). */
void svg_band(struct svg *s, int c, const double *x, const double *lo,
	      const double *hi, size_t n);
/* A horizontal segment at y from x0 to x1 (a mean). */
void svg_hline(struct svg *s, int c, double x0, double x1, double y,
	       const char *title);
/* A vertical marker at x with a tooltip (a regression, a fix). */
void svg_marker(struct svg *s, int c, double x, const char *title);
/* The chart, appended to b; s is freed. */
void svg_finish(struct svg *s, struct buf *b);
/* Elements drawn so far (for tests). */
size_t svg_elements(const struct svg *s);

#endif
