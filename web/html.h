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
/* s for a double-quoted attribute value (the same escapes). */
void html_attr(struct buf *b, const char *s);
/*
 * A whole page: the title (escaped) and body (HTML, already escaped by
 * its maker), with the stylesheet robotd serves and no script.  The
 * caller frees it.
 */
char *html_page(const char *title, const char *body);

#endif
