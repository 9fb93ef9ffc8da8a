#!/bin/sh
# test_robotd_hostile.sh ROBOTD ROBOT_BOX ROBOT SOURCE_DIR: robotd against
# hostile requests (hostile.py: framing, tokens, submit bodies, query
# strings, box endpoints, uploads), each answered at once with the right
# status and error and nothing stored; then robotd must still serve and
# have nothing in its log from a sanitizer.  TAP output.
set -u
ROBOTD=$1 BOX=$2 ROBOT=$3 SRC=$4
. "$SRC/tests/integration/robotd_lib.sh"

cat >"$T/robotd.yaml" <<YAML
state_dir: $T/state
lease_seconds: 600
YAML
start_robotd d --config "$T/robotd.yaml" || { echo "1..0 # robotd did not start"; exit 1; }
U=$URL_d
SUB=$(token submit alice)
B1=$(token box b1)
B2=$(token box b2)
ADM=$(token admin root)
echo '{"tbox_group": "lab", "ram_disk_limit": 1073741824, "fs": ["ext4"], "cpus": 2, "memory": 1073741824, "hdd": 0, "ssd": 0}' >"$T/facts"
api POST "$U/api/boxes/b1/register" "$B1" "$T/facts" >/dev/null
sed 's/"lab"/"lab2"/' "$T/facts" >"$T/facts2"
api POST "$U/api/boxes/b2/register" "$B2" "$T/facts2" >/dev/null
printf 'suite: dd-write\ntestcase: dd-write\ndisk: 1LOOP_64M\nfs: ext4\nnr_threads: 1dd\nruntime: 1s\ndd:\n  bs: 1M\n' >"$T/dd.yaml"
api POST "$U/api/jobs?tbox_group=lab&repeat=1&commit=0123456789abcdef0123456789abcdef01234567" "$SUB" "$T/dd.yaml" >/dev/null
api POST "$U/api/boxes/b1/lease?wait=0" "$B1" >/dev/null
/usr/bin/python3 "$SRC/tests/integration/hostile.py" "$U" "$T/state/pg/run" "$SUB" "$B1" "$B2" "$ADM" "$T/count"
rc=$?
n=$(cat "$T/count" 2>/dev/null || echo 0)
n=$((n + 1))
if kill -0 "$PID_d" 2>/dev/null; then
	echo "ok $n - robotd is alive after the hostile requests"
else
	echo "not ok $n - robotd died"
	rc=1
fi
# The bombs above (anchors, merges, 100,000 keys, a run bomb, a 16 MiB
# result) were refused within a memory budget: robotd's peak RSS, 71 MiB
# in a release build (the anchor bomb alone took 1.69 GB before); under
# ASan, whose shadow memory and quarantine hold more, 526 MiB.
hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$PID_d/status")
budget=131072
ldd "$ROBOTD" 2>/dev/null | grep -q libasan && budget=1048576
n=$((n + 1))
if [ "${hwm:-999999999}" -lt $budget ]; then
	echo "ok $n - robotd's peak RSS under the bombs: $hwm KiB (budget $budget KiB)"
else
	echo "not ok $n - robotd's peak RSS under the bombs: $hwm KiB (budget $budget KiB)"
	rc=1
fi

# Names stored before robotd checked them (put in with SQL here) reach
# robot status escaped, not as terminal escapes.
sql "INSERT INTO boxes (name, tbox_group, facts) VALUES (E'evil\\x1b]0;pwned\\x07', E'g\\x1b[2J', '{}')"
ROBOT_SERVER=$U "$ROBOT" status >"$T/status.out" 2>&1
n=$((n + 1))
if grep -q "evil" "$T/status.out" && ! grep -q "$(printf '\033')" "$T/status.out"; then
	echo "ok $n - robot status escapes control characters in names"
else
	echo "not ok $n - robot status escapes control characters in names"
	sed 's/^/# /' "$T/status.out" | cat -v
	rc=1
fi
n=$((n + 1))
if grep -l 'Sanitizer\|runtime error:' "$T"/*.log >/dev/null 2>&1; then
	grep -h -A20 'Sanitizer\|runtime error:' "$T"/*.log | head -40 | sed 's/^/# /'
	echo "not ok $n - sanitizer reports in robotd's log"
	rc=1
else
	echo "ok $n - no sanitizer reports in robotd's log"
fi
echo "1..$n"
exit $rc
