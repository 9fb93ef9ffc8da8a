#!/bin/sh
# test_robotd_enroll.sh ROBOTD ROBOT_BOX ROBOT SOURCE_DIR: a box joins the
# lab with a one-time code and leaves it when revoked (issue 56):
# `robotd box enroll NAME` prints a code that `robot-box enroll URL CODE`
# trades for the box's own token (kept 0600), once and before it
# expires; `robot-box serve` then needs no other flag; `robot box
# revoke` ends the box's lease at once (its run requeued, the attempt
# not counted), its token stops at the next request with a 401 that says
# what to do, a late upload is refused, and the pages say "revoked";
# enrolled again, it works again.  Admin and submit tokens are listed and
# revoked by `robot token`, and a second robotd on the database forgets a
# revoked token it had cached.  Malformed enrollments get clear errors.
# TAP.
set -u
ROBOTD=$1 BOX=$2 ROBOT=$3 SRC=$4
. "$SRC/tests/integration/robotd_lib.sh"
echo "1..19"

robotd_up ""
enroll() { "$ROBOTD" --config "$T/robotd.yaml" box enroll "$@"; }

# 1. The command's errors: no name, a bad name, a bad or too long life.
enroll >"$T/e1.out" 2>&1
r1=$?
enroll 'b 1' >"$T/e2.out" 2>&1
r2=$?
enroll b1 --expires 2w >"$T/e3.out" 2>&1
r3=$?
enroll b1 --expires 8d >"$T/e4.out" 2>&1
r4=$?
check $([ $r1 = 2 ] && grep -q "box enroll wants the box's NAME" "$T/e1.out" &&
	[ $r2 = 2 ] && grep -q "the box's name 'b 1'" "$T/e2.out" &&
	[ $r3 = 2 ] && grep -q -- "--expires '2w' has an unknown unit" "$T/e3.out" &&
	[ $r4 = 2 ] && grep -q -- "--expires '8d' is longer than a week" "$T/e4.out"; echo $?) \
	"robotd box enroll: a missing or bad name, or a bad --expires, exits 2 saying which ($r1 $r2 $r3 $r4)"

# 2. A code: printed once on stdout, what to do with it on stderr; the
# database keeps its hash only.
CODE=$(enroll b1 --group lab 2>"$T/code.err")
rc=$?
check $([ $rc = 0 ] && echo "$CODE" | grep -qE '^rbe_[0-9a-f]{48}$' &&
	grep -q "box b1 (group lab): on the box, before .* UTC, run" "$T/code.err" &&
	grep -q "robot-box enroll URL $CODE" "$T/code.err" &&
	sql_is 1 "SELECT count(*) FROM enrollments WHERE name = 'b1' AND tbox_group = 'lab'" &&
	sql_is 0 "SELECT count(*) FROM enrollments WHERE hash::text LIKE '%$(echo "$CODE" | cut -c5-20)%'"; echo $?) \
	"robotd box enroll prints a one-time code and how to use it; only its hash is stored"

# 3. Malformed enrollments: each a clear 4xx, and nothing made.
printf 'not json' >"$T/b1.json"
s1=$(api POST "$U/api/enroll" "" "$T/b1.json")
m1=$(cat "$T/body")
printf '{"code": 5}' >"$T/b2.json"
s2=$(api POST "$U/api/enroll" "" "$T/b2.json")
printf '{"code": "%s", "name": "x"}' "$CODE" >"$T/b3.json"
s3=$(api POST "$U/api/enroll" "" "$T/b3.json")
printf '{"code": "rbe_%s"}' "0123456789abcdef0123456789abcdef0123456789abcdef" >"$T/b4.json"
s4=$(api POST "$U/api/enroll" "" "$T/b4.json")
m4=$(cat "$T/body")
printf '{"code": "rbt_nothex!"}' >"$T/b5.json"
s5=$(api POST "$U/api/enroll" "" "$T/b5.json")
check $([ "$s1" = 400 ] && echo "$m1" | grep -q 'the body is {\\"code\\": CODE}' &&
	[ "$s2" = 400 ] && [ "$s3" = 400 ] &&
	[ "$s4" = 401 ] && echo "$m4" | grep -q "unknown enrollment code: ask robotd's operator for one" &&
	[ "$s5" = 401 ] && sql_is 0 "SELECT count(*) FROM enrollments WHERE used IS NOT NULL" &&
	sql_is 0 "SELECT count(*) FROM tokens WHERE kind = 'box'"; echo $?) \
	"malformed enrollments: 400 (not JSON, not a code, other keys), 401 (an unknown code); nothing traded ($s1 $s2 $s3 $s4 $s5)"

# 4. robot-box enroll trades it: the token 0600 in the workdir, and what
# serve needs in enrolled.json.
cat >"$T/b1.yaml" <<YAML
name: somethingelse
workdir: $T/b1
ram_disk_limit: 1G
settle: 0
YAML
"$BOX" enroll "$U" "$CODE" --config "$T/b1.yaml" >"$T/en.out" 2>&1
rc=$?
check $([ $rc = 0 ] && grep -q "enrolled as box b1 (group lab) with $U; its token is in $T/b1/token" "$T/en.out" &&
	[ "$(stat -c %a "$T/b1/token")" = 600 ] && grep -qE '^rbt_[0-9a-f]{48}$' "$T/b1/token" &&
	/usr/bin/python3 -c "
import json; j = json.load(open('$T/b1/enrolled.json'))
assert j == {'server': '$U', 'name': 'b1', 'tbox_group': 'lab', 'token_file': '$T/b1/token'}, j" &&
	sql_is 1 "SELECT count(*) FROM enrollments WHERE used IS NOT NULL AND token IS NOT NULL"; echo $?) \
	"robot-box enroll URL CODE keeps the box's token mode 0600 and robotd's URL, name and group"
TOK1=$(cat "$T/b1/token")

# 5. A code is good once, and not after it expired.
"$BOX" enroll "$U" "$CODE" --config "$T/b1.yaml" --token-file "$T/again.token" >"$T/en2.out" 2>&1
r1=$?
SHORT=$(enroll b2 --expires 1s 2>/dev/null)
sleep 2
"$BOX" enroll "$U" "$SHORT" --config "$T/b1.yaml" --token-file "$T/late.token" >"$T/en3.out" 2>&1
r2=$?
check $([ $r1 = 1 ] && grep -q "robotd refused the enrollment: this enrollment code was used at .* UTC: a code is good once; ask robotd's operator for a new one (robotd box enroll b1)" "$T/en2.out" &&
	[ $r2 = 1 ] && grep -q "this enrollment code expired at .* UTC: ask robotd's operator for a new one (robotd box enroll b2)" "$T/en3.out" &&
	[ ! -e "$T/again.token" ] && [ ! -e "$T/late.token" ] && [ "$(cat "$T/b1/token")" = "$TOK1" ]; echo $?) \
	"a used code and an expired code are refused, saying so; the box's token is left as it was ($r1 $r2)"

# 6. robot-box serve with nothing but its config: the enrolled name,
# group, URL and token (its config's name is another).
"$BOX" serve --config "$T/b1.yaml" >"$T/b1.log" 2>&1 &
BPID=$!
PIDS="$PIDS $BPID"
wait_for 30 grep -q "registered b1 (tbox_group lab)" "$T/b1.log"
check $(grep -q "registered b1 (tbox_group lab) with $U" "$T/b1.log" &&
	grep -q "box b1 of group lab, as enrolled ($T/b1.yaml says somethingelse of somethingelse)" "$T/b1.log" &&
	sql_is lab "SELECT tbox_group FROM boxes WHERE name = 'b1'"; echo $?) \
	"robot-box serve --config FILE works as the enrolled box, with no other flag"
stop "$BPID"

# 7. robot token list: the box's token among them, marked enrolled, and
# never a token itself.
SUB=$(token submit alice)
robot token list >"$T/list.out" 2>&1
rc=$?
robot token list --json >"$T/body" 2>&1
check $([ $rc = 0 ] && grep -qE "^[0-9]+ +box +b1 .*  \(enrolled\)$" "$T/list.out" &&
	grep -qE "^[0-9]+ +submit +alice " "$T/list.out" && ! grep -q "rbt_" "$T/list.out" &&
	py "
kinds = sorted((t['kind'], t['name'], t['enrolled'], t['revoked']) for t in j['tokens'])
assert kinds == [('admin', 'root', False, None), ('box', 'b1', True, None), ('submit', 'alice', False, None)], kinds
assert 'rbt_' not in json.dumps(j)"; echo $?) \
	"robot token list: every token's id, kind and name, the enrolled box's marked; no token shown"

# 8. Revoked with a lease in hand: the lease ends at once, its run is
# queued again with the attempt not counted, and robot says so.
dd_job "$T/dd.yaml"
s=$(api POST "$U/api/jobs?tbox_group=lab" "$SUB" "$T/dd.yaml")
JOB=$(py "print(j['jobs'][0]['id'])" 2>/dev/null)
s2=$(api POST "$U/api/boxes/b1/lease?wait=0" "$TOK1")
LEASE=$(py "print(j['lease'])" 2>/dev/null)
robot box revoke b1 >"$T/rev.out" 2>&1
rc=$?
check $([ "$s" = 201 ] && [ "$s2" = 200 ] && [ $rc = 0 ] &&
	grep -q "box b1 revoked: 1 token(s) revoked, 1 lease(s) ended and their runs requeued" "$T/rev.out" &&
	sql_is revoked "SELECT state FROM leases WHERE id = ${LEASE:-0}" &&
	sql_is "queued 0 " "SELECT state || ' ' || attempts || ' ' || coalesce(box, '') FROM jobs WHERE id = ${JOB:-0}"; echo $?) \
	"robot box revoke: the box's lease ends at once, its run back in the queue, the attempt not counted ($s $s2 $rc)"

# 9. Its token stops at the next request, saying what to do; a late
# heartbeat and a late upload are refused, so nothing counts twice.
s1=$(api POST "$U/api/leases/${LEASE:-0}/heartbeat" "$TOK1")
m1=$(cat "$T/body")
printf '{"key": "x"}' >"$T/late.json"
s2=$(api POST "$U/api/leases/${LEASE:-0}/result" "$TOK1" "$T/late.json")
s3=$(api POST "$U/api/boxes/b1/register" "$TOK1" "$T/b2.json")
check $([ "$s1" = 401 ] && echo "$m1" | grep -q "box b1's token was revoked (.* UTC): enroll the box again (robotd box enroll b1 on robotd's host, then robot-box enroll URL CODE on the box)" &&
	[ "$s2" = 401 ] && [ "$s3" = 401 ] &&
	sql_is 0 "SELECT count(*) FROM results WHERE lease = ${LEASE:-0}"; echo $?) \
	"a revoked box's token gets a 401 at its next request that says what to do; its late upload is refused ($s1 $s2 $s3)"

# 10. The real box, started again, stops with that message.
"$BOX" serve --config "$T/b1.yaml" >"$T/b1b.log" 2>&1
rc=$?
check $([ $rc = 1 ] && grep -q "box b1's token was revoked" "$T/b1b.log"; echo $?) \
	"robot-box serve with a revoked token stops (exit $rc), saying it was revoked and how to enroll again"

# 11. The pages and the API say revoked.
s1=$(api GET "$U/api/boxes/b1" "")
py "assert j['state'] == 'revoked' and j['revoked'], j" 2>/dev/null
r1=$?
s2=$(api GET "$U/boxes/b1" "")
grep -q '<td class="state-new">revoked</td>' "$T/body"
r2=$?
s3=$(api GET "$U/lab" "")
grep -q '<td class="state-new">revoked</td>' "$T/body"
r3=$?
check $([ "$s1" = 200 ] && [ $r1 = 0 ] && [ "$s2" = 200 ] && [ $r2 = 0 ] && [ "$s3" = 200 ] && [ $r3 = 0 ]; echo $?) \
	"the box's page, its JSON twin and the lab page show the box as revoked ($s1/$r1 $s2/$r2 $s3/$r3)"

# 12. Enrolled again, it is the lab's again; the old token stays revoked.
CODE2=$(enroll b1 --group lab 2>/dev/null)
"$BOX" enroll "$U" "$CODE2" --config "$T/b1.yaml" >"$T/en4.out" 2>&1
rc=$?
TOK2=$(cat "$T/b1/token")
s1=$(api POST "$U/api/boxes/b1/lease?wait=0" "$TOK2")
s2=$(api POST "$U/api/boxes/b1/lease?wait=0" "$TOK1")
check $([ $rc = 0 ] && [ "$TOK2" != "$TOK1" ] && [ "$s1" = 200 ] && [ "$s2" = 401 ] &&
	sql_is idle-or-busy "SELECT CASE WHEN revoked IS NULL THEN 'idle-or-busy' END FROM boxes WHERE name = 'b1'"; echo $?) \
	"enrolled again, the box takes work with its new token; the old one stays revoked ($rc $s1 $s2)"

# 13. What enroll kept, damaged: serve stops at once and says so.
mkdir -p "$T/b3"
printf 'workdir: %s/b3\n' "$T" >"$T/b3.yaml"
printf '{"server": "%s", "name": ' "$U" >"$T/b3/enrolled.json"
"$BOX" serve --config "$T/b3.yaml" >"$T/b3.log" 2>&1
r1=$?
printf '{"server": "%s", "name": "b3", "tbox_group": "lab"}' "$U" >"$T/b3/enrolled.json"
"$BOX" serve --config "$T/b3.yaml" >"$T/b3b.log" 2>&1
r2=$?
check $([ $r1 = 2 ] && grep -q "'$T/b3/enrolled.json' is not what robot-box enroll writes: .*: enroll the box again" "$T/b3.log" &&
	[ $r2 = 2 ] && grep -q "is not what robot-box enroll writes: enroll the box again" "$T/b3b.log"; echo $?) \
	"a damaged or incomplete enrolled.json stops robot-box serve, saying to enroll again ($r1 $r2)"

# 14. A submit token: cached by a request, then revoked by robot token
# revoke, refused at its next request with what to do.
s0=$(api POST "$U/api/jobs?tbox_group=lab" "$SUB" "$T/dd.yaml")
SID=$(sql "SELECT id FROM tokens WHERE kind = 'submit' AND name = 'alice'")
robot token revoke "$SID" >"$T/trev.out" 2>&1
rc=$?
s1=$(api POST "$U/api/jobs?tbox_group=lab" "$SUB" "$T/dd.yaml")
m1=$(cat "$T/body")
check $([ "$s0" = 201 ] && [ $rc = 0 ] && grep -q "token $SID (submit alice) revoked" "$T/trev.out" &&
	[ "$s1" = 401 ] && echo "$m1" | grep -q "this submit token (alice) was revoked (.* UTC): ask robotd's operator for a new one (robotd token create --kind submit --name NAME)"; echo $?) \
	"robot token revoke: a submit token used a moment before is refused at its next request, saying what to do ($s0 $rc $s1)"

# 15. The command's errors: not an id, no such token, not an admin.
robot token revoke abc >"$T/t1.out" 2>&1
r1=$?
robot token revoke 999999 >"$T/t2.out" 2>&1
r2=$?
SUB2=$(token submit bob)
ROBOT_SERVER=$U ROBOT_TOKEN=$SUB2 "$ROBOT" token list >"$T/t3.out" 2>&1
r3=$?
check $([ $r1 = 2 ] && grep -q "'abc' is not a token's id" "$T/t1.out" &&
	[ $r2 = 1 ] && grep -q "no token 999999" "$T/t2.out" &&
	[ $r3 = 1 ] && grep -q "listing tokens needs an admin token" "$T/t3.out"; echo $?) \
	"robot token revoke: not an id exits 2, no such token 1 (404), and listing needs an admin ($r1 $r2 $r3)"

# 17. The box protocol: robot-box says which it speaks; robotd takes a
# box that says none (an older robot-box), and answers one it does not
# serve with 426 and what to upgrade.
/usr/bin/python3 -c "
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        print(self.headers.get('Robot-Box-Protocol'), flush=True)
        self.send_response(401); self.end_headers()
    def log_message(self, *a): pass
s = http.server.HTTPServer(('127.0.0.1', 0), H)
print(s.server_address[1], flush=True)
s.handle_request()
" >"$T/hdr.out" 2>/dev/null &
PIDS="$PIDS $!"
wait_for 10 test -s "$T/hdr.out"
"$BOX" enroll "http://127.0.0.1:$(head -1 "$T/hdr.out")" rbe_00 --config "$T/b3.yaml" >/dev/null 2>&1
wait_for 10 sh -c "[ \$(wc -l <$T/hdr.out) -ge 2 ]"
TOK3=$(token box b4)
printf '{"tbox_group": "lab"}' >"$T/f4.json"
reg() { curl -s -o "$T/body" -w '%{http_code}' -X POST -H "Authorization: Bearer $TOK3" ${1:+-H "Robot-Box-Protocol: $1"} \
	--data-binary @"$T/f4.json" "$U/api/boxes/b4/register"; }
s1=$(reg 99)
m1=$(cat "$T/body")
s2=$(reg 0)
m2=$(cat "$T/body")
s3=$(reg abc)
s4=$(reg "")
s5=$(reg 1)
check $([ "$(sed -n 2p "$T/hdr.out")" = 1 ] &&
	[ "$s1" = 426 ] && echo "$m1" | grep -q "this robot-box speaks box protocol 99, newer than this robotd serves (1 to 1): upgrade robotd" &&
	[ "$s2" = 426 ] && echo "$m2" | grep -q "speaks box protocol 0, older than this robotd serves (1 to 1): upgrade robot-box" &&
	[ "$s3" = 400 ] && [ "$s4" = 200 ] && [ "$s5" = 200 ]; echo $?) \
	"robot-box sends its box protocol (1); robotd serves a box that sends none, and answers 99 and 0 with 426 saying what to upgrade ($s1 $s2 $s3 $s4 $s5)"

# 18. A second robotd on the database forgets a token revoked by the
# first (NOTIFY), though it had just cached it.
printf 'state_dir: %s/state-e\n' "$T" >"$T/robotd-e.yaml"
start_robotd e --db "host=$T/state/pg/run user=robot dbname=postgres" --config "$T/robotd-e.yaml" ||
	diag "robotd e did not start"
s0=$(api POST "$URL_e/api/jobs?tbox_group=lab" "$SUB2" "$T/dd.yaml")
BID=$(sql "SELECT id FROM tokens WHERE kind = 'submit' AND name = 'bob'")
robot token revoke "$BID" >/dev/null 2>&1
e_refuses() { [ "$(api POST "$URL_e/api/jobs?tbox_group=lab" "$SUB2" "$T/dd.yaml")" = 401 ]; }
wait_for 10 e_refuses
r=$?
check $([ "$s0" = 201 ] && [ $r = 0 ] && grep -q "was revoked" "$T/body"; echo $?) \
	"a token revoked through one robotd is refused by another that had cached it ($s0 $r)"

# 19. A box token does not pick its group (issue 61: a box that named a
# new group with ram_disk_limit 0 made every submit to it fail).  A
# token made with --group registers in that group only; a box whose
# tokens name none stays in the group it first registered in; an admin
# moves a box by making it a token for the other group.
gtoken() { "$ROBOTD" --config "$T/robotd.yaml" token create --kind box --name "$1" ${2:+--group "$2"} 2>"$T/gt.err"; }
echo '{"tbox_group": "lab", "ram_disk_limit": 1073741824, "fs": ["ext4"]}' >"$T/glab"
echo '{"tbox_group": "evil", "ram_disk_limit": 0, "fs": ["ext4"]}' >"$T/gevil"
TG1=$(gtoken g1 lab)
s1=$(api POST "$URL_e/api/boxes/g1/register" "$TG1" "$T/gevil")
cp "$T/body" "$T/g1.json"
s2=$(api POST "$URL_e/api/boxes/g1/register" "$TG1" "$T/glab")
TG2=$(gtoken g2)
s3=$(api POST "$URL_e/api/boxes/g2/register" "$TG2" "$T/glab")
s4=$(api POST "$URL_e/api/boxes/g2/register" "$TG2" "$T/gevil")
TG2E=$(gtoken g2 evil)
s5=$(api POST "$URL_e/api/boxes/g2/register" "$TG2E" "$T/gevil")
"$ROBOTD" --config "$T/robotd.yaml" token create --kind submit --name s --group lab >/dev/null 2>"$T/gs.err"
r=$?
check $([ "$s1" = 403 ] && grep -q "box g1 may register in group lab only, not evil: an admin moves it" "$T/g1.json" &&
	[ "$s2" = 200 ] && [ "$s3" = 200 ] && [ "$s4" = 403 ] && [ "$s5" = 200 ] &&
	[ "$(sql "SELECT string_agg(name || ':' || tbox_group, ' ' ORDER BY name) FROM boxes WHERE name LIKE 'g_'")" = "g1:lab g2:evil" ] &&
	[ $r = 2 ] && grep -q -- "--group is a box token's" "$T/gs.err"; echo $?) \
	"a box token registers in its own group only, or the box's first; an admin's token moves it ($s1 $s2 $s3 $s4 $s5 $r)"

sanitizer_clean
exit $((failed > 0))
