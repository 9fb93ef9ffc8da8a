#!/usr/bin/python3
# walk.py PATH URL T ART [NAME:PAGE ...]: a person's path through
# robotd's pages in headless Chromium (browser.py), clicking and typing;
# screenshots of the steps in ART.  Exits 1, saying where, when a step
# does not go as a person expects.  Paths:
#   load       each NAME:PAGE at 1200x1600: nothing said on its console
#              or in the browser's log (no CSP violation, no script, no
#              resource refused), its DOM in ART/NAME.html and a
#              screenshot in ART/NAME.png; the page named regression
#              also on a phone (390x844).  First a page that breaks its
#              CSP and logs must be heard, or the walker is deaf.
#   widths     each NAME:PAGE at 390 px and 1280 px: no word of a heading
#              or a table broken across lines, no page wider than the
#              window
#   subscribe  the subscribe form typed in and sent, the link in the
#              confirmation mail (robotd mails $T/mail through the
#              test's SMTP peer) opened, twice, then the page's
#              unsubscribe link and button
#   regression from the home page to a regression, then its bisection,
#              its commit at fault and the series' runs, by their links
#   history    SERIES: its history page without a metric, the KPI picked,
#              then two commits picked in its form and compared
#   compare    SERIES SHORT BRANCH (URL-escaped): /compare without a
#              series, the series picked, then two of its commits; then
#              SERIES compared from a short SHA to a branch, as typed
#   reproduce  PAGE ROBOT: the job and the command that the regression's
#              page PAGE shows saved as a person saves them (job.json in
#              $T), and the command run as printed, with robot at ROBOT
#              ($ROBOT_SERVER and $ROBOT_TOKEN from the environment)
#   many       SPEC: the paths of the file SPEC (one a line, PATH ARG...
#              as above, words as a shell splits them) one after the
#              other in one browser (Chromium's start is about 3.5 s of
#              CPU), each with its tabs closed after it; what each says
#              goes to T/walk-PATH.out and whether it went as expected
#              (0 or 1) to T/walk-PATH.rc
import contextlib
import email
import email.policy
import os
import re
import shlex
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import Browser  # noqa: E402

path, U, T, ART = sys.argv[1:5]
problems = []


def expect(ok, what):
    if not ok:
        problems.append(what)
        print("not as expected:", what)
    return ok


def load(b, pages):
    p = b.page(1200, 1600)
    deaf = ("data:text/html,<meta http-equiv='Content-Security-Policy' "
            "content=\"script-src 'none'; style-src 'none'\">"
            "<p style='color: red'>x</p><script>console.log(1)</script>")
    heard = p.messages(p.goto(deaf))
    if not expect(any("Content Security Policy" in m for m in heard),
                  "a page that breaks its CSP is not heard: %s" % heard):
        return
    for spec in pages:
        name, page = spec.split(":", 1)
        said = p.messages(p.goto(U + page))
        html = p.html()
        with open("%s/%s.html" % (ART, name), "w") as f:
            f.write(html)
        expect("<main" in html, "%s has no main: %r" % (name, html[:200]))
        p.screenshot("%s/%s.png" % (ART, name))
        expect(not said, "%s says %s" % (name, said[:3]))
        if name == "regression":
            phone = b.page(390, 844)
            said = phone.messages(phone.goto(U + page))
            phone.screenshot("%s/%s-phone.png" % (ART, name))
            expect(not said, "%s on a phone says %s" % (name, said[:3]))
            phone.close()
    print("%d pages loaded" % len(pages))


def widths(b, pages):
    for w in (390, 1280):
        p = b.page(w, 900)
        for spec in pages:
            name, page = spec.split(":", 1)
            p.goto(U + page)
            p.screenshot("%s/%s-%d.png" % (ART, name, w))
            broken = p.broken_words()
            expect(not broken, "%s at %d px breaks %s" % (name, w, broken[:4]))
            expect(not p.overflows(), "%s at %d px is wider than the window "
                   "(%s)" % (name, w, p.widest()))
            # a chart's text stays readable on a phone: drawn at least
            # 8 px tall (the history's, squeezed to 390 px, was 4-5 px;
            # a wide chart scrolls in itself)
            small = p.eval("Math.min(...Array.from(document.querySelectorAll("
                           "'svg.chart text')).map(t => t.getBoundingClientRect().height)"
                           ".filter(h => h > 0), 99)")
            expect(small >= 8, "%s at %d px draws chart text %.1f px tall"
                   % (name, w, small))
            # the footer lines up with the page's heading (its link sat
            # some 58 px to the right: its width in its own, smaller em)
            edges = p.eval("[document.querySelector('main h1'), "
                           "document.querySelector('footer p')].map(e => e ? "
                           "Math.round(e.getBoundingClientRect().left) : null)")
            expect(None in edges or abs(edges[0] - edges[1]) <= 1,
                   "%s at %d px: heading at %s px, footer at %s px"
                   % (name, w, edges[0], edges[1]))
    print("%d pages at 390 and 1280 px" % len(pages))


def mail_to(addr, subject, timeout=60):
    d = T + "/mail/new"
    deadline = time.time() + timeout
    while time.time() < deadline:
        for f in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            m = email.message_from_bytes(open(os.path.join(d, f), "rb").read(),
                                         policy=email.policy.default)
            if m["To"] == addr and subject in (m["Subject"] or ""):
                return m.get_body(("plain",)).get_content()
        time.sleep(0.2)
    return None


def subscribe(b):
    addr = "walker@robot.test"
    p = b.page(390, 844)
    p.goto(U + "/subscribe")
    p.type('input[name="email"]', addr)
    p.type('input[name="tree"]', "web")
    p.click('button[type="submit"]')
    p.screenshot(ART + "/walk-subscribe-sent.png")
    text = p.text("main")
    if not expect("confirmation" in text, "the form's answer: %r" % text[:300]):
        return
    body = mail_to(addr, "confirm")
    if not expect(body is not None, "no confirmation mail to " + addr):
        return
    m = re.search(r"(/subscriptions/confirm\?t=[A-Za-z0-9_-]+)", body)
    if not expect(m is not None, "no link in the mail: %r" % body[:400]):
        return
    link = U + m.group(1)
    p.goto(link)
    p.screenshot(ART + "/walk-subscribe-confirmed.png")
    text = p.text("main")
    expect(addr in text and "web" in text,
           "the confirmation page names the address and the tree: %r"
           % text[:300])
    # The mail's link opened again (a second click, a mail client's
    # preview): it was confirmed, it says so.
    p.goto(link)
    again = p.text("main")
    expect("already" in again and addr in again,
           "a second click on the link: %r" % again[:300])
    p.goto(link)
    p.click('a[href^="/subscriptions/unsubscribe"]')
    p.click('button[type="submit"]')
    p.screenshot(ART + "/walk-unsubscribed.png")
    text = p.text("main")
    expect("nothing more" in text and addr in text,
           "the unsubscribe button's answer: %r" % text[:300])


def reproduce(b, page, robot):
    p = b.page(1280, 900)
    p.goto(U + page)
    job = p.text("pre#job")
    cmd = p.text("pre#reproduce")
    p.screenshot(ART + "/walk-reproduce.png")
    if not expect(job and cmd, "no job or command on " + page):
        return
    with open(T + "/job.json", "w") as f:
        f.write(job)
    argv = shlex.split(cmd)
    if not expect(argv[:3] == ["robot", "submit", "job.json"],
                  "the command: %r" % cmd):
        return
    # As printed, in a shell, where robot was set up as the quickstart
    # sets it up: robot on PATH, the server and a token in
    # ~/.config/robot/config (here a home of the test's own).
    home, bindir = T + "/home", T + "/bin"
    os.makedirs(bindir, exist_ok=True)
    os.makedirs(home + "/.config/robot", exist_ok=True)
    if not os.path.exists(bindir + "/robot"):
        os.symlink(robot, bindir + "/robot")
    with open(home + "/.config/robot/config", "w") as f:
        f.write("server: %s\ntoken: %s\n" % (os.environ["ROBOT_SERVER"],
                                             os.environ["ROBOT_TOKEN"]))
    env = {k: v for k, v in os.environ.items()
           if k not in ("ROBOT_SERVER", "ROBOT_TOKEN")}
    env.update(HOME=home, PATH=bindir + ":" + env.get("PATH", "/usr/bin:/bin"))
    r = subprocess.run(cmd, shell=True, cwd=T, env=env, capture_output=True,
                       text=True, timeout=60)
    print(cmd)
    print(r.stdout + r.stderr)
    expect(r.returncode == 0, "the command as printed failed (%d): %s"
           % (r.returncode, (r.stdout + r.stderr)[:400]))


def regression(b):
    p = b.page(1280, 900)
    p.goto(U + "/")
    p.click('a[href^="/regressions/"]')
    reg = p.url()
    p.screenshot(ART + "/walk-regression.png")
    expect("/regressions/" in reg, "home to a regression: " + reg)
    p.click('a[href^="/bisections/"]')
    text = p.text("main")
    p.screenshot(ART + "/walk-bisection.png")
    expect("/bisections/" in p.url() and "first bad commit" in text,
           "the regression's bisection: %s %r" % (p.url(), text[:200]))
    p.goto(reg)
    p.click('main table a[href^="/commits/"]')
    text = p.text("main")
    p.screenshot(ART + "/walk-commit.png")
    expect("/commits/" in p.url() and "Measured in" in text and
           "Findings" in text and "this commit is" in text,
           "the commit at fault's page: %s %r" % (p.url(), text[:300]))
    p.click('a[href$="/history"]')
    expect("/history" in p.url() and "metric" in p.text("main"),
           "the commit's series' history: " + p.url())
    p.goto(reg)
    p.click('a[href^="/queue?series="]')
    expect(p.eval("document.querySelectorAll('a[href^=\"/jobs/\"]').length") >= 6,
           "the series' runs, each a link: " + p.url())
    # From "5+5" to the runs compared, round by round, and to each run
    # (issue 55).
    p.goto(reg)
    p.click('main table a[href="#runs"]', navigates=False)
    runs = p.eval("Array.from(document.querySelectorAll('#runs ~ div a[href^=\"/jobs/\"]')).map(a => a.getAttribute('href'))")
    counts = p.text("main table").split("runs compared (base+head)")[1].split()[0]
    nb, _, nh = counts.partition("+")
    expect(p.url().endswith("#runs") and runs and
           len(runs) == int(nb) + int(nh or nb),
           "the runs compared (%s): %r" % (counts, runs))
    for href in runs or []:
        p.click('#runs ~ div a[href="%s"]' % href)
        expect(p.url().endswith(href) and
               "Run %s " % href.split("/")[-1] in p.text("h1"),
               "the run %s: %s" % (href, p.url()))
        p.goto(reg + "#runs")


def history(b, series):
    p = b.page(1280, 900)
    p.goto(U + "/series/%s/history" % series)
    p.screenshot(ART + "/walk-history-pick.png")
    p.select('select[name="metric"]', "dd.write_bytes_per_sec (KPI)")
    p.click('form[action$="/history"] button[type="submit"]')
    p.screenshot(ART + "/walk-history.png")
    expect("metric=dd.write_bytes_per_sec" in p.url(), "the picked metric's page: " + p.url())
    expect(p.eval("document.querySelectorAll('svg circle').length") >= 6,
           "the history draws the runs")
    base = p.select_index('select[name="base"]', 0)
    head = p.select_index('select[name="head"]', -1)
    p.click('form[action="/compare"] button[type="submit"]')
    p.screenshot(ART + "/walk-history-compare.png")
    text = p.text("main")
    expect(re.search(r"runs? a side", text) and "verdict" in text,
           "compare %s with %s: %r" % (base, head, text[:300]))


def compare(b, series, short, branch):
    p = b.page(390, 844)
    p.goto(U + "/compare")
    p.screenshot(ART + "/walk-compare-series.png")
    p.select_index('select[name="series"]', 0)
    p.click('button[type="submit"]')
    p.select_index('select[name="base"]', -1)    # the oldest
    p.select_index('select[name="head"]', 0)     # the newest
    p.click('form[action="/compare"] button[type="submit"]')
    p.screenshot(ART + "/walk-compare.png")
    text = p.text("main")
    expect(re.search(r"verdict \w+ on \S+, \d+ (runs? a side|base runs? and \d+ head runs?)", text),
           "the picked commits compared: %r" % text[:300])
    # As a git user types them: a tag, a branch, a short SHA.
    p.goto(U + "/compare?series=%s&base=%s&head=%s" % (series, short, branch))
    p.screenshot(ART + "/walk-compare-short.png")
    text = p.text("main")
    expect(re.search(r"runs? a side", text) and "verdict" in text,
           "%s and %s compared: %r" % (short, branch, text[:300]))
    # the commits they named, each linked to its page (issue 55)
    shas = p.eval("Array.from(document.querySelectorAll('main p a[href^=\"/commits/\"]')).map(a => a.getAttribute('href'))")
    expect(len(shas or []) >= 2 and all(re.fullmatch(r"/commits/[0-9a-f]{40}", h) for h in shas[:2]),
           "the commits %s and %s name: %r" % (short, branch, shas))


def tally():
    return "%d problem%s" % (len(problems), "" if len(problems) == 1 else "s")


def walk(b, path, args):
    if path == "load":
        load(b, args)
    elif path == "widths":
        widths(b, args)
    elif path == "subscribe":
        subscribe(b)
    elif path == "regression":
        regression(b)
    elif path == "history":
        history(b, args[0])
    elif path == "compare":
        compare(b, args[0], args[1], args[2])
    elif path == "reproduce":
        reproduce(b, args[0], args[1])
    else:
        sys.exit("walk.py: no path " + path)
    print(tally())


def many(b, spec):
    """Each path of spec in turn; its output and status in T."""
    global problems
    for line in open(spec):
        words = shlex.split(line)
        if not words:
            continue
        out = os.path.join(T, "walk-%s" % words[0])
        problems = []
        with open(out + ".out", "w") as f, contextlib.redirect_stdout(f):
            try:
                walk(b, words[0], words[1:])
            except Exception as e:  # a step that broke: this path failed
                expect(False, "%s: %r" % (words[0], e))
                print(tally())
        b.close_pages()
        with open(out + ".rc", "w") as f:
            f.write("1\n" if problems else "0\n")
        print("%s: %s" % (words[0], tally()))


with Browser(T) as b:
    if path == "many":
        many(b, sys.argv[5])
        sys.exit(0)
    walk(b, path, sys.argv[5:])
sys.exit(1 if problems else 0)
