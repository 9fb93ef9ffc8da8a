#!/bin/sh
# test_robotd_bisect_follow.sh ROBOTD ROBOT_BOX ROBOT SOURCE_DIR: one
# bisection for several series (docs/bisect.md, "Several series").  A
# job of two series (ext4 and xfs) regresses 10% at the fifth of eight
# commits pushed at once: one series' bisection walks the range, the
# other's follows it and only confirms its first bad commit against its
# parent; both regressions name that commit, and one report mails them.
# A follower whose lead fails bisects on its own.  Simulated boxes with a
# known truth.  TAP.
set -u
ROBOTD=$1 BOX=$2 ROBOT=$3 SRC=$4
. "$SRC/tests/integration/robotd_lib.sh"
. "$SRC/tests/integration/bisect_lib.sh"
echo "1..9"

cat >"$T/two.yaml" <<'YAML'
suite: dd-write
testcase: dd-write
disk: 1LOOP_64M
fs: [ext4, xfs]
nr_threads: 1dd
runtime: 1s
mail_to: maint@robot.test
dd:
  bs: 1M
YAML
EXT4=dd-write/1M-1LOOP_64M-ext4-1dd-1s/lab
XFS=dd-write/1M-1LOOP_64M-xfs-1dd-1s/lab

# 1. Eight commits at once, the fifth 10% slower on both filesystems.
repo two
commits two 8 "two" >"$T/two.shas"
BAD=$(sed -n 5p "$T/two.shas")
HEAD=$(tail -1 "$T/two.shas")
shifts=$(sed -n '5,$p' "$T/two.shas" | sed 's/$/=-10/' | tr '\n' ' ')
# shellcheck disable=SC2086
simbox s1 $shifts --noise=1 --seed=1
watch two 10 "$T/two.yaml"
both() { [ "$(sql "SELECT count(*) FROM bisections WHERE tree = 'two' AND state <> 'running'")" = 2 ]; }
wait_for 240 both
check $? "both series' bisections end ($(sql "SELECT string_agg(series || ' ' || state || ' ' || coalesce(lead::text, '-'), ', ' ORDER BY id) FROM bisections"))"
lead=$(sql "SELECT id FROM bisections WHERE tree = 'two' AND lead IS NULL")
follower=$(sql "SELECT id FROM bisections WHERE tree = 'two' AND lead IS NOT NULL")
lseries=$(sql "SELECT series FROM bisections WHERE id = ${lead:-0}")
fseries=$(sql "SELECT series FROM bisections WHERE id = ${follower:-0}")
diag "lead ($lseries): $(steps_of "${lead:-0}")"
diag "follower ($fseries): $(steps_of "${follower:-0}")"
check $([ -n "$lead" ] && [ -n "$follower" ] &&
	[ "$(sql "SELECT lead FROM bisections WHERE id = $follower")" = "$lead" ] &&
	# (its steps: the confirm alone; or, had it begun as the lead until
	# the clearer regression took the lead, before any midpoint, its
	# ends too: docs/bisect.md, "Several series")
	case "$(sql "SELECT string_agg(kind, ' ' ORDER BY n) FROM bisect_steps WHERE bisection = $follower")" in
	confirm | "ends confirm") true ;; *) false ;; esac &&
	[ "$(sql "SELECT count(*) FROM bisect_steps WHERE bisection = $lead AND kind = 'mid'")" -ge 2 ]; echo $?) \
	"one series' bisection walks the range; the other follows it with one confirm step"
check $([ "$(sql "SELECT string_agg(state || ' ' || first_bad, ',') FROM bisections WHERE tree = 'two'")" = "bisected $BAD,bisected $BAD" ] &&
	[ "$(sql "SELECT count(*) FROM regressions WHERE tree = 'two' AND culprit = '$BAD'")" = "$(sql "SELECT count(*) FROM regressions WHERE tree = 'two'")" ]; echo $?) \
	"both find the fifth commit, and every regression of the range names it"
# The follower's series ran only the head's pair, and the culprit and
# its parent in the confirm step's rounds.
parent=$(sed -n 4p "$T/two.shas")
others=$(sql "SELECT count(*) FROM jobs WHERE series = '$fseries' AND commit NOT IN ('$BAD', '$parent', '$HEAD', (SELECT good FROM bisections WHERE id = ${follower:-0}))")
check $([ "$others" = 0 ]; echo $?) \
	"the follower's series ran no midpoint: only the culprit and its parent ($others other runs)"
wait_for 60 mail_about two
check $(about two "
assert len(m) == 1, [x['Subject'] for x in m]
body = text(m[0])
assert '$(echo "$BAD" | cut -c1-10)' in m[0]['Subject'], m[0]['Subject']
assert '$EXT4' in body and '$XFS' in body, body[:600]"; echo $?) \
	"one report names the fifth commit with both series"
ROBOT_SERVER=$U "$ROBOT" bisections "$follower" >"$T/show.out" 2>&1
check $(grep -q "follows bisection $lead" "$T/show.out" &&
	curl -s "$U/bisections/$follower" | grep -q "It follows <a href=\"/bisections/$lead\">"; echo $?) \
	"robot bisections and the bisection page say whom the follower follows"
simbox_stop s1

# 2. A follower whose lead is cancelled bisects on its own.
repo thr
commits thr 8 "thr" >"$T/thr.shas"
TBAD=$(sed -n 3p "$T/thr.shas")
shifts=$(sed -n '3,$p' "$T/thr.shas" | sed 's/$/=-10/' | tr '\n' ' ')
# (a second a run: the lead is still walking when it is cancelled)
# shellcheck disable=SC2086
simbox s2 $shifts --noise=1 --seed=2 --delay=1
watch thr 10 "$T/two.yaml"
followed() { [ -n "$(sql "SELECT id FROM bisections WHERE tree = 'thr' AND lead IS NOT NULL")" ]; }
wait_for 240 followed
tlead=$(sql "SELECT lead FROM bisections WHERE tree = 'thr' AND lead IS NOT NULL")
tfollower=$(sql "SELECT id FROM bisections WHERE tree = 'thr' AND lead IS NOT NULL")
AS=$ADMIN robot bisect --cancel "${tlead:-0}" >/dev/null 2>&1
own() { [ "$(sql "SELECT state FROM bisections WHERE id = ${tfollower:-0}")" != running ]; }
wait_for 240 own
diag "follower: $(steps_of "${tfollower:-0}")"
check $([ -n "$tfollower" ] &&
	[ "$(sql "SELECT state || ' ' || coalesce(first_bad, '-') || ' ' || coalesce(lead::text, '-') FROM bisections WHERE id = $tfollower")" = "bisected $TBAD -" ] &&
	[ "$(sql "SELECT count(*) FROM bisect_steps WHERE bisection = $tfollower AND kind = 'mid'")" -ge 1 ]; echo $?) \
	"a follower whose lead was cancelled bisects its range on its own ($(sql "SELECT state || ' ' || coalesce(first_bad, '-') FROM bisections WHERE id = ${tfollower:-0}"))"
simbox_stop s2

# 3. Two series' changes of one range recorded at the same moment (their
# head pairs analysed side by side, in two transactions): the second
# waits for the first's bisection, and follows it, instead of walking
# the range again.  The first's transaction is held open 3 s, its
# bisection claimed for a minute (robotd's walker would else end it
# before the second looks: its ends do not differ).
GOOD=$(sql "SELECT good FROM bisections WHERE id = ${lead:-0}")
ins() { # SERIES P: an improvement of the range (GOOD, HEAD] in SERIES
	printf "INSERT INTO regressions (kind, tree, branch, commit, base, series, kpi, change_pct, p_value, runs, base_runs, head_runs, last_head, pair) VALUES ('improvement', 'two', 'main', '%s', '%s', '%s', 'dd.write_bytes_per_sec', 10, %s, 3, 3, 3, '%s', (SELECT min(id) FROM pairs WHERE series = '%s' AND base = '%s' AND head = '%s'));" \
		"$HEAD" "$GOOD" "$1" "$2" "$HEAD" "$1" "$GOOD" "$HEAD"
}
sql_own "BEGIN; $(ins "$EXT4" 1e-6) UPDATE bisections SET claimed_until = now() + interval '1 minute' WHERE change = 'improvement'; SELECT pg_sleep(3); COMMIT;" >/dev/null 2>"$T/race1.err" &
r1=$!
sleep 1
sql_own "$(ins "$XFS" 1e-3)" >/dev/null 2>"$T/race2.err"
wait $r1
race=$(sql "SELECT string_agg(series || ' ' || coalesce(lead::text, '-'), ', ' ORDER BY id) FROM bisections WHERE change = 'improvement'")
rlead=$(sql "SELECT id FROM bisections WHERE change = 'improvement' AND series = '$EXT4'")
check $([ -n "$rlead" ] && [ "$(sql "SELECT lead FROM bisections WHERE change = 'improvement' AND series = '$XFS'")" = "$rlead" ]; echo $?) \
	"two series' changes of one range recorded at once: one bisection walks it, the other follows ($race)"
for i in $(sql "SELECT id FROM bisections WHERE change = 'improvement' AND state = 'running'"); do
	AS=$ADMIN robot bisect --cancel "$i" >/dev/null 2>&1
done
sanitizer_clean
exit $((failed > 0))
