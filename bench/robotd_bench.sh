#!/bin/sh
# bench/robotd_bench.sh [BUILDDIR]: robotd under simulated boxes (as root:
# the embedded database runs as postgres).  Prints
#
#   - lease cycles per second with 200 boxes: lease + empty result upload
#     (the box registered once), and with a registration in every cycle
#   - a box's latency (p50, p99) while 13 MB result documents are
#     uploaded back to back, and without
#   - the memory robotd holds per idle long-polling box, 2,000 connected
#
# Everything runs on this machine: robotd, its embedded PostgreSQL and the
# simulated boxes (bench/boxsim.c) share its cores.
set -eu
export ROBOTD_ALLOW_ROOT=1 # robotd as root, as the tests run it
build=${1:-build}
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "robotd_bench: run as root" >&2; exit 1; }
T=$(mktemp -d /tmp/robotd-bench.XXXXXX)
chmod 755 "$T"
PIDS=""
finish() {
	for p in $PIDS; do kill -TERM "$p" 2>/dev/null || :; done
	sleep 2
	rm -rf "$T"
}
trap finish EXIT
trap 'exit 1' INT TERM

cat >"$T/robotd.yaml" <<YAML
state_dir: $T/state
lease_seconds: 600
long_poll: 300
max_connections: 5000
max_connections_per_client: 5000
YAML
# ROBOT_BENCH_POOL=N: robotd's db_pool (default: robotd's).
[ -n "${ROBOT_BENCH_POOL:-}" ] && echo "db_pool: $ROBOT_BENCH_POOL" >>"$T/robotd.yaml"
"$build/robotd" --config "$T/robotd.yaml" --listen 127.0.0.1:0 >"$T/robotd.log" 2>&1 &
RD=$!
PIDS="$RD"
i=0
until grep -q "listening on" "$T/robotd.log"; do
	sleep 0.1
	i=$((i + 1))
	[ $i -lt 600 ] || { cat "$T/robotd.log"; exit 1; }
done
port=$(sed -n 's/.*listening on http:\/\/[^:]*:\([0-9]*\).*/\1/p' "$T/robotd.log")
SUB=$("$build/robotd" --config "$T/robotd.yaml" token create --kind submit --name bench 2>/dev/null)
# 2,000 box tokens at once (robotd token create makes one per call).
psql -h "$T/state/pg/run" -U robot -d postgres -Xqc \
	"INSERT INTO tokens (kind, name, hash) SELECT 'box', 'sim' || i,
	 sha256(convert_to('benchtok' || i, 'UTF8')) FROM generate_series(1, 2000) i"
seq 1 2000 | awk '{print "sim" $1, "benchtok" $1}' >"$T/tokens2000"
head -200 "$T/tokens2000" >"$T/tokens200"

# 40,000 runs to lease: 100 atomic jobs x 100 repeats, four times.
{
	printf 'suite: dd-write\ntestcase: dd-write\ndisk: 1LOOP_64M\nfs: ext4\n'
	printf 'nr_threads: 1dd\nruntime: 1s\nrepeat: 100\ndd:\n  bs: ['
	seq -s, 1 100 | sed 's/,/K, /g; s/$/K]/'
} >"$T/job.yaml"
for c in a b c d; do
	curl -sf -o /dev/null -X POST -H "Authorization: Bearer $SUB" \
		--data-binary @"$T/job.yaml" \
		"http://127.0.0.1:$port/api/jobs?tbox_group=bench&commit=$(printf '%s%039x' $c 0)"
done
echo "queued: $(psql -h "$T/state/pg/run" -U robot -d postgres -XAtc "SELECT count(*) FROM jobs WHERE state = 'queued'") runs"

rss() { awk '/^VmRSS/ {print $2}' /proc/$RD/status; }

echo "== lease cycles, 200 boxes, 10 s each"
"$build/bench/boxsim" cycles "$port" "$T/tokens200" 10
"$build/bench/boxsim" cycles "$port" "$T/tokens200" 10 --register-each

echo "== the API's latency while 10 MB result documents are uploaded"
# Box sim2000 leases a run of its own and uploads a document of 600,000
# metrics (13 MB) for it again and again: each is read on robotd's
# worker thread (and refused: over 100,000 metrics).  A box's requests
# (bench/probe.py: 20 a second, status and lease) should see the same
# latency as without.
T2000=$(tail -1 "$T/tokens2000" | cut -d' ' -f2)
psql -h "$T/state/pg/run" -U robot -d postgres -Xqc "UPDATE jobs SET state = 'queued' WHERE id = (SELECT min(id) FROM jobs)"
curl -sf -o /dev/null -X POST -H "Authorization: Bearer $T2000" \
	--data '{"tbox_group": "bench", "ram_disk_limit": 1073741824, "fs": ["ext4"]}' \
	"http://127.0.0.1:$port/api/boxes/sim2000/register"
curl -sf -o "$T/lease" -X POST -H "Authorization: Bearer $T2000" \
	"http://127.0.0.1:$port/api/boxes/sim2000/lease?wait=0"
python3 - "$T/lease" "$T/bigdoc" <<'PY'
import json, sys
l = json.load(open(sys.argv[1]))
stats = ", ".join('"m%07d": %d.5' % (i, i) for i in range(600000))
open(sys.argv[2], "w").write('{"version": 1, "key": "%s", "tbox_group": "bench", "box": "sim2000", '
                             '"commit": "%s", "status": "ok", "stats": {%s}}' % (l["key"], l["commit"], stats))
PY
lease=$(python3 -c "import json; print(json.load(open('$T/lease'))['lease'])")
T1999=$(tail -2 "$T/tokens2000" | head -1 | cut -d' ' -f2)
curl -sf -o /dev/null -X POST -H "Authorization: Bearer $T1999" \
	--data '{"tbox_group": "probe", "ram_disk_limit": 1073741824, "fs": ["ext4"]}' \
	"http://127.0.0.1:$port/api/boxes/sim1999/register"
echo "$(python3 bench/probe.py "http://127.0.0.1:$port" "$T1999" sim1999 10 20) (no uploads)"
(
	n=0
	start=$(date +%s.%N)
	while [ ! -e "$T/stop-upload" ]; do
		curl -s -o /dev/null -X POST -H "Authorization: Bearer $T2000" \
			--data-binary @"$T/bigdoc" "http://127.0.0.1:$port/api/leases/$lease/result"
		n=$((n + 1))
	done
	echo "$n uploads of $(wc -c <"$T/bigdoc") bytes in $(awk "BEGIN {print $(date +%s.%N) - $start}") s" >"$T/uploads"
) &
U=$!
PIDS="$PIDS $U"
sleep 1
echo "$(python3 bench/probe.py "http://127.0.0.1:$port" "$T1999" sim1999 10 20) (uploads meanwhile)"
touch "$T/stop-upload"
wait $U
cat "$T/uploads"

echo "== idle long-polling boxes"
# A fresh robotd (the cycles above grew its heap), nothing to lease.
psql -h "$T/state/pg/run" -U robot -d postgres -Xqc "UPDATE jobs SET state = 'failed' WHERE state = 'queued'"
kill -TERM $RD
while kill -0 $RD 2>/dev/null; do sleep 0.1; done
"$build/robotd" --config "$T/robotd.yaml" --listen "127.0.0.1:$port" >"$T/robotd.log" 2>&1 &
RD=$!
PIDS="$PIDS $RD"
until grep -q "listening on" "$T/robotd.log"; do sleep 0.1; done
for i in 1 2 3 4 5; do curl -sf -o /dev/null "http://127.0.0.1:$port/api/status"; done
sleep 1
before=$(rss)
"$build/bench/boxsim" idle "$port" "$T/tokens2000" >"$T/idle" 2>&1 &
W=$!
PIDS="$PIDS $W"
i=0
until curl -s "http://127.0.0.1:$port/metrics" | grep -q '^robot_lease_waiters 2000$'; do
	sleep 0.5
	i=$((i + 1))
	[ $i -lt 240 ] || { echo "the boxes did not all wait"; cat "$T/idle"; exit 1; }
done
sleep 2
after=$(rss)
echo "robotd RSS: $before KiB before, $after KiB with 2000 boxes waiting: $(( (after - before) * 1024 / 2000 )) bytes per idle box"
kill -TERM $W
