#!/bin/sh
# test_robotd_upgrade.sh ROBOTD ROBOT_BOX ROBOT SOURCE_DIR: databases that
# earlier robotd made (tests/fixtures/db/schema-NN.dump, with their data)
# upgrade to the database as this robotd builds it: the table migrations
# they lack applied, each migration's sha256 recorded, and their
# functions, triggers and tables exactly a fresh install's, their rows
# kept.  And robotd refuses to start, changing nothing, on a database
# whose applied migration has changed, whose functions or schema are
# newer than its own; two robotd that start at once take turns.  On a
# PostgreSQL cluster of its own.  TAP output.
set -u
ROBOTD=$1 BOX=$2 ROBOT=$3 SRC=$4
# It sees robotd make a fresh database: no copy of the tests' template.
ROBOT_TEST_FRESH_DB=1
. "$SRC/tests/integration/robotd_lib.sh"

PGBIN=$(dirname "$PGCTL")
stop_cluster() {
	runuser -u postgres -- "$PGCTL" stop -m immediate -D "$T/pg" >/dev/null 2>&1
	finish
}
trap stop_cluster EXIT
install -d -o postgres -g postgres -m 700 "$T/pg"
install -d -o postgres -g postgres -m 755 "$T/sock"
runuser -u postgres -- "$PGBIN/initdb" -D "$T/pg" -U postgres -A trust -E UTF8 \
	--no-locale --no-sync >/dev/null &&
	runuser -u postgres -- "$PGCTL" -D "$T/pg" -l "$T/pg/server.log" -w \
		-o "-k $T/sock -c listen_addresses='' -c fsync=off" start >/dev/null ||
	{ echo "1..0 # the test's PostgreSQL did not start"; exit 1; }

# q DB QUERY: the answer, one value a line.
q() { psql -h "$T/sock" -U postgres -d "$1" -XAtqc "$2"; }
dsn() { echo "host=$T/sock user=postgres dbname=$1"; }
# migrate DB: robotd migrates it (its token command does, then stops);
# its log in $T/DB.log.
migrate() {
	"$ROBOTD" --db "$(dsn "$1")" --state-dir "$T/state" token create \
		--kind submit --name "upgrade-$1" >"$T/$1.token" 2>"$T/$1.log"
}
# The database's functions, triggers and tables as text, to compare.
functions() {
	q "$1" "SELECT n.nspname || ' ' || pg_get_functiondef(p.oid) FROM pg_proc p
		JOIN pg_namespace n ON n.oid = p.pronamespace
		WHERE n.nspname IN ('public', 'robot_functions')
		AND p.proname LIKE 'robot\_%' ORDER BY p.proname,
		pg_get_function_identity_arguments(p.oid)"
	q "$1" "SELECT pg_get_triggerdef(oid) FROM pg_trigger WHERE NOT tgisinternal
		ORDER BY tgname"
}
tables() {
	pg_dump -h "$T/sock" -U postgres -s --no-owner "$1" | grep -v '^\\\(un\)\?restrict '
}
ROWS="tokens boxes submissions jobs leases results metric_values pairs
regressions trees tree_commits tree_heads mail_addresses subscriptions reports
regression_events outbox bisections bisect_steps"
# rows DB: a digest of each table's rows, of the columns it had before
# the upgrade (kept in $T/DB.columns by the first call; a column that a
# migration adds is not a row changed).
# (One query for the columns and one for the digests: a psql a table,
# 171 in all, cost about 8 s of CPU.)
rows() {
	[ -f "$T/$1.columns" ] || q "$1" "SELECT t || ' ' || coalesce((SELECT string_agg(column_name, ',')
			FROM information_schema.columns WHERE table_schema = 'public'
			AND table_name = t), '')
		FROM unnest(string_to_array('$(echo $ROWS)', ' ')) WITH ORDINALITY AS u(t, i) ORDER BY i" >"$T/$1.columns"
	query= i=0
	while read -r t cols; do
		i=$((i + 1))
		[ -n "$query" ] && query="$query UNION ALL "
		# (a table the database did not have before: nothing of it kept)
		[ -z "$cols" ] && query="$query SELECT $i AS i, '$t ' AS line" && continue
		query="$query SELECT $i AS i, '$t ' || (SELECT md5(coalesce(string_agg(r::text, ',' ORDER BY r::text), ''))
			FROM (SELECT (SELECT jsonb_object_agg(k, v) FROM jsonb_each(to_jsonb(x)) AS e(k, v)
				WHERE k = ANY (string_to_array('$cols', ','))) AS r FROM $t x) y) AS line"
	done <"$T/$1.columns"
	q "$1" "SELECT line FROM ($query) z ORDER BY i"
}

echo "1..32"

# A fresh install.
q postgres "CREATE DATABASE fresh" >/dev/null
migrate fresh
check $? "robotd makes a fresh database: schema version $(ls "$SRC/sql/schema" | grep -c "\.sql$")"
check $([ "$(q fresh "SELECT string_agg(version || ' ' || name || ' ' || sha256, ',' ORDER BY version) FROM robot_schema")" = \
	"$(cd "$SRC/sql/schema" && for f in *.sql; do echo "$(echo "$f" | sed 's/^0*\([0-9]*\)_.*/\1/') $f $(sha256sum <"$f" | cut -d' ' -f1)"; done | paste -sd,)" ]; echo $?) \
	"each migration is recorded with its file's sha256"
check $([ "$(q fresh "SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'robot_functions'")" -gt 60 ] &&
	[ "$(q fresh "SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public' AND p.proname LIKE 'robot%'")" = 0 ]; echo $?) \
	"its functions are in robot_functions, none in public"
functions fresh >"$T/fresh.functions"
tables fresh >"$T/fresh.tables"

# Each earlier database upgrades to the same, its rows kept.
for v in 09 10 11; do
	q postgres "CREATE DATABASE v$v" >/dev/null
	pg_restore -h "$T/sock" -U postgres -d "v$v" --exit-on-error \
		"$SRC/tests/fixtures/db/schema-$v.dump" 2>"$T/restore-$v.err"
	rows "v$v" | grep -v '^tokens ' >"$T/v$v.before"
	tokens=$(q "v$v" "SELECT count(*) FROM tokens")
	migrate "v$v"
	check $? "schema $v upgrades ($(grep -c 'applying schema migration' "$T/v$v.log") migrations applied)"
	functions "v$v" >"$T/v$v.functions"
	cmp -s "$T/fresh.functions" "$T/v$v.functions"
	rc=$?
	check $rc "schema $v: its functions and triggers are a fresh install's"
	[ $rc = 0 ] || diff "$T/fresh.functions" "$T/v$v.functions" | head -20 | sed 's/^/# /'
	tables "v$v" >"$T/v$v.tables"
	cmp -s "$T/fresh.tables" "$T/v$v.tables"
	rc=$?
	check $rc "schema $v: its tables, indexes and constraints are a fresh install's"
	[ $rc = 0 ] || diff "$T/fresh.tables" "$T/v$v.tables" | head -20 | sed 's/^/# /'
	rows "v$v" | grep -v '^tokens ' >"$T/v$v.after"
	check $(cmp -s "$T/v$v.before" "$T/v$v.after" &&
		[ "$(q "v$v" "SELECT count(*) FROM tokens")" = $((tokens + 1)) ] &&
		[ "$(q "v$v" "SELECT count(*) FROM regressions")" = 1 ]; echo $?) \
		"schema $v: every row kept"
done
check $(grep -q 'recorded the sha256 of 11 migrations' "$T/v11.log" &&
	grep -q 'applying schema migration 010_pages.sql' "$T/v09.log" &&
	! grep -q 'applying schema migration 011' "$T/v11.log"; echo $?) \
	"each applies only the migrations it lacks, and records the sha256 of the others"

# The upgraded database serves: its lab, its regression and its report.
cat >"$T/robotd.yaml" <<YAML
state_dir: $T/state
db: $(dsn v11)
YAML
start_robotd up --config "$T/robotd.yaml"
check $? "robotd serves the upgraded database"
U=$URL_up
check $(api GET "$U/api/status" "" >/dev/null && py "
assert [b['name'] for b in j['boxes']] == ['box-1', 'box-2'], j['boxes']
assert j['queue']['done'] == 6 and j['queue']['cancelled'] == 1, j['queue']"; echo $?) \
	"its status shows the boxes and runs the old robotd stored"
check $(api GET "$U/api/regressions/1" "" >/dev/null && py "
assert j['kpi'] == 'dd.write_bytes_per_sec' and j['state'] == 'bisecting', j
assert j['report']['recipients'] == 1 and j['report']['sent'] == 1, j['report']
assert j['commit_info']['subject'] == 'net: tidy a header', j['commit_info']
assert j['bisection']['state'] == 'running', j['bisection']"; echo $?) \
	"its regression shows its report, its commit and its bisection"
stop "$PID_up"

# A second start applies nothing and makes the functions anew.
migrate v11
check $(! grep -q 'applying' "$T/v11.log" && functions v11 | cmp -s - "$T/fresh.functions"; echo $?) \
	"a second start applies no migration; the functions are the same"

# Refusals: robotd names the cause and changes nothing.
q v11 "DROP FUNCTION robot_functions.robot_status()" >/dev/null
q v11 "UPDATE robot_schema SET sha256 = 'edited' WHERE version = 3" >/dev/null
migrate v11
check $([ $? != 0 ] && grep -q 'sql/schema/003_analysis.sql has changed since this database applied it' "$T/v11.log"; echo $?) \
	"an applied migration that changed: refused, naming its file"
check $([ "$(q v11 "SELECT count(*) FROM pg_proc WHERE proname = 'robot_status'")" = 0 ]; echo $?) \
	"the refused start changed nothing"
q v11 "UPDATE robot_schema SET sha256 = '$(sha256sum <"$SRC/sql/schema/003_analysis.sql" | cut -d' ' -f1)' WHERE version = 3" >/dev/null
q v11 "UPDATE robot_functions_loaded SET version = version + 1" >/dev/null
migrate v11
check $([ $? != 0 ] && grep -q 'the database has functions version [0-9]*, newer than this robotd' "$T/v11.log"; echo $?) \
	"functions newer than robotd's: refused"
q v11 "UPDATE robot_functions_loaded SET version = version - 1, sha256 = 'other'" >/dev/null
migrate v11
check $([ $? != 0 ] && grep -q 'two builds disagree' "$T/v11.log"; echo $?) \
	"functions of robotd's version but not its own: refused"
q v11 "INSERT INTO robot_schema (version, name, sha256) VALUES (99, '099_future.sql', 'x')" >/dev/null
migrate v11
check $([ $? != 0 ] && grep -q 'schema version 99, newer than this robotd knows' "$T/v11.log"; echo $?) \
	"a newer schema: refused"
q v11 "DELETE FROM robot_schema WHERE version = 99" >/dev/null
q v11 "UPDATE robot_functions_loaded SET sha256 = '$(q fresh "SELECT sha256 FROM robot_functions_loaded")'" >/dev/null
migrate v11
check $([ $? = 0 ] && [ "$(q v11 "SELECT count(*) FROM pg_proc WHERE proname = 'robot_status'")" = 1 ]; echo $?) \
	"set right again, it starts, and the function dropped by hand is back"

# The analysis' claim, on the fresh database with no robotd running: two
# pairs of one branch and series are never analysed at once (what the
# second records depends on what the first found), and a claim names the
# findings its branch left open.
S=dd/x/lab
q fresh "INSERT INTO pairs (series, base, head, tree, branch, state) VALUES
	('$S', 'a', 'b', 't', 'master', 'ready'), ('$S', 'a', 'c', 't', 'master', 'ready'),
	('other/x/lab', 'a', 'c', 't', 'master', 'ready')" >/dev/null
first=$(q fresh "SELECT robot_functions.robot_pair_next(60)->>'head'")
second=$(q fresh "SELECT robot_functions.robot_pair_next(60)->>'series'")
third=$(q fresh "SELECT robot_functions.robot_pair_next(60) IS NULL")
check $([ "$first" = b ] && [ "$second" = other/x/lab ] && [ "$third" = t ]; echo $?) \
	"a pair of a branch and series waits while another of them is analysed ($first, $second, $third)"
q fresh "SELECT robot_functions.robot_pair_done(id, 1, 'regression',
	'dd.write_bytes_per_sec', 3, '[]', '', 0, '[]', '[{\"kpi\":
	\"dd.write_bytes_per_sec\", \"verdict\": \"regression\", \"change_pct\": -80,
	\"p_value\": 0.001, \"action\": \"new\", \"regression\": null}]')
	FROM pairs WHERE head = 'b' AND series = '$S'" >/dev/null
claim=$(q fresh "SELECT robot_functions.robot_pair_next(60)")
check $(echo "$claim" | /usr/bin/python3 -c "
import json, sys
c = json.load(sys.stdin)
assert c['head'] == 'c' and c['series'] == '$S', c
assert [(o['kpi'], o['kind'], o['change_pct']) for o in c['open']] == \\
    [('dd.write_bytes_per_sec', 'regression', -80)], c['open']"; echo $?) \
	"once it is final, the other is claimed, with the regression it found open"

# Two robotd on one new database at once: one migrates, the other waits
# for it under the lock and finds it done.
q postgres "CREATE DATABASE twice" >/dev/null
migrate twice &
p1=$!
"$ROBOTD" --db "$(dsn twice)" --state-dir "$T/state" token create --kind submit \
	--name second >/dev/null 2>"$T/twice2.log"
r2=$?
wait $p1
r1=$?
check $([ $r1 = 0 ] && [ $r2 = 0 ] &&
	[ "$(q twice "SELECT count(*) FROM robot_schema")" = "$(ls "$SRC/sql/schema" | grep -c '\.sql$')" ]; echo $?) \
	"two robotd starting at once on a new database both start; each migration applied once"
functions twice | cmp -s - "$T/fresh.functions"
check $? "and its functions are one fresh set"

# Across the lab: a newer robotd starts beside one that serves and
# loads its functions (what it leaves in the database: a newer version,
# and its NOTIFY).  The older one stops, saying why, and takes no more
# work; started again it refuses the database.  One that missed the
# NOTIFY finds out within ROBOTD_FUNCTIONS_CHECK (30 s).
serve_old() { # serve_old LOG: a robotd serving database twice; its PID in OLD
	"$ROBOTD" --db "$(dsn twice)" --state-dir "$T/state-o" --listen 127.0.0.1:0 >"$T/$1" 2>&1 &
	OLD=$!
	PIDS="$PIDS $OLD"
	wait_for 30 grep -q "listening on" "$T/$1"
}
serve_old old.log
t0=$(date +%s)
q twice "BEGIN; UPDATE robot_functions_loaded SET version = version + 1;
	SELECT pg_notify('robot_jobs', ':functions'); COMMIT" >/dev/null
wait "$OLD"
rc=$?
t=$(($(date +%s) - t0))
"$ROBOTD" --db "$(dsn twice)" --state-dir "$T/state-o" --listen 127.0.0.1:0 >"$T/old2.log" 2>&1
rc2=$?
check $([ $rc = 1 ] && [ $t -lt 20 ] &&
	grep -q "the database's functions are version [0-9]*, newer than this robotd's ([0-9]*, robot .*): a newer robotd upgraded it, so this one stops and takes no more work; upgrade it" "$T/old.log" &&
	grep -q "stopped" "$T/old.log" &&
	[ $rc2 = 1 ] && grep -q "newer than this robotd's ([0-9]*): run a newer robotd" "$T/old2.log"; echo $?) \
	"a robotd whose database a newer one upgraded stops at its NOTIFY, saying why (exit $rc after $t s), and is refused when started again (exit $rc2)"
q twice "UPDATE robot_functions_loaded SET version = version - 1" >/dev/null
serve_old old3.log
t0=$(date +%s)
q twice "UPDATE robot_functions_loaded SET version = version + 1" >/dev/null
wait "$OLD"
rc=$?
t=$(($(date +%s) - t0))
check $([ $rc = 1 ] && [ $t -le 45 ] && grep -q "a newer robotd upgraded it" "$T/old3.log"; echo $?) \
	"without the NOTIFY, it finds out within 30 s and stops (exit $rc after $t s)"
exit $((failed > 0))
