#!/bin/sh
# test_robotd_triage.sh ROBOTD ROBOT_BOX ROBOT SOURCE_DIR: what
# maintainers say of a finding (docs/reports.md, "Triage"): the triage
# commands through the API and robot triage, who may give them, each an
# event shown on the page and by robot regression, the list filtered by
# triage, and bad commands refused with nothing changed.  A simulated box
# makes the findings.  TAP output.
set -u
ROBOTD=$1 BOX=$2 ROBOT=$3 SRC=$4
. "$SRC/tests/integration/robotd_lib.sh"

robotd_up "lease_seconds: 60
analysis_claim: 5
max_runs: 10"
ALICE=$(token submit alice)
MALLORY=$(token submit mallory)
TRIAGER=$(token triage jack)
echo "1..14"

dd_job "$T/dd.yaml"
BASE=$(sha base) BAD=$(sha bad) BAD2=$(sha bad2)
simbox s1 "$BAD=-10" "$BAD2=-12" --noise=1 --seed=1
s=$(api POST "$U/api/jobs?tbox_group=lab&repeat=3&commit=$BASE&commit=$BAD&commit=$BAD2" "$ALICE" "$T/dd.yaml")
two() { [ "$(sql "SELECT count(*) FROM regressions")" = 2 ] &&
	[ "$(sql "SELECT count(*) FROM pairs WHERE state <> 'final'")" = 0 ]; }
wait_for 90 two
R1=$(sql "SELECT id FROM regressions WHERE commit = '$BAD'")
R2=$(sql "SELECT id FROM regressions WHERE commit = '$BAD2'")
check $([ "$s" = 201 ] && [ -n "$R1" ] && [ -n "$R2" ] &&
	[ "$(sql "SELECT string_agg(DISTINCT triage, ' ') FROM regressions")" = untriaged ]; echo $?) \
	"two findings, untriaged ($s; $R1 $R2)"

# triage ID COMMAND [TOKEN]: the API's status, its answer in $T/body.
triage() {
	/usr/bin/python3 -c "import json, sys; print(json.dumps({'command': sys.argv[1]}))" "$2" >"$T/cmd.json"
	api POST "$U/api/regressions/$1/triage" "${3:-$TRIAGER}" "$T/cmd.json"
}

# 1. Through the API, a triage token: each command, each an event.
s1=$(triage "$R1" "#robot ack: Jan Kara <jack@suse.cz>")
a1=$(py "print(j['triage'], j['assignee'])")
s2=$(triage "$R1" "link: https://bugzilla.kernel.org/show_bug.cgi?id=1")
s3=$(triage "$R1" "tag: xfs, writeback")
s4=$(triage "$R1" "tag: raid xfs")
t4=$(py "print(','.join(j['tags']))")
s5=$(triage "$R1" "note: bisected by hand as well")
check $([ "$s1 $s2 $s3 $s4 $s5" = "200 200 200 200 200" ] && [ "$a1" = "acknowledged Jan Kara <jack@suse.cz>" ] &&
	[ "$t4" = "raid,writeback,xfs" ] &&
	[ "$(sql "SELECT triage || ' ' || bug_url FROM regressions WHERE id = $R1")" = "acknowledged https://bugzilla.kernel.org/show_bug.cgi?id=1" ] &&
	[ "$(sql "SELECT string_agg(action || '/' || by_name || '/' || how, ' ' ORDER BY id) FROM triage_events WHERE regression = $R1")" = \
		"ack/jack/api link/jack/api tag/jack/api tag/jack/api note/jack/api" ]; echo $?) \
	"a triage token acknowledges, links, tags and notes: each an event ($s1 $s2 $s3 $s4 $s5; $a1; $t4)"

# 2. invalid closes it (no more news mailed), untriage opens it again.
s1=$(triage "$R1" "#robot invalid: box: the RAID controller changed its cache mode")
st1=$(sql "SELECT triage || ' ' || triage_reason || ' ' || state || ' ' || triage_text FROM regressions WHERE id = $R1")
s2=$(triage "$R1" "untriage")
st2=$(sql "SELECT triage || ' ' || coalesce(triage_reason, '-') || ' ' || state FROM regressions WHERE id = $R1")
check $([ "$s1 $s2" = "200 200" ] && [ "$st1" = "invalid box invalid the RAID controller changed its cache mode" ] &&
	[ "$st2" = "untriaged - new" ]; echo $?) \
	"invalid: box: closes the finding with its reason; untriage opens it again ($st1; $st2)"

# 3. Who may: a submitter its own runs' findings, no one else's; a box
# token none; no token, 401.
s1=$(triage "$R2" "wontfix: the old number was a bug in the test" "$MALLORY")
e1=$(cat "$T/body")
s2=$(triage "$R2" "wontfix: the old number was a bug in the test" "$ALICE")
s3=$(triage "$R2" "ack" "$(token box b9)")
s4=$(api POST "$U/api/regressions/$R2/triage" "" "$T/cmd.json")
check $([ "$s1" = 403 ] && echo "$e1" | grep -q "only alice, a triage or an admin token may change it" &&
	[ "$s2" = 200 ] && [ "$s3" = 403 ] && [ "$s4" = 401 ] &&
	[ "$(sql "SELECT triage || ' ' || triage_text FROM regressions WHERE id = $R2")" = "wontfix the old number was a bug in the test" ]; echo $?) \
	"a submitter triages its own runs' findings, not another's; a box token and no token may not ($s1 $s2 $s3 $s4)"

# 4. dup-of and fixed-by.
s1=$(triage "$R2" "dup-of: $U/regressions/$R1")
d1=$(py "print(j['triage'], j['duplicate_of'])")
s2=$(triage "$R1" "fixed-by: 0123456789AB")
d2=$(py "print(j['triage'], j['fix_claimed'])")
check $([ "$s1 $s2" = "200 200" ] && [ "$d1" = "duplicate $R1" ] && [ "$d2" = "fixed 0123456789ab" ]; echo $?) \
	"dup-of a finding's URL, fixed-by a commit ($d1; $d2)"

# 5. Bad commands: refused with why, nothing changed.
before=$(sql "SELECT count(*) FROM triage_events")
b1=$(triage "$R1" "snooze: 30d"); m1=$(cat "$T/body")
b2=$(triage "$R1" "dup-of: $R1"); m2=$(cat "$T/body")
b3=$(triage "$R1" "dup-of: 999999"); m3=$(cat "$T/body")
b4=$(triage "$R1" "fixed-by: HEAD~1"); m4=$(cat "$T/body")
b5=$(triage 999999 "ack")
printf '{"command": 12}' >"$T/bad.json"
b6=$(api POST "$U/api/regressions/$R1/triage" "$TRIAGER" "$T/bad.json")
printf '{"command": "ack", "how": "mail"}' >"$T/bad.json"
b7=$(api POST "$U/api/regressions/$R1/triage" "$TRIAGER" "$T/bad.json")
printf 'ack' >"$T/bad.json"
b8=$(api POST "$U/api/regressions/$R1/triage" "$TRIAGER" "$T/bad.json")
check $([ "$b1 $b2 $b3 $b4 $b5 $b6 $b7 $b8" = "400 400 400 400 404 400 400 400" ] &&
	echo "$m1" | grep -q "no command 'snooze'" && echo "$m2" | grep -q "dup-of: $R1 is no other finding" &&
	echo "$m3" | grep -q "dup-of: 999999 is no other finding" && echo "$m4" | grep -q "fixed-by wants a commit" &&
	[ "$(sql "SELECT count(*) FROM triage_events")" = "$before" ] &&
	[ "$(sql "SELECT triage FROM regressions WHERE id = $R1")" = fixed ]; echo $?) \
	"bad commands refused with why, nothing changed ($b1 $b2 $b3 $b4 $b5 $b6 $b7 $b8)"

# 6. robot triage, robot regression and robot regressions --triage.
ROBOT_SERVER=$U ROBOT_TOKEN=$TRIAGER "$ROBOT" triage "$R1" invalid: noise: a 1% box at 10%? >"$T/cli1.out" 2>&1
rc1=$?
ROBOT_SERVER=$U ROBOT_TOKEN=$TRIAGER "$ROBOT" triage "$R1" snooze: 30d >"$T/cli2.out" 2>&1
rc2=$?
ROBOT_SERVER=$U ROBOT_TOKEN=$TRIAGER "$ROBOT" triage 999999 ack >"$T/cli3.out" 2>&1
rc3=$?
check $([ $rc1 = 0 ] && grep -q "regression $R1: invalid (noise): a 1% box at 10%?" "$T/cli1.out" &&
	[ $rc2 = 2 ] && grep -q "no command 'snooze'" "$T/cli2.out" && [ $rc3 = 1 ] &&
	[ "$(sql "SELECT how FROM triage_events ORDER BY id DESC LIMIT 1")" = cli ]; echo $?) \
	"robot triage says what it did, refuses a bad command before robotd, fails on a finding of none ($rc1 $rc2 $rc3)"
sed 's/^/# /' "$T/cli3.out"
ROBOT_SERVER=$U "$ROBOT" regression "$R1" >"$T/reg.out" 2>&1
ROBOT_SERVER=$U "$ROBOT" regressions --triage duplicate >"$T/regs.out" 2>&1
ROBOT_SERVER=$U "$ROBOT" regressions --triage bogus >"$T/regs2.out" 2>&1
rc=$?
check $(grep -q "^triage  invalid (noise): a 1% box at 10%?, assignee Jan Kara <jack@suse.cz>, fixed by 0123456789ab (not measured yet), bug https://bugzilla.kernel.org/show_bug.cgi?id=1" "$T/reg.out" &&
	grep -q " jack (cli): invalid noise: a 1% box at 10%?" "$T/reg.out" &&
	[ "$(grep -c "^$R2 " "$T/regs.out")" = 1 ] && [ "$(grep -c "^$R1 " "$T/regs.out")" = 0 ] &&
	[ $rc = 1 ] && grep -q "triage is untriaged, acknowledged" "$T/regs2.out"; echo $?) \
	"robot regression shows the triage and what was said; regressions --triage filters ($rc)"
sed 's/^/# /' "$T/reg.out" | grep -A12 "^# triage"

# 7. The page shows it, escaped.
s1=$(triage "$R2" "note: <script>alert(1)</script>")
s=$(api GET "$U/regressions/$R2" "")
check $([ "$s1 $s" = "200 200" ] && grep -q "<h2>Triage</h2>" "$T/body" &&
	grep -q "a duplicate of <a href=\"/regressions/$R1\">regression $R1</a>" "$T/body" &&
	grep -q "note &lt;script&gt;alert(1)&lt;/script&gt;, by jack (api)" "$T/body" &&
	! grep -q "<script>alert" "$T/body"; echo $?) \
	"the regression page shows its triage and what was said, escaped ($s1 $s)"

# 8. The old way, POST /api/regressions/ID {"state": "invalid"}, is
# triage too.
printf '{"state": "invalid"}' >"$T/st.json"
s=$(api POST "$U/api/regressions/$R2" "$ALICE" "$T/st.json")
check $([ "$s" = 200 ] && [ "$(sql "SELECT state || ' ' || triage || ' ' || triage_reason FROM regressions WHERE id = $R2")" = "invalid invalid other" ] &&
	[ "$(sql "SELECT action || ' ' || how FROM triage_events WHERE regression = $R2 ORDER BY id DESC LIMIT 1")" = "invalid api" ]; echo $?) \
	"the state API's invalid is triage's invalid, an event ($s)"

# 9. What the answers teach: a finding marked invalid for its box
# counts against the box that ran it; the second in 30 days makes the
# box suspect (box_false_alarms: 2), with a note for the operators, and
# the lab page counts them.
s1=$(triage "$R1" "invalid: box: s1's disk cache was off")
st1=$(sql "SELECT coalesce(suspect::text, 'no') FROM boxes WHERE name = 's1'")
n1=$(sql "SELECT count(*) FROM box_false_alarms WHERE box = 's1'")
s2=$(triage "$R2" "invalid: box: the same box")
st2=$(sql "SELECT suspect IS NOT NULL FROM boxes WHERE name = 's1'")
note=$(sql "SELECT message FROM lab_notes WHERE kind = 'suspect' AND boxes = '{s1}'")
s=$(api GET "$U/lab" "")
check $([ "$s1 $s2 $s" = "200 200 200" ] && [ "$st1" = no ] && [ "$n1" = 1 ] && [ "$st2" = t ] &&
	echo "$note" | grep -q "box s1 is suspect: 2 findings it ran were marked invalid for their box in 30 days (regressions $R2, $R1\|regressions $R1, $R2)" &&
	grep -q "false alarms</th>" "$T/body" &&
	api GET "$U/api/status" "" >/dev/null && py "assert [b['false_alarms'] for b in j['boxes'] if b['name'] == 's1'] == [2], j['boxes']"; echo $?) \
	"two findings invalid for their box make the box suspect, with a note; the lab counts them ($st1 $n1 $st2; $note)"

# 10. The page's form, driven in Chromium as a maintainer drives it:
# sign in with the triage token, acknowledge, then type a command.
# Posted from elsewhere, or with no one signed in, it changes nothing.
s1=$(sql "UPDATE regressions SET triage = 'untriaged' WHERE id = $R2 RETURNING id")
/usr/bin/python3 - "$SRC/tests/integration" "$U" "$T" "$TRIAGER" "$R2" >"$T/chrome.out" 2>&1 <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from browser import Browser
u, t, token, rid = sys.argv[2:6]
with Browser(t) as b:
    p = b.page(1200, 1600)
    p.goto(u + "/signin")
    p.type('input[name="token"]', token)
    p.click('form[action="/signin"] button[type="submit"]')
    assert p.url().rstrip("/") == u, (p.url(), p.text("main"))
    p.goto(u + "/regressions/" + rid)
    p.click('input[value="ack"] + button')
    assert p.url() == u + "/regressions/" + rid, p.url()
    assert "acknowledged" in p.text(".triage"), p.text(".triage")
    p.type('input[name="command"]', "tag: chromium, page")
    p.click('label + button')
    text = p.text("main")
    assert "tags chromium page" in text, text
    assert "tag chromium,page, by jack (page)" in text, text
print("ok")
PY
rc=$?
printf 'command=ack' >"$T/form"
f1=$(curl -s -o "$T/body" -w '%{http_code}' -X POST -H "Origin: http://evil.test" -H "Cookie: robot_token=$TRIAGER" --data-binary @"$T/form" "$U/regressions/$R2/triage")
f2=$(curl -s -o "$T/body" -w '%{http_code}' -X POST --data-binary @"$T/form" "$U/regressions/$R2/triage")
f3=$(curl -s -o "$T/body" -w '%{http_code}' -X POST -H "Cookie: robot_token=$(token box b7)" --data-binary @"$T/form" "$U/regressions/$R2/triage")
printf 'command=snooze' >"$T/form"
f4=$(curl -s -o "$T/body" -w '%{http_code}' -X POST -H "Cookie: robot_token=$TRIAGER" --data-binary @"$T/form" "$U/regressions/$R2/triage")
check $([ $rc = 0 ] && [ "$f1 $f2 $f3 $f4" = "403 403 403 400" ] &&
	[ "$(sql "SELECT string_agg(action, ' ' ORDER BY id) FROM triage_events WHERE regression = $R2 AND how = 'page'")" = "ack tag" ]; echo $?) \
	"the page's form in Chromium: signed in, it acknowledges and takes a command; from elsewhere, unsigned, a box or a bad command, nothing ($rc; $f1 $f2 $f3 $f4)"
sed 's/^/# /' "$T/chrome.out" | head -20

# 11. A token of kind triage is made as the others.
"$ROBOTD" --config "$T/robotd.yaml" token create --kind nosuch --name x >"$T/tok.out" 2>&1
rc=$?
check $([ $rc = 2 ] && grep -q "submit|box|admin|triage" "$T/tok.out"; echo $?) \
	"robotd token create names the kinds, triage among them ($rc)"

touch "$T/stop-s1"; simbox_stop s1
sanitizer_clean
exit $((failed > 0))
