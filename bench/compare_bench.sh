#!/bin/sh
# bench/compare_bench.sh [BUILDDIR]: comparison speed, LKP's matrix
# (issue 16).  Prints, medians of 5 (RUNS=N to change):
#
#   - the engine in process (bench_compare): 1,000, 10,000 and 100,000
#     metrics x 10 runs a side
#   - robot compare, the whole process, of the same as result files
#     (bench/make_docs.py), the table and --json: wall time, page faults
#     and peak RSS, beside the files' size on disk; at 10,000 metrics,
#     the ratio to LKP's recorded time (below)
#   - the start-up: robot --help, robot compare --help, /bin/true
#   - robot compare --series against robotd (as root: its embedded
#     database runs as postgres), from stored values: 1000+1000 runs x
#     300 metrics and 500+500 runs x 2,000 metrics, the whole process
#     and robotd's part (curl's time of GET /api/compare)
#
# LKP's own figures on this machine (lib/stats.rb, issue 16): engine
# 2.115 s and whole process 2.693 s at 10,000 metrics; 36.1 s at 100,000.
# Issue 33's held-out check measured it at 2.44 s.  LKP's code is not
# kept here (nor Ruby installed), so the ratios are to those figures:
# LKP_S=seconds to use another.
set -eu
export ROBOTD_ALLOW_ROOT=1 # robotd as root, as the tests run it
build=${1:-build}
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
T=$(mktemp -d /tmp/compare-bench.XXXXXX)
chmod 755 "$T"
PIDS=""
finish() {
	[ -n "${KEEP:-}" ] && { echo "kept $T (robotd ${U:-}; kill $PIDS)"; return; }
	for p in $PIDS; do kill -TERM "$p" 2>/dev/null || :; done
	[ -n "$PIDS" ] && sleep 2
	rm -rf "$T"
}
trap finish EXIT
trap 'exit 1' INT TERM

# measure LABEL CMD...: the median wall time, page faults and peak RSS
# of RUNS runs; with LKP set, the ratio of LKP's seconds to the median.
measure() {
	label=$1
	shift
	LKP=${LKP:-} /usr/bin/python3 - "$RUNS" "$label" "$@" <<'PY'
import os, sys, time
runs, label, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
times, rss, faults = [], [], []
for _ in range(runs):
    t0 = time.perf_counter()
    # posix_spawn (a vfork): the child's faults are the command's own
    pid = os.posix_spawnp(cmd[0], cmd, os.environ, file_actions=[
        (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)])
    _, status, ru = os.wait4(pid, 0)
    times.append(time.perf_counter() - t0)
    rss.append(ru.ru_maxrss / 1024)
    faults.append(ru.ru_minflt + ru.ru_majflt)
    if status != 0:
        sys.exit("%s: exit status %d" % (label, status >> 8))
times.sort()
rss.sort()
faults.sort()
med = times[len(times) // 2]
lkp = os.environ.get("LKP")
print("  %-34s %8.1f ms  (best %7.1f)  %6d faults  peak RSS %6.1f MB%s" %
      (label, med * 1000, times[0] * 1000, faults[len(faults) // 2],
       rss[len(rss) // 2],
       "  LKP/robot %.0fx" % (float(lkp) / med) if lkp else ""))
PY
}

echo "== the engine, in process"
[ -n "${SERVER_ONLY:-}" ] || "$build/bench/bench_compare" 11

echo "== robot compare, the whole process (10 runs a side)"
for m in ${SERVER_ONLY:+none} 1000 10000 100000; do
	[ "$m" = none ] && break
	/usr/bin/python3 bench/make_docs.py "$T/m$m" $m 10
	size=$(du -sb "$T/m$m" | cut -f1)
	echo " $m metrics: $(awk -v s="$size" 'BEGIN {printf "%.1f MB", s / 1048576}') of result files"
	[ $m = 10000 ] && LKP=${LKP_S:-2.44} || LKP=
	LKP=$LKP measure "table" "$build/robot" compare --base "$T/m$m/base" --head "$T/m$m/head"
	LKP=$LKP measure "--json" "$build/robot" compare --json --base "$T/m$m/base" --head "$T/m$m/head"
	rm -rf "$T/m$m"
done

echo "== start-up"
if [ -z "${SERVER_ONLY:-}" ]; then
	measure "/bin/true" /bin/true
	measure "robot --help" "$build/robot" --help
	measure "robot compare --help" "$build/robot" compare --help
fi

[ "$(id -u)" = 0 ] || { echo "compare_bench: the robotd part runs as root" >&2; exit 0; }
echo "== robot compare --series, from robotd's stored values"
cat >"$T/robotd.yaml" <<YAML
state_dir: $T/state
YAML
"$build/robotd" --config "$T/robotd.yaml" --listen 127.0.0.1:0 >"$T/robotd.log" 2>&1 &
PIDS="$!"
until grep -q "listening on" "$T/robotd.log"; do sleep 0.1; done
port=$(sed -n 's/.*listening on http:\/\/[^:]*:\([0-9]*\).*/\1/p' "$T/robotd.log")
U=http://127.0.0.1:$port
sql() { psql -h "$T/state/pg/run" -U robot -d postgres -XAtqc "$1"; }
SID=$(sql "INSERT INTO submissions (submitter, body) VALUES ('bench', '') RETURNING id")
# seed SERIES RUNS METRICS: done jobs and stored values at commits A
# and B (2% noise, every 50th metric 10% down on B), as uploads leave
# them.  Commits are full SHAs, as submits make them.
A=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
B=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
seed() {
	sql "INSERT INTO jobs (submission, key, tbox_group, series, commit, job, state, run, runs)
		SELECT $SID, '$1', 'lab', '$1/lab', c, '{\"suite\": \"dd-write\"}', 'done', r, $2
		FROM unnest(ARRAY['$A', '$B']) c, generate_series(1, $2) r"
	sql "INSERT INTO metric_values (series, commit, metric, vals, n, mean, stddev, min, max)
		SELECT '$1/lab', c,
			CASE WHEN m = 1 THEN 'dd.write_bytes_per_sec' ELSE 'proc-vmstat.m' || m END,
			v, $2, 0, 0, 0, 0
		FROM unnest(ARRAY['$A', '$B']) c, generate_series(1, $3) m,
		LATERAL (SELECT array_agg(1000 * (1 + 0.02 * sin(m * 7 + r * 3 + length(c))) *
			CASE WHEN c = '$B' AND m % 50 = 1 THEN 0.9 ELSE 1 END) v
			FROM generate_series(1, $2) r) x"
}
seed dd-write/big-runs 1000 300
seed dd-write/big-metrics 500 2000
for s in "dd-write/big-runs/lab 1000+1000 runs x 300" "dd-write/big-metrics/lab 500+500 runs x 2000"; do
	series=${s%% *}
	echo " ${s#* } metrics:"
	measure "robot compare --series" "$build/robot" compare --server "$U" --series "$series" --base $A --head $B
	measure "robot compare --series --json" "$build/robot" compare --server "$U" --series "$series" --base $A --head $B --json
	/usr/bin/python3 - "$U/api/compare?series=$series&base=$A&head=$B" "$RUNS" <<'PY'
import sys, time, urllib.request
url, runs = sys.argv[1], int(sys.argv[2])
t, size = [], 0
for _ in range(runs):
    t0 = time.perf_counter()
    size = len(urllib.request.urlopen(url).read())
    t.append(time.perf_counter() - t0)
t.sort()
print("  %-34s %8.1f ms  (best %7.1f)  %d bytes" % ("GET /api/compare (robotd)", t[len(t) // 2] * 1000, t[0] * 1000, size))
PY
done
