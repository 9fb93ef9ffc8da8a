#!/bin/sh
# test_robotd_faults.sh ROBOTD ROBOT_BOX ROBOT SOURCE_DIR: robotd under
# database faults while boxes long-poll: the LISTEN connection killed
# again and again, PostgreSQL restarted, a box that hangs up while its
# claim is in flight.  curl stands in for the boxes (their calls are
# plain HTTP).  TAP output.
set -u
ROBOTD=$1 BOX=$2 ROBOT=$3 SRC=$4
. "$SRC/tests/integration/robotd_lib.sh"

cat >"$T/robotd.yaml" <<YAML
state_dir: $T/state
lease_seconds: 60
YAML
start_robotd d --config "$T/robotd.yaml" || { echo "1..0 # robotd did not start"; exit 1; }
U=$URL_d
SUB=$(token submit alice)
echo "1..13"

echo '{"tbox_group": "lab", "ram_disk_limit": 1073741824, "fs": ["ext4"]}' >"$T/facts"
for b in b1 b2 b3; do
	eval "TOK_$b=\$(token box $b)"
	eval "api POST \"$U/api/boxes/$b/register\" \"\$TOK_$b\" \"$T/facts\"" >/dev/null
done

# 1. The LISTEN connection dies while one box waits and others claim:
# robotd wakes the waiting boxes after each reconnect and must not
# touch a box whose first claim is still in flight.
(
	while [ ! -e "$T/stop-poll" ]; do
		curl -s -o /dev/null -X POST -H "Authorization: Bearer $TOK_b1" "$U/api/boxes/b1/lease?wait=30"
	done
) &
PIDS="$PIDS $!"
for b in b2 b3; do
	(
		eval "tok=\$TOK_$b"
		while [ ! -e "$T/stop-poll" ]; do
			curl -s -o /dev/null -X POST -H "Authorization: Bearer $tok" "$U/api/boxes/$b/lease?wait=0"
		done
	) &
	PIDS="$PIDS $!"
done
sleep 1
for i in $(seq 1 15); do
	sql "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND pid <> pg_backend_pid()" >/dev/null 2>&1
	sleep 0.3
done
alive=$(kill -0 "$PID_d" 2>/dev/null && echo yes || echo no)
check $([ $alive = yes ]; echo $?) "robotd survives 15 kills of its LISTEN connection under long-polling boxes"
runuser -u postgres -- "$PGCTL" restart -m fast -w -D "$T/state/pg/data" -l "$T/state/pg/server.log" \
	-o "-k $T/state/pg/run -c listen_addresses=''" >/dev/null 2>&1
sleep 3
alive=$(kill -0 "$PID_d" 2>/dev/null && echo yes || echo no)
check $([ $alive = yes ]; echo $?) "robotd survives a restart of PostgreSQL under long-polling boxes"
touch "$T/stop-poll"
wait_for 40 sh -c "[ \"\$(curl -s -o /dev/null -w '%{http_code}' $U/api/status)\" = 200 ]"
check $? "after the restart robotd answers again"
sleep 1
# Each part stands alone: a robotd that died above is started again.
if ! kill -0 "$PID_d" 2>/dev/null; then
	diag "robotd died; starting another for the next checks"
	start_robotd d2 --config "$T/robotd.yaml"
	U=$URL_d2
	PID_d=$PID_d2
fi

# 2. A box hangs up while its claim is in flight (the claim waits for a
# lock on the box's row): the lease claimed for it is released at once,
# the attempt not counted.
dd_job "$T/dd.yaml"
# c2 alone in its group: b1's last long-poll of part 1 may still wait.
echo '{"tbox_group": "lab2", "ram_disk_limit": 1073741824, "fs": ["ext4"]}' >"$T/facts2"
TOK_c2=$(token box c2)
api POST "$U/api/boxes/c2/register" "$TOK_c2" "$T/facts2" >/dev/null
s=$(api POST "$U/api/jobs?tbox_group=lab2&repeat=1" "$SUB" "$T/dd.yaml")
JOB=$(py "print(j['jobs'][0]['id'])")
psql -h "$T/state/pg/run" -U robot -d postgres -XAtqc \
	"BEGIN; SELECT 1 FROM boxes WHERE name = 'c2' FOR UPDATE; SELECT pg_sleep(3); COMMIT;" >/dev/null 2>&1 &
LOCK=$!
sleep 0.5
curl -s -o /dev/null --max-time 1 -X POST -H "Authorization: Bearer $TOK_c2" "$U/api/boxes/c2/lease?wait=0"
wait $LOCK
wait_for 10 sql_is queued0 "SELECT state || attempts FROM jobs WHERE id = $JOB"
rc=$?
diag "job $JOB: $(sql "SELECT state || ' attempts ' || attempts FROM jobs WHERE id = $JOB"), leases: $(sql "SELECT string_agg(state, ',') FROM leases WHERE job = $JOB")"
check $([ $rc = 0 ] && [ "$(sql "SELECT string_agg(state, ',') FROM leases WHERE job = $JOB")" = released ]; echo $?) \
	"a lease claimed for a box that hung up is released at once, its attempt not counted"
check $(! grep -q "out of range" "$T"/d*.log; echo $?) "no query reads a column that is not there"

# 3. The disk under the database fills up: submits are answered 503 (not
# 500) while it is full, robotd stays up, and once there is room again
# it serves (restarting its database if PostgreSQL gave up) with every
# acknowledged submit kept.
mkdir -p "$T/small"
if mount -t tmpfs -o size=160m,mode=0755 tmpfs "$T/small"; then
	trap 'umount -l "$T/small" 2>/dev/null; finish' EXIT
	printf 'state_dir: %s\n' "$T/small/state" >"$T/small.yaml"
	start_robotd full --config "$T/small.yaml"
	UF=$URL_full
	SUBF=$("$ROBOTD" --config "$T/small.yaml" token create --kind submit --name alice 2>/dev/null)
	s1=$(api POST "$UF/api/jobs?tbox_group=lab&repeat=1&commit=$(sha before)" "$SUBF" "$T/dd.yaml")
	dd if=/dev/zero of="$T/small/filler" bs=1M 2>/dev/null
	# The WAL segment in use has room left: submit (100 runs each) until
	# PostgreSQL needs more disk.
	i=0
	c=201
	while [ "$c" = 201 ] && [ $i -lt 500 ]; do
		i=$((i + 1))
		c=$(api POST "$UF/api/jobs?tbox_group=lab&repeat=100&commit=$(printf 'f%039x' $i)" "$SUBF" "$T/dd.yaml")
	done
	diag "submit $i while the disk is full: $c ($(head -c 200 "$T/body"))"
	# (no server path in the answer: PostgreSQL's message names the
	# file it could not extend)
	check $([ "$s1" = 201 ] && [ "$c" = 503 ] && ! grep -q / "$T/body"; echo $?) \
		"a full disk: the submit that needs room is answered 503, not 500, naming no file ($c after $i)"
	rm -f "$T/small/filler"
	wait_for 90 sh -c "[ \"\$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Authorization: Bearer $SUBF' --data-binary @$T/dd.yaml '$UF/api/jobs?tbox_group=lab&repeat=1&commit=$(sha after)')\" = 201 ]"
	rc=$?
	kept=$(psql -h "$T/small/state/pg/run" -U robot -d postgres -XAtqc "SELECT count(*) FROM jobs WHERE commit = '$(sha before)'")
	check $([ $rc = 0 ] && [ "$kept" = 1 ] && kill -0 "$PID_full"; echo $?) \
		"with room again robotd serves, the submit before kept ($kept)"
	stop "$PID_full"
	runuser -u postgres -- "$PGCTL" stop -m immediate -D "$T/small/state/pg/data" >/dev/null 2>&1
else
	check 1 "cannot mount a tmpfs for the full-disk check"
	check 1 "cannot mount a tmpfs for the full-disk check"
fi

# 9. A box that registers again mid-round (it was restarted): its lease
# ends, and the round is measured again, all of it, on whichever box
# takes it: never a run of it on one box and the rest on another.
echo '{"tbox_group": "lab3", "ram_disk_limit": 1073741824, "fs": ["ext4"]}' >"$T/facts3"
TOK_x1=$(token box x1)
TOK_x2=$(token box x2)
api POST "$U/api/boxes/x1/register" "$TOK_x1" "$T/facts3" >/dev/null
api POST "$U/api/boxes/x2/register" "$TOK_x2" "$T/facts3" >/dev/null
s=$(api POST "$U/api/jobs?tbox_group=lab3&repeat=1&commit=$(sha r1)&commit=$(sha r2)" "$SUB" "$T/dd.yaml")
api POST "$U/api/boxes/x1/lease?wait=0" "$TOK_x1" >/dev/null
L1=$(py "json.dump({'version': 1, 'key': j['key'], 'tbox_group': 'lab3', 'box': 'x1', 'commit': j['commit'],
	'status': 'ok', 'error': None, 'job': j['job']['job'], 'stats': {'dd.write_bytes_per_sec': 1e8}},
	open('$T/doc1.json', 'w')); print(j['lease'])" 2>/dev/null)
s1=$(api POST "$U/api/leases/${L1:-0}/result" "$TOK_x1" "$T/doc1.json")
api POST "$U/api/boxes/x1/lease?wait=0" "$TOK_x1" >/dev/null
L2=$(py "print(j['lease'])" 2>/dev/null)
api POST "$U/api/boxes/x1/register" "$TOK_x1" "$T/facts3" >/dev/null
s2=$(api POST "$U/api/boxes/x2/lease?wait=0" "$TOK_x2")
J3=$(py "print(j['job_id'])" 2>/dev/null)
mixed=$(sql "SELECT count(*) FROM jobs a JOIN jobs b ON b.round = a.round AND b.id <> a.id
	WHERE a.id = ${J3:-0} AND b.state = 'done' AND b.box <> 'x2'")
check $([ "$s" = 201 ] && [ "$s1" = 200 ] && [ "$s2" = 200 ] &&
	[ "$(sql "SELECT state FROM leases WHERE id = ${L2:-0}")" = expired ] && [ "$mixed" = 0 ]; echo $?) \
	"a box restarted mid-round: its round is measured again, not finished on another box ($s $s1 $s2; mixed: $mixed)"

# 10. A lease whose answer never reached its box (robotd's connection to
# the box or to PostgreSQL broke after the claim committed): the box asks
# again.  A box runs one job at a time, so the lease it does not know of
# ends then; else the box held two runs of its round, and when the lost
# one expired another box began the round while this one finished its
# run in it: a round of two boxes.
echo '{"tbox_group": "lab4", "ram_disk_limit": 1073741824, "fs": ["ext4"]}' >"$T/facts4"
TOK_y1=$(token box y1)
TOK_y2=$(token box y2)
api POST "$U/api/boxes/y1/register" "$TOK_y1" "$T/facts4" >/dev/null
api POST "$U/api/boxes/y2/register" "$TOK_y2" "$T/facts4" >/dev/null
s=$(api POST "$U/api/jobs?tbox_group=lab4&repeat=1&commit=$(sha q1)&commit=$(sha q2)&commit=$(sha q3)" "$SUB" "$T/dd.yaml")
api POST "$U/api/boxes/y1/lease?wait=0" "$TOK_y1" >/dev/null
LOST=$(py "print(j['lease'])" 2>/dev/null)
# y1 never saw it, and asks again.
upload() { # BOX TOKEN: the box's lease in $T/body, run and uploaded
	py "json.dump({'version': 1, 'key': j['key'], 'tbox_group': 'lab4', 'box': '$1', 'commit': j['commit'],
		'status': 'ok', 'error': None, 'job': j['job']['job'], 'stats': {'dd.write_bytes_per_sec': 1e8}},
		open('$T/doc.$1', 'w')); print(j['lease'])" >"$T/lease.$1" 2>/dev/null || return 1
	api POST "$U/api/leases/$(cat "$T/lease.$1")/result" "$2" "$T/doc.$1" >/dev/null
}
s1=$(api POST "$U/api/boxes/y1/lease?wait=0" "$TOK_y1")
cp "$T/body" "$T/held.y1"
held=$(sql "SELECT count(*) FROM leases WHERE box = 'y1' AND state = 'active'")
# The lost lease runs out (as robotd's janitor would find it).
sql "UPDATE leases SET deadline = now() - interval '1 second' WHERE id = ${LOST:-0} AND state = 'active'" >/dev/null
sql "SELECT robot_expire()" >/dev/null
# y2 asks; then each box runs what it holds, until the queue is empty.
api POST "$U/api/boxes/y2/lease?wait=0" "$TOK_y2" >/dev/null && upload y2 "$TOK_y2"
cp "$T/held.y1" "$T/body" && upload y1 "$TOK_y1"
for i in 1 2 3 4 5 6; do
	[ "$(api POST "$U/api/boxes/y1/lease?wait=0" "$TOK_y1")" = 200 ] && upload y1 "$TOK_y1"
	[ "$(api POST "$U/api/boxes/y2/lease?wait=0" "$TOK_y2")" = 200 ] && upload y2 "$TOK_y2"
done
mixed=$(sql "SELECT count(*) FROM (SELECT round FROM jobs WHERE tbox_group = 'lab4'
	AND state = 'done' AND round IS NOT NULL GROUP BY round HAVING count(DISTINCT box) > 1) x")
whole=$(sql "SELECT count(*) FROM jobs WHERE tbox_group = 'lab4' AND round IS NOT NULL AND state = 'done'")
check $([ "$s" = 201 ] && [ "$s1" = 200 ] && [ "$held" = 1 ] && [ "$mixed" = 0 ] && [ "$whole" -ge 3 ]; echo $?) \
	"a box that asks again holds one lease, and its round stays on one box ($s $s1; active: $held; mixed: $mixed; done in the round: $whole)"

# 11. No heartbeat keeps a lease past lease_max_life (6 h) after it was
# made (issue 61: a box heartbeating one lease with no bound held its
# pair for ever): its deadline stops there, then it is refused.
api POST "$U/api/boxes/y1/lease?wait=0" "$TOK_y1" >/dev/null
api POST "$U/api/jobs?tbox_group=lab4&repeat=1&commit=$(sha q7)" "$SUB" "$T/dd.yaml" >/dev/null
s0=$(api POST "$U/api/boxes/y1/lease?wait=0" "$TOK_y1")
LL=$(py "print(j['lease'])" 2>/dev/null)
sql "UPDATE leases SET created = now() - interval '21590 seconds' WHERE id = ${LL:-0}" >/dev/null
s1=$(api POST "$U/api/leases/${LL:-0}/heartbeat" "$TOK_y1")
left=$(sql "SELECT round(extract(epoch FROM deadline - now())) FROM leases WHERE id = ${LL:-0}")
sql "UPDATE leases SET created = now() - interval '21601 seconds' WHERE id = ${LL:-0}" >/dev/null
s2=$(api POST "$U/api/leases/${LL:-0}/heartbeat" "$TOK_y1")
check $([ "$s0" = 200 ] && [ "$s1" = 200 ] && [ "${left:-99}" -le 10 ] && [ "$s2" = 409 ] &&
	grep -q "lease_max_life" "$T/body"; echo $?) \
	"a heartbeat moves no deadline past lease_max_life, and is refused after it ($s0 $s1 $left s left, $s2)"

# 12. A round pinned to a box that asks for no work goes on elsewhere
# after a minute, however often the box registers (issue 61: registering
# every 20 s kept the round on the box for ever).
echo '{"tbox_group": "lab5", "ram_disk_limit": 1073741824, "fs": ["ext4"]}' >"$T/facts5"
TOK_z1=$(token box z1)
TOK_z2=$(token box z2)
api POST "$U/api/boxes/z1/register" "$TOK_z1" "$T/facts5" >/dev/null
api POST "$U/api/boxes/z2/register" "$TOK_z2" "$T/facts5" >/dev/null
api POST "$U/api/jobs?tbox_group=lab5&repeat=1&commit=$(sha p1)&commit=$(sha p2)" "$SUB" "$T/dd.yaml" >/dev/null
api POST "$U/api/boxes/z1/lease?wait=0" "$TOK_z1" >/dev/null
py "json.dump({'version': 1, 'key': j['key'], 'tbox_group': 'lab5', 'box': 'z1', 'commit': j['commit'],
	'status': 'ok', 'error': None, 'job': j['job']['job'], 'stats': {'dd.write_bytes_per_sec': 1e8}},
	open('$T/doc.z1', 'w')); print(j['lease'])" >"$T/lease.z1" 2>/dev/null
u=$(api POST "$U/api/leases/$(cat "$T/lease.z1")/result" "$TOK_z1" "$T/doc.z1")
# A minute passes; z1 registers, again and again, and asks for nothing.
sql "UPDATE boxes SET last_seen = now() - interval '90 seconds', last_asked = now() - interval '90 seconds' WHERE name = 'z1'" >/dev/null
api POST "$U/api/boxes/z1/register" "$TOK_z1" "$T/facts5" >/dev/null
# (robotd's janitor looks once a second)
z2_takes() { api POST "$U/api/boxes/z1/register" "$TOK_z1" "$T/facts5" >/dev/null
	[ "$(api POST "$U/api/boxes/z2/lease?wait=0" "$TOK_z2")" = 200 ]; }
wait_for 15 z2_takes
r=$?
check $([ "$u" = 200 ] && [ $r = 0 ] && py "assert j['commit'] in ('$(sha p1)', '$(sha p2)')"; echo $?) \
	"a round pinned to a box that registers but asks for nothing goes on elsewhere ($u $r)"

# 13. A box that gives back every run (incomplete) counts them against
# itself as failed runs: broken after broken_after (3) in a row (issue
# 61: it stayed idle with no failures, taking and giving back for ever).
echo '{"tbox_group": "lab6", "ram_disk_limit": 1073741824, "fs": ["ext4"]}' >"$T/facts6"
TOK_w1=$(token box w1)
api POST "$U/api/boxes/w1/register" "$TOK_w1" "$T/facts6" >/dev/null
api POST "$U/api/jobs?tbox_group=lab6&repeat=3&commit=$(sha k1)" "$SUB" "$T/dd.yaml" >/dev/null
codes=""
for i in 1 2 3 4; do
	c=$(api POST "$U/api/boxes/w1/lease?wait=0" "$TOK_w1")
	codes="$codes $c"
	[ "$c" = 200 ] || continue
	py "json.dump({'version': 1, 'key': j['key'], 'tbox_group': 'lab6', 'box': 'w1', 'commit': j['commit'],
		'status': 'incomplete', 'error': 'given back', 'job': j['job']['job']},
		open('$T/doc.w1', 'w')); print(j['lease'])" >"$T/lease.w1" 2>/dev/null
	codes="$codes/$(api POST "$U/api/leases/$(cat "$T/lease.w1")/result" "$TOK_w1" "$T/doc.w1")"
done
st=$(sql "SELECT state || ' ' || failures FROM boxes WHERE name = 'w1'")
check $([ "$st" = "broken 3" ] && [ "$codes" = " 200/200 200/200 200/200 409" ]; echo $?) \
	"a box that gives back every run is broken after three in a row ($st;$codes)"

sanitizer_clean
