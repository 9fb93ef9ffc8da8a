#!/bin/sh
# bench/analysis_bench.sh [BUILDDIR]: robotd's analysis (as root: the
# embedded database runs as postgres).  Prints
#
#   - pairs analysed per second, 2,000 pairs of 300 metrics x 10 runs a
#     side made ready at once (the values put in with SQL)
#   - the time from a pair's last upload (the transaction that made it
#     ready) to its stored verdict (p50, p99, max) over the 59 pairs of a 60-commit submission run by 4
#     simulated boxes (tests/integration/simbox.py)
set -eu
export ROBOTD_ALLOW_ROOT=1 # robotd as root, as the tests run it
build=${1:-build}
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "analysis_bench: run as root" >&2; exit 1; }
T=$(mktemp -d /tmp/analysis-bench.XXXXXX)
chmod 755 "$T"
PIDS=""
finish() {
	[ -n "${KEEP:-}" ] && { echo "kept $T"; for p in $PIDS; do kill -TERM "$p" 2>/dev/null || :; done; return; }
	touch "$T/stop"
	for p in $PIDS; do kill -TERM "$p" 2>/dev/null || :; done
	sleep 2
	rm -rf "$T"
}
trap finish EXIT
trap 'exit 1' INT TERM
cat >"$T/robotd.yaml" <<YAML
state_dir: $T/state
max_runs: 10
YAML
"$build/robotd" --config "$T/robotd.yaml" --listen 127.0.0.1:0 >"$T/robotd.log" 2>&1 &
RD=$!
PIDS="$RD"
until grep -q "listening on" "$T/robotd.log"; do sleep 0.1; done
port=$(sed -n 's/.*listening on http:\/\/[^:]*:\([0-9]*\).*/\1/p' "$T/robotd.log")
U=http://127.0.0.1:$port
sql() { psql -h "$T/state/pg/run" -U robot -d postgres -XAtqc "$1"; }

echo "== 2,000 pairs of 300 metrics x 10 runs a side, ready at once"
SID=$(sql "INSERT INTO submissions (submitter, body) VALUES ('bench', '') RETURNING id")
# The series s1..s2000, each at commits a and b, 10 done runs a side;
# the jobs go in before the pairs, which the trigger would make waiting.
sql "INSERT INTO jobs (submission, key, tbox_group, series, commit, job, state, run, runs, pair)
	SELECT $SID, 'dd-write/s' || s, 'lab', 'dd-write/s' || s || '/lab', c, '{}', 'done', r, 10, 0
	FROM generate_series(1, 2000) s, unnest(ARRAY['a', 'b']) c, generate_series(1, 10) r"
sql "INSERT INTO metric_values (series, commit, metric, vals, n, mean, stddev, min, max)
	SELECT 'dd-write/s' || s || '/lab', c,
		CASE WHEN m = 1 THEN 'dd.write_bytes_per_sec' ELSE 'proc-vmstat.m' || m END,
		(SELECT array_agg(1000 * (1 + 0.02 * sin(s * 7 + m * 3 + r)) *
			CASE WHEN c = 'b' AND m % 50 = 1 THEN 0.9 ELSE 1 END)
			FROM generate_series(1, 10) r), 10, 1000, 10, 980, 1020
	FROM generate_series(1, 2000) s, unnest(ARRAY['a', 'b']) c, generate_series(1, 300) m"
t0=$(date +%s.%N)
sql "INSERT INTO pairs (series, base, head, state) SELECT 'dd-write/s' || s || '/lab', 'a', 'b', 'ready' FROM generate_series(1, 2000) s; NOTIFY robot_jobs, ':analysis'"
until [ "$(sql "SELECT count(*) FROM pairs WHERE state <> 'final'")" = 0 ]; do sleep 0.2; done
t1=$(date +%s.%N)
cpu=$(awk '{print ($14 + $15) / 100}' "/proc/$RD/stat")
awk -v a="$t0" -v b="$t1" -v c="$cpu" 'BEGIN {printf "2000 pairs in %.2f s: %.0f pairs/s (robotd used %.1f s of CPU in all)\n", b - a, 2000 / (b - a), c}'
echo "verdicts: $(sql "SELECT string_agg(verdict || ' ' || n, ', ') FROM (SELECT verdict, count(*) n FROM pairs GROUP BY verdict) x")"

echo "== from the last upload of a pair to its verdict, 59 pairs, 4 boxes"
SUB=$("$build/robotd" --config "$T/robotd.yaml" token create --kind submit --name bench 2>/dev/null)
for b in 1 2 3 4; do
	tok=$("$build/robotd" --config "$T/robotd.yaml" token create --kind box --name "sim$b" 2>/dev/null)
	python3 tests/integration/simbox.py "$U" "$tok" "sim$b" lab "$T/stop" --noise=0.5 --seed=$b 2>>"$T/sim.log" &
	PIDS="$PIDS $!"
done
printf 'suite: dd-write\ntestcase: dd-write\ndisk: 1LOOP_64M\nfs: ext4\nnr_threads: 1dd\nruntime: 1s\ndd:\n  bs: 1M\n' >"$T/dd.yaml"
q="tbox_group=lab&repeat=3"
for i in $(seq 1 60); do q="$q&commit=$(printf 'c%039x' $i)"; done
sleep 2
curl -sS -f -o "$T/submit.out" -X POST -H "Authorization: Bearer $SUB" --data-binary @"$T/dd.yaml" "$U/api/jobs?$q"
until [ "$(sql "SELECT count(*) FROM pairs WHERE base = '$(printf c%039x 1)' AND state = 'final'")" = 59 ]; do sleep 0.5; done
sql "SELECT 'p50 ' || round(percentile_cont(0.5) WITHIN GROUP (ORDER BY d)::numeric, 1) || ' ms, p99 ' ||
	round(percentile_cont(0.99) WITHIN GROUP (ORDER BY d)::numeric, 1) || ' ms, max ' || round(max(d)::numeric, 1) || ' ms'
	FROM (SELECT extract(epoch FROM updated - ready_at) * 1000 AS d
	FROM pairs WHERE base = '$(printf c%039x 1)') x"
