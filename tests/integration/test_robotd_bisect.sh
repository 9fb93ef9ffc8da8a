#!/bin/sh
# test_robotd_bisect.sh ROBOTD ROBOT_BOX ROBOT SOURCE_DIR: robotd bisects
# the regressions it finds to their first bad commit.  Simulated boxes
# (simbox.py) upload results with a chosen shift per commit, so that the
# truth is known: a linear history of 16 commits (at most 4 steps and the
# confirmation), a noisy midpoint (more runs, then the right verdict),
# robotd killed -9 mid-bisection (it resumes and finishes once), ends that
# do not differ, and bad requests.  Merges, skipped midpoints and a range
# of 100,000 commits are test_robotd_bisect_more.sh's (run beside this
# one); their reports test_robotd_bisect_reports.sh's; the real box on
# the demo tree is test_robotd_bisect_box.sh.  TAP.
set -u
ROBOTD=$1 BOX=$2 ROBOT=$3 SRC=$4
. "$SRC/tests/integration/robotd_lib.sh"
. "$SRC/tests/integration/bisect_lib.sh"
echo "1..25"

# 1. Bad requests are refused with every fault, and need a token.
printf '{"series": "x y", "good": "a", "colour": 1}' >"$T/b1.json"
s1=$(api POST "$U/api/bisections" "$SUB" "$T/b1.json")
n1=$(py "d = j['details']; print(len(d), any('colour' in x for x in d), any('bad is missing' in x for x in d), any('series' in x for x in d))" 2>/dev/null)
printf '{"regression": 99}' >"$T/b2.json"
s2=$(api POST "$U/api/bisections" "$SUB" "$T/b2.json")
s3=$(api POST "$U/api/bisections" "" "$T/b2.json")
printf '{"regression": ' >"$T/b3.json"
s4=$(api POST "$U/api/bisections" "$SUB" "$T/b3.json")
printf '{"series": "%s", "good": "%s", "bad": "%s"}' "$SERIES" "$(sha g)" "$(sha b)" >"$T/b4.json"
s5=$(api POST "$U/api/bisections" "$SUB" "$T/b4.json")
m5=$(py "print('has no runs at' in j['error'])" 2>/dev/null)
s6=$(api GET "$U/api/bisections/7" "")
check $([ "$s1" = 400 ] && [ "$n1" = "3 True True True" ] && [ "$s2" = 404 ] && [ "$s3" = 401 ] &&
	[ "$s4" = 400 ] && [ "$s5" = 400 ] && [ "$m5" = True ] && [ "$s6" = 404 ] &&
	[ "$(sql "SELECT count(*) FROM bisections")" = 0 ]; echo $?) \
	"bad bisection requests refused, each with its reason ($s1 $n1 $s2 $s3 $s4 $s5 $m5 $s6)"
robot bisect --good x >"$T/cli1.out" 2>&1
rc1=$?
robot bisect --regression x >"$T/cli2.out" 2>&1
rc2=$?
check $([ $rc1 = 1 ] && grep -q "bad is missing" "$T/cli1.out" && [ $rc2 = 2 ] &&
	grep -q "regression's ID" "$T/cli2.out"; echo $?) \
	"robot bisect says what is wrong ($rc1 $rc2: $(head -1 "$T/cli1.out"))"

# 2. A linear history of 16 commits after v1.0, pushed at once; the 7th
# regresses dd.write_bytes_per_sec by 10%.  robotd finds the regression
# at the head, reports it and bisects it on its own.
repo lin
A=$(git -C "$T/lin" rev-parse v1.0)
commits lin 16 "lin" >"$T/lin.shas"
BAD=$(sed -n 7p "$T/lin.shas")
GOOD6=$(sed -n 6p "$T/lin.shas")
HEAD=$(tail -1 "$T/lin.shas")
shifts=$(sed -n '7,$p' "$T/lin.shas" | sed 's/$/=-10/' | tr '\n' ' ')
# A second a run: the bisection is still under way when robotd is
# killed below.
# shellcheck disable=SC2086
simbox s1 $shifts --noise=1 --seed=1 --delay=1
watch lin 6
wait_for 120 sql_some "SELECT id FROM bisections WHERE tree = 'lin'"
check $? "the regression at the head is bisected on its own ($(sql "SELECT string_agg(kind || ' ' || state || ' ' || coalesce(report::text, '-'), ', ') FROM regressions"))"
B=$(bisection_of lin)
# 3. robotd is killed -9 once the bisection is under way; started again,
# it resumes, and the bisection finishes once.
wait_for 120 sql_ge 2 "SELECT count(*) FROM bisect_steps WHERE bisection = $B AND kind = 'mid'"
kill9 "$PID_d"
simbox_stop s1
steps_before=$(steps_of "$B")
state_before=$(sql "SELECT state FROM bisections WHERE id = $B")
start_robotd d --config "$T/robotd.yaml" || diag "robotd did not start again"
U=$URL_d
# shellcheck disable=SC2086
simbox s1 $shifts --noise=1 --seed=11
wait_for 240 ended "$B"
check $([ "$state_before" = running ] && [ "$(sql "SELECT state || ' ' || first_bad FROM bisections WHERE id = $B")" = "bisected $BAD" ]; echo $?) \
	"killed -9 mid-bisection ($state_before) and started again, robotd finds the first bad commit ($(sql "SELECT state || ' ' || coalesce(first_bad, '-') || ' ' || coalesce(reason, '') FROM bisections WHERE id = $B")) BAD=$BAD"
diag "before the kill: $steps_before"
diag "steps: $(steps_of "$B")"
check $([ "$(mids "$B")" -le 4 ] &&
	[ "$(sql "SELECT count(*) FROM bisect_steps WHERE bisection = $B AND kind = 'confirm' AND verdict = 'confirmed' AND commit = '$BAD' AND against = '$GOOD6'")" = 1 ] &&
	grep -q "bisection $B: confirming $(echo "$BAD" | cut -c1-12) next (1 commit left)" "$T/d.log"; echo $?) \
	"at most 4 midpoints ($(mids "$B")) of 16 commits, then confirmed against its parent"
wait_for 30 mail_about lin
check $([ "$(sql "SELECT count(*) FROM bisect_steps WHERE bisection = $B")" = "$(sql "SELECT count(DISTINCT commit || kind) FROM bisect_steps WHERE bisection = $B")" ] &&
	[ "$(sql "SELECT count(*) FROM bisections")" = 1 ] &&
	[ "$(sql "SELECT count(*) FROM regression_events")" = 0 ] &&
	[ "$(sql "SELECT count(*) FROM reports")" = 1 ] &&
	[ "$(sql "SELECT (SELECT created FROM reports) >= (SELECT finished FROM bisections)")" = t ]; echo $?) \
	"it finished once: no step twice, one bisection; one report, after it ended, and no follow-up"
check $([ "$(sql "SELECT state || ' ' || culprit FROM regressions WHERE kind = 'regression' AND commit = '$HEAD'")" = "bisected $BAD" ] &&
	[ "$(sql "SELECT count(*) FROM regressions")" = 1 ]; echo $?) \
	"the regression says bisected, to the first bad commit; the steps' pairs recorded no regressions ($(sql "SELECT string_agg(state || ' ' || coalesce(culprit, '-'), ', ') FROM regressions"))"
check $(about lin "
assert len(m) == 1, [x['Subject'] for x in m]
s, body = m[0]['Subject'], text(m[0])
assert s.startswith('[robot] [lin:main] [lin] $(echo "$BAD" | cut -c1-10): dd.write_bytes_per_sec -'), s
assert '$(echo "$HEAD" | cut -c1-10)' not in s, s
assert 'commit: $BAD' in body and 'commit: $HEAD' not in body, body[:800]
assert 'parent: $GOOD6' in body, body[:800]
assert 'found at $(echo "$HEAD" | cut -c1-10) (\"lin: change 16\"), tested against $(echo "$A" | cut -c1-10); bisected in' in body, body[:800]
# its steps as robot bisections and the pages count them: the midpoints
mids = '$(sql "SELECT count(*) FROM bisect_steps WHERE bisection = $B AND kind = 'mid'")'
assert ('; bisected in %s step%s' % (mids, '' if mids == '1' else 's')) in body, (mids, body[:800])
assert 'Where it was found, the head against its base:' in body
import re
assert re.search(r'\s[0-9]+\+[0-9]+  regression   dd.write_bytes_per_sec', body), body[:1200]
assert to[0] == ['lin7@example.org', 'maint@robot.test'], to
"; echo $?) "one report, after the bisection: it names the first bad commit against its parent, where it was found, runs per side; to its author, not the head's"
about lin "print(text(m[0]))" | sed -n 1,24p | sed 's/^/#   /'

# A step measures its midpoint in rounds with the commits it is compared
# with: every run the bisection queued is in a round of the pair it was
# queued for, one run of each of the pair's commits (and, for a
# midpoint's first rounds, of the bad end too), on one box.
inbis="pair IN (SELECT id FROM pairs WHERE bisection = $B)"
runs=$(sql "SELECT count(DISTINCT commit) FROM jobs WHERE $inbis AND commit NOT IN ('$A', '$HEAD')")
odd=$(sql "SELECT count(*) FROM jobs j JOIN pairs p ON p.id = j.pair WHERE p.bisection = $B
	AND (j.round IS NULL OR NOT EXISTS (SELECT 1 FROM jobs x WHERE x.round = j.round AND x.commit = p.base)
	OR NOT EXISTS (SELECT 1 FROM jobs x WHERE x.round = j.round AND x.commit = p.head))")
split=$(sql "SELECT count(*) FROM (SELECT round FROM jobs WHERE $inbis AND state = 'done'
	GROUP BY round HAVING count(DISTINCT box) > 1 OR count(DISTINCT commit) <> count(*)) x")
check $([ "$runs" = "$(mids "$B")" ] && [ "$odd" = 0 ] && [ "$split" = 0 ]; echo $?) \
	"runs were queued on the midpoints ($runs commits), each in rounds with the commit it is compared with ($odd $split)"
robot bisections >"$T/list.out" 2>&1
robot bisections "$B" >"$T/show.out" 2>&1
check $(grep -q "^$B  *bisected .*$(echo "$BAD" | cut -c1-10)" "$T/list.out" &&
	grep -q "first bad commit: $(echo "$BAD" | cut -c1-10) (\"lin: change 7\")" "$T/show.out" &&
	grep -q "confirm .*confirmed" "$T/show.out"; echo $?) \
	"robot bisections lists it; robot bisections ID shows its steps"
sed 's/^/#   /' "$T/show.out"
robot regression "$(sql "SELECT id FROM regressions")" >"$T/reg.out" 2>&1
robot regressions >"$T/regs.out" 2>&1
s=$(api GET "$U/api/regressions" "")
check $(grep -q "^commit  $BAD (\"lin: change 7\")" "$T/reg.out" &&
	grep -q "^found   at $HEAD" "$T/reg.out" &&
	grep -q " $(echo "$BAD" | cut -c1-12) .* $(echo "$HEAD" | cut -c1-10) " "$T/regs.out" &&
	[ "$(py "print(j['regressions'][0]['culprit'] == '$BAD', j['regressions'][0]['commit'] == '$HEAD')")" = "True True" ]; echo $?) \
	"robot regression, robot regressions and /api/regressions name the first bad commit, and the head beside it"
curl -s "$U/regressions/$(sql "SELECT id FROM regressions")" >"$T/reg.html"
curl -s "$U/" >"$T/home.html"
curl -s "$U/series/$SERIES/history?metric=dd.write_bytes_per_sec" >"$T/hist.html"
check $(grep -q "regression -[0-9.]*%: $(echo "$BAD" | cut -c1-12), found at $(echo "$HEAD" | cut -c1-12)" "$T/hist.html"; echo $?) \
	"the history page marks the regression at the first bad commit, found at the head"
check $(grep -q "<title>$(echo "$BAD" | cut -c1-10): dd.write_bytes_per_sec" "$T/reg.html" &&
	grep -q "found at <a href=\"/commits/$HEAD\"><code title=\"$HEAD\">" "$T/home.html" &&
	grep -q "<code title=\"$BAD\">" "$T/home.html"; echo $?) \
	"the regression page's title and the home page lead with the first bad commit ($(grep -o '<title>[^<]*' "$T/reg.html" | head -1))"
simbox_stop s1

# 6. A noisy midpoint: a bad commit three times as noisy as its series,
# whose first three runs lie 0.4, 1.3 and 0.4 of the way from good to
# bad, so that no look at 3 runs can call it (on the series' noise they
# are between the ends; on their own, too few); more runs, then the right
# verdict.  Its first run is two of its own spreads off, not three: a
# first run 0.1 of the way (9% off) was called "like good" at one round
# in CI, when the series' history (6 degrees of freedom) put its noise 4
# times too low, a chance of about 4% that the test made come some day,
# and of 1 in 740 times that for a commit's first run (bench/sim_bisect
# steps --noise 1 --change 10 --noisier 3: 0.09% of steps wrong).
repo noi
commits noi 8 "noi" >"$T/noi.shas"
NHEAD=$(tail -1 "$T/noi.shas")
NMID=$(git -C "$T/noi" rev-list --bisect "$NHEAD" --not v1.0)
NBAD=$(sed -n 3p "$T/noi.shas")
nshifts="$(sed -n '3,$p' "$T/noi.shas" | sed 's/$/=-10/' | tr '\n' ' ') $NMID=-10~3@6,-3,6"
# shellcheck disable=SC2086
simbox s4 $nshifts --noise=1 --seed=4
watch noi 12
wait_for 60 sql_some "SELECT id FROM bisections WHERE tree = 'noi'"
N=$(bisection_of noi)
wait_for 300 ended "$N"
diag "steps: $(steps_of "$N")"
nruns=$(sql "SELECT count(*) FROM jobs WHERE commit = '$NMID' AND state = 'done'")
check $([ "$(sql "SELECT verdict FROM bisect_steps WHERE bisection = ${N:-0} AND commit = '$NMID' AND kind = 'mid'")" = bad ] &&
	[ "$nruns" -gt 3 ] &&
	[ "$(sql "SELECT state || ' ' || first_bad FROM bisections WHERE id = ${N:-0}")" = "bisected $NBAD" ]; echo $?) \
	"a noisy midpoint gets more runs ($nruns), then its right verdict, and the commit is found ($(sql "SELECT state || ' ' || coalesce(first_bad, '-') || ': ' || coalesce(reason, '') FROM bisections WHERE id = ${N:-0}"); its step: $(sql "SELECT verdict || ': ' || reason FROM bisect_steps WHERE bisection = ${N:-0} AND commit = '$NMID' AND kind = 'mid'"))"
simbox_stop s4

# 7. By hand: robot bisect --series --good --bad (names resolved in the
# tree), on ends that do not differ: it says so and stops.
# shellcheck disable=SC2086
simbox s5 $shifts --noise=1 --seed=5
robot bisect --series "$SERIES" --tree noi --good v1.0 --bad "$(sed -n 2p "$T/noi.shas" | cut -c1-12)" --wait >"$T/same.out" 2>&1
rc=$?
check $([ $rc = 1 ] && grep -q "started" "$T/same.out" && grep -q "failed: the ends do not differ" "$T/same.out"; echo $?) \
	"ends that do not differ: the bisection says so and stops ($rc: $(tail -1 "$T/same.out"))"
sed 's/^/#   /' "$T/same.out"
# The same by hand on the linear tree's ends: robot bisect --wait prints
# each step and the first bad commit (its steps measured in rounds of
# their own, by the box that knows the linear tree's truth).
robot bisect --series "$SERIES" --tree lin --good "$A" --bad "$GOOD6" >/dev/null 2>&1
robot bisect --series "$SERIES" --tree lin --good "$A" --bad "$BAD" --wait >"$T/hand.out" 2>&1
rc=$?
check $([ $rc = 0 ] && grep -q "first bad commit: $(echo "$BAD" | cut -c1-10)" "$T/hand.out"; echo $?) \
	"robot bisect --wait by hand finds it too ($rc: $(tail -2 "$T/hand.out" | head -1))"
sed 's/^/#   /' "$T/hand.out"
simbox_stop s5

# 8. A tree that does not bisect.
repo off
commits off 4 "off" >"$T/off.shas"
simbox s6 "$(sed -n 2p "$T/off.shas")=-10" "$(sed -n 3p "$T/off.shas")=-10" "$(sed -n 4p "$T/off.shas")=-10" --noise=1 --seed=6
AS=$ADMIN robot tree add off --url "$T/off" --branch main --base v1.0 \
	--job "$T/dd.yaml" --tbox-group lab --runs 3 --max-runs 6 --poll 300 --bisect no >/dev/null
wait_for 90 sql_some "SELECT report FROM regressions WHERE tree = 'off'"
wait_for 20 mail_about off
check $([ "$(sql "SELECT count(*) FROM bisections WHERE tree = 'off'")" = 0 ] &&
	AS=$ADMIN robot tree show off | grep -q "not bisected"; echo $?) \
	"a tree with --bisect no has its regression reported, not bisected"
check $(about off "
assert len(m) == 1, [x['Subject'] for x in m]
s, body = m[0]['Subject'], text(m[0])
assert s.startswith('[robot] [off:main] $(git -C "$T/off" rev-parse v1.0 | cut -c1-10)..$(tail -1 "$T/off.shas" | cut -c1-10) (4 commits): dd.write_bytes_per_sec -'), s
assert 'The commit at fault is not known' in body and 'Reported-by' not in body, body[:900]
assert 'off: change 1' in body and 'off: change 4' in body
assert to[0] == ['maint@robot.test'], to
"; echo $?) "not bisected: the report is about the range, lists its commits, mails no author"
simbox_stop s6


# 9. The same ends again are the running bisection; one cancels it, and
# its queued runs go (1 round of its first step, robot_bisect_first():
# good, midpoint, bad).
# (No box runs now: the step's runs wait.)
OFFHEAD=$(tail -1 "$T/off.shas")
printf '{"series": "%s", "good": "%s", "bad": "%s", "tree": "off"}' "$SERIES" "$(git -C "$T/off" rev-parse v1.0)" "$OFFHEAD" >"$T/b5.json"
s1=$(api POST "$U/api/bisections" "$SUB" "$T/b5.json")
id1=$(py "print(j['id'])")
s2=$(api POST "$U/api/bisections" "$SUB" "$T/b5.json")
r2=$(py "print(j['id'], j.get('running'))")
wait_for 30 sql_is 2 "SELECT count(*) FROM bisect_steps WHERE bisection = $id1"
queued=$(sql "SELECT count(*) FROM jobs WHERE state = 'queued'")
# Another's token may cancel neither the bisection nor its runs; and a
# token has at most 10 bisections running (9 more held by hand, claimed
# so that robotd leaves them be).
BOB=$(token submit bob)
b1=$(api POST "$U/api/bisections/$id1/cancel" "$BOB")
printf '{"series": "%s"}' "$SERIES" >"$T/cs.json"
b2=$(api POST "$U/api/jobs/cancel" "$BOB" "$T/cs.json")
sql "INSERT INTO bisections (tree, series, kpi, change, good, bad, goods, bad_now, runs, max_runs, started_by, claimed_until)
	SELECT tree, series, kpi, change, 'cap' || g, bad, goods, bad_now, runs, max_runs, started_by, now() + interval '1 hour'
	FROM bisections, generate_series(1, 9) g WHERE id = $id1" >/dev/null
printf '{"series": "%s", "good": "%s", "bad": "%s", "tree": "off"}' "$SERIES" "$(sed -n 1p "$T/off.shas")" "$OFFHEAD" >"$T/b6.json"
b3=$(api POST "$U/api/bisections" "$SUB" "$T/b6.json")
grep -q "has 10 bisections running" "$T/body"
b4=$?
sql "DELETE FROM bisections WHERE good LIKE 'cap%'" >/dev/null
check $([ "$b1" = 403 ] && [ "$b2" = 403 ] && [ "$b3" = 429 ] && [ $b4 = 0 ] &&
	[ "$(sql "SELECT count(*) FROM jobs WHERE state = 'queued'")" = "$queued" ]; echo $?) \
	"another's token cancels neither the bisection nor its runs; 10 running bisections a token ($b1 $b2 $b3)"
robot bisect --cancel "$id1" >"$T/cancel.out" 2>&1
c1=$?
c2=$(api POST "$U/api/bisections/$id1/cancel" "$SUB")
check $([ "$s1" = 200 ] && [ "$s2" = 200 ] && [ "$r2" = "$id1 True" ] && [ "$queued" = 3 ] && [ $c1 = 0 ] && [ "$c2" = 404 ] &&
	[ "$(sql "SELECT state FROM bisections WHERE id = $id1")" = cancelled ] &&
	[ "$(sql "SELECT count(*) FROM jobs WHERE state = 'queued'")" = 0 ]; echo $?) \
	"the same ends again are the running bisection; robot bisect --cancel stops it and its $queued queued runs ($s1 $s2 $r2 $c1 $c2)"
# The cancelled bisection's pairs ended with no ok run.  Started again,
# with a box: its midpoints are measured anew, not skipped for the runs
# that were cancelled.
wait_for 30 sql_is 0 "SELECT count(*) FROM pairs WHERE bisection = $id1 AND state <> 'final'"
simbox s6 "$(sed -n 2p "$T/off.shas")=-10" "$(sed -n 3p "$T/off.shas")=-10" "$(sed -n 4p "$T/off.shas")=-10" --noise=1 --seed=6
s3=$(api POST "$U/api/bisections" "$SUB" "$T/b5.json")
id2=$(py "print(j['id'])")
wait_for 120 ended "$id2"
diag "steps: $(steps_of "$id2")"
check $([ "$s3" = 200 ] && [ "$id2" != "$id1" ] &&
	[ "$(sql "SELECT state || ' ' || first_bad FROM bisections WHERE id = $id2")" = "bisected $(sed -n 2p "$T/off.shas")" ] &&
	[ "$(sql "SELECT count(*) FROM bisect_steps WHERE bisection = $id2 AND verdict = 'skip'")" = 0 ]; echo $?) \
	"started again after a cancel, the bisection measures its midpoints anew and finds the commit ($(sql "SELECT state || ' ' || coalesce(reason, '') FROM bisections WHERE id = ${id2:-0}"))"
simbox_stop s6

# 10. /api/regressions/:id carries the bisection; the JSON of a bisection
# has every step with its pairs.
s=$(api GET "$U/api/regressions/$(sql "SELECT id FROM regressions WHERE tree = 'lin'")" "")
check $([ "$s" = 200 ] && [ "$(py "b = j['bisection']; print(j['culprit']['sha'] == b['first_bad']['sha'], len(b['steps']) >= 3, all(s['good_pair'] for s in b['steps']))")" = "True True True" ]; echo $?) \
	"the regression's JSON has its bisection with every step"
s=$(api GET "$U/api/bisections/$B" "")
check $([ "$s" = 200 ] && [ "$(py "print(j['state'], j['steps'][0]['kind'], j['steps'][-1]['kind'], j['first_bad']['subject'])")" = "bisected ends confirm lin: change 7" ]; echo $?) \
	"GET /api/bisections/ID: the ends, the midpoints, the confirmation"
check $(grep -q "bisection $B: testing [0-9a-f]* next" "$T/d.log" && grep -q "bisection $B bisected: " "$T/d.log"; echo $?) \
	"robotd logs the steps and the end"

sanitizer_clean
exit $((failed > 0))
