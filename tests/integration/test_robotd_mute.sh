#!/bin/sh
# test_robotd_mute.sh ROBOTD ROBOT_BOX ROBOT SOURCE_DIR: muting
# (docs/reports.md, "Muting").  A muted series', metric's or box's
# findings are recorded and shown as muted, and not mailed; another
# series' are; a reply's "#robot mute: 7d" mutes its finding's series;
# ended early, a mute's findings not reported yet are reported; expired,
# a lab note says so.  Simulated boxes make the findings, a real SMTP
# server takes the mail.  TAP.
set -u
ROBOTD=$1 BOX=$2 ROBOT=$3 SRC=$4
. "$SRC/tests/integration/robotd_lib.sh"

smtp_start
robotd_up "lease_seconds: 60
analysis_claim: 5
max_runs: 10
smtp: smtp://127.0.0.1:$(cat "$T/smtp.port")
mail_from: robot@robot.test
report_window: 0"
SUB=$(token submit alice)
TRIAGER=$(token triage jack)
echo "1..10"

# job BS: a dd job of block size BS (a series of its own), mailed to
# jack.
job() {
	printf 'suite: dd-write\ntestcase: dd-write\ndisk: 1LOOP_64M\nfs: ext4\nnr_threads: 1dd\nruntime: 1s\nmail_to: jack@robot.test\ndd:\n  bs: %s\n' "$1" >"$T/dd$1.yaml"
}
job 1M
job 4M
job 16M
S1=dd-write/1M-1LOOP_64M-ext4-1dd-1s/lab
S4=dd-write/4M-1LOOP_64M-ext4-1dd-1s/lab
BASE=$(sha base)
for c in a b c d e; do eval "C_$c=\$(sha $c)"; done
simbox s1 "$C_a=-30" "$C_b=-30" "$C_c=-30" "$C_d=-30" "$C_e=-30" --noise=1 --seed=1
mute() { ROBOT_SERVER=$U ROBOT_TOKEN=$TRIAGER "$ROBOT" mute "$@"; }
submit() { api POST "$U/api/jobs?tbox_group=lab&repeat=3&commit=$BASE&commit=$2" "$SUB" "$T/dd$1.yaml" >/dev/null; }
final() { [ "$(sql "SELECT count(*) FROM regressions WHERE commit = '$1'")" -ge 1 ] &&
	[ "$(sql "SELECT count(*) FROM pairs WHERE head = '$1' AND state <> 'final'")" = 0 ]; }
reported() { report_for "$1"; }

# 1. The 1M series muted: its finding is recorded, muted, not mailed; the
# 4M series' is mailed.
mute series "$S1" --for 30d --reason "the 1M job is being reworked" >"$T/mute1.out" 2>&1
rc=$?
submit 1M "$C_a"
submit 4M "$C_b"
wait_for 120 final "$C_a"
wait_for 120 reported "$C_b"
sleep 3
ra=$(sql "SELECT id FROM regressions WHERE commit = '$C_a'")
check $([ $rc = 0 ] && grep -q "mute 1: series $S1 until .* (the 1M job is being reworked); 0 findings muted" "$T/mute1.out" &&
	[ "$(sql "SELECT muted_by || ' ' || state || ' ' || (report IS NULL) FROM regressions WHERE id = $ra")" = "1 new true" ] &&
	! report_for "$C_a"; echo $?) \
	"a muted series' finding is recorded, muted, not mailed; another series' is mailed ($rc; $(cat "$T/mute1.out"))"
ROBOT_SERVER=$U "$ROBOT" regression "$ra" >"$T/reg.out" 2>&1
s=$(api GET "$U/regressions/$ra" "")
check $(grep -q "^muted   by mute 1, series $S1 (the 1M job is being reworked), until " "$T/reg.out" &&
	[ "$s" = 200 ] && grep -q "muted, not mailed: mute 1 of series $S1 (the 1M job is being reworked)" "$T/body"; echo $?) \
	"robot regression and the page show it muted ($s)"

# 2. Ended early: its finding not reported yet is reported now.
ROBOT_SERVER=$U ROBOT_TOKEN=$TRIAGER "$ROBOT" unmute 1 >"$T/unmute.out" 2>&1
rc=$?
wait_for 60 reported "$C_a"
check $([ $rc = 0 ] && report_for "$C_a" && grep -q "mute 1 ended: series $S1" "$T/unmute.out" &&
	[ "$(sql "SELECT muted_by IS NULL FROM regressions WHERE id = $ra")" = t ]; echo $?) \
	"robot unmute ends it: the finding it held is reported ($rc)"

# 3. A metric glob and a box: a finding matches each.
mute metric 'dd.write_*' --for 2h --reason "the writeback rework" >/dev/null 2>&1
submit 16M "$C_c"
wait_for 120 final "$C_c"
m2=$(sql "SELECT m.kind || ':' || m.pattern FROM regressions r JOIN mutes m ON m.id = r.muted_by WHERE r.commit = '$C_c'")
ROBOT_SERVER=$U ROBOT_TOKEN=$TRIAGER "$ROBOT" unmute 2 >/dev/null 2>&1
mute box s1 --for 1w --reason "s1's controller" >/dev/null 2>&1
submit 4M "$C_d"
wait_for 120 final "$C_d"
m3=$(sql "SELECT m.kind || ':' || m.pattern FROM regressions r JOIN mutes m ON m.id = r.muted_by WHERE r.commit = '$C_d'")
check $([ "$m2" = "metric:dd.write_*" ] && [ "$m3" = "box:s1" ] && ! report_for "$C_d"; echo $?) \
	"a metric glob and a box mute the findings they match ($m2 $m3)"
ROBOT_SERVER=$U ROBOT_TOKEN=$TRIAGER "$ROBOT" unmute 3 >/dev/null 2>&1

# 4. Bad mutes: refused with why.
mute planet x --for 1d --reason r >"$T/b1.out" 2>&1; b1=$?
mute series x --for forever --reason r >"$T/b2.out" 2>&1; b2=$?
mute series x --for 1d >"$T/b3.out" 2>&1; b3=$?
printf '{"kind": "series", "pattern": "x", "for": "400d", "reason": "r"}' >"$T/m.json"
s1=$(api POST "$U/api/mutes" "$TRIAGER" "$T/m.json")
s2=$(api POST "$U/api/mutes" "$SUB" "$T/m.json")
printf '{"kind": "series", "pattern": "x\\u0007", "for": "1d", "reason": "r"}' >"$T/m.json"
s3=$(api POST "$U/api/mutes" "$TRIAGER" "$T/m.json")
s4=$(api POST "$U/api/mutes/999/end" "$TRIAGER" "")
printf 'mute it all' >"$T/m.json"
s5=$(api POST "$U/api/mutes" "$TRIAGER" "$T/m.json")
check $([ "$b1 $b2 $b3" = "2 2 2" ] && grep -q "mute what: series, metric or box" "$T/b1.out" &&
	grep -q -- "--for wants how long" "$T/b2.out" && grep -q -- "--reason wants why" "$T/b3.out" &&
	[ "$s1 $s2 $s3 $s4 $s5" = "400 403 400 404 400" ] && [ "$(sql "SELECT count(*) FROM mutes")" = 3 ]; echo $?) \
	"bad mutes are refused with why, nothing made ($b1 $b2 $b3; $s1 $s2 $s3 $s4 $s5)"

# 5. A reply's "#robot mute: 7d WHY" mutes its finding's series.
rb=$(sql "SELECT id FROM regressions WHERE commit = '$C_b'")
RJ=$(mails "
for m in reports:
    if '$(echo "$C_b" | cut -c1-10):' in m['Subject']:
        print(m['Reply-To'].addresses[0].addr_spec)")
printf 'From: jack@robot.test\nTo: %s\nMessage-ID: <mute1@client.test>\nSubject: Re: x\n\n#robot mute: 7d a known slowdown, reworked next week\n' "$RJ" >"$T/reply"
ROBOT_SERVER=$U "$ROBOT" mail-in <"$T/reply" >"$T/in.out" 2>&1
rc=$?
check $([ $rc = 0 ] && [ "$(sql "SELECT kind || ' ' || pattern || ' ' || reason || ' ' || how || ' ' || (expires > now() + interval '6 days') FROM mutes ORDER BY id DESC LIMIT 1")" = \
	"series $S4 a known slowdown, reworked next week mail true" ] &&
	[ "$(sql "SELECT muted_by IS NOT NULL FROM regressions WHERE id = $rb")" = t ] &&
	[ "$(sql "SELECT action || ' ' || detail FROM triage_events WHERE regression = $rb ORDER BY id DESC LIMIT 1")" = "mute 7d: a known slowdown, reworked next week" ]; echo $?) \
	"a reply's #robot mute: 7d mutes its finding's series, and the finding ($rc)"

# 6. The same kind and pattern muted again: one mute, its end moved.
mute series "$S4" --for 30d --reason "longer" >/dev/null 2>&1
check $([ "$(sql "SELECT count(*) || ' ' || bool_and(expires > now() + interval '29 days') FROM mutes WHERE pattern = '$S4' AND ended IS NULL")" = "1 true" ]; echo $?) \
	"muted again: the same mute, until the later end"

# 7. Expired: a lab note says so, once.
sql "UPDATE mutes SET expires = now() - interval '1 second' WHERE pattern = '$S4'" >/dev/null
noted() { [ "$(sql "SELECT count(*) FROM lab_notes WHERE kind = 'mute'")" = 1 ]; }
wait_for 30 noted
rc=$?
sleep 2
check $([ $rc = 0 ] && [ "$(sql "SELECT count(*) FROM lab_notes WHERE kind = 'mute'")" = 1 ] &&
	[ "$(sql "SELECT message FROM lab_notes WHERE kind = 'mute'")" = \
		"the mute of series $S4 (longer, by jack@robot.test) expired: its findings from now on are mailed" ]; echo $?) \
	"an expired mute says so in a lab note, once ($(sql "SELECT message FROM lab_notes WHERE kind = 'mute'"))"

# 8. robot mutes lists them.
ROBOT_SERVER=$U "$ROBOT" mutes >"$T/mutes.out" 2>&1
check $(grep -q "^1 .*series .*$S1 .*(ended)" "$T/mutes.out" && grep -q "(expired)" "$T/mutes.out" &&
	grep -q "dd.write_\*" "$T/mutes.out"; echo $?) "robot mutes lists them, ended and expired"
sed 's/^/# /' "$T/mutes.out"

touch "$T/stop-s1"; simbox_stop s1
sanitizer_clean
exit $((failed > 0))
