/*
 * html.c: escaping and the page frame (html.h).
 */
#include <stdlib.h>

#include "robot/core/xmalloc.h"
#include "web/html.h"
#include "robot/core/banned.h"

void
html_text(struct buf *b, const char *s)
{
	for (const char *p = s ? s : ""; *p; p++) {
		switch (*p) {
		case '&':
			buf_adds(b, "&amp;");
			break;
		case '<':
			buf_adds(b, "&lt;");
			break;
		case '>':
			buf_adds(b, "&gt;");
			break;
		case '"':
			buf_adds(b, "&quot;");
			break;
		case '\'':
			buf_adds(b, "&#39;");
			break;
		default:
			if ((unsigned char)*p >= 0x20 || *p == '\n' ||
			    *p == '\t')
				buf_addc(b, *p);
		}
	}
}

void
html_attr(struct buf *b, const char *s)
{
	html_text(b, s);
}

char *
html_page(const char *title, const char *body)
{
	struct buf b;

	buf_init(&b);
	buf_adds(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
		     "<meta charset=\"utf-8\">\n<meta name=\"viewport\" "
		     "content=\"width=device-width, initial-scale=1\">\n"
		     "<title>");
	html_text(&b, title);
	buf_adds(&b, " - robot</title>\n"
		     "<link rel=\"stylesheet\" href=\"/style.css\">\n"
		     "</head>\n<body>\n<header><nav>"
		     "<a href=\"/\">robot</a> <a href=\"/lab\">lab</a> "
		     "<a href=\"/queue\">queue</a> "
		     "<a href=\"/bisections\">bisections</a> "
		     "<a href=\"/compare\">compare</a> "
		     "<a href=\"/subscribe\">subscribe</a></nav></header>\n"
		     "<main>\n<h1>");
	html_text(&b, title);
	buf_adds(&b, "</h1>\n");
	buf_adds(&b, body);
	buf_adds(&b, "\n</main>\n<footer><a href=\"/api/status\">API</a>"
		     "</footer>\n</body>\n</html>\n");
	return buf_detach(&b);
}
