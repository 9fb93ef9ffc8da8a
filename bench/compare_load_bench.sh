#!/bin/sh
# bench/compare_load_bench.sh [BUILDDIR]: robotd while many anonymous
# clients ask it for a large comparison (issue 28 item 2).  As root (the
# embedded database runs as postgres).  Seeds, as uploads leave them:
#
#   - BULK (0) done runs more (one series at two commits, no values:
#     100,000 takes this database minutes to insert, its triggers)
#   - a series of 100+100 runs x 20,001 metrics at two commits
#
# then prints /api/status's p50 and p99 (a probe every 50 ms) quiet and
# while CLIENTS (32) clients ask GET /api/compare?...&all=1 of the wide
# series back to back for SECONDS (30), with the answers they got (200,
# 429, 413, ...) and robotd's peak RSS (VmHWM) and RSS at the end.
set -eu
build=${1:-build}
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "compare_load_bench: run as root" >&2; exit 1; }
CLIENTS=${CLIENTS:-32}
SECONDS_=${SECONDS:-30}
T=$(mktemp -d /tmp/compare-load.XXXXXX)
chmod 755 "$T"
PIDS=""
finish() {
	for p in $PIDS; do kill -TERM "$p" 2>/dev/null || :; done
	[ -n "$PIDS" ] && sleep 3
	rm -rf "$T"
}
trap finish EXIT

# CONF: more lines for robotd.yaml ("compare_max_values: 5000000").
cat >"$T/robotd.yaml" <<YAML
state_dir: $T/state
${CONF:-}
YAML
"$build/robotd" --config "$T/robotd.yaml" --listen 127.0.0.1:0 >"$T/robotd.log" 2>&1 &
RD=$!
PIDS="$RD"
until grep -q "listening on" "$T/robotd.log"; do sleep 0.1; done
port=$(sed -n 's/.*listening on http:\/\/[^:]*:\([0-9]*\).*/\1/p' "$T/robotd.log")
U=http://127.0.0.1:$port
sql() { psql -h "$T/state/pg/run" -U robot -d postgres -XAtqc "$1"; }
A=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
B=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
C=cccccccccccccccccccccccccccccccccccccccc
D=dddddddddddddddddddddddddddddddddddddddd
SID=$(sql "INSERT INTO submissions (submitter, body) VALUES ('bench', '') RETURNING id")
BULK=${BULK:-0}
[ "$BULK" -gt 0 ] && sql "INSERT INTO jobs (submission, key, tbox_group, series, commit, job, state, run, runs)
	SELECT $SID, 'dd-write/bulk', 'lab', 'dd-write/bulk/lab', c, '{\"suite\": \"dd-write\"}', 'done', r, $BULK / 2
	FROM unnest(ARRAY['$C', '$D']) c, generate_series(1, $BULK / 2) r"
sql "INSERT INTO jobs (submission, key, tbox_group, series, commit, job, state, run, runs)
	SELECT $SID, 'dd-write/wide', 'lab', 'dd-write/wide/lab', c, '{\"suite\": \"dd-write\"}', 'done', r, 100
	FROM unnest(ARRAY['$A', '$B']) c, generate_series(1, 100) r"
sql "INSERT INTO metric_values (series, commit, metric, vals, n, mean, stddev, min, max)
	SELECT 'dd-write/wide/lab', c,
		CASE WHEN m = 1 THEN 'dd.write_bytes_per_sec' ELSE 'proc-vmstat.m' || m END,
		v, 100, 0, 0, 0, 0
	FROM unnest(ARRAY['$A', '$B']) c, generate_series(1, 20001) m,
	LATERAL (SELECT array_agg(1000 * (1 + 0.02 * sin(m * 7 + r * 3)) *
		CASE WHEN c = '$B' AND m % 50 = 1 THEN 0.9 ELSE 1 END) v
		FROM generate_series(1, 100) r) x"
# robotd analyses the pairs the seeding made (at most 2 minutes here).
i=0
echo "seeded at $(date +%T); analysing"
until [ "$(sql "SELECT count(*) FROM pairs WHERE state <> 'final'")" = 0 ] || [ $i -ge 120 ]; do
	sleep 1
	i=$((i + 1))
done
sql "SELECT state, count(*) FROM pairs GROUP BY 1" | sed 's/^/pairs: /'
echo "seeded: $(sql "SELECT count(*) FROM jobs") runs, $(sql "SELECT count(*) FROM metric_values") metric rows; robotd pid $RD"

/usr/bin/python3 - "$U" "$RD" "$CLIENTS" "$SECONDS_" "$A" "$B" <<'PY'
import collections, sys, threading, time, urllib.error, urllib.request
U, pid, clients, seconds, A, B = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5], sys.argv[6]

def get(url, timeout=300):
    t0 = time.perf_counter()
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            r.read()
            code = r.status
    except urllib.error.HTTPError as e:
        e.read()
        code = e.code
    except Exception as e:
        code = type(e).__name__
    return code, time.perf_counter() - t0

def rss():
    kv = {}
    for line in open("/proc/%d/status" % pid):
        k, _, v = line.partition(":")
        kv[k] = v.strip()
    return kv["VmRSS"], kv["VmHWM"]

def probe(stop, out):
    while not stop.is_set():
        out.append(get(U + "/api/status", 60)[1])
        time.sleep(0.05)

def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * len(v)))] * 1000

def phase(label, load):
    stop, lat = threading.Event(), []
    codes, took = collections.Counter(), []
    def asker():
        url = "%s/api/compare?series=dd-write/wide/lab&base=%s&head=%s&all=1" % (U, A, B)
        while not stop.is_set():
            c, t = get(url, 120)
            codes[c] += 1
            took.append(t)
    th = [threading.Thread(target=probe, args=(stop, lat))]
    th += [threading.Thread(target=asker) for _ in range(load)]
    t0 = time.perf_counter()
    for t in th:
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in th:
        t.join()
    r, hwm = rss()
    print("%-28s /api/status p50 %7.1f ms  p99 %8.1f ms  max %8.1f ms  (%d probes, %.0f s)" %
          (label, pct(lat, 0.5), pct(lat, 0.99), max(lat) * 1000, len(lat), time.perf_counter() - t0))
    if load:
        print("%-28s compare answers %s, median %.2f s; robotd RSS %s, peak %s" %
              ("", dict(codes), sorted(took)[len(took) // 2] if took else 0, r, hwm))

print("one GET /api/compare?all=1 alone: %s in %.2f s" % get("%s/api/compare?series=dd-write/wide/lab&base=%s&head=%s&all=1" % (U, A, B)))
phase("quiet", 0)
phase("%d clients comparing" % clients, clients)
PY
