#!/bin/sh
# test_robotd_pages.sh ROBOTD ROBOT_BOX ROBOT SOURCE_DIR: robotd's pages
# in a real browser.  A seeded database (simulated boxes on a watched
# tree: a regression, its bisection, a hostile commit subject, metric
# name and branch); headless Chromium loads every page: no console
# errors or CSP violations, the key content in the DOM, a screenshot of
# each saved (in $ROBOT_ARTIFACTS/pages, default /tmp/robot-artifacts);
# a crawler follows every link from the home page (no 404, no 500, every
# page under 200 KiB); the XSS probe renders inert; pages and their JSON
# twins agree; forms that change state refuse other sites.  TAP.
set -u
ROBOTD=$1 BOX=$2 ROBOT=$3 SRC=$4
. "$SRC/tests/integration/robotd_lib.sh"
PY=/usr/bin/python3
# The test's own artifacts, put in place at its end: two of these tests
# at once (two builds, or a CI beside a developer) each emptied the
# directory the other was writing.
ART_OUT=${ROBOT_ARTIFACTS:-/tmp/robot-artifacts}/pages
ART=$T/artifacts
mkdir -p "$ART"

if ! command -v chromium >/dev/null 2>&1; then
	echo "1..1"
	echo "not ok 1 - chromium is not installed (scripts/deps installs it)"
	exit 1
fi
smtp_start || { echo "1..0 # the SMTP peer did not start"; exit 1; }
cat >"$T/robotd.yaml" <<YAML
state_dir: $T/state
report_window: 0
analysis_claim: 5
smtp: smtp://127.0.0.1:$(cat "$T/smtp.port")
YAML
start_robotd d --config "$T/robotd.yaml" || { echo "1..0 # robotd did not start"; exit 1; }
U=$URL_d
ADMIN=$(token admin root)
echo "1..27"

# The seed: a tree whose fourth commit regresses the KPI and a hostile
# metric, on a branch with a hostile name, under a hostile subject.
export GIT_AUTHOR_NAME="A Developer" GIT_AUTHOR_EMAIL=dev@example.org
export GIT_COMMITTER_NAME="A Developer" GIT_COMMITTER_EMAIL=dev@example.org
R="$T/web"
git init -q -b main "$R"
echo 0 >"$R/f"
git -C "$R" add f
GIT_COMMITTER_DATE="2026-11-20T12:00:00Z" GIT_AUTHOR_DATE="2026-11-20T12:00:00Z" git -C "$R" commit -q -m "init"
git -C "$R" tag v1.0
EVILB='x"onmouseover=alert(3)'
git -C "$R" checkout -q -b "$EVILB"
shas=""
for i in 1 2 3 4 5 6; do
	# A minute apart: the history's commit order is the commits' dates.
	export GIT_COMMITTER_DATE="2026-11-20T12:0$i:00Z" GIT_AUTHOR_DATE="2026-11-20T12:0$i:00Z"
	echo "$i" >>"$R/f"
	if [ $i = 4 ]; then subj='<script>alert(1)</script> mm: "cap" it'; else subj="fs: change $i"; fi
	git -C "$R" commit -q -am "$subj"
	shas="$shas $(git -C "$R" rev-parse HEAD)"
done
BAD=$(echo $shas | cut -d' ' -f4)
HEAD=$(echo $shas | cut -d' ' -f6)
EVILM='vmstat.x"</svg><script>alert(2)</script>'
dd_job "$T/dd.yaml"
SERIES=dd-write/1M-1LOOP_64M-ext4-1dd-1s/lab
shifts=$(for s in $(echo $shas | cut -d' ' -f4-); do printf '%s=-10 ' "$s"; done)
# shellcheck disable=SC2086
simbox s1 $shifts --noise=1 --seed=1 "--extra-metric=$EVILM" --series=1 --profile=1
robot tree add web --url "$R" --branch '*' --base v1.0 --job "$T/dd.yaml" --tbox-group lab \
	--runs 3 --max-runs 6 --poll 300 >/dev/null 2>&1
bisected() { [ "$(sql "SELECT state FROM bisections LIMIT 1")" = bisected ]; }
wait_for 180 bisected
check $? "the seed: a regression at the head, reported and bisected ($(sql "SELECT string_agg(state, ' ') FROM bisections"))"
simbox_stop s1
RID=$(sql "SELECT id FROM regressions WHERE kpi = 'dd.write_bytes_per_sec'")
JOB=$(sql "SELECT max(job) FROM results")
BID=$(sql "SELECT id FROM bisections LIMIT 1")
ESERIES=$($PY -c "import urllib.parse, sys; print(urllib.parse.quote(sys.argv[1], safe='/'))" "$SERIES")

# 1. Every link from the home page answers, and no page is large.
$PY "$SRC/tests/integration/crawl.py" "$U" "$T/crawl.json" 400
check $($PY -c "
import json
c = json.load(open('$T/crawl.json'))
assert c['pages'] >= 12, c
assert not c['bad'], c['bad']
assert c['largest'][0] < 200 * 1024, c['largest']
"; echo $?) "the crawler follows every link from the home page: no 404 or 500, all under 200 KiB ($(cat "$T/crawl.json" | cut -c1-200))"

# 2. Headless Chromium loads each page (walk.py load, one browser): no
# console message or error, no CSP violation; its DOM and a screenshot
# are kept.
PAGES="home:/ regression:/regressions/$RID compare:/compare?series=$ESERIES&base=$(git -C "$R" rev-parse v1.0)&head=$HEAD
history:/series/$ESERIES/history?metric=dd.write_bytes_per_sec job:/jobs/$JOB lab:/lab queue:/queue
tree:/trees/web bisections:/bisections bisection:/bisections/$BID subscribe:/subscribe
commit:/commits/$BAD submission:/submissions/$(sql "SELECT max(submission) FROM jobs") box:/boxes/s1
series:/series/$ESERIES"
$PY "$SRC/tests/integration/walk.py" load "$U" "$T" "$ART" $PAGES >"$T/load.out" 2>&1
rc=$?
sed 's/^/# /' "$T/load.out" | grep -v "^# [0-9]* pages loaded\|^# 0 problems"
check $([ $rc = 0 ]; echo $?) "Chromium loads every page without a console message, an error or a CSP violation ($(tail -1 "$T/load.out"))"
shots=$(ls "$ART"/*.png 2>/dev/null | wc -l)
check $([ "$shots" = 16 ]; echo $?) "a screenshot of each page (and the regression's on a phone): $shots in $ART"

# 3. The key content is in the DOM.
check $($PY - "$ART" "$RID" "$(git -C "$R" rev-parse v1.0) $shas" <<'PY'; echo $?
import sys, re
art = sys.argv[1]
reg = open(art + "/regression.html").read()
assert "dd.write_bytes_per_sec" in reg
assert re.search(r"-(9|10|11)\.\d%", reg), "the change"
assert reg.count('<svg') >= 1, reg.count('<svg')   # the regressed KPI
assert '<tr class="regression">' in reg
assert "First bad commit" in reg
# What moved with it: the one monitor the simulated box moves, above
# LKP's table, its name as text.
moved = reg.split('<table id="moved">')[1].split("</table>")[0]
assert reg.index('<table id="moved">') < reg.index('<table class="lkp">')
assert "<td>other</td>" in moved and "alert(2)" in moved and "<script" not in moved, moved
assert "proc-vmstat.m" not in moved and "dd.write_bytes_per_sec" not in moved, moved
assert re.search(r"<td>changed</td>", moved), moved
# the recipes: where it was found, and the commit at fault against its
# parent, as the report's recipe has it (issue 55: the two differed)
shas = sys.argv[3].split()
assert re.search(r'<pre id="reproduce">robot submit job.json --tbox-group lab --tree web --commit %s --commit [0-9a-f]{40} --repeat 3</pre>' % shas[0], reg), reg[reg.find("To reproduce"):][:800]
assert '<pre id="reproduce-fault">robot submit job.json --tbox-group lab --tree web --commit %s --commit %s --repeat 3</pre>' % (shas[3], shas[4]) in reg, reg[reg.find("To reproduce"):][:800]
home = open(art + "/home.html").read()
assert '/regressions/%s"' % sys.argv[2] in home
# Words a newcomer reads: one box is a box; the runs the regression
# compared are named so beside the chart of every run; the two tables'
# headings; a bisection's page does not link to itself.
assert ">Lab</a>: 1 box, 1 idle," in home, home[:600]
assert "<th scope=\"row\">runs compared (base+head)</th>" in reg
# the report's recipients counted in words ("1 recipient", "2 recipients")
m = re.search(r"<p>to (\d+) (recipients?), \d+ sent</p>", reg)
assert (m and (m.group(2) == "recipient") == (m.group(1) == "1") and m.group(1) != "0") or \
    (not m and "<p>mailed to no one: no subscriber, job mail_to or author matched</p>" in reg), m and m.group(0)
assert "<h3>What moved with it</h3>" in reg and "<h3>Every metric that changed</h3>" in reg
# the chart's dots are the runs compared (each linked to its run),
# rings the other runs at the two commits (issue 55)
chart = reg[reg.index("<svg"):reg.index("</svg>")]
listed = set(re.findall(r'/jobs/(\d+)', reg.split('id="runs"')[1].split("</table>")[0]))
dots, rings = set(), set()
for g in re.findall(r'<g fill="([^"]+)"[^>]*>(.*?)</g>', chart, re.S):
    (rings if g[0] == "none" else dots).update(re.findall(r'<a href="/jobs/(\d+)">', g[1]))
assert listed and dots == listed and not rings & listed, (sorted(listed), sorted(dots), sorted(rings))
assert "a dot is a run compared, a ring a run at the commit" in reg
# the queue names its runs' series and commits by their links
queue = open(art + "/queue.html").read()
assert re.search(r'<td><a href="/series/[^"]+">[^<]+</a></td><td><a href="/commits/[0-9a-f]{40}">', queue), queue[:3000]
# titles and sentences (issue 55): the home page's title is not "robot
# - robot"; a history's names its series; a commit's part in a finding
# reads as a sentence; a history's dots are drawn over its lines (a
# segment's mean took their clicks)
assert "<title>robot</title>" in home, re.search(r"<title>.*</title>", home).group(0)
hist = open(art + "/history.html").read()
assert re.search(r"<title>dd\.write_bytes_per_sec of dd-write/[^<]+ - robot</title>", hist), re.search(r"<title>.*</title>", hist).group(0)
chart = hist[hist.index("<svg"):hist.index("</svg>")]
assert chart.rindex("<circle") > chart.rindex("<line"), "the dots under the lines"
commit = open(art + "/commit.html").read()
assert re.search(r"this commit is (the commit at fault|where it was found|its base)", commit), commit[:3000]
# a box's page: its group and state, its newest runs linked, all of
# them in the queue; the lab links each box to it
box = open(art + "/box.html").read()
assert "<h1>Box s1</h1>" in box and '<th scope="row">group</th><td>lab</td>' in box, box[:1500]
assert re.search(r'<td class="num"><a href="/jobs/\d+">\d+</a></td><td>done</td>', box), box[:3000]
assert '<a href="/queue?box=s1">All its runs</a>' in box and '<a href="/api/boxes/s1">As JSON</a>' in box
assert '<a href="/boxes/s1">s1</a>' in open(art + "/lab.html").read()
# a series' page (issue 55): its runs in the queue, each KPI linked to
# its history, its findings, pairs and boxes linked; every page that
# names the series links to it
ser = open(art + "/series.html").read()
sl = '<a href="/series/dd-write/1M-1LOOP_64M-ext4-1dd-1s/lab">dd-write/1M-1LOOP_64M-ext4-1dd-1s/lab</a>'
assert "<h1>Series dd-write/1M-1LOOP_64M-ext4-1dd-1s/lab</h1>" in ser, ser[:1500]
assert re.search(r'<th scope="row">runs</th><td>0 queued, 0 running, \d+ done, 0 failed \(<a href="/queue\?series=dd-write%2F1M-1LOOP_64M-ext4-1dd-1s%2Flab">each run</a>\)', ser), ser[:2000]
assert '<a href="/trees/web">web</a>' in ser and '<a href="/boxes/s1">s1</a>' in ser, ser[:3000]
assert '<a href="/series/dd-write/1M-1LOOP_64M-ext4-1dd-1s/lab/history?metric=dd.write_bytes_per_sec">dd.write_bytes_per_sec</a>' in ser, ser[:3000]
assert re.search(r'<a href="/regressions/%s">regression</a> %s' % (sys.argv[2], sys.argv[2]), ser), ser[:4000]
assert re.search(r'<a href="/compare\?series=[^"]+&amp;base=[0-9a-f]{40}&amp;head=[0-9a-f]{40}">', ser), ser[:4000]
assert "<h2>Its job</h2>" in ser and '<a href="/api/series/dd-write/1M-1LOOP_64M-ext4-1dd-1s/lab">As JSON</a>' in ser
for name in ("regression", "box", "queue", "bisection", "commit", "submission"):
    assert sl in open(art + "/%s.html" % name).read(), name
# and every page that names the tree links to it
for name in ("regression", "bisection", "home", "series"):
    assert '<a href="/trees/web">web</a>' in open(art + "/%s.html" % name).read(), name
bis = open(art + "/bisection.html").read()
assert re.search(r'for <a href="/regressions/\d+">regression \d+</a>', bis), bis[:2000]
assert "<h2>Steps</h2>" in bis and 'href="/bisections/' not in bis.split("<h2>Steps</h2>")[1], bis[:2000]
# the bisections' list links each KPI to its history in the series
bl = open(art + "/bisections.html").read()
assert re.search(r'<a href="/series/[^"]+/history\?metric=dd\.write_bytes_per_sec">dd\.write_bytes_per_sec</a>', bl), bl[:3000]
# each step links to its comparisons (issue 55)
steps = bis.split("<h2>Steps</h2>")[1]
assert re.search(r'<a href="/compare\?series=[^"]+&amp;base=[0-9a-f]{40}&amp;head=[0-9a-f]{40}">with the good end</a>', steps), steps[:3000]
assert "with the bad end</a>" in steps and "with its parent</a>" in steps, steps[:3000]
assert "<h2>Bisection</h2>" in reg
hist = open(art + "/history.html").read()
assert hist.count("<circle") >= 12, hist.count("<circle")
# The run: its result first, its KPI with its unit; no number printed
# to seventeen digits.
job = open(art + "/job.html").read()
assert job.index("<h2>Result</h2>") < job.index("<h2>Numbers</h2>"), "the result comes first"
res = job.split("<h2>Result</h2>")[1].split("<h2>")[0]
# its commit links to the commit's page; the job as queued shows no
# "commit": null beside it
assert re.search(r'<th scope="row">commit</th><td><a href="/commits/[0-9a-f]{40}">[0-9a-f]{40}</a>', job), job[:1500]
assert '"commit": null' not in job
assert "dd.write_bytes_per_sec" in res and re.search(r"<strong>[0-9.]+ MB/s</strong>", res), res[:300]
assert not re.search(r"\d\.\d{9,}", job.split("<h2>The job</h2>")[0]), re.search(r"\d\.\d{9,}", job).group(0)
# Its per-second series with its shape: peak and trough as levels, and
# in words with the period.
per = job.split("<h2>Per second</h2>")[1].split("<h2>")[0]
assert "dd.loop0.write_bytes_per_sec: peak 80 MB/s, trough 20 MB/s, a period of 20 s" in per, per[-600:]
assert "<title>peak of dd.loop0.write_bytes_per_sec</title>" in per and "<title>trough of dd.loop0.write_bytes_per_sec</title>" in per
# A profiled run: the functions with most samples of their own first,
# each with its share with its callees; a name is text, never markup.
prof = job.split('<table id="profile">')[1].split("</table>")[0]
assert job.index("<h2>Per second</h2>") < job.index("<h2>Profile</h2>") < job.index("<h2>Numbers</h2>")
names = re.findall(r'<th scope="row">([^<]*)</th>', prof)
assert names == ["pvm_safe_halt_hc", "copy_user_generic", "x&lt;b&gt;alert(3)&lt;/b&gt;", "vfs_write"], names
assert '<th scope="row">vfs_write</th><td class="num">0.50%</td><td class="num">30.00%</td>' in prof, prof
assert "cpu-clock" in job.split("<h2>Profile</h2>")[1].split("<table")[0]
# Oldest first: init, then the commits in their order.
order = re.findall(r'<option value="([0-9a-f]{40})"', hist.split('name="base"')[1].split("</select>")[0])
assert order == sorted(order, key=lambda c: sys.argv[3].split().index(c)), order
PY
) "the DOM has the regression's KPI and change, a chart per changed KPI, the table's rows; home links it; history draws every run"

# 4. The XSS probe: the subject, the metric name and the branch render as
# text, never as markup.
check $($PY - "$ART" <<'PY'; echo $?
import sys, glob
for f in glob.glob(sys.argv[1] + "/*.html"):
    d = open(f).read()
    low = d.lower()
    assert "<script" not in low, f
    assert " onmouseover=" not in low, f
    assert "</svg><script" not in low, f
seen = "".join(open(f).read() for f in glob.glob(sys.argv[1] + "/*.html"))
assert "&lt;script&gt;alert(1)&lt;/script&gt;" in seen, "the subject is shown, as text"
assert "alert(2)" in seen, "the metric is shown"
assert "onmouseover=alert(3)" in seen, "the branch is shown"
PY
) "the hostile subject, metric name and branch render inert, as text"
s=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$U/api/boxes/x%22onmouseover=/register" -H "Authorization: Bearer $ADMIN")
check $([ "$s" = 400 ] || [ "$s" = 403 ] || [ "$s" = 404 ]; echo $?) "a box name with \"onmouseover= cannot be registered ($s)"

# 5. Pages and their JSON twins agree.
curl -s "$U/api/regressions/$RID" >"$T/reg.json"
curl -s "$U/api/home" >"$T/home.json"
curl -s "$U/api/series/$ESERIES/history?metric=dd.write_bytes_per_sec" >"$T/hist.json"
curl -s "$U/api/compare?series=$ESERIES&base=$(git -C "$R" rev-parse v1.0)&head=$HEAD" >"$T/cmp.json"
check $($PY - "$ART" "$T" <<'PY'; echo $?
import json, sys, re
art, t = sys.argv[1], sys.argv[2]
r = json.load(open(t + "/reg.json"))
reg = open(art + "/regression.html").read()
assert "%+.1f%%" % r["change_pct"] in reg, r["change_pct"]
assert r["bisected_to"]["sha"][:10] in reg
for k, v in r["values"].items():
    assert len(v["base"]) >= 3 and len(v["head"]) >= 3
assert reg.count("<svg") == len(r["values"]), (reg.count("<svg"), list(r["values"]))
home = json.load(open(t + "/home.json"))
links = re.findall(r'href="/regressions/(\d+)"', open(art + "/home.html").read())
want = [str(f["id"]) for c in home["commits"] for f in c["findings"]]
assert sorted(links) == sorted(want), (links, want)
h = json.load(open(t + "/hist.json"))
dots = open(art + "/history.html").read().split("<svg")[1].count("<circle")
assert dots == sum(c["n"] for c in h["commits"]), (dots, [c["n"] for c in h["commits"]])
c = json.load(open(t + "/cmp.json"))["comparison"]
n, r = c["base_runs"]["ok"], c["rounds"]
runs = "%d run%s a side, in %d round%s" % (n, "" if n == 1 else "s", r, "" if r == 1 else "s")
assert c["base_runs"]["ok"] == c["head_runs"]["ok"] > 0, c["base_runs"]
assert runs in open(art + "/compare.html").read(), runs
PY
) "the pages and their JSON twins agree on the numbers"

# 5b. The history's change point: where the KPI stepped down 10%, in
# the API, the history's JSON and on the page.
curl -s "$U/api/series/$ESERIES/changes?metric=dd.write_bytes_per_sec" >"$T/changes.json"
check $($PY - "$ART" "$T" "$BAD" <<'PY' && [ "$(sql "SELECT count(*) FROM regressions WHERE found_by = 'change point'")" = 0 ]; echo $?
import json, sys
art, t, bad = sys.argv[1:]
c = json.load(open(t + "/changes.json"))
h = json.load(open(t + "/hist.json"))
shas = [x["commit"] for x in h["commits"]]
assert c["points"] == len(shas) and c["runs"] == sum(x["n"] for x in h["commits"]), c
cps = c["changes"]
assert len(cps) == 1, cps
assert cps[0]["commit"] == bad and cps[0]["index"] == shas.index(bad), (cps, shas)
assert -12 < cps[0]["change_pct"] < -8 and cps[0]["p"] < 0.001, cps
assert h["changes"] == cps, (h["changes"], cps)
page = open(art + "/history.html").read()
listed = page.split("1 change point in this history:")[1].split("</ul>")[0]
assert bad[:7] in listed and ("-10." in listed or "-9." in listed), listed
assert "change point at " + bad[:12] in page
PY
) "the history's change point: at the commit that stepped down, about -10%, in the API, the history and the page; no record of its own (the pair's regression covers it) ($(head -c 300 "$T/changes.json"))"

# 6. Headers: the CSP and friends on every page; the stylesheet is
# cacheable by its ETag.
curl -s -D "$T/h" -o /dev/null "$U/"
etag=$(sed -n 's/^ETag: *\([^\r]*\).*/\1/Ip' "$T/h")
curl -s -D "$T/css" -o /dev/null "$U/style.css"
etag=$(tr -d '\r' <"$T/css" | sed -n 's/^etag: *//Ip')
s304=$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $etag" "$U/style.css")
# A run that ended is final: its page too.
curl -s -D "$T/jh" -o /dev/null "$U/jobs/$JOB"
jetag=$(tr -d '\r' <"$T/jh" | sed -n 's/^etag: *//Ip')
j304=$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $jetag" "$U/jobs/$JOB")
check $(grep -qi "^content-security-policy: default-src 'none'" "$T/h" && grep -qi "^x-content-type-options: nosniff" "$T/h" &&
	grep -qi "^referrer-policy: no-referrer" "$T/h" && [ -n "$etag" ] && [ "$s304" = 304 ] &&
	[ -n "$jetag" ] && [ "$j304" = 304 ] && grep -qi "^cache-control: no-store" "$T/h"; echo $?) \
	"every page has a strict CSP, nosniff and no-referrer; the stylesheet and an ended run's page answer 304 to their ETags, the home page is not cached ($etag $s304 $jetag $j304)"

# The icon the pages name answers, so that a browser asks for no
# /favicon.ico (a 404 on every first page, in its console: it failed
# robotd-pages' load check when the machine was busy enough for the
# 404 to come before the page's messages were read).
icon=$(sed -n 's/.*<link rel="icon" href="\([^"]*\)".*/\1/p' "$ART/home.html" 2>/dev/null)
curl -s -D "$T/ih" -o "$T/icon" "$U${icon:-/none}"
check $([ -n "$icon" ] && grep -q "^HTTP/1.1 200" "$T/ih" && grep -qi "^content-type: image/svg+xml" "$T/ih" &&
	grep -q "<svg" "$T/icon"; echo $?) "the pages name their icon, and robotd serves it (${icon:-no icon})"

# 7. The subscribe form: posted from robotd's own page it asks for the
# confirmation; from another site it is refused.
s1=$(curl -s -o "$T/sub1" -w '%{http_code}' -H "Origin: http://evil.example" --data "email=a@robot.test" "$U/subscribe")
s2=$(curl -s -o "$T/sub2" -w '%{http_code}' -H "Sec-Fetch-Site: cross-site" --data "email=a@robot.test" "$U/subscribe")
s3=$(curl -s -o "$T/sub3" -w '%{http_code}' -H "Origin: $U" --data "email=b%40robot.test&tree=web&improvements=yes" "$U/subscribe")
s4=$(curl -s -o "$T/sub4" -w '%{http_code}' -H "Origin: $U" --data "email=%zz" "$U/subscribe")
s5=$(curl -s -o "$T/sub5" -w '%{http_code}' -H "Origin: $U" --data "email=not-an-address" "$U/subscribe")
# What Chromium sends for the form on robotd's own page, which answers
# Referrer-Policy: no-referrer: Origin "null", and Sec-Fetch-Site.
s6=$(curl -s -o "$T/sub6" -w '%{http_code}' -H "Origin: null" -H "Sec-Fetch-Site: same-origin" --data "email=c%40robot.test" "$U/subscribe")
s7=$(curl -s -o "$T/sub7" -w '%{http_code}' -H "Origin: null" -H "Sec-Fetch-Site: cross-site" --data "email=d%40robot.test" "$U/subscribe")
s8=$(curl -s -o "$T/sub8" -w '%{http_code}' -H "Origin: null" --data "email=e%40robot.test" "$U/subscribe")
# "at least" checked as the API checks it: a word is refused (it was
# stored as 0, every change), a percentage taken
s9=$(curl -s -o "$T/sub9" -w '%{http_code}' -H "Origin: $U" --data "email=f%40robot.test&min_change=five" "$U/subscribe")
s10=$(curl -s -o "$T/sub10" -w '%{http_code}' -H "Origin: $U" --data "email=g%40robot.test&min_change=7.5%25" "$U/subscribe")
check $([ "$s1" = 403 ] && [ "$s2" = 403 ] && [ "$s3" = 202 ] && [ "$s4" = 400 ] && [ "$s5" = 400 ] &&
	[ "$s6" = 202 ] && [ "$s7" = 403 ] && [ "$s8" = 403 ] && [ "$s9" = 400 ] && [ "$s10" = 202 ] &&
	grep -q "min_change is a percentage" "$T/sub9" &&
	[ "$(sql "SELECT min_change FROM subscriptions WHERE email = 'g@robot.test'")" = 7.5 ] &&
	sql "DELETE FROM subscriptions WHERE email = 'g@robot.test'" >/dev/null &&
	[ "$(sql "SELECT string_agg(email || ' ' || coalesce(tree, '-') || ' ' || improvements::text, ',' ORDER BY email) FROM subscriptions")" = "b@robot.test web true,c@robot.test - false" ] &&
	grep -q "<p>A confirmation mail is on its way" "$T/sub3"; echo $?) \
	"the subscribe form subscribes from robotd's page only, as a browser posts it there, its fields checked as the API checks them ($s1 $s2 $s3 $s4 $s5; Origin null: $s6 $s7 $s8; at least: $s9 $s10)"

# 8. Bad page arguments get a clear page, not a crash.
s1=$(curl -s -o /dev/null -w '%{http_code}' "$U/regressions/99999")
s2=$(curl -s -o /dev/null -w '%{http_code}' "$U/series/nope/x/history")
s3=$(curl -s -o /dev/null -w '%{http_code}' "$U/queue?state=bogus")
s4=$(curl -s -o /dev/null -w '%{http_code}' "$U/compare?series=nope/x/y&base=a&head=b")
s5=$(curl -s -o /dev/null -w '%{http_code}' "$U/jobs/424242")
check $([ "$s1" = 404 ] && [ "$s2" = 404 ] && [ "$s3" = 400 ] && [ "$s4" = 404 ] && [ "$s5" = 404 ]; echo $?) \
	"unknown things are 404 pages, bad arguments 400 ($s1 $s2 $s3 $s4 $s5)"

# 12. A later head that still shows the regression does not rewrite it:
# the record keeps the change it was found with (its chart and commit
# show that one); the page adds what the new head showed.
before=$(sql "SELECT round(change_pct::numeric, 6) || ' ' || p_value || ' ' || runs FROM regressions WHERE id = $RID")
export GIT_COMMITTER_DATE="2026-11-20T12:07:00Z" GIT_AUTHOR_DATE="2026-11-20T12:07:00Z"
echo 7 >>"$R/f"
git -C "$R" commit -q -am "fs: change 7"
C7=$(git -C "$R" rev-parse HEAD)
fetch_now web
# shellcheck disable=SC2086
simbox s1 $shifts "$C7=-25" --noise=1 --seed=2 "--extra-metric=$EVILM"
still() { [ "$(sql "SELECT last_head FROM regressions WHERE id = $RID")" = "$C7" ]; }
wait_for 120 still
rc=$?
simbox_stop s1
after=$(sql "SELECT round(change_pct::numeric, 6) || ' ' || p_value || ' ' || runs FROM regressions WHERE id = $RID")
last=$(sql "SELECT round(last_change_pct) FROM regressions WHERE id = $RID")
curl -s "$U/regressions/$RID" >"$T/still.html"
check $([ $rc = 0 ] && [ "$before" = "$after" ] && [ "$last" -le -20 ] &&
	grep -q "<th scope=\"row\">still at</th><td><a href=\"/commits/$C7\">.* <span class=\"nw\">-2[0-9].[0-9]%</span>" "$T/still.html"; echo $?) \
	"a later head that still shows it leaves the record as found, and the page says what it showed ($rc; $before -> $after; $last)"

# Checks 9 to 15 walk the pages as a person does: one browser walks
# them all in turn (walk.py many), each check reads its walk's output.
# What they need first: the tree's branch topic fetched (14), the last
# submission before the reproduce recipe runs (11).
SHORT=$(git -C "$R" rev-parse v1.0 | cut -c1-10)
git -C "$R" branch topic
fetch_now web
wait_for 60 sql_is 1 "SELECT count(*) FROM tree_heads WHERE branch = 'topic'" ||
	diag "the tree's branch topic was not fetched in 60 s"
before=$(sql "SELECT max(id) FROM submissions")
{
	# shellcheck disable=SC2086
	echo widths $PAGES
	echo subscribe
	echo regression
	echo "history $ESERIES"
	echo "compare $ESERIES v1.0 topic"
	echo "reproduce /regressions/$RID $ROBOT"
} >"$T/walks"
ROBOT_SERVER=$U ROBOT_TOKEN=$ADMIN $PY "$SRC/tests/integration/walk.py" many "$U" "$T" "$ART" "$T/walks" >"$T/walks.out" 2>&1 ||
	diag "walk.py many: $(tail -5 "$T/walks.out" | tr '\n' ' ')"
# walked PATH: whether the walk PATH went as a person expects.
walked() { [ "$(cat "$T/walk-$1.rc" 2>/dev/null)" = 0 ]; }
said() { tail -3 "$T/walk-$1.out" 2>/dev/null | tr '\n' ' '; }

# 9. Tables and headings never break a word, on a phone (390 px) or a
# wide screen (1280 px), and no page is wider than the window (a wide
# table scrolls in itself); a screenshot of each at each width.
check $(walked widths; echo $?) \
	"no word broken in a table or heading at 390 px or 1280 px, no page wider than the window ($(said widths))"

# 10. Subscribing as a person does: type the address into the form,
# press the button, open the link in the mail, then unsubscribe with the
# page's link and button; the link opened a second time says it was.
check $(walked subscribe; echo $?) \
	"subscribe by the form, confirm by the mail's link (twice), unsubscribe by the page's button ($(said subscribe))"

# 15. From the home page to a regression, then by its links to its
# bisection, the commit at fault (its page: the series it was measured
# in, the findings that name it) and the series' runs.
check $(walked regression; echo $?) \
	"from the home page to a regression, its bisection, its commit and its runs ($(said regression))"

# 13. The history page without a metric offers the series' metrics, its
# KPI first; the KPI picked, two commits picked in its form and compared.
check $(walked history; echo $?) \
	"pick a metric on the history page, then two commits, and compare them ($(said history))"

# 14. Compare without a series: pick the series, then its commits; and
# commits named as a git user names them (a short SHA, a branch), on the
# page, the API and the CLI; an unknown or ambiguous one is a clear 400.
check $(walked compare; echo $?) \
	"compare: pick the series and two commits; the base tag against a branch ($(said compare))"
s1=$(curl -s -o "$T/short.json" -w '%{http_code}' "$U/api/compare?series=$ESERIES&base=$SHORT&head=topic")
s2=$(curl -s -o "$T/unknown.json" -w '%{http_code}' "$U/api/compare?series=$ESERIES&base=$SHORT&head=v9.9")
s3=$(curl -s -o "$T/ambiguous.json" -w '%{http_code}' "$U/api/compare?series=$ESERIES&base=$SHORT&head=0")
robot compare --series "$SERIES" --base "$SHORT" --head "$(git -C "$R" rev-parse HEAD | cut -c1-8)" >"$T/cli-short.out" 2>&1
rc=$?
check $([ "$s1" = 200 ] && [ "$s2" = 404 ] && [ "$s3" = 404 ] && [ $rc = 0 ] &&
	$PY -c "
import json
j = json.load(open('$T/short.json'))
assert j['base'] == '$(git -C "$R" rev-parse v1.0)' and j['head'] == '$C7', (j['base'], j['head'])
assert 'v9.9 is no commit of' in json.load(open('$T/unknown.json'))['error']
" && grep -q "regression" "$T/cli-short.out"; echo $?) \
	"the API and the CLI take a short SHA and a branch; an unknown or too short name is a clear 404 ($s1 $s2 $s3 $rc; $(head -c 200 "$T/unknown.json"))"

# 11. The regression's reproduce recipe: the job and the command saved
# from the page and run as printed queue the two commits again, in the
# group and with the runs a side the regression was first measured with.
got=$(sql "SELECT string_agg(DISTINCT j.commit || ' ' || j.tbox_group || ' ' || j.runs, ',') FROM jobs j
	WHERE j.submission > $before")
want=$(sql "SELECT string_agg(DISTINCT c || ' lab 3', ',') FROM regressions r, unnest(ARRAY[r.base, r.commit]) c
	WHERE r.id = $RID")
check $(walked reproduce && [ -n "$got" ] && [ "$got" = "$want" ]; echo $?) \
	"the reproduce recipe, saved from the page, runs as printed ('$got' '$want'; $(said reproduce))"

# Chromium, asked to close when a walk ends, leaves nothing behind:
# killed, it left its lock's socket in a directory of /tmp of its own
# (and links to it in its profile), one a start, 344 after a day's tests.
left=$(ls -d "$T"/chrome-walk/Singleton* 2>/dev/null | tr '\n' ' ')
check $([ -z "$left" ]; echo $?) \
	"Chromium closed and left nothing of its own behind (${left:-none}$(readlink "$T/chrome-walk/SingletonSocket" 2>/dev/null))"

# 12. Errors of a page are pages: an unknown URL, a bad argument and a
# form's empty field (issue 55).  The API keeps its problem documents.
s404=$(curl -s -o "$T/e404.html" -w '%{http_code} %{content_type}' "$U/regressions")
s400=$(curl -s -o "$T/e400.html" -w '%{http_code} %{content_type}' "$U/series/x/history?metric=a$(printf '%0300d' 0)")
sqf=$(curl -s -o "$T/eqf.html" -w '%{http_code} %{content_type}' "$U/queue?state=failed&commit=xyz&box=b1")
sq=$(curl -s -o "$T/equeue.html" -w '%{http_code}' "$U/queue?state=failed&series=")
sapi=$(curl -s -o "$T/eapi.json" -w '%{http_code} %{content_type}' "$U/api/regressions/x/y")
check $(case "$s404 $s400" in "404 text/html"*" 400 text/html"*) true ;; *) false ;; esac &&
	grep -q '<nav><a href="/">robot</a>' "$T/e404.html" && grep -q "no such resource: GET /regressions" "$T/e404.html" &&
	grep -q "<h1>Bad request</h1>" "$T/e400.html" && grep -q "metric &#39;a0" "$T/e400.html" &&
	case "$sqf" in "400 text/html"*) true ;; *) false ;; esac &&
	grep -q '<option value="failed" selected>' "$T/eqf.html" && grep -q 'name="box" size="16" value="b1"' "$T/eqf.html" &&
	grep -q 'name="commit" size="12" value="xyz"></label> <strong class="state-new" id="error">commit is a SHA' "$T/eqf.html" &&
	[ "$sq" = 200 ] && grep -q '<option value="failed" selected>' "$T/equeue.html" &&
	grep -q '<a href="/api/jobs?limit=100&amp;state=failed">As JSON</a>' "$T/equeue.html" &&
	case "$sapi" in "404 application/"*json*) true ;; *) false ;; esac &&
	$PY -c "import json; json.load(open('$T/eapi.json'))['error']"; echo $?) \
	"a page's errors are pages with the navigation (404 $s404, 400 $s400); the queue's form comes back as filled in with its error at the field ($sqf); its empty series field is ignored ($sq), and its JSON twin named with its filter; the API's stay JSON ($sapi)"

# 13. The compare form, asked for a series alone: its base and head
# chosen are the series' newest pair's, each commit offered with its
# subject, newest first (issue 55).
lb=$(sql "SELECT base FROM pairs WHERE series = '$SERIES' AND bisection IS NULL ORDER BY id DESC LIMIT 1")
lh=$(sql "SELECT head FROM pairs WHERE series = '$SERIES' AND bisection IS NULL ORDER BY id DESC LIMIT 1")
curl -s -o "$T/cform.html" "$U/compare?series=$ESERIES"
check $($PY - "$T/cform.html" "$lb" "$lh" "$(git -C "$R" log -1 --format=%s "$lh")" <<'PY'; echo $?
import re, sys
page, base, head, subject = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3], sys.argv[4]
sel = lambda name: page.split('<select name="%s">' % name)[1].split("</select>")[0]
assert re.search(r'<option value="%s" selected>' % base, sel("base")), sel("base")[:600]
assert re.search(r'<option value="%s" selected>[0-9a-f]{12} ' % head + re.escape(subject), sel("head")), sel("head")[:600]
assert sel("head").index(head) < sel("head").index(base), "newest first"
PY
) "the compare form chooses the series' newest pair, its commits named with their subjects, newest first ($lb..$lh)"

# 14. A page and its JSON twin are one entry (web/pages/pages.h): they
# take the same arguments, checked alike; a bad one is a 400 on both,
# with the same words (a page of them, a problem document), and what the
# twin honours the page honours (issue 54: the history page ignored
# limit, the bisections page limit, the compare page method).
pt=$($PY - "$U" "$ESERIES" "$(git -C "$R" rev-parse v1.0)" "$HEAD" <<'PY'
import html, json, sys, urllib.error, urllib.parse, urllib.request
u, series, base, head = sys.argv[1:5]
def get(path):
    try:
        with urllib.request.urlopen(u + path) as r:
            return r.status, r.headers.get_content_type(), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get_content_type(), e.read().decode()
bad = ["/bisections?limit=0", "/series/%s/history?metric=dd.write_bytes_per_sec&limit=0" % series,
       "/compare?series=%s&base=%s&head=%s&method=magic" % (series, base, head),
       "/compare?series=%s&base=%s&head=%s&min_effect=lots" % (series, base, head),
       "/commits/%s?tree=no!such" % head, "/queue?limit=0"]
out = []
for path in bad:
    ps, pt, page = get(path)
    ts, tt, twin = get("/api" + path.replace("/queue", "/jobs"))
    try:
        words = json.loads(twin).get("error", twin)
    except ValueError:
        words = twin
    ok = ps == ts == 400 and pt == "text/html" and words in html.unescape(page)
    out.append("%s %d/%d%s" % (path.split("?")[1].split("&")[-1], ps, ts, "" if ok else " DIFFER"))
# honoured alike: a history of the newest 2 commits, on both
_, _, page = get("/series/%s/history?metric=dd.write_bytes_per_sec&limit=2" % series)
_, _, twin = get("/api/series/%s/history?metric=dd.write_bytes_per_sec&limit=2" % series)
n = sum(c["n"] for c in json.loads(twin)["commits"])
dots = page.split("<svg")[1].count("<circle")
out.append("limit=2 %d/%d%s" % (dots, n, "" if dots == n and len(json.loads(twin)["commits"]) == 2 else " DIFFER"))
# a box's page and its twin; a box that is not there is a 404 on both
ps, pt, page = get("/boxes/s1")
ts, tt, twin = get("/api/boxes/s1")
ok = ps == ts == 200 and pt == "text/html" and json.loads(twin)["name"] == "s1" and \
    all('<a href="/jobs/%d">' % r["id"] in page for r in json.loads(twin)["runs"])
ns, nt, _ = get("/boxes/nosuch")
ms, mt, _ = get("/api/boxes/nosuch")
ok = ok and ns == ms == 404 and nt == "text/html" and mt == "application/json"
out.append("box %d/%d, none %d/%d%s" % (ps, ts, ns, ms, "" if ok else " DIFFER"))
# a series' page and its twin, beside the routes that go on after the
# series (its history, commits, changes): each answers its own; a series
# without runs is a 404 on both
ps, pt, page = get("/series/%s" % series)
ts, tt, twin = get("/api/series/%s" % series)
hs, _, hist = get("/series/%s/history?metric=dd.write_bytes_per_sec" % series)
cs, _, coms = get("/api/series/%s/commits" % series)
gs, _, chg = get("/api/series/%s/changes?metric=dd.write_bytes_per_sec" % series)
j = json.loads(twin)
ok = ps == ts == hs == cs == gs == 200 and pt == "text/html" and j["series"] == urllib.parse.unquote(series) and \
    j["done"] > 0 and j["boxes"][0]["box"] == "s1" and "<h1>Series " in page and \
    "<svg" in hist and "commits" in json.loads(coms) and "changes" in json.loads(chg)
ns, nt, _ = get("/series/nosuch/x")
ms, mt, _ = get("/api/series/nosuch/x")
ok = ok and ns == ms == 404 and nt == "text/html" and mt == "application/json"
out.append("series %d/%d, history %d, commits %d, changes %d, none %d/%d%s" % (ps, ts, hs, cs, gs, ns, ms, "" if ok else " DIFFER"))
# a page's route answers GET only
s, _, _ = get("/lab")
try:
    urllib.request.urlopen(urllib.request.Request(u + "/lab", data=b"", method="POST"))
    out.append("POST /lab 200 DIFFER")
except urllib.error.HTTPError as e:
    out.append("POST /lab %d%s" % (e.code, "" if e.code == 405 and b"use GET" in e.read() else " DIFFER"))
print(", ".join(out))
PY
)
check $(case "$pt" in *DIFFER* | '') false ;; *) true ;; esac; echo $?) \
	"a page and its JSON twin check their arguments alike and honour the same ($pt)"

# 15. What was mailed stays as mailed (issue 55): the regression's pair
# measured again (robotd-sql holds the record's figures and makes the
# event; here it is made by hand) is shown beside the mailed figures,
# with its runs and its submission, and in "What happened".
sub_m=$(sql "SELECT max(id) FROM submissions")
sql "INSERT INTO regression_events (regression, kind, head, change_pct, p_value, runs, base_runs, head_runs, submission, report)
	SELECT $RID, 'measured', commit, -12.25, 0.0004, 6, 6, 6, $sub_m, report FROM regressions WHERE id = $RID" >/dev/null
curl -s "$U/regressions/$RID" >"$T/measured.html"
ROBOT_SERVER=$U "$ROBOT" regression "$RID" >"$T/measured.out" 2>&1
check $(grep -q "^measured since: -12\.[23]% (p 0\.0004, 6+6 runs, submission $sub_m); the figures above are as mailed$" "$T/measured.out" &&
	$PY - "$T/measured.html" "$sub_m" <<'PY'; echo $?
import re, sys
page, sub = open(sys.argv[1]).read(), sys.argv[2]
assert '<th scope="row">change, as mailed</th>' in page, page[:3000]
row = page.split('<th scope="row">measured since</th><td>')[1].split("</td>")[0]
assert "-12.3%" in row or "-12.2%" in row, row
assert "(p 0.0004)" in row and "6+6 runs" in row and '<a href="/submissions/%s">submission %s</a>' % (sub, sub) in row, row
story = page.split("<h2>What happened</h2>")[1]
assert re.search(r"measured <a href=\"/commits/[0-9a-f]{40}\">", story) and "6+6 runs" in story, story[:2000]
PY
) "a finding measured again after its report: its mailed figures stay, the new ones beside them with their runs and submission, on the page and in robot regression"

# (The time Chromium takes to load each page: bench/pages_bench.sh.)
sanitizer_clean
mkdir -p "${ART_OUT%/*}" && rm -rf "$ART_OUT.$$" && cp -a "$ART" "$ART_OUT.$$" &&
	rm -rf "$ART_OUT" && mv "$ART_OUT.$$" "$ART_OUT" && diag "artifacts in $ART_OUT"
exit $((failed > 0))
