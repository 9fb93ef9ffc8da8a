#!/bin/sh
# test_robotd_bisect_box.sh ROBOTD ROBOT_BOX ROBOT SOURCE_DIR: the demo
# tree grown to 16 commits, watched with a real box running dd on xfs:
# a developer pushes fifteen commits at once, the second of which caps
# dirty memory at 1 MiB.  robotd finds the regression at the head,
# bisects it on real runs to the writeback commit (at most 4 midpoints
# decided, and the confirmation) and only then mails its report to the
# subscriber (a real SMTP server, smtpsink.py): one mail, naming the
# writeback commit, never the head.  How many midpoints a real box
# leaves undecided is its noise's, not asserted here (robotd-bisect has
# the step counts on a known truth).  Prints the steps, runs and wall
# time.  TAP.
set -u
ROBOTD=$1 BOX=$2 ROBOT=$3 SRC=$4
. "$SRC/tests/integration/robotd_lib.sh"
STUCK_CHECK=1 # a real box that changes ends the waits at once (lab_stuck),
STUCK_RESETS=2 # after the operator's reset, twice at most
PY=/usr/bin/python3

smtp_start
cat >"$T/robotd.yaml" <<YAML
state_dir: $T/state
lease_seconds: 120
smtp: smtp://127.0.0.1:$(cat "$T/smtp.port")
mail_from: robot@robot.test
report_window: 0
YAML
start_robotd d --config "$T/robotd.yaml" || { echo "1..0 # robotd did not start"; exit 1; }
U=$URL_d
ADMIN=$(token admin root)
echo "1..6"

robot subscribe maintainer@robot.test >/dev/null 2>&1
wait_for 20 mails "sys.exit(0 if mails else 1)"
curl -s -o /dev/null "$(mails "print([l.strip() for l in text(mails[0][1]).splitlines() if '/subscriptions/confirm?t=' in l][0])")"

"$SRC/scripts/make-demo-tree" "$T/demo" >/dev/null 2>&1
export ROBOT_DEMO_TREE="$T/demo"
bx=bbox-$$
box_config "$bx"
echo "hook: $SRC/examples/demo/provision" >>"$T/$bx.yaml"
start_box "$bx" "$U" "$(token box "$bx")"
# dd of 512 MiB with fdatasync, not for a runtime: runtime-mode dd on
# these machines swings 3-10x between runs (docs/testing.md).
cat >"$T/dd.yaml" <<'YAML'
suite: dd-write
testcase: dd-write
category: benchmark
disk: 1LOOP_1G
fs: xfs
nr_threads: 1dd
sysctl:
  sc_dirty_ratio: 40
dd:
  bs: 1M
  size: 512M
YAML
robot tree add demo --url "$T/demo" --branch master --base v1.0 --job "$T/dd.yaml" \
	--tbox-group lab --runs 3 --max-runs 10 --poll 5 >/dev/null 2>&1
head_is() { [ "$(sql "SELECT sha FROM tree_heads WHERE tree = 'demo' AND branch = 'master'")" = "$1" ]; }
wait_for 30 head_is "$(git -C "$T/demo" rev-parse master)"
start=$(date +%s)
HEAD=$("$SRC/scripts/make-demo-tree" --push 15 "$T/demo")
WB=$(git -C "$T/demo" log --format=%H --grep "cap dirty memory" master)
PARENT=$(git -C "$T/demo" rev-parse "$WB^")
wait_for 30 head_is "$HEAD"
check $? "robotd sees the pushed head, 15 commits after v1.0"

# The bisection first, then the report.
bisection() { sql "SELECT id FROM bisections"; }
wait_for 600 sql_some "SELECT id FROM bisections" ||
	diag "no bisection in 600 s: $(sql "SELECT string_agg(left(base, 10) || '..' || left(head, 10) || ' ' || state || ' ' || coalesce(verdict, '-'), '; ') FROM pairs")"
found=$(date +%s)
B=$(bisection)
check $([ -n "$B" ] && mails "sys.exit(0 if not reports else 1)"; echo $?) \
	"the regression at the head is bisected, and nothing is mailed yet"
ended() { [ "$(sql "SELECT state FROM bisections WHERE id = ${B:-0}")" != running ]; }
wait_for 1500 ended
done_at=$(date +%s)
robot bisections "${B:-0}" >"$T/show.out" 2>&1
sed 's/^/# /' "$T/show.out"
check $([ "$(sql "SELECT state || ' ' || first_bad FROM bisections WHERE id = ${B:-0}")" = "bisected $WB" ]; echo $?) \
	"bisected on real runs to the writeback commit $(echo "$WB" | cut -c1-10) ($(sql "SELECT state || ' ' || coalesce(reason, '') FROM bisections WHERE id = ${B:-0}"))"
mids=$(sql "SELECT count(*) FROM bisect_steps WHERE bisection = ${B:-0} AND kind = 'mid'")
skips=$(sql "SELECT count(*) FROM bisect_steps WHERE bisection = ${B:-0} AND kind = 'mid' AND verdict = 'skip'")
check $([ $((mids - skips)) -le 4 ] &&
	[ "$(sql "SELECT verdict || ' ' || against FROM bisect_steps WHERE bisection = ${B:-0} AND kind = 'confirm'")" = "confirmed $PARENT" ]; echo $?) \
	"in $mids steps, $skips of them skipped (at most log2 16 = 4 decided), then confirmed against its parent"
runs=$(sql "SELECT count(*) FROM jobs WHERE pair IN (SELECT id FROM pairs WHERE bisection = ${B:-0})")
report_came() { mails "sys.exit(0 if reports else 1)"; }
wait_for 60 report_came
mailed=$(date +%s)
diag "measured: $mids steps + confirmation, $runs runs queued by the bisection, $((done_at - found)) s from the regression to the bisection's end, $((mailed - start)) s from the push to the mail"
check $(mails "
assert len(reports) == 1, [m['Subject'] for m in reports]
r = reports[0]
s, body = r['Subject'], text(r)
assert s.startswith('[robot] [demo:master] [mm/page-writeback] $(echo "$WB" | cut -c1-10): dd.write_bytes_per_sec -'), s
assert '$(echo "$HEAD" | cut -c1-10)' not in s, s
assert 'commit: $WB' in body and 'commit: $HEAD' not in body, body[:900]
assert 'parent: $PARENT' in body, body[:900]
assert 'found at $(echo "$HEAD" | cut -c1-10) (' in body, body[:900]
assert r['To'] == 'maintainer@robot.test'
"; echo $?) "one mail, after the bisection: it names the writeback commit against its parent, and where it was found"
mails "print(text(reports[0]))" 2>/dev/null | sed -n 1,30p | sed 's/^/#   /'
[ "${STUCK_RESET_DONE:-0}" = 0 ] || diag "the box changed under the test: reset ${STUCK_RESET_DONE} times (robot box reset)"
sanitizer_clean
exit $((failed > 0))
