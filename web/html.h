/*
 * html.h: HTML for robotd's pages: the one place values are escaped for
 * HTML text and attributes, and the page around a body.  Every value
 * from the database or a request goes through html_text() (or
 * html_attr()); nothing else writes it into a page.
 */
#ifndef ROBOT_HTML_H
#define ROBOT_HTML_H

#include "robot/core/buf.h"

/* s as HTML text: & < > " ' escaped; control characters dropped. */
void html_text(struct buf *b, const char *s);
/* s as html_text() writes it, each number in it (a word that starts
 * with a digit, or a sign and a digit, such as 4.1e-07 or -10.2%) kept
 * on one line: prose with figures in it, as a table cell holds it. */
void html_prose(struct buf *b, const char *s);
/* A timestamp as PostgreSQL's JSON gives it (2026-12-03T15:32:50.21+00:00)
 * as a person reads it: <time datetime="...">2026-12-03 15:32:50 UTC</time>
 * (another zone: its offset); anything else as html_text() writes it. */
void html_time(struct buf *b, const char *iso);
/* s for a double-quoted attribute value (the same escapes). */
void html_attr(struct buf *b, const char *s);
/*
 * A whole page: the title (escaped) and body (HTML, already escaped by
 * its maker), with the stylesheet robotd serves and no script.  The
 * caller frees it.
 */
char *html_page(const char *title, const char *body);

#endif
