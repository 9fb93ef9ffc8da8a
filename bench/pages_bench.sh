#!/bin/sh
# bench/pages_bench.sh [CLIENTS] [SECONDS]: p50/p99 latency and size of
# every page (and its JSON twin) with CLIENTS concurrent connections
# (default 16; wrk) for SECONDS each (default 5), on a database of 100,000
# runs of 300 metrics: 100 series x 100 commits of a 100-commit tree x
# 10 runs, the values of every metric of every run (3 million
# metric_values rows of 10 values), a comparison of every series between
# each commit and the one before, 500 regressions, 20 boxes and 1,000
# full result documents (300 stats and per-second series); the other
# runs' documents are small (their values are in metric_values, which is
# what the pages read).  Then the time Chromium takes to load and render
# each page.  As root (robotd's embedded PostgreSQL).  Prints figures.
set -eu
export ROBOTD_ALLOW_ROOT=1 # robotd as root, as the tests run it
cd "$(dirname "$0")/.."
CLIENTS=${1:-16}
SECS=${2:-5}
PY=/usr/bin/python3
T=$(mktemp -d /tmp/pages-bench.XXXXXX)
chmod 755 "$T"
PGCTL=$(ls -d /usr/lib/postgresql/*/bin/pg_ctl | sort -V | tail -1)
cleanup() {
	[ -n "${PID:-}" ] && kill "$PID" 2>/dev/null && sleep 1
	runuser -u postgres -- "$PGCTL" stop -m fast -D "$T/state/pg/data" >/dev/null 2>&1 || true
	rm -rf "$T"
}
trap cleanup EXIT INT TERM
ninja -C build >/dev/null
printf 'state_dir: %s\n' "$T/state" >"$T/robotd.yaml"
build/robotd --config "$T/robotd.yaml" --listen 127.0.0.1:0 >"$T/robotd.log" 2>&1 &
PID=$!
i=0
until grep -q "listening on" "$T/robotd.log"; do
	i=$((i + 1))
	[ $i -lt 300 ] || { cat "$T/robotd.log"; exit 1; }
	sleep 0.1
done
U=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$T/robotd.log")
# psql finds robotd's functions as robotd does.
export PGOPTIONS="-c search_path=robot_functions,public"
sql() { psql -h "$T/state/pg/run" -U robot -d postgres -XAtq "$@"; }

echo "seeding 100,000 runs of 300 metrics..." >&2
start=$(date +%s)
sql <<'SQL'
SET synchronous_commit = off;
INSERT INTO trees (name, url, branches, base_ref, jobs, tbox_groups, runs,
	max_runs, poll, fetched)
VALUES ('bench', '/nonexistent', '{main}', 'v1.0', '[]', '{lab}', 10, 10,
	86400, now());
INSERT INTO tree_commits (tree, sha, parents, author, date, subject)
SELECT 'bench', md5('c' || c) || left(md5('d' || c), 8),
	CASE WHEN c = 0 THEN '{}' ELSE ARRAY[md5('c' || (c - 1)) ||
		left(md5('d' || (c - 1)), 8)] END,
	'Dev <dev@example.org>', '2026-01-01'::timestamptz + c * interval '1 hour',
	'subsystem: change number ' || c
FROM generate_series(0, 99) c;
INSERT INTO tree_heads (tree, branch, sha, base)
VALUES ('bench', 'main', md5('c99') || left(md5('d99'), 8),
	md5('c0') || left(md5('d0'), 8));
INSERT INTO boxes (name, tbox_group, state, facts, last_seen)
SELECT 'box' || b, 'lab', 'idle', '{"cpus": 8, "memory": 17179869184}', now()
FROM generate_series(1, 20) b;
INSERT INTO submissions (submitter, body) VALUES ('bench', 'seed');
-- The seed's runs are done already: no pairs from them (robot_jobs_queued()
-- would compare each with its submission's first commit), none ended.
ALTER TABLE jobs DISABLE TRIGGER USER;
INSERT INTO jobs (submission, key, tbox_group, series, commit, tree, job,
	run, runs, state, box, created, updated)
SELECT 1, 'dd-write/s' || s, 'lab', 'dd-write/s' || s || '/lab',
	md5('c' || c) || left(md5('d' || c), 8), 'bench',
	json_build_object('suite', 'dd-write', 'testcase', 'dd-write',
		'key', 'dd-write/s' || s),
	r, 10, 'done', 'box' || (1 + (s + c + r) % 20),
	'2026-01-01'::timestamptz + c * interval '1 hour' + r * interval '1 minute',
	'2026-01-01'::timestamptz + c * interval '1 hour' + r * interval '2 minute'
FROM generate_series(1, 100) s, generate_series(0, 99) c,
	generate_series(1, 10) r;
ALTER TABLE jobs ENABLE TRIGGER USER;
INSERT INTO leases (job, box, deadline, state)
SELECT id, box, now(), 'done' FROM jobs;
-- The values: 300 metrics a run (the first a KPI with a -10% step at
-- commit 50 of every tenth series), as the results trigger stores them.
INSERT INTO metric_values (series, commit, metric, vals, n, mean, stddev,
	min, max)
SELECT a.series, a.commit, a.metric, a.vals, 10,
	(SELECT avg(x) FROM unnest(a.vals) x),
	(SELECT stddev_pop(x) FROM unnest(a.vals) x),
	(SELECT min(x) FROM unnest(a.vals) x),
	(SELECT max(x) FROM unnest(a.vals) x)
FROM (SELECT 'dd-write/s' || s || '/lab' AS series,
	md5('c' || c) || left(md5('d' || c), 8) AS commit,
	CASE WHEN m = 0 THEN 'dd.write_bytes_per_sec' ELSE
		'proc-vmstat.m' || m END AS metric,
	ARRAY[f * (1 + 0.01 * sin(s * 7 + c * 3 + m + 1)),
		f * (1 + 0.01 * sin(s * 7 + c * 3 + m + 2)),
		f * (1 + 0.01 * sin(s * 7 + c * 3 + m + 3)),
		f * (1 + 0.01 * sin(s * 7 + c * 3 + m + 4)),
		f * (1 + 0.01 * sin(s * 7 + c * 3 + m + 5)),
		f * (1 + 0.01 * sin(s * 7 + c * 3 + m + 6)),
		f * (1 + 0.01 * sin(s * 7 + c * 3 + m + 7)),
		f * (1 + 0.01 * sin(s * 7 + c * 3 + m + 8)),
		f * (1 + 0.01 * sin(s * 7 + c * 3 + m + 9)),
		f * (1 + 0.01 * sin(s * 7 + c * 3 + m + 10))]::float8[] AS vals
	FROM generate_series(1, 100) s, generate_series(0, 99) c,
		generate_series(0, 299) m,
		LATERAL (SELECT (1e8 + m) * CASE WHEN m = 0 AND s % 10 = 0
			AND c >= 50 THEN 0.9 ELSE 1 END AS f) k) a;
SQL
echo "  values: $(($(date +%s) - start)) s" >&2
sql <<'SQL'
SET synchronous_commit = off;
ALTER TABLE results DISABLE TRIGGER results_values;
-- 1,000 full documents (the run pages shown), small ones for the rest.
INSERT INTO results (job, lease, series, commit, status, doc)
SELECT j.id, l.id, j.series, j.commit, 'ok',
	CASE WHEN j.id % 100 = 0 THEN json_build_object('version', 1,
		'key', j.key, 'tbox_group', 'lab', 'box', j.box,
		'commit', j.commit, 'status', 'ok', 'job', j.job,
		'stats', (SELECT json_object_agg(CASE WHEN m = 0 THEN
			'dd.write_bytes_per_sec' ELSE 'proc-vmstat.m' || m END,
			1e8 + m) FROM generate_series(0, 299) m),
		'series', json_build_object('dd.loop0.write_bytes_per_sec',
			(SELECT json_agg(1e8 * (1 + 0.3 * sin(t))) FROM
			generate_series(1, 300) t)),
		'outputs', json_build_object('dd', repeat('dd output line' ||
			E'\n', 200)))
	ELSE json_build_object('version', 1, 'key', j.key, 'commit', j.commit,
		'status', 'ok', 'stats', json_build_object(
		'dd.write_bytes_per_sec', 1e8)) END
FROM jobs j JOIN leases l ON l.job = j.id;
ALTER TABLE results ENABLE TRIGGER results_values;
SQL
echo "  results: $(($(date +%s) - start)) s" >&2
# The comparisons: each series between each commit and the one before,
# through robotd's own analysis (its comparison JSON and table).
sql <<'SQL'
INSERT INTO pairs (series, base, head, tree, branch, state, ready_at)
SELECT 'dd-write/s' || s || '/lab', md5('c' || (c - 1)) || left(md5('d' || (c - 1)), 8),
	md5('c' || c) || left(md5('d' || c), 8), 'bench', 'main', 'ready', now()
FROM generate_series(1, 100) s, generate_series(1, 99) c;
SELECT pg_notify('robot_jobs', ':analysis');
SQL
i=0
until [ "$(sql -c "SELECT count(*) FROM pairs WHERE state <> 'final'")" = 0 ]; do
	i=$((i + 1))
	[ $i -lt 3000 ] || { echo "analysis did not finish" >&2; exit 1; }
	sleep 1
done
echo "  comparisons: $(($(date +%s) - start)) s; $(sql -c "SELECT count(*) FROM regressions") regressions found" >&2
# 500 regressions in all (the analysis found the real ones).
sql <<'SQL'
INSERT INTO regressions (kind, tree, branch, commit, base, series, kpi,
	change_pct, p_value, runs, pair, last_head, state)
SELECT 'regression', 'bench', 'main', p.head, p.base, p.series,
	'proc-vmstat.m' || (p.id % 299 + 1), -5 - p.id % 7, 1e-4, 10, p.id,
	p.head, 'reported'
FROM pairs p WHERE p.id % 20 = 3
ORDER BY p.id LIMIT greatest(0, 500 - (SELECT count(*) FROM regressions));
SQL
# Vacuumed, as autovacuum leaves a settled database: measured without it
# at work, and with the visibility maps the index-only scans need.
sql <<'SQL'
VACUUM ANALYZE;
SQL
echo "seeded in $(($(date +%s) - start)) s: $(sql -c "SELECT count(*) FROM jobs") runs, $(sql -c "SELECT count(*) FROM metric_values") metric rows, $(sql -c "SELECT count(*) FROM regressions") regressions, database $(sql -c "SELECT pg_size_pretty(pg_database_size('postgres'))")" >&2

RID=$(sql -c "SELECT id FROM regressions WHERE kpi = 'dd.write_bytes_per_sec' LIMIT 1")
[ -n "$RID" ] || RID=$(sql -c "SELECT min(id) FROM regressions")
PAIR=$(sql -c "SELECT series || ' ' || base || ' ' || head FROM pairs WHERE id = (SELECT pair FROM regressions WHERE id = $RID)")
set -- $PAIR
SERIES=$1 BASE=$2 HEAD=$3
JOB=$(sql -c "SELECT max(job) FROM results WHERE job % 100 = 0")
BID=$(sql -c "SELECT min(id) FROM bisections")
cat >"$T/pages" <<P
home /
home.json /api/home
regression /regressions/$RID
regression.json /api/regressions/$RID
compare /compare?series=$SERIES&base=$BASE&head=$HEAD
compare.json /api/compare?series=$SERIES&base=$BASE&head=$HEAD
history /series/$SERIES/history?metric=dd.write_bytes_per_sec
history.json /api/series/$SERIES/history?metric=dd.write_bytes_per_sec
run /jobs/$JOB
run.json /api/jobs/$JOB
lab /lab
lab.json /api/status
queue /queue
queue.json /api/jobs
tree /trees/bench
tree.json /api/trees/bench
box /boxes/box7
box.json /api/boxes/box7
submission /submissions/1
submission.json /api/submissions/1
bisections /bisections
subscribe /subscribe
P
# wrk (Debian's) for the load: CLIENTS connections on 2 threads for
# SECS seconds a page, its latency distribution; the size by curl.
printf '%-16s %8s %8s %8s %9s %7s\n' page "p50 ms" "p99 ms" "max ms" "req/s" KiB
SAVE=${PAGES_OUT:-/tmp/pages-bench-pages}
rm -rf "$SAVE"
mkdir -p "$SAVE"
while read -r name path; do
	kib=$(curl -s -o "$SAVE/$name" -w '%{size_download}' "$U$path" | awk '{printf "%.1f", $1 / 1024}')
	status=$(curl -s -o /dev/null -w '%{http_code}' "$U$path")
	wrk -t2 -c"$CLIENTS" -d"${SECS}s" --latency "$U$path" 2>&1 | awk -v n="$name" -v k="$kib" -v s="$status" '
		function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
		/^ +50%/ { p50 = ms($2) } /^ +99%/ { p99 = ms($2) }
		/^ +Latency +[0-9]/ { mx = ms($4) } /^Requests\/sec/ { rps = $2 }
		/Non-2xx/ { bad = $NF }
		END { printf "%-16s %8.1f %8.1f %8.1f %9.0f %7s%s\n", n, p50, p99, mx, rps, k, (s != 200 || bad ? "  status " s " non-2xx " bad : "") }'
done <"$T/pages"
# Chromium: from its start to the loaded page's DOM, less the same for
# an empty page (the browser's own start), the median of 3.
chrome_ms() {
	for i in 1 2 3; do
		t0=$(date +%s%N)
		chromium --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$T/chrome" \
			--dump-dom "$1" >/dev/null 2>&1
		t1=$(date +%s%N)
		echo $(((t1 - t0) / 1000000))
	done | sort -n | sed -n 2p
}
blank=$(chrome_ms about:blank)
echo "Chromium, load and render to the DOM, less its own start ($blank ms for about:blank; median of 3):"
while read -r name path; do
	case $name in *.json) continue ;; esac
	echo "  $name: $(($(chrome_ms "$U$path") - blank)) ms"
done <"$T/pages"
# The plans of every statement the pages' queries run (auto_explain,
# nested statements included), for docs/web.md.
EXPLAIN=${EXPLAIN_OUT:-/tmp/pages-explain.txt}
sql -v ON_ERROR_STOP=1 >"$EXPLAIN" 2>&1 <<SQL
LOAD 'auto_explain';
SET auto_explain.log_min_duration = 0;
SET auto_explain.log_nested_statements = on;
SET auto_explain.log_analyze = on;
SET auto_explain.log_timing = on;
SET auto_explain.log_level = notice;
SET client_min_messages = notice;
\\echo === home
SELECT length(robot_home(30)::text);
\\echo === regression
SELECT length(robot_regression($RID)::text);
\\echo === history
SELECT length(robot_series_history('$SERIES', 'dd.write_bytes_per_sec', 200)::text);
\\echo === compare values
SELECT length(robot_side_values('$SERIES', '$BASE', '$HEAD', ARRAY['dd.write_bytes_per_sec'])::text);
\\echo === bisections
SELECT length(robot_bisections(100)::text);
SQL
echo "the pages as measured: $SAVE"
echo "the plans of the pages' queries: $EXPLAIN ($(grep -c 'Seq Scan' "$EXPLAIN") sequential scans)"
