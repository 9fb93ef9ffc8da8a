/*
 * compare.c: any two commits of a series (/compare?series=&base=&head=,
 * the twin of /api/compare): LKP's table as HTML and a chart of every
 * run of each KPI, under a form to pick them.  Without commits, the form
 * lists the series' commits; without a series, the series robot has.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/core/view.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/store/pages.h"
#include "web/findings.h"
#include "web/html.h"
#include "web/pages/page.h"
#include "web/pages/pages.h"
#include "robot/core/banned.h"

struct ask {
	struct http_req *req;
	char *series, *base, *head;
};

static void
ask_free(struct ask *a)
{
	free(a->series);
	free(a->base);
	free(a->head);
	free(a);
}

/* A commit's <select>, with chosen selected; the series' commits. */
static void
commit_select(struct buf *b, const char *name,
	      const struct store_series_commits *sc, const char *chosen)
{
	buf_addf(b, "<label>%s <select name=\"%s\">", name, name);
	for (size_t i = 0; i < sc->ncommits; i++) {
		const char *sha = sc->commits[i].commit;
		char s[16];

		snprintf(s, sizeof s, "%.12s", sha ? sha : "");
		buf_adds(b, "<option value=\"");
		html_attr(b, sha);
		buf_adds(b, "\"");
		if (chosen != NULL && sha != NULL && strcmp(sha, chosen) == 0)
			buf_adds(b, " selected");
		buf_adds(b, ">");
		html_text(b, s);
		if (sc->commits[i].subject != NULL) {
			buf_adds(b, " ");
			html_text(b, sc->commits[i].subject);
		}
		buf_addf(b, " (%lld run%s)</option>", sc->commits[i].ok,
			 sc->commits[i].ok == 1 ? "" : "s");
	}
	buf_adds(b, "</select></label>\n");
}

/* The series' <select>: each with its commits. */
static void
series_select(struct buf *b, const struct store_series_list *list)
{
	buf_adds(b, "<label>series <select name=\"series\">");
	for (size_t i = 0; i < list->nseries; i++) {
		buf_adds(b, "<option value=\"");
		html_attr(b, list->series[i].series);
		buf_adds(b, "\">");
		html_text(b, list->series[i].series);
		buf_addf(b, " (%lld commits)</option>",
			 list->series[i].commits);
	}
	buf_adds(b, "</select></label>\n");
}

/* The form: the series picked from those robot has (or kept as given),
 * then its commits picked from those it ran (sc, or NULL); a commit
 * typed in may be a short SHA, a branch or the tree's base ref
 * (robot_series_commit()). */
static void
form(struct buf *b, const char *series, const char *base, const char *head,
     const struct store_series_commits *sc)
{
	buf_adds(b, "<form method=\"get\" action=\"/compare\">\n<label>series "
		    "<input name=\"series\" size=\"60\" value=\"");
	html_attr(b, series);
	buf_adds(b, "\"></label>\n");
	if (sc != NULL && sc->ncommits > 0) {
		commit_select(b, "base", sc, base);
		commit_select(b, "head", sc, head);
	} else {
		buf_adds(b, "<label>base <input name=\"base\" size=\"42\" "
			    "value=\"");
		html_attr(b, base);
		buf_adds(b, "\"></label>\n<label>head <input name=\"head\" "
			    "size=\"42\" value=\"");
		html_attr(b, head);
		buf_adds(b, "\"></label>\n");
	}
	buf_adds(b, "<button type=\"submit\">Compare</button>\n</form>\n");
}

static void
on_compared(json_t *answer, const struct problem *p, void *arg)
{
	struct ask *a = arg;
	struct view_doc d = {0};
	struct findings_compared c;
	struct comparison *cmp = NULL;
	struct buf b;
	char *title, err[256];

	if (p != NULL || answer == NULL) {
		page_fail(a->req, p, "such comparison");
		json_decref(answer);
		ask_free(a);
		return;
	}
	if (!view_decode(&d, &findings_compared_view, answer, &c, err,
			 sizeof err)) {
		page_broken(a->req, err);
		goto done;
	}
	cmp = comparison_from_json((json_t *)c.comparison);
	buf_init(&b);
	form(&b, a->series, a->base, a->head, NULL);
	/* the commits a tag, a branch or a short SHA named */
	if (cmp != NULL && cmp->base.commit != NULL &&
	    cmp->head.commit != NULL) {
		buf_adds(&b, "<p>base ");
		page_sha(&b, cmp->base.commit, NULL);
		buf_adds(&b, ", head ");
		page_sha(&b, cmp->head.commit, NULL);
		buf_adds(&b, "</p>\n");
	}
	buf_adds(&b, "<p>verdict <strong>");
	html_text(&b, c.verdict);
	buf_adds(&b, "</strong>");
	if (c.kpi != NULL) {
		buf_adds(&b, " on ");
		html_text(&b, c.kpi);
	}
	buf_adds(&b, ", ");
	page_runs(&b, cmp);
	buf_adds(&b, "</p>\n");
	page_sides_charts(&b, c.values, a->base, a->head, cmp);
	buf_adds(&b, "<h2>The metrics (LKP's table)</h2>\n");
	page_comparison(&b, cmp);
	page_round_runs(&b, cmp);
	buf_adds(&b, "<p><a href=\"");
	page_compare_href(&b, "/api/compare", a->series, a->base, a->head);
	buf_adds(&b, "\">As JSON</a></p>");
	title = xasprintf("%.10s..%.10s", a->base, a->head);
	page_reply(a->req, 200, title, &b);
	free(title);
	buf_release(&b);
done:
	comparison_free(cmp);
	view_release(&d);
	json_decref(answer);
	ask_free(a);
}

static void
on_commits(const char *text, const struct problem *p, void *arg)
{
	struct ask *a = arg;
	struct view_doc d = {0};
	struct store_series_commits sc;
	struct buf b;
	char err[256];

	if (p != NULL) {
		page_fail(a->req, p, "such series");
	} else if (text != NULL && !view_load(&d, &store_series_commits_view,
					      text, &sc, err, sizeof err)) {
		page_broken(a->req, err);
	} else {
		buf_init(&b);
		if (text == NULL)
			buf_adds(&b,
				 "<p>robot has no runs of that series.</p>");
		/* unless asked, the series' newest pair */
		form(&b, a->series,
		     a->base != NULL || text == NULL ? a->base : sc.latest.base,
		     a->head != NULL || text == NULL ? a->head : sc.latest.head,
		     text != NULL ? &sc : NULL);
		page_reply(a->req, text == NULL ? 404 : 200, "Compare", &b);
		buf_release(&b);
	}
	view_release(&d);
	ask_free(a);
}

/* No series asked: pick one of those robot has runs of. */
static void
on_series(const char *text, const struct problem *p, void *arg)
{
	struct ask *a = arg;
	struct view_doc d = {0};
	struct store_series_list list;
	struct buf b;
	char err[256];

	if (p != NULL) {
		page_fail(a->req, p, "list of series");
		goto done;
	}
	if (!view_load(&d, &store_series_list_view, text, &list, err,
		       sizeof err)) {
		page_broken(a->req, err);
		goto done;
	}
	buf_init(&b);
	buf_adds(&b, "<p>Two commits of a series: its KPIs' runs and LKP's "
		     "table. Pick the series, then its commits.</p>\n");
	if (list.nseries == 0) {
		buf_adds(&b, "<p class=\"muted\">robot has no runs yet.</p>\n");
	} else {
		buf_adds(&b, "<form method=\"get\" action=\"/compare\">\n");
		series_select(&b, &list);
		buf_adds(&b, "<button type=\"submit\">Its commits</button>\n"
			     "</form>\n");
	}
	page_reply(a->req, 200, "Compare", &b);
	buf_release(&b);
done:
	view_release(&d);
	ask_free(a);
}

static void
ask(struct web *w, struct http_req *req, const struct web_call *call, bool twin)
{
	const char *series, *base, *head;
	struct analysis_ask opt;
	struct ask *a;

	(void)call;
	if (!web_name_arg(req, "series", 0, NAME_SERIES, &series) ||
	    !web_name_arg(req, "base", 0, NAME_COMMIT, &base) ||
	    !web_name_arg(req, "head", 0, NAME_COMMIT, &head) ||
	    !findings_compare_args(req, &opt))
		return;
	if (twin) {
		findings_compare_answer(w, req, series, base, head, &opt);
		return;
	}
	a = xcalloc(1, sizeof *a);
	if (series == NULL) {
		a->req = req;
		store_series(w->d.store, NULL, 1000, on_series, a);
		return;
	}
	a->req = req;
	a->series = xstrdup(series);
	a->base = base ? xstrdup(base) : NULL;
	a->head = head ? xstrdup(head) : NULL;
	if (base == NULL || head == NULL)
		store_series_commits(w->d.store, series, on_commits, a);
	else
		findings_compare_values(w, series, base, head, &opt,
					on_compared, a);
}

const struct page compare_page = {"/compare", "/api/compare", ask};
