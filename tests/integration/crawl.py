#!/usr/bin/env python3
# crawl.py URL OUT [MAX]: follows every same-site link from URL's home
# page (<a href>, in HTML and in SVG), breadth first, up to MAX pages
# (default 400), and writes OUT, JSON: {"pages": N, "bad": [[url,
# status], ...], "largest": [bytes, url], "kinds": {content-type: n}}.
import html.parser
import json
import sys
import urllib.error
import urllib.parse
import urllib.request

BASE, OUT = sys.argv[1], sys.argv[2]
MAX = int(sys.argv[3]) if len(sys.argv) > 3 else 400
site = urllib.parse.urlparse(BASE)


class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.links = []

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            for k, v in attrs:
                if k == "href" and v:
                    self.links.append(v)


seen, queue, bad, kinds = set(), ["/"], [], {}
largest = [0, ""]
while queue and len(seen) < MAX:
    path = queue.pop(0)
    if path in seen:
        continue
    seen.add(path)
    try:
        r = urllib.request.urlopen(BASE + path, timeout=30)
        status, body, ctype = r.status, r.read(), r.headers.get("Content-Type", "")
    except urllib.error.HTTPError as e:
        status, body, ctype = e.code, e.read(), e.headers.get("Content-Type", "")
    kinds[ctype.split(";")[0]] = kinds.get(ctype.split(";")[0], 0) + 1
    if status >= 400:
        bad.append([path, status])
    if len(body) > largest[0]:
        largest = [len(body), path]
    if not ctype.startswith("text/html"):
        continue
    p = Links()
    p.feed(body.decode("utf-8", "replace"))
    for href in p.links:
        u = urllib.parse.urlparse(urllib.parse.urljoin(BASE + path, href))
        if u.netloc != site.netloc or u.scheme not in ("http", "https"):
            continue
        link = u.path + ("?" + u.query if u.query else "")
        if link not in seen:
            queue.append(link)
json.dump({"pages": len(seen), "bad": bad, "largest": largest, "kinds": kinds},
          open(OUT, "w"))
