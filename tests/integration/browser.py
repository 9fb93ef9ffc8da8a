#!/usr/bin/python3
# browser.py: headless Chromium driven as a person drives it, through
# the DevTools protocol (python3-websocket): open a page at a window
# size, click a link or a button at its place on the screen, type into a
# field, wait for the next page, read the DOM, take a screenshot.  The
# tests' own walker of robotd's pages (test_robotd_pages.sh); no
# JavaScript of robotd's runs (its pages have none), only the browser's.
#
#   with Browser(tmpdir) as b:
#       p = b.page(390, 844)
#       p.goto(url)
#       p.type('input[name="email"]', "x@y.org")
#       p.click('button[type="submit"]')       # waits for the next page
#       p.text("main"), p.screenshot(path)
import base64
import json
import os
import re
import subprocess
import time

import websocket


class BrowserError(Exception):
    pass


class Browser:
    def __init__(self, tmpdir, timeout=30):
        self.timeout = timeout
        # --in-process-gpu: the compositor in the browser's process, not
        # a process of its own; robotd-pages took 38 CPU s instead of 42
        # (bench/test_cpu.sh's cgroup, quiet).  --single-process: the
        # renderers and the network service too, not a process a page
        # (each new process's page faults are dear on these VMs):
        # robotd-pages 37.4 and 37.9 CPU s instead of 46.8 and 47.4, two
        # of each at once (a cpuacct cgroup each).
        self.proc = subprocess.Popen(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu",
             "--in-process-gpu", "--single-process",
             "--disable-quic", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run",
             "--remote-debugging-port=0", "--remote-allow-origins=*",
             "--user-data-dir=" + os.path.join(tmpdir, "chrome-walk"),
             "about:blank"],
            # (what it makes in the temporary directory, in the test's:
            # a walk killed outright leaves nothing outside it)
            env=dict(os.environ, TMPDIR=tmpdir),
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        url = None
        deadline = time.time() + timeout
        while url is None and time.time() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                break
            m = re.search(r"DevTools listening on (ws://\S+)", line)
            if m:
                url = m.group(1)
        if url is None:
            self.close()
            raise BrowserError("chromium did not start its DevTools")
        self.ws = websocket.create_connection(url, timeout=timeout,
                                              suppress_origin=True)
        self.next_id = 0
        self.events = []
        self.pages = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        # Asked to close, Chromium removes its lock's socket and the
        # directory of /tmp it made for it; terminated, it leaves both.
        try:
            self.ws.send(json.dumps({"id": 0, "method": "Browser.close"}))
            self.proc.wait(10)
        except Exception:
            pass
        try:
            self.ws.close()
        except Exception:
            pass
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def call(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self.ws.send(json.dumps(msg))
        deadline = time.time() + self.timeout
        while time.time() < deadline:
            r = json.loads(self.ws.recv())
            if r.get("id") == self.next_id:
                if "error" in r:
                    raise BrowserError("%s: %s" % (method, r["error"]))
                return r.get("result", {})
            if "method" in r:
                self.events.append(r)
        raise BrowserError("%s: no answer" % method)

    def event(self, method, session, since):
        """Waits for event method of session, among those from index since on."""
        deadline = time.time() + self.timeout
        i = since
        while time.time() < deadline:
            while i < len(self.events):
                e = self.events[i]
                i += 1
                if e["method"] == method and e.get("sessionId") == session:
                    return e
            r = json.loads(self.ws.recv())
            if "method" in r:
                self.events.append(r)
        raise BrowserError("no %s" % method)

    def page(self, width, height):
        t = self.call("Target.createTarget", {"url": "about:blank"})
        s = self.call("Target.attachToTarget",
                      {"targetId": t["targetId"], "flatten": True})
        page = Page(self, s["sessionId"], width, height, t["targetId"])
        self.pages.append(page)
        return page

    def close_pages(self):
        """Closes every page still open: what one walk left must not
        stand in front of the next's."""
        for page in self.pages:
            if not page.closed:
                page.close()
        self.pages = []


class Page:
    def __init__(self, browser, session, width, height, target):
        self.b = browser
        self.s = session
        self.target = target
        self.width = width
        self.closed = False
        self.call("Page.enable")
        self.call("Runtime.enable")
        self.call("Log.enable")
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1,
                   "mobile": width < 600})

    def call(self, method, params=None):
        return self.b.call(method, params, self.s)

    def close(self):
        """Closes the page's tab: a tab left open behind another may
        never paint again, and a screenshot of it waits forever."""
        self.b.call("Target.closeTarget", {"targetId": self.target})
        self.closed = True

    def _loaded(self, since):
        self.b.event("Page.loadEventFired", self.s, since)

    def goto(self, url):
        since = len(self.b.events)
        self.call("Page.navigate", {"url": url})
        self._loaded(since)
        return since

    def messages(self, since):
        """What the page said from event index since on (goto returns
        it): each console call, uncaught exception and browser log entry
        (a CSP violation, a resource refused or not found) as text."""
        self.eval("0")  # the events sent before this answer are in
        out = []
        for e in self.b.events[since:]:
            if e.get("sessionId") != self.s:
                continue
            m, p = e["method"], e.get("params", {})
            if m == "Runtime.consoleAPICalled":
                out.append("console.%s: %s" % (p.get("type"), " ".join(
                    str(a.get("value", a.get("description", "")))
                    for a in p.get("args", []))))
            elif m == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                out.append("exception: %s" % d.get("exception", {}).get(
                    "description", d.get("text")))
            elif m == "Log.entryAdded":
                en = p.get("entry", {})
                out.append("%s %s: %s" % (en.get("source"), en.get("level"),
                                          en.get("text")))
        return out

    def eval(self, js):
        r = self.call("Runtime.evaluate", {"expression": js,
                                           "returnByValue": True})
        if "exceptionDetails" in r:
            raise BrowserError("%s: %s" % (js[:60], r["exceptionDetails"]))
        return r["result"].get("value")

    def url(self):
        return self.eval("location.href")

    def where(self, selector):
        """The centre of the element on the screen, scrolled into view."""
        p = self.eval("""(() => {
            const e = document.querySelector(%s);
            if (!e) return null;
            e.scrollIntoView({block: 'center'});
            // (a link that wraps: its first line's box)
            const r = e.getClientRects()[0] || e.getBoundingClientRect();
            return [r.left + r.width / 2, r.top + r.height / 2];
        })()""" % json.dumps(selector))
        if p is None:
            raise BrowserError("no %s on %s" % (selector, self.url()))
        return p

    def click(self, selector, navigates=True):
        """A mouse click at the element's place; waits for the page it
        opens when navigates."""
        x, y = self.where(selector)
        since = len(self.b.events)
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent",
                      {"type": kind, "x": x, "y": y, "button": "left",
                       "clickCount": 1})
        if navigates:
            self._loaded(since)

    def type(self, selector, text):
        self.click(selector, navigates=False)
        self.eval("document.querySelector(%s).select && "
                  "document.querySelector(%s).select()"
                  % (json.dumps(selector), json.dumps(selector)))
        self.call("Input.insertText", {"text": text})

    def select(self, selector, label):
        """Picks the option shown as label in a <select>, as a keyboard
        does (the page is told of the change)."""
        ok = self.eval("""(() => {
            const s = document.querySelector(%s);
            if (!s) return false;
            for (const o of s.options)
                if (o.textContent.trim() === %s) {
                    s.value = o.value;
                    s.dispatchEvent(new Event('change', {bubbles: true}));
                    return true;
                }
            return false;
        })()""" % (json.dumps(selector), json.dumps(label)))
        if not ok:
            raise BrowserError("no option %r in %s" % (label, selector))

    def select_index(self, selector, index):
        """Picks the option at index (negative: from the end)."""
        label = self.eval("""(() => {
            const s = document.querySelector(%s);
            if (!s || !s.options.length) return null;
            const i = %d < 0 ? s.options.length + %d : %d;
            return s.options[i] ? s.options[i].textContent.trim() : null;
        })()""" % (json.dumps(selector), index, index, index))
        if label is None:
            raise BrowserError("no option %d in %s" % (index, selector))
        self.select(selector, label)
        return label

    def text(self, selector="body"):
        return self.eval("(document.querySelector(%s) || {}).innerText || ''"
                         % json.dumps(selector))

    def html(self):
        return self.eval("document.documentElement.outerHTML")

    def screenshot(self, path):
        r = self.call("Page.captureScreenshot",
                      {"format": "png", "captureBeyondViewport": True,
                       "optimizeForSpeed": True})
        with open(path, "wb") as f:
            f.write(base64.b64decode(r["data"]))

    def broken_words(self):
        """Words of headings and table cells that the layout broke inside
        across lines: [(tag, word)].  A word is what lies between spaces;
        it may break after a hyphen or a slash (a path, a series name),
        never between two letters or digits, and a number never."""
        return self.eval("""(() => {
            const out = [];
            const num = /^[-+]?[0-9][0-9.,]*(e[-+]?[0-9]+)?%?,?$/i;
            const alnum = /[A-Za-z0-9]/;
            const lineOf = (n, i) => {
                const r = document.createRange();
                r.setStart(n, i);
                r.setEnd(n, i + 1);
                const q = r.getClientRects();
                return q.length ? Math.round(q[0].top) : null;
            };
            for (const el of document.querySelectorAll('h1, h2, th, td')) {
                const w = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
                for (let n = w.nextNode(); n; n = w.nextNode()) {
                    const re = /\\S+/g;
                    let m;
                    while ((m = re.exec(n.data)) !== null) {
                        const r = document.createRange();
                        r.setStart(n, m.index);
                        r.setEnd(n, m.index + m[0].length);
                        const tops = new Set();
                        for (const q of r.getClientRects())
                            if (q.width > 0) tops.add(Math.round(q.top));
                        if (tops.size < 2)
                            continue;
                        let bad = num.test(m[0]);
                        for (let i = 1; i < m[0].length && !bad; i++) {
                            const a = lineOf(n, m.index + i - 1);
                            const b = lineOf(n, m.index + i);
                            bad = a !== null && b !== null && a !== b &&
                                alnum.test(m[0][i - 1]) &&
                                alnum.test(m[0][i]);
                        }
                        if (bad)
                            out.push([el.tagName.toLowerCase(), m[0]]);
                    }
                }
            }
            return out;
        })()""")

    def widest(self):
        """The element that reaches furthest right: (tag, class, right)."""
        return self.eval("""(() => {
            let best = null, right = 0;
            for (const e of document.querySelectorAll('body *')) {
                const r = e.getBoundingClientRect();
                if (r.right > right) {
                    right = r.right;
                    best = [e.tagName.toLowerCase(), e.className || '',
                            (e.getAttribute('name') || ''), Math.round(r.right)];
                }
            }
            return best;
        })()""")

    def overflows(self):
        """Whether the page is wider than the window it was opened at (a
        table too wide must scroll in itself, not the page; a phone's
        layout would grow to fit, so the width asked is the measure)."""
        return self.eval("document.documentElement.scrollWidth > %d"
                         % (self.width + 1))
