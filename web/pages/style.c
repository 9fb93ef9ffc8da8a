/*
 * style.c: the pages' stylesheet (/style.css, built in from
 * web/pages/style.css) and their icon (/icon.svg).
 */
#include <stdio.h>
#include <string.h>

#include "web/httpd.h"
#include "web/pages/pages.h"
#include "robot/core/banned.h"

extern const char page_style_text[];

void
pages_style(struct web *w, struct http_req *req, const struct web_call *call)
{
	(void)w;
	(void)call;
	/* The stylesheet is built in: its ETag is robotd's version and its
	 * length. */
	char etag[64];

	snprintf(etag, sizeof etag, "\"%s-%zu\"", ROBOT_VERSION,
		 strlen(page_style_text));
	http_req_reply_etag(req, "text/css; charset=utf-8", page_style_text,
			    strlen(page_style_text), etag);
}

/* The pages' icon: an R on the header's colour. */
static const char page_icon_text[] =
	"<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 16 16\">"
	"<rect width=\"16\" height=\"16\" rx=\"3\" fill=\"#1f2d3d\"/>"
	"<path d=\"M5 13V3h3.5a2.5 2.5 0 0 1 0 5H5m3.5 0 3 5\" fill=\"none\" "
	"stroke=\"#fff\" stroke-width=\"1.8\"/></svg>\n";

void
pages_icon(struct web *w, struct http_req *req, const struct web_call *call)
{
	(void)w;
	(void)call;
	char etag[64];

	snprintf(etag, sizeof etag, "\"%s-icon-%zu\"", ROBOT_VERSION,
		 sizeof page_icon_text - 1);
	http_req_reply_etag(req, "image/svg+xml", page_icon_text,
			    sizeof page_icon_text - 1, etag);
}
