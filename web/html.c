/*
 * html.c: escaping and the page frame (html.h).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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

static bool
number_char(char c)
{
	return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' ||
	       c == '-' || c == '+' || c == '%' || c == ',';
}

void
html_prose(struct buf *b, const char *s)
{
	const char *p = s ? s : "";

	while (*p != '\0') {
		size_t n = 0;
		bool num;

		/* a word: up to the next space */
		while (p[n] != '\0' && p[n] != ' ' && p[n] != '\n')
			n++;
		num = n > 0 && ((p[0] >= '0' && p[0] <= '9') ||
				((p[0] == '-' || p[0] == '+') && n > 1 &&
				 p[1] >= '0' && p[1] <= '9'));
		for (size_t i = 0; num && i < n; i++)
			num = number_char(p[i]);
		if (num) {
			char *w = xstrndup(p, n);

			buf_adds(b, "<span class=\"nw\">");
			html_text(b, w);
			buf_adds(b, "</span>");
			free(w);
		} else {
			char *w = xstrndup(p, n);

			html_text(b, w);
			free(w);
		}
		p += n;
		if (*p != '\0')
			buf_addc(b, *p++);
	}
}

void
html_time(struct buf *b, const char *iso)
{
	const char *p = iso, *zone;
	size_t n = iso ? strlen(iso) : 0;
	char day[11], clock[9];

	/* YYYY-MM-DDTHH:MM:SS, then fractions, then the zone */
	for (size_t i = 0; i < 19 && i < n; i++) {
		bool digit = p[i] >= '0' && p[i] <= '9';
		bool ok = i == 4 || i == 7     ? p[i] == '-'
			  : i == 10            ? p[i] == 'T' || p[i] == ' '
			  : i == 13 || i == 16 ? p[i] == ':'
					       : digit;

		if (!ok)
			n = 0;
	}
	if (n < 19) {
		html_text(b, iso);
		return;
	}
	memcpy(day, p, 10);
	day[10] = '\0';
	memcpy(clock, p + 11, 8);
	clock[8] = '\0';
	for (zone = p + 19; *zone == '.' || (*zone >= '0' && *zone <= '9');
	     zone++)
		;
	buf_adds(b, "<time datetime=\"");
	html_attr(b, iso);
	buf_addf(b, "\">%s <span class=\"nw\">%s ", day, clock);
	if (*zone == '\0' || strcmp(zone, "Z") == 0 ||
	    strcmp(zone, "+00:00") == 0 || strcmp(zone, "+00") == 0)
		buf_adds(b, "UTC");
	else
		html_text(b, zone);
	buf_adds(b, "</span></time>");
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
	/* (the home page's title is "robot" alone) */
	buf_adds(&b, strcmp(title, "robot") != 0 ? " - robot" : "");
	buf_adds(&b, "</title>\n"
		     "<link rel=\"stylesheet\" href=\"/style.css\">\n"
		     "<link rel=\"icon\" href=\"/icon.svg\">\n"
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
	buf_adds(&b, "\n</main>\n<footer><p>robot " ROBOT_VERSION
		     " &middot; each page's data as JSON: its \u201cAs JSON"
		     "\u201d link, and <a href=\"/api/status\">/api/status"
		     "</a> &middot; <a href=\"/metrics\">/metrics</a> for "
		     "Prometheus</p></footer>\n</body>\n</html>\n");
	return buf_detach(&b);
}
