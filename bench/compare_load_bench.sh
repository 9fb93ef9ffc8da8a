#!/bin/sh
# bench/compare_load_bench.sh [BUILDDIR]: robotd while many anonymous
# clients ask it for large answers (issue 28 items 1 and 2).  As root
# (the embedded database runs as postgres).  Seeds, as uploads leave
# them:
#
#   - a series of 100+100 runs x 20,001 metrics at two commits
#   - 206 ended bisections with 5 pairs each, 1,000 other pairs and
#     100,000 runs of those pairs (inserted with the triggers off: they
#     would take minutes), as the third probe of issue 28 had them
#   - BULK (0) done runs more (one series at two commits, no values;
#     with the triggers, 100,000 take minutes)
#
# then prints /api/status's p50 and p99 (a probe every 50 ms) quiet,
# while CLIENTS (32) clients ask GET /api/compare?...&all=1 of the wide
# series back to back for SECONDS (30), with the answers they got (200,
# 429, 413, ...) and robotd's peak RSS (VmHWM) and RSS after, and while
# READERS (16) clients read /bisections.
set -eu
export ROBOTD_ALLOW_ROOT=1 # robotd as root, as the tests run it
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
trap 'exit 1' INT TERM

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
# The bisections, their pairs and their runs, for /bisections.
psql -h "$T/state/pg/run" -U robot -d postgres -XAtq <<SQL
SET session_replication_role = replica;
INSERT INTO bisections (id, tree, series, kpi, good, bad, goods, bad_now,
	runs, max_runs, state, started_by, finished, first_bad)
SELECT b, 'bench', 'dd-write/b' || b || '/lab', 'dd.write_bytes_per_sec',
	md5('g' || b) || left(md5('h' || b), 8),
	md5('b' || b) || left(md5('c' || b), 8),
	ARRAY[md5('g' || b) || left(md5('h' || b), 8)],
	md5('b' || b) || left(md5('c' || b), 8), 3, 10, 'bisected', 'bench',
	now(), md5('b' || b) || left(md5('c' || b), 8)
FROM generate_series(1, 206) b;
SELECT setval('bisections_id_seq', 206);
INSERT INTO pairs (id, series, base, head, state, verdict, bisection)
SELECT 100000 + p, 'dd-write/b' || ((p - 1) / 5 + 1) || '/lab',
	md5('pb' || p), md5('ph' || p), 'final', 'unchanged',
	CASE WHEN p <= 1030 THEN (p - 1) / 5 + 1 END
FROM generate_series(1, 2030) p;
INSERT INTO jobs (submission, key, tbox_group, series, commit, job, state,
	run, runs, pair)
SELECT $SID, 'dd-write/p', 'lab', 'dd-write/p/lab', md5('pc' || r % 2030),
	'{"suite": "dd-write"}', 'done', r, 1, 100000 + r % 2030 + 1
FROM generate_series(1, 100000) r;
-- (with the triggers off, job_counts did not see them: counted again)
SET session_replication_role = origin;
BEGIN;
LOCK TABLE jobs IN SHARE MODE;
DELETE FROM job_counts;
INSERT INTO job_counts (state, n) SELECT state, count(*) FROM jobs GROUP BY state;
COMMIT;
SQL
# robotd analyses the pairs the seeding made (at most 2 minutes here).
i=0
echo "seeded at $(date +%T); analysing"
until [ "$(sql "SELECT count(*) FROM pairs WHERE state <> 'final'")" = 0 ] || [ $i -ge 120 ]; do
	sleep 1
	i=$((i + 1))
done
sql "SELECT state, count(*) FROM pairs GROUP BY 1" | sed 's/^/pairs: /'
# Vacuumed, as autovacuum leaves a settled database (the visibility maps
# that index-only counts need).
sql "VACUUM ANALYZE"
echo "seeded: $(sql "SELECT count(*) FROM jobs") runs, $(sql "SELECT count(*) FROM metric_values") metric rows; robotd pid $RD"

/usr/bin/python3 - "$U" "$RD" "$CLIENTS" "$SECONDS_" "$A" "$B" "${READERS:-16}" <<'PY'
import collections, sys, threading, time, urllib.error, urllib.request
U, pid, clients, seconds, A, B = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5], sys.argv[6]
readers = int(sys.argv[7])

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

def phase(label, load, kind="compare"):
    stop, lat = threading.Event(), []
    codes, took = collections.Counter(), []
    def asker():
        url = "%s/api/compare?series=dd-write/wide/lab&base=%s&head=%s&all=1" % (U, A, B)
        while not stop.is_set():
            c, t = get(url, 120)
            codes[c] += 1
            took.append(t)
    def reader():
        while not stop.is_set():
            c, t = get(U + "/bisections", 120)
            codes[c] += 1
            took.append(t)
    th = [threading.Thread(target=probe, args=(stop, lat))]
    th += [threading.Thread(target=asker if kind == "compare" else reader) for _ in range(load)]
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
        print("%-28s %s answers %s, median %.3f s, p99 %.3f s; robotd RSS %s, peak %s" %
              ("", kind, dict(codes), sorted(took)[len(took) // 2] if took else 0,
               pct(took, 0.99) / 1000 if took else 0, r, hwm))

print("one GET /api/compare?all=1 alone: %s in %.2f s" % get("%s/api/compare?series=dd-write/wide/lab&base=%s&head=%s&all=1" % (U, A, B)))
phase("quiet", 0)
phase("%d clients comparing" % clients, clients)
phase("%d clients reading /bisections" % readers, readers, "bisections")
PY
