/*
 * svg.c: server-drawn charts.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/units.h"
#include "robot/core/xmalloc.h"
#include "web/html.h"
#include "web/svg.h"
#include "robot/core/banned.h"

#define LEFT   70
#define RIGHT  14
#define TOP    30
#define BOTTOM 44

/* Colour-blind safe (Okabe and Ito). */
static const char *const palette[] = {"#0072b2", "#d55e00", "#009e73",
				      "#cc79a7", "#e69f00", "#56b4e9",
				      "#8c6d00", "#000000"};

struct svg {
	int w, h;
	char *title, *desc;
	double xmin, xmax, ymin, ymax, ystep, xstep;
	char *ylabel, *yunit, *xlabel, *xunit;
	char **cats;
	size_t ncats;
	struct buf legend, body;
	int nlegend, legend_x; /* entries, and where the next goes */
	int legend_hidden;     /* entries that did not fit: "+N more" */
	size_t elements;
};

/* v with one decimal, without printf (a chart has thousands). */
static void
num1(struct buf *b, double v)
{
	char tmp[32], *e = tmp + sizeof tmp, *p = e;
	long long t = isfinite(v) ? llround(v * 10) : 0;
	bool neg = t < 0;

	if (neg)
		t = -t;
	*--p = (char)('0' + t % 10);
	*--p = '.';
	t /= 10;
	do
		*--p = (char)('0' + t % 10);
	while ((t /= 10) > 0);
	if (neg)
		*--p = '-';
	buf_add(b, p, (size_t)(e - p));
}

static const char *
colour(int c)
{
	return palette[(c < 0 ? -c : c) % 8];
}

struct svg *
svg_new(int width, int height, const char *title, const char *desc)
{
	struct svg *s = xcalloc(1, sizeof *s);

	s->w = width;
	s->h = height;
	s->title = xstrdup(title ? title : "");
	s->desc = xstrdup(desc ? desc : "");
	s->xmin = 0;
	s->xmax = 1;
	s->ymin = 0;
	s->ymax = 1;
	s->ystep = 0.2;
	buf_init(&s->legend);
	buf_init(&s->body);
	return s;
}

/* A step of 1, 2 or 5 times a power of ten giving about n ticks. */
static double
nice_step(double range, int n)
{
	double rough = range / n, mag, norm;

	if (!(rough > 0) || !isfinite(rough))
		return 1;
	mag = pow(10, floor(log10(rough)));
	norm = rough / mag;
	return (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * mag;
}

void
svg_range(struct svg *s, double xmin, double xmax, double ymin, double ymax)
{
	if (!isfinite(ymin) || !isfinite(ymax)) {
		ymin = 0;
		ymax = 1;
	}
	if (ymin == ymax) {
		double pad = ymin != 0 ? fabs(ymin) * 0.1 : 1;
		bool nonneg = ymin >= 0; /* no negative ticks for it */

		ymin = nonneg && ymin - pad < 0 ? 0 : ymin - pad;
		ymax += pad;
	}
	if (ymin > 0 && ymin <= ymax - ymin)
		ymin = 0; /* near zero: show it */
	s->ystep = nice_step(ymax - ymin, 5);
	s->ymin = floor(ymin / s->ystep) * s->ystep;
	s->ymax = ceil(ymax / s->ystep) * s->ystep;
	if (s->ymax <= s->ymin)
		s->ymax = s->ymin + s->ystep;
	if (!isfinite(xmin) || !isfinite(xmax) || xmin >= xmax) {
		xmin = isfinite(xmin) ? xmin - 0.5 : 0;
		xmax = xmin + 1;
	}
	s->xmin = xmin;
	s->xmax = xmax;
	s->xstep = nice_step(xmax - xmin, 6);
}

void
svg_yaxis(struct svg *s, const char *label, const char *unit)
{
	free(s->ylabel);
	free(s->yunit);
	s->ylabel = xstrdup(label ? label : "");
	s->yunit = xstrdup(unit ? unit : "");
}

void
svg_xaxis(struct svg *s, const char *label, const char *unit)
{
	free(s->xlabel);
	free(s->xunit);
	s->xlabel = xstrdup(label ? label : "");
	s->xunit = unit ? xstrdup(unit) : NULL;
}

void
svg_xcategories(struct svg *s, const char *const *labels, size_t n)
{
	s->cats = xcalloc(n + 1, sizeof *s->cats);
	for (size_t i = 0; i < n; i++)
		s->cats[i] = xstrdup(labels[i] ? labels[i] : "");
	s->ncats = n;
}

static double
px(const struct svg *s, double x)
{
	return LEFT +
	       (x - s->xmin) / (s->xmax - s->xmin) * (s->w - LEFT - RIGHT);
}

static double
py(const struct svg *s, double y)
{
	double v = TOP +
		   (s->ymax - y) / (s->ymax - s->ymin) * (s->h - TOP - BOTTOM);

	/* Off the axes (a value beyond the range): at its edge. */
	return v < TOP ? TOP : v > s->h - BOTTOM ? s->h - BOTTOM : v;
}

void
svg_legend(struct svg *s, int c, const char *name)
{
	int x = LEFT + s->legend_x;
	/* About 7 pixels a character at 12 pixels. */
	int w = 14 + 7 * (int)strlen(name ? name : "");

	/* An entry that would leave the chart is counted, not drawn (room
	 * is kept for "+N more"). */
	if (s->legend_hidden > 0 || x + w + 70 > s->w) {
		s->legend_hidden++;
		return;
	}

	buf_addf(&s->legend,
		 "<rect x=\"%d\" y=\"8\" width=\"10\" height=\"10\" "
		 "fill=\"%s\"/><text x=\"%d\" y=\"17\" font-size=\"12\">",
		 x, colour(c), x + 14);
	html_text(&s->legend, name);
	buf_adds(&s->legend, "</text>\n");
	s->legend_x += w + 18;
	s->nlegend++;
	s->elements += 2;
}

static void points(struct svg *s, int c, const double *x, const double *y,
		   size_t n, const char *const *titles,
		   const char *const *hrefs, bool hollow);

void
svg_points(struct svg *s, int c, const double *x, const double *y, size_t n,
	   const char *const *titles, const char *const *hrefs)
{
	points(s, c, x, y, n, titles, hrefs, false);
}

void
svg_points_hollow(struct svg *s, int c, const double *x, const double *y,
		  size_t n, const char *const *titles, const char *const *hrefs)
{
	points(s, c, x, y, n, titles, hrefs, true);
}

static void
points(struct svg *s, int c, const double *x, const double *y, size_t n,
       const char *const *titles, const char *const *hrefs, bool hollow)
{
	if (n > SVG_MAX_POINTS) {
		/* One vertical range per pixel column. */
		int cols = s->w - LEFT - RIGHT;
		double *lo = xcalloc((size_t)cols, sizeof *lo);
		double *hi = xcalloc((size_t)cols, sizeof *hi);
		char *seen = xcalloc((size_t)cols, 1);

		for (size_t i = 0; i < n; i++) {
			int k = (int)(px(s, x[i]) - LEFT);

			if (!isfinite(y[i]) || k < 0 || k >= cols)
				continue;
			if (!seen[k] || y[i] < lo[k])
				lo[k] = y[i];
			if (!seen[k] || y[i] > hi[k])
				hi[k] = y[i];
			seen[k] = 1;
		}
		for (int k = 0; k < cols; k++) {
			if (!seen[k])
				continue;
			buf_addf(&s->body,
				 "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" "
				 "y2=\"%.1f\" stroke=\"%s\" "
				 "stroke-width=\"1\"/>\n",
				 LEFT + k, LEFT + k, py(s, lo[k]) + 1,
				 py(s, hi[k]) - 1, colour(c));
			s->elements++;
		}
		free(lo);
		free(hi);
		free(seen);
		return;
	}
	/* One group of the colour; a link around each run of points with
	 * the same target. */
	if (hollow)
		buf_addf(&s->body,
			 "<g fill=\"none\" stroke=\"%s\" "
			 "stroke-width=\"1.2\">\n",
			 colour(c));
	else
		buf_addf(&s->body, "<g fill=\"%s\" fill-opacity=\"0.75\">\n",
			 colour(c));
	const char *linked = NULL;

	for (size_t i = 0; i < n; i++) {
		const char *href = hrefs != NULL ? hrefs[i] : NULL;

		if (!isfinite(y[i]))
			continue;
		if (linked != NULL &&
		    (href == NULL || strcmp(linked, href) != 0)) {
			buf_adds(&s->body, "</a>\n");
			linked = NULL;
		}
		if (href != NULL && linked == NULL) {
			buf_adds(&s->body, "<a href=\"");
			html_attr(&s->body, href);
			buf_adds(&s->body, "\">");
			linked = href;
		}
		buf_adds(&s->body, "<circle cx=\"");
		num1(&s->body, px(s, x[i]));
		buf_adds(&s->body, "\" cy=\"");
		num1(&s->body, py(s, y[i]));
		if (titles != NULL && titles[i] != NULL) {
			buf_adds(&s->body, "\" r=\"3.5\"><title>");
			html_text(&s->body, titles[i]);
			buf_adds(&s->body, "</title></circle>");
		} else {
			buf_adds(&s->body, "\" r=\"3.5\"/>");
		}
		s->elements++;
	}
	if (linked != NULL)
		buf_adds(&s->body, "</a>");
	buf_adds(&s->body, "</g>\n");
}

/* A polyline's points, at most one per pixel column beyond the cap. */
static void
path_points(struct svg *s, const double *x, const double *y, size_t n,
	    bool reverse)
{
	size_t step = n > SVG_MAX_POINTS ? n / SVG_MAX_POINTS + 1 : 1;

	for (size_t j = 0; j < n; j += step) {
		size_t i = reverse ? n - 1 - j : j;

		if (isfinite(y[i])) {
			num1(&s->body, px(s, x[i]));
			buf_addc(&s->body, ',');
			num1(&s->body, py(s, y[i]));
			buf_addc(&s->body, ' ');
		}
	}
}

void
svg_line(struct svg *s, int c, const double *x, const double *y, size_t n)
{
	if (n == 0)
		return;
	buf_adds(&s->body, "<polyline points=\"");
	path_points(s, x, y, n, false);
	buf_addf(&s->body,
		 "\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"/>\n",
		 colour(c));
	s->elements++;
}

void
svg_band(struct svg *s, int c, const double *x, const double *lo,
	 const double *hi, size_t n)
{
	if (n == 0)
		return;
	buf_adds(&s->body, "<polygon points=\"");
	path_points(s, x, hi, n, false);
	path_points(s, x, lo, n, true);
	buf_addf(&s->body,
		 "\" fill=\"%s\" fill-opacity=\"0.15\" "
		 "stroke=\"none\"/>\n",
		 colour(c));
	s->elements++;
}

void
svg_hline(struct svg *s, int c, double x0, double x1, double y,
	  const char *title)
{
	if (!isfinite(y))
		return;
	buf_addf(&s->body,
		 "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
		 "stroke=\"%s\" stroke-width=\"2\">",
		 px(s, x0), px(s, x1), py(s, y), py(s, y), colour(c));
	if (title != NULL) {
		buf_adds(&s->body, "<title>");
		html_text(&s->body, title);
		buf_adds(&s->body, "</title>");
	}
	buf_adds(&s->body, "</line>\n");
	s->elements++;
}

void
svg_marker(struct svg *s, int c, double x, const char *title)
{
	buf_addf(&s->body,
		 "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" "
		 "stroke=\"%s\" stroke-width=\"2\" stroke-dasharray=\"4 3\">",
		 px(s, x), px(s, x), TOP, s->h - BOTTOM, colour(c));
	buf_adds(&s->body, "<title>");
	html_text(&s->body, title);
	buf_adds(&s->body, "</title></line>\n");
	s->elements++;
}

size_t
svg_elements(const struct svg *s)
{
	return s->elements;
}

static void
axes(struct svg *s, struct buf *b)
{
	int bottom = s->h - BOTTOM, right = s->w - RIGHT;
	char t[64];

	buf_addf(b,
		 "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
		 "stroke=\"#444\"/>\n<line x1=\"%d\" y1=\"%d\" x2=\"%d\" "
		 "y2=\"%d\" stroke=\"#444\"/>\n",
		 LEFT, TOP, LEFT, bottom, LEFT, bottom, right, bottom);
	for (double y = s->ymin; y <= s->ymax + s->ystep / 2; y += s->ystep) {
		double yy = py(s, y);

		unit_si(t, sizeof t, fabs(y) < s->ystep / 1e6 ? 0 : y,
			s->yunit);
		buf_addf(b,
			 "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" "
			 "stroke=\"#ddd\"/><text x=\"%d\" y=\"%.1f\" "
			 "font-size=\"11\" text-anchor=\"end\">",
			 LEFT, right, yy, yy, LEFT - 4, yy + 4);
		html_text(b, t);
		buf_adds(b, "</text>\n");
	}
	if (s->ncats > 0) {
		/* At most one label every 60 pixels. */
		double per = (double)(s->w - LEFT - RIGHT) / (double)s->ncats;
		size_t every = per >= 60 ? 1 : (size_t)(60 / per) + 1;

		for (size_t i = 0; i < s->ncats; i += every) {
			buf_addf(b,
				 "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" "
				 "text-anchor=\"middle\">",
				 px(s, (double)i), bottom + 15);
			html_text(b, s->cats[i]);
			buf_adds(b, "</text>\n");
		}
	} else if (s->xunit != NULL) {
		double x0 = ceil(s->xmin / s->xstep) * s->xstep;

		for (double x = x0; x <= s->xmax + s->xstep / 1e6;
		     x += s->xstep) {
			unit_si(t, sizeof t, fabs(x) < s->xstep / 1e6 ? 0 : x,
				s->xunit);
			buf_addf(b,
				 "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" "
				 "text-anchor=\"middle\">",
				 px(s, x), bottom + 15);
			html_text(b, t);
			buf_adds(b, "</text>\n");
		}
	}
	if (s->xlabel != NULL && s->xlabel[0] != '\0') {
		buf_addf(b,
			 "<text x=\"%d\" y=\"%d\" font-size=\"12\" "
			 "text-anchor=\"middle\">",
			 (LEFT + right) / 2, s->h - 6);
		html_text(b, s->xlabel);
		buf_adds(b, "</text>\n");
	}
	if (s->ylabel != NULL && s->ylabel[0] != '\0') {
		buf_addf(b,
			 "<text x=\"%d\" y=\"%d\" font-size=\"12\" "
			 "text-anchor=\"middle\" transform=\"rotate(-90 %d "
			 "%d)\">",
			 14, (TOP + bottom) / 2, 14, (TOP + bottom) / 2);
		html_text(b, s->ylabel);
		if (s->yunit != NULL && s->yunit[0] != '\0') {
			/* the unit of the ticks (kB/s are drawn in B/s) */
			buf_adds(b, " (");
			html_text(b, unit_shown(s->yunit));
			buf_adds(b, ")");
		}
		buf_adds(b, "</text>\n");
	}
}

void
svg_finish(struct svg *s, struct buf *b)
{
	buf_addf(b,
		 "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" "
		 "viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
		 "role=\"img\">\n<title>",
		 s->w, s->h, s->w, s->h);
	html_text(b, s->title);
	buf_adds(b, "</title>\n<desc>");
	html_text(b, s->desc);
	buf_adds(b, "</desc>\n");
	axes(s, b);
	buf_add(b, s->body.data ? s->body.data : "", s->body.len);
	buf_add(b, s->legend.data ? s->legend.data : "", s->legend.len);
	if (s->legend_hidden > 0)
		buf_addf(b,
			 "<text x=\"%d\" y=\"17\" font-size=\"12\">+%d more"
			 "</text>\n",
			 LEFT + s->legend_x, s->legend_hidden);
	buf_adds(b, "</svg>\n");
	for (size_t i = 0; i < s->ncats; i++)
		free(s->cats[i]);
	free(s->cats);
	free(s->title);
	free(s->desc);
	free(s->ylabel);
	free(s->yunit);
	free(s->xlabel);
	free(s->xunit);
	buf_release(&s->legend);
	buf_release(&s->body);
	free(s);
}
