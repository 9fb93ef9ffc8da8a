#!/bin/sh
# test_robotd_bisect_reports.sh ROBOTD ROBOT_BOX ROBOT SOURCE_DIR: the
# reports of what robotd bisects, on simulated boxes (simbox.py) with a
# chosen shift per commit: two series bisected to one commit in one
# report and one follow-up, a push of one commit reported at once, the
# range reported first past report_bisect_wait, and an improvement
# bisected and reported to who asks.  The bisections themselves are
# test_robotd_bisect.sh's.  TAP.
set -u
ROBOTD=$1 BOX=$2 ROBOT=$3 SRC=$4
. "$SRC/tests/integration/robotd_lib.sh"
. "$SRC/tests/integration/bisect_lib.sh"
echo "1..7"

# 12. Two series that regress at one commit, in one push: one report
# names it and lists both.
repo two
commits two 4 "two" >"$T/two.shas"
# The later head that still shows it, made now (its SHA is the simulated
# box's), on a branch robotd does not watch; main moves to it later.
git -C "$T/two" checkout -q -b later
commits two 1 "two-still" still.c >"$T/two.still"
git -C "$T/two" checkout -q main
TSTILL=$(cat "$T/two.still")
sed 's/^  bs: 1M$/  bs:\n  - 1M\n  - 4k/' "$T/dd.yaml" >"$T/two.yaml"
TBAD=$(sed -n 3p "$T/two.shas")
simbox s8 "$TBAD=-10" "$(sed -n 4p "$T/two.shas")=-10" "$TSTILL=-10" --noise=1 --seed=8
watch two 6 "$T/two.yaml"
wait_for 180 mail_about two
sleep 2
check $(about two "
assert len(m) == 1, [x['Subject'] for x in m]
s, body = m[0]['Subject'], text(m[0])
assert s.startswith('[robot] [two:main] [two] $(echo "$TBAD" | cut -c1-10): dd.write_bytes_per_sec -') and s.endswith(' regression and 1 more'), s
assert 'dd-write/1M-' in body and 'dd-write/4k-' in body
assert to[0] == ['maint@robot.test', 'two3@example.org'], to
" && [ "$(sql "SELECT count(*) FROM bisections WHERE tree = 'two'")" = 2 ]; echo $?) \
	"two series bisected to one commit: one report lists both"
# A later head that still shows it, then one back at the base's level:
# each one follow-up in the report's thread (to its recipients) that
# tells of both series, and the regressions are fixed by the second.
# replies N: N follow-ups of the tree came, each to its two recipients.
replies() { mails "sys.exit(0 if sum(m['Subject'].startswith('Re: [robot] [two:') for f, m in mails) >= 2 * $1 else 1)"; }
git -C "$T/two" merge -q --ff-only later
fetch_now two
wait_for 180 replies 1
commits two 1 "two-fix" fix.c >>"$T/two.shas"
fetch_now two
TFIX=$(tail -1 "$T/two.shas")
wait_for 180 replies 2
sleep 3
check $(about two "
first = m[0]
r = {}
for f, x in mails:
    if x['Subject'].startswith('Re: [robot] [two:'):
        r.setdefault(x['Message-ID'], []).append(x)
assert len(r) == 2, [x['Subject'] for f, x in mails]
still, fix = r.values()
for x in still + fix:
    assert x['In-Reply-To'] == first['Message-ID'] and x['References'] == first['Message-ID'], (x['In-Reply-To'], x['References'])
    assert x['Subject'] == 'Re: ' + first['Subject'], x['Subject']
for replies in still, fix:
    assert sorted(x['To'] for x in replies) == to[0], [x['To'] for x in replies]
for replies, what in (still, 'is still there at $(echo "$TSTILL" | cut -c1-10)'), (fix, 'is fixed at $(echo "$TFIX" | cut -c1-10)'):
    body = text(replies[0])
    assert body.count(what) == 2, body
    assert 'dd-write/1M-' in body and 'dd-write/4k-' in body, body
" && [ "$(sql "SELECT string_agg(state || ' ' || last_head || ' ' || fixed_by, ',') FROM regressions WHERE tree = 'two'")" = \
	"fixed $TSTILL $TFIX,fixed $TSTILL $TFIX" ]; echo $?) \
	"a head that still shows both, then their fix: each one follow-up in the thread that tells of both ($(sql "SELECT string_agg(state || ' ' || left(coalesce(last_head, '-'), 10) || ' ' || left(coalesce(fixed_by, '-'), 10), ',') FROM regressions WHERE tree = 'two'"))"
simbox_stop s8

# 13. A push of one commit is reported at once, not bisected.
repo one
commits one 1 "one" >"$T/one.shas"
simbox s9 "$(cat "$T/one.shas")=-10" --noise=1 --seed=9
watch one 6
wait_for 90 mail_about one
check $(about one "
assert len(m) == 1 and m[0]['Subject'].startswith('[robot] [one:main] [one] $(cut -c1-10 "$T/one.shas"): '), [x['Subject'] for x in m]
assert 'base: ' in text(m[0]) and 'found at' not in text(m[0])
" && [ "$(sql "SELECT count(*) FROM bisections WHERE tree = 'one'")" = 0 ]; echo $?) \
	"a one-commit push: reported at once, naming its commit"
simbox_stop s9

# 14. The deadline: with report_bisect_wait 2 s, a slow bisection's
# range is reported first ("still running"), then the first bad commit
# as a report of its own in that thread.
config 2
kill -HUP "$PID_d"
wait_for 10 grep -q "SIGHUP: reloaded" "$T/d.log"
repo late
commits late 6 "late" >"$T/late.shas"
LBAD=$(sed -n 2p "$T/late.shas")
# shellcheck disable=SC2086
simbox s10 $(sed -n '2,$p' "$T/late.shas" | sed 's/$/=-10/' | tr '\n' ' ') --noise=1 --seed=10 --delay=1
watch late 6
wait_for 240 sh -c "[ \"\$(grep -ls '^Subject: \[robot\] \[late:' '$T'/mail/new/* | wc -l)\" -ge 2 ]"
check $(about late "
assert len(m) == 2, [x['Subject'] for x in m]
r, c = m
assert ' (6 commits): ' in r['Subject'], r['Subject']
assert 'is still running' in text(r), text(r)[:900]
assert to == [['maint@robot.test'], ['late2@example.org', 'maint@robot.test']], to
assert c['Subject'].startswith('[robot] [late:main] [late] $(echo "$LBAD" | cut -c1-10): '), c['Subject']
assert c['In-Reply-To'] == r['Message-ID'], (c['In-Reply-To'], r['Message-ID'])
assert 'commit: $LBAD' in text(c) and 'Reported-by' in text(c)
"; echo $?) "past report_bisect_wait: the range first, then the first bad commit in its thread"
simbox_stop s10
config
kill -HUP "$PID_d"

# 15. An improvement is bisected the same way, and reported to those who
# ask for improvements (not to the job's mail_to, nor to its author).
AS=$ADMIN robot subscribe imp@robot.test --tree imp --improvements --no-regressions >/dev/null 2>&1
wait_for 20 mail_to imp@robot.test
curl -s -o /dev/null "$(mails "
for f, m in mails:
    if m['To'] == 'imp@robot.test':
        print([l.strip() for l in text(m).splitlines() if '/subscriptions/confirm?t=' in l][0])")"
repo imp
commits imp 4 "imp" >"$T/imp.shas"
IGOOD=$(sed -n 2p "$T/imp.shas")
# shellcheck disable=SC2086
simbox s11 $(sed -n '2,$p' "$T/imp.shas" | sed 's/$/=+10/' | tr '\n' ' ') --noise=1 --seed=11
watch imp 6
wait_for 180 mail_about imp
check $(about imp "
assert len(m) == 1, [x['Subject'] for x in m]
s = m[0]['Subject']
assert s.startswith('[robot] [imp:main] [imp] $(echo "$IGOOD" | cut -c1-10): dd.write_bytes_per_sec +') and s.endswith(' improvement'), s
assert to[0] == ['imp@robot.test'], to
" && [ "$(sql "SELECT change || ' ' || state || ' ' || first_bad FROM bisections WHERE tree = 'imp'")" = "improvement bisected $IGOOD" ]; echo $?) \
	"an improvement is bisected to the commit that brought it, and reported to who asks ($(sql "SELECT change || ' ' || state || ' ' || coalesce(reason, '') FROM bisections WHERE tree = 'imp'"))"
simbox_stop s11

# 17. The midpoint is a head measured before, to the cap: its pair with
# the good end (the head's own, reused) gets no runs from the bisection,
# and its pair with the bad end is unsure at 3 runs.  The bisection asks
# more runs of the side that can have them, instead of skipping the
# commit "at the most runs" (the quickstart's innocent commit, which once
# failed its bisection so).  REU1's first six runs scatter (+10, -2,
# ...: its head pair ends inconclusive at 6 rounds), its next three
# scatter wider (+30, -20, 0: the pair with REU2 is unsure at 3 runs),
# then 1% noise.
repo reu
commits reu 1 "reu" >"$T/reu.shas"
REU1=$(sed -n 1p "$T/reu.shas")
# The bad commit, made now (its SHA is the simulated box's), on a branch
# robotd does not watch; main moves to it later.
git -C "$T/reu" checkout -q -b later
commits reu 1 "reu-bad" >>"$T/reu.shas"
REU2=$(sed -n 2p "$T/reu.shas")
git -C "$T/reu" checkout -q main
[ "$(git -C "$T/reu" rev-list --bisect "$REU2" --not v1.0)" = "$REU1" ] || diag "the midpoint is not REU1: the test proves nothing"
simbox s12 "$REU1=0~1@10,-2,10,-2,10,-2,30,-20,0" "$REU2=-50" --noise=1 --seed=12
watch reu 6
head_pair() { [ "$(sql "SELECT state || ' ' || (comparison->>'rounds') FROM pairs WHERE head = '$REU1' AND bisection IS NULL")" = "final 6" ]; }
wait_for 120 head_pair
diag "the head pair: $(sql "SELECT state || ' ' || verdict || ' ' || (comparison->>'rounds') FROM pairs WHERE head = '$REU1'")"
git -C "$T/reu" merge -q --ff-only later
fetch_now reu
wait_for 60 sql_some "SELECT id FROM bisections WHERE tree = 'reu'"
RB=$(bisection_of reu)
wait_for 240 ended "$RB"
diag "steps: $(steps_of "$RB")"
check $([ "$(sql "SELECT state || ' ' || first_bad FROM bisections WHERE id = ${RB:-0}")" = "bisected $REU2" ] &&
	[ "$(sql "SELECT verdict FROM bisect_steps WHERE bisection = ${RB:-0} AND commit = '$REU1' AND kind = 'mid'")" = good ]; echo $?) \
	"a midpoint measured to the cap as a head gets more runs on its other side, not skipped ($(sql "SELECT state || ' ' || coalesce(first_bad, '-') || ' ' || coalesce(reason, '') FROM bisections WHERE id = ${RB:-0}"))"
simbox_stop s12

sanitizer_clean
exit $((failed > 0))
