#!/bin/sh
# test_robotd_lab_net.sh ROBOTD ROBOT_BOX ROBOT SOURCE_DIR: a lab across hosts
# (issue 56), each host a network namespace (tests/lab/netlab.sh):
# PostgreSQL from Debian's packages on one, robotd (HTTPS, db: over TCP)
# on another, three simulated boxes and one real robot-box on four more,
# each box's link to robotd through a relay of 100 +- 20 ms and dropping
# 2% of its packets both ways.  Then the faults, while the boxes work:
#   - a box cut off from robotd for longer than its lease, mid-run, which
#     then comes back and uploads: refused, the run measured again;
#   - a box killed and started again mid-round: the round measured again;
#   - a box whose wall clock is an hour off (libfaketime): its runs count;
#   - robotd cut off from PostgreSQL for 30 s: it serves again after.
# The rules: no run counted twice, no round of two boxes, no pair lost.
# Prints the time from each partition's end to the work resuming.  TAP.
set -u
ROBOTD=$1 BOX=$2 ROBOT=$3 SRC=$4
. "$SRC/tests/integration/robotd_lib.sh"
. "$SRC/tests/lab/netlab.sh"
trap 'netlab_down; finish' EXIT
echo "1..10"
for t in nft faketime; do
	command -v $t >/dev/null || { echo "Bail out! $t is not installed (scripts/deps installs it)"; exit 1; }
done
FAKETIME_LIB=$(ls /usr/lib/*/faketime/libfaketime.so.1 2>/dev/null | head -1)
PGBIN=$(dirname "$PGCTL")
LEASE=12

# The hosts: db .2, robotd .3, boxes .11 to .14.
netlab_up && netlab_host db 2 && netlab_host rd 3 &&
	netlab_host b1 11 && netlab_host b2 12 && netlab_host b3 13 && netlab_host b4 14
check $? "the lab's hosts: a namespace each on a bridge of its own (10.77.0.0/24)"

# PostgreSQL on host db, listening on its address (and a socket for the
# test's own checks).
install -d -o postgres -g postgres -m 700 "$T/pg"
install -d -o postgres -g postgres -m 755 "$T/sock"
runuser -u postgres -- "$PGBIN/initdb" -D "$T/pg" -U postgres -A trust -E UTF8 --no-locale --no-sync >/dev/null
echo "host all all 10.77.0.0/24 trust" >>"$T/pg/pg_hba.conf"
on db runuser -u postgres -- "$PGCTL" -D "$T/pg" -l "$T/pg/server.log" -w \
	-o "-k $T/sock -c listen_addresses=10.77.0.2 -c fsync=off -c max_connections=100" start >/dev/null
pgq() { psql -h "$T/sock" -U postgres -d robot -XAtqc "$1" 2>/dev/null; }
psql -h "$T/sock" -U postgres -d postgres -Xqc "CREATE ROLE robot LOGIN" -c "CREATE DATABASE robot OWNER robot" >/dev/null
stop_pg() { runuser -u postgres -- "$PGCTL" stop -m immediate -D "$T/pg" >/dev/null 2>&1; }
trap 'netlab_down; stop_pg; finish' EXIT

# robotd on host rd: HTTPS with a certificate for its address and for
# the boxes' relays (127.0.0.1 on each box).
C=$T/ca
mkdir -p "$C"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$C/ca.key" -out "$C/ca.pem" -days 2 \
	-subj "/CN=robot lab CA" 2>/dev/null
printf 'subjectAltName=IP:10.77.0.3,IP:127.0.0.1\n' >"$C/ext"
openssl req -newkey rsa:2048 -nodes -keyout "$C/rd.key" -out "$C/rd.csr" -subj "/CN=10.77.0.3" 2>/dev/null
openssl x509 -req -in "$C/rd.csr" -CA "$C/ca.pem" -CAkey "$C/ca.key" -CAcreateserial \
	-out "$C/rd.pem" -days 2 -extfile "$C/ext" 2>/dev/null
DB="host=10.77.0.2 user=robot dbname=robot"
cat >"$T/robotd.yaml" <<YAML
state_dir: $T/state
db: $DB
listen: 10.77.0.3:8420
lease_seconds: $LEASE
tls_cert: $C/rd.pem
tls_key: $C/rd.key
max_runs: 6
YAML
mkdir -p "$T/state"
on_bg rd "$ROBOTD" --config "$T/robotd.yaml" >"$T/d.log" 2>&1
wait_for 60 grep -q "listening on https://10.77.0.3:8420" "$T/d.log"
U=https://10.77.0.3:8420
tok() { on rd "$ROBOTD" --config "$T/robotd.yaml" token create --kind "$1" --name "$2" 2>/dev/null; }
ADMIN=$(tok admin root)
SUB=$(tok submit lab)
rrobot() { on rd env ROBOT_SERVER=$U ROBOT_TOKEN=$SUB ROBOT_CA_FILE="$C/ca.pem" "$ROBOT" "$@"; }
rrobot status >"$T/status.out" 2>&1
check $? "robotd on its own host serves HTTPS, its database PostgreSQL on another host over TCP"

# The boxes: each through a relay of 100 +- 20 ms, 2% loss both ways.
for b in b1 b2 b3 b4; do
	netlab_loss $b 2
	netlab_relay $b 3 8420 100 20
	eval "URL_$b=https://127.0.0.1:$RELAY_PORT"
done
sim() { # sim NAME [WRAPPER...]: simulated box NAME on its host, group lab
	_n=$1
	shift
	eval "_u=\$URL_$_n"
	_t=$(tok box "$_n")
	on_bg "$_n" env SSL_CERT_FILE="$C/ca.pem" "$@" /usr/bin/python3 "$SRC/tests/integration/simbox.py" \
		"$_u" "$_t" "$_n" lab "$T/stop-sim" "$C1=-10" "$C2=-10" \
		--noise=1 --delay=4 --resilient=1 --heartbeat=3 --timeout=20 --seed="${_n#b}" \
		>>"$T/$_n.log" 2>&1
	eval "SIM_$_n=$!"
}
C0=$(sha c0) C1=$(sha c1) C2=$(sha c2)
sim b1
sim b2 env LD_PRELOAD="$FAKETIME_LIB" FAKETIME=+1h
sim b3
# The real box, enrolled through its relay, in a group of its own.
CODE=$(on rd "$ROBOTD" --config "$T/robotd.yaml" box enroll real1 --group real 2>/dev/null)
box_config real1
sed -i 's/^tbox_group: lab$/tbox_group: real/' "$T/real1.yaml"
on b4 "$BOX" enroll "$URL_b4" "$CODE" --config "$T/real1.yaml" --ca-file "$C/ca.pem" >"$T/en.out" 2>&1
on_bg b4 "$BOX" serve --config "$T/real1.yaml" --ca-file "$C/ca.pem" >>"$T/real1.log" 2>&1
wait_for 60 sh -c "[ \$(psql -h $T/sock -U postgres -d robot -XAtqc 'SELECT count(*) FROM boxes') = 4 ]"
check $([ "$(pgq "SELECT string_agg(name || ':' || tbox_group, ' ' ORDER BY name) FROM boxes")" = "b1:lab b2:lab b3:lab real1:real" ]; echo $?) \
	"three simulated boxes and one real robot-box (enrolled) register through their slow, lossy links"

# The work: three commits in three series (pairs C0-C1, C0-C2 each), and
# one real dd run.
printf 'suite: dd-write\ntestcase: dd-write\ndisk: 1LOOP_64M\nfs: ext4\nnr_threads: 1dd\nruntime: 1s\ndd:\n  bs: [1M, 4M, 64k]\n' >"$T/lab.yaml"
rrobot submit "$T/lab.yaml" --tbox-group lab --commit "$C0" --commit "$C1" --commit "$C2" --repeat 3 >"$T/sub.out" 2>&1
dd_job "$T/real.yaml"
rrobot submit "$T/real.yaml" --tbox-group real --commit "$C0" --repeat 1 >"$T/sub2.out" 2>&1

# Fault 1: b1 cut off from robotd mid-run for longer than its lease.
wait_for 60 sh -c "[ -n \"\$(psql -h $T/sock -U postgres -d robot -XAtqc \"SELECT id FROM leases WHERE box = 'b1' AND state = 'active'\")\" ]"
CUT=$(pgq "SELECT id FROM leases WHERE box = 'b1' AND state = 'active'")
CUTJOB=$(pgq "SELECT job FROM leases WHERE id = ${CUT:-0}")
netlab_cut b1 3
sleep $((LEASE + 8))
netlab_heal b1
healed=$(date +%s.%N)
wait_for 60 grep -q "lease $CUT: upload refused: 409" "$T/b1.log"
r=$?
wait_for 60 sh -c "[ \"\$(psql -h $T/sock -U postgres -d robot -XAtqc \"SELECT count(*) FROM leases WHERE box = 'b1' AND id > ${CUT:-0}\")\" -gt 0 ]"
back=$(($(date +%s) - ${healed%.*}))
check $([ $r = 0 ] && [ "$(pgq "SELECT state FROM leases WHERE id = ${CUT:-0}")" = expired ] &&
	[ "$(pgq "SELECT count(*) FROM results WHERE lease = ${CUT:-0}")" = 0 ]; echo $?) \
	"a box cut off for longer than its lease mid-run uploads when it is back: refused (409), the lease expired, nothing stored"
diag "b1 took a lease again ${back} s after its partition ended"

# Fault 2: b3 killed and started again mid-round.
wait_for 60 sh -c "[ -n \"\$(psql -h $T/sock -U postgres -d robot -XAtqc \"SELECT l.id FROM leases l JOIN jobs j ON j.id = l.job WHERE l.box = 'b3' AND l.state = 'active' AND j.round IS NOT NULL\")\" ]"
KILLED=$(pgq "SELECT l.id FROM leases l WHERE l.box = 'b3' AND l.state = 'active'")
eval "kill -9 \$SIM_b3"
eval "wait \$SIM_b3" 2>/dev/null
sim b3
wait_for 60 sh -c "[ \"\$(psql -h $T/sock -U postgres -d robot -XAtqc \"SELECT state FROM leases WHERE id = ${KILLED:-0}\")\" = expired ]"
check $? "a box killed and started again mid-round: its lease ends when it registers again"

# Fault 3: robotd cut off from PostgreSQL for 30 s.
netlab_cut rd 2
sleep 30
netlab_heal rd
healed_db=$(pgq "SELECT now()")
wait_for 120 sh -c "[ \"\$(psql -h $T/sock -U postgres -d robot -XAtqc \"SELECT count(*) FROM leases WHERE created > '$healed_db'\")\" -gt 0 ]"
r=$?
resumed=$(pgq "SELECT round(extract(epoch FROM min(created) - '$healed_db'::timestamptz)::numeric, 1) FROM leases WHERE created > '$healed_db'")
check $r "robotd cut off from its database for 30 s leases runs again after"
diag "work resumed ${resumed} s after robotd's partition from PostgreSQL ended"

# The end: every pair final, and the rules.
pairs_final() { [ "$(pgq "SELECT count(*) FROM pairs WHERE state <> 'final'")" = 0 ] &&
	[ "$(pgq "SELECT count(*) FROM pairs")" -ge 6 ]; }
wait_for 240 pairs_final
check $? "no pair lost: all $(pgq "SELECT count(*) FROM pairs") pairs final ($(pgq "SELECT string_agg(verdict, ' ') FROM pairs"))"
twice=$(pgq "SELECT count(*) FROM (SELECT job FROM results GROUP BY job HAVING count(*) > 1) x")
mixed=$(pgq "SELECT coalesce(string_agg(round || ':' || boxes, ' '), '') FROM (SELECT round,
	string_agg(DISTINCT box, ',') AS boxes FROM jobs WHERE state = 'done' AND round IS NOT NULL
	GROUP BY round HAVING count(DISTINCT box) > 1) x")
cut=$(pgq "SELECT state FROM jobs WHERE id = ${CUTJOB:-0}")
check $([ "$twice" = 0 ] && [ -z "$mixed" ] && [ "$cut" = done ]; echo $?) \
	"no run counted twice ($twice), no round of two boxes (${mixed:-none}), the cut-off box's run done once ($cut)"
check $([ "$(pgq "SELECT count(*) FROM results r JOIN jobs j ON j.id = r.job WHERE j.box = 'b2' AND r.status = 'ok'")" -gt 0 ] &&
	[ "$(pgq "SELECT count(*) FROM results r JOIN jobs j ON j.id = r.job WHERE j.box = 'real1' AND r.status = 'ok'")" = 1 ]; echo $?) \
	"the box an hour ahead and the real robot-box had their runs counted"
touch "$T/stop-sim"
sanitizer_clean
exit $((failed > 0))
