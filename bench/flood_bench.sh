#!/bin/sh
# bench/flood_bench.sh [BUILDDIR]: robotd under the floods of issue 61's
# hostile round, each measured as /api/status's p50 and p99 (a probe
# every 50 ms) and robotd's RSS and peak RSS (VmHWM) after it.  As root
# (the embedded database runs as postgres).  Seeds, by SQL:
#
#   - ten runs of 15 MB at one commit (their results' documents)
#   - a history of 1,000,000 values (10,000 commits x 100 runs)
#   - a run of 100,000 metrics
#
# then, for SECONDS (30) each: 8 clients reading GET /api/results of the
# ten runs (every page, again and again), 16 reading the history's
# /changes and /history (limit=10000), 16 reading the large run's page;
# and 8 clients each submitting a job file of 5,000 runs at once (to a
# group without boxes yet: the runs wait).  Clients ask again at once
# after a 429 (an attacker's way; robot waits 1, 2, 4, 8 s).
# Prints what each phase's clients got (200, 429, ...).  PHASES (all:
# "results history run submits") picks some.
set -eu
export ROBOTD_ALLOW_ROOT=1 # robotd as root, as the tests run it
build=${1:-build}
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "flood_bench: run as root" >&2; exit 1; }
SECONDS_=${SECONDS:-30}
T=$(mktemp -d /tmp/flood.XXXXXX)
chmod 755 "$T"
PIDS=""
finish() {
	for p in $PIDS; do kill -TERM "$p" 2>/dev/null || :; done
	[ -n "$PIDS" ] && sleep 3
	rm -rf "$T"
}
trap finish EXIT
trap 'exit 1' INT TERM

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
SUB=$("$build/robotd" --config "$T/robotd.yaml" token create --kind submit --name bench)
A=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
SID=$(sql "INSERT INTO submissions (submitter, body) VALUES ('bench', '') RETURNING id")
sql "INSERT INTO boxes (name, tbox_group) VALUES ('bench', 'lab')" >/dev/null
# Ten runs of 15 MB at one commit, and one of 100,000 metrics.
sql "WITH j AS (INSERT INTO jobs (submission, key, tbox_group, series, commit, job, state, run, runs)
	SELECT $SID, 'dd-write/big', 'lab', 'dd-write/big/lab', '$A', '{\"suite\": \"dd-write\"}', 'done', i, 10
	FROM generate_series(1, 10) i RETURNING id),
	l AS (INSERT INTO leases (job, box, state, deadline) SELECT id, 'bench', 'done', now() FROM j RETURNING id, job)
	INSERT INTO results (job, lease, series, commit, status, doc, bytes)
	SELECT l.job, l.id, 'dd-write/big/lab', '$A', 'ok',
	json_build_object('version', 1, 'outputs', json_build_object('dd', repeat('x', 15000000))), 15000060
	FROM l" >/dev/null
BIG=$(sql "WITH j AS (INSERT INTO jobs (submission, key, tbox_group, series, commit, job, state, run, runs)
	VALUES ($SID, 'dd-write/wide', 'lab', 'dd-write/wide/lab', '$A', '{\"suite\": \"dd-write\"}', 'done', 1, 1)
	RETURNING id),
	l AS (INSERT INTO leases (job, box, state, deadline) SELECT id, 'bench', 'done', now() FROM j RETURNING id, job)
	INSERT INTO results (job, lease, series, commit, status, doc)
	SELECT l.job, l.id, 'dd-write/wide/lab', '$A', 'failed',
	json_build_object('version', 1, 'key', 'dd-write/wide', 'status', 'failed',
		'stats', (SELECT json_object_agg('proc-vmstat.m' || m, m) FROM generate_series(1, 100000) m))
	FROM l RETURNING job")
# A history of 1,000,000 values: 10,000 commits of 100 runs.
sql "INSERT INTO metric_values (series, commit, metric, vals, n, mean, stddev, min, max)
	SELECT 'dd-write/long/lab', md5(c::text) || left(md5('x' || c), 8), 'dd.write_bytes_per_sec',
	(SELECT array_agg(1000 * (1 + 0.02 * sin(c * 7 + r * 3)) * CASE WHEN c > 6000 THEN 0.9 ELSE 1 END)
		FROM generate_series(1, 100) r), 100, 1000, 10, 900, 1100
	FROM generate_series(1, 10000) c" >/dev/null
sql "VACUUM ANALYZE" >/dev/null
# A job file of 50 jobs: with --repeat 50 and two commits, 5,000 runs.
printf 'suite: dd-write\ntestcase: dd-write\ndisk: 1LOOP_64M\nfs: ext4\nnr_threads: 1dd\nruntime: 1s\ndd:\n  bs: [%s]\n' \
	"$(seq -s, -f '%.0fk' 4 4 200)" >"$T/wide50.yaml"
echo "seeded: $(sql "SELECT count(*) FROM results") results, $(sql "SELECT sum(n) FROM metric_values") values; robotd pid $RD"

/usr/bin/python3 - "$U" "$RD" "$SECONDS_" "$A" "$BIG" "$SUB" "$T/wide50.yaml" "${PHASES:-results history run submits}" <<'PY'
import collections, json, sys, threading, time, urllib.error, urllib.request
U, pid, seconds, A, BIG, SUB, JOBFILE = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6], sys.argv[7]
PHASES = sys.argv[8].split()
body = open(JOBFILE, "rb").read()

def get(url, timeout=300, data=None, headers=None):
    t0 = time.perf_counter()
    req = urllib.request.Request(url, data=data, headers=headers or {})
    text = b""
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            text = r.read()
            code = r.status
    except urllib.error.HTTPError as e:
        e.read()
        code = e.code
    except Exception as e:
        code = type(e).__name__
    return code, time.perf_counter() - t0, text

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
    return v[min(len(v) - 1, int(p * len(v)))] * 1000 if v else 0

def results_pages():
    after, codes = 0, []
    while True:
        c, t, text = get("%s/api/results?series=dd-write/big/lab&commit=%s&after=%d" % (U, A, after))
        codes.append(c)
        if c != 200:
            return c
        nxt = json.loads(text).get("next")
        if not nxt:
            return c
        after = nxt

def phase(label, load, ask, once=False):
    stop, lat = threading.Event(), []
    codes, took = collections.Counter(), []
    def asker(i):
        while not stop.is_set():
            t0 = time.perf_counter()
            c = ask(i)
            codes[c] += 1
            took.append(time.perf_counter() - t0)
            if once:
                return
    th = [threading.Thread(target=probe, args=(stop, lat))]
    askers = [threading.Thread(target=asker, args=(i,)) for i in range(load)]
    t0 = time.perf_counter()
    for t in th + askers:
        t.start()
    if once:
        for t in askers:
            t.join()
        time.sleep(1)
    else:
        time.sleep(seconds)
    stop.set()
    for t in th + askers:
        t.join()
    r, hwm = rss()
    print("%-34s /api/status p50 %6.1f ms  p99 %7.1f ms  max %7.1f ms  (%d probes, %.0f s)" %
          (label, pct(lat, 0.5), pct(lat, 0.99), max(lat) * 1000 if lat else 0, len(lat),
           time.perf_counter() - t0))
    if load:
        print("%-34s answers %s, median %.3f s, p99 %.3f s; robotd RSS %s, peak %s" %
              ("", dict(codes), sorted(took)[len(took) // 2] if took else 0, pct(took, 0.99) / 1000, r, hwm))
    sys.stdout.flush()

hist = U + "/api/series/dd-write/long/lab/%s?metric=dd.write_bytes_per_sec&limit=10000"
c, t, text = get(hist % "changes")
print("one /changes of 1,000,000 values alone: %s in %.2f s (%d bytes)" % (c, t, len(text)))
c, t, text = get("%s/jobs/%s" % (U, BIG))
print("one page of a 100,000-metric run alone: %s in %.2f s (%d bytes)" % (c, t, len(text)))
phase("quiet", 0, None)
if "results" in PHASES:
    phase("8 clients on /api/results", 8, lambda i: results_pages())
if "history" in PHASES:
    phase("16 clients on a 1,000,000-value history", 16,
          lambda i: get(hist % ("changes" if i % 2 else "history"))[0])
if "run" in PHASES:
    phase("16 clients on a 100,000-metric run page", 16, lambda i: get("%s/jobs/%s" % (U, BIG))[0])
if "submits" in PHASES:
    phase("8 concurrent 5,000-run submits", 8,
          lambda i: get("%s/api/jobs?tbox_group=flood&repeat=50&commit=%040x&commit=%040x" % (U, 2 * i + 1, 2 * i + 2),
                        data=body, headers={"Authorization": "Bearer " + SUB})[0], once=True)
PY
