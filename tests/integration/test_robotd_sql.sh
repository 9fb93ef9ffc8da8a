#!/bin/sh
# test_robotd_sql.sh ROBOTD ROBOT_BOX ROBOT SOURCE_DIR: robotd's SQL functions
# called directly, in concurrent sessions, on a PostgreSQL cluster of the
# test's own (the database as robotd builds it): the races that robotd
# itself makes only now and then, made every time.  TAP output.
set -u
ROBOTD=$1 BOX=$2 ROBOT=$3 SRC=$4
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
"$ROBOTD" --db "host=$T/sock user=postgres dbname=postgres" --state-dir "$T/state" \
	token create --kind submit --name sql >/dev/null 2>"$T/migrate.log" ||
	{ echo "1..0 # robotd did not make the database"; sed 's/^/# /' "$T/migrate.log"; exit 1; }

# q QUERY: the answer, one value a line.
q() { psql -h "$T/sock" -U postgres -d postgres -XAtq -v ON_ERROR_STOP=1 -c "$1"; }
# later SECONDS QUERY...: a session that runs the queries in one
# transaction, holding it SECONDS at the end, in the background.
later() {
	secs=$1
	shift
	(printf 'BEGIN;\n'; for x in "$@"; do printf '%s;\n' "$x"; done
	 printf 'SELECT pg_sleep(%s);\nCOMMIT;\n' "$secs") |
		psql -h "$T/sock" -U postgres -d postgres -XAtq -v ON_ERROR_STOP=1 >/dev/null &
}
# runs SERIES COMMIT STATE N: N runs of SERIES at COMMIT in STATE, of a
# submission of their own; their ids, a line each.
SUB=$(q "INSERT INTO submissions (submitter, body) VALUES ('sql', '') RETURNING id")
runs() {
	q "INSERT INTO jobs (submission, key, tbox_group, series, commit, job,
		state, pair) SELECT $SUB, split_part('$1', '/', 1), 'lab', '$1', '$2',
		'{}', '$3', 0 FROM generate_series(1, $4) RETURNING id"
}
# pair SERIES BASE HEAD STATE: a pair; its id.
pair() {
	q "INSERT INTO pairs (series, base, head, state, analyses)
		VALUES ('$1', '$2', '$3', '$4', 1) RETURNING id"
}

echo "1..13"

# 1. The last run of each side ends at once, on two boxes: each
# transaction's check sees the other's run still leased.  The pair must
# be ready all the same.
P1=$(pair s1/lab a b waiting)
J1=$(runs s1/lab a leased 1)
J2=$(runs s1/lab b leased 1)
later 3 "UPDATE jobs SET state = 'done' WHERE id = $J1"
sleep 1
q "UPDATE jobs SET state = 'done' WHERE id = $J2" >/dev/null
wait
check $([ "$(q "SELECT state FROM pairs WHERE id = $P1")" = ready ]; echo $?) \
	"two runs that end at once leave their pair ready ($(q "SELECT state FROM pairs WHERE id = $P1"))"

# 2. A pair's analysis asks for rounds it has already, one of their runs
# still leased, while that run ends: the analysis sees it leased, the run's
# end sees the pair still analysing.  The pair must not wait forever.
P2=$(pair s2/lab a b analysing)
A2=$(runs s2/lab a done 2)
B2=$(runs s2/lab b done 1)
J3=$(runs s2/lab b leased 1)
# in two rounds: (a, b) and (a, the leased b)
# shellcheck disable=SC2086
set -- $A2
q "UPDATE jobs SET round = 9001 WHERE id IN ($1, $B2)" >/dev/null
q "UPDATE jobs SET round = 9002 WHERE id IN ($2, $J3)" >/dev/null
later 3 "UPDATE jobs SET state = 'done' WHERE id = $J3"
sleep 1
got=$(q "SELECT robot_pair_done($P2, 1, 'inconclusive', 'dd.write_bytes_per_sec',
	1, '[]', '', 2, '[]', '[]')")
wait
check $([ "$(q "SELECT state FROM pairs WHERE id = $P2")" = final ] ||
	[ "$(q "SELECT state FROM pairs WHERE id = $P2")" = ready ]; echo $?) \
	"a run that ends while its pair asks for more leaves the pair final or ready ($got, $(q "SELECT state FROM pairs WHERE id = $P2"))"
# 3. A pair left waiting for runs that are all over is found by the
# janitor's sweep and made ready (each one logged by robotd).
P3=$(pair s3/lab a b waiting)
runs s3/lab a done 1 >/dev/null
runs s3/lab b failed 1 >/dev/null
P4=$(pair s4/lab a b waiting)
runs s4/lab a done 1 >/dev/null
runs s4/lab b leased 1 >/dev/null
q "UPDATE pairs SET updated = now() - interval '1 minute'" >/dev/null
swept=$(q "SELECT json_build_object('expired', robot_expire(), 'mended', robot_pairs_mend())")
check $([ "$(q "SELECT string_agg(state, ' ' ORDER BY id) FROM pairs WHERE id IN ($P3, $P4)")" = "ready waiting" ] &&
	echo "$swept" | grep -q "\"mended\" : \[$P3\]"; echo $?) \
	"the sweep makes ready a pair whose runs are all over, and only it ($swept)"

# 4. A pair measured again (its box turned suspect: robot_pair_again())
# whose new verdict no longer shows a finding it recorded: the record,
# held from its report, is invalid; one it still shows stands, and one
# reported already is left to the people it was mailed to.
P5=$(pair s5/lab a b analysing)
found() { # KPI...: the findings, each a new regression
	printf '['
	sep=
	for k in "$@"; do
		printf '%s{"kpi": "%s", "verdict": "regression", "change_pct": -10, "p_value": 0.001, "action": "new"}' "$sep" "$k"
		sep=,
	done
	printf ']'
}
cmp='{"base_runs": {"ok": 3}, "head_runs": {"ok": 3}}'
q "SELECT robot_pair_done($P5, 1, 'regression', 'k1', 3, '$cmp', '', 0, '[]', '$(found k1 k2 k3)')" >/dev/null
q "UPDATE regressions SET state = 'reported' WHERE pair = $P5 AND kpi = 'k3'" >/dev/null
q "UPDATE pairs SET state = 'analysing', analyses = 2 WHERE id = $P5" >/dev/null
q "SELECT robot_pair_done($P5, 2, 'regression', 'k2', 6, '$cmp', '', 0, '[]', '$(found k2)')" >/dev/null
got=$(q "SELECT string_agg(kpi || ' ' || state, ', ' ORDER BY kpi) FROM regressions WHERE pair = $P5")
check $([ "$got" = "k1 invalid, k2 new, k3 reported" ]; echo $?) \
	"measured again, a finding no longer shown is invalid, one still shown stands ($got)"

# 5. The clock steps back an hour: every lease's deadline is an hour
# further off than its lease time allows (as here, set so by hand; the
# step itself would move every clock of the machine).  The sweep brings
# it back to the lease time, so that a box that died keeps its job no
# longer than that.
J6=$(runs s6/lab a leased 1)
q "INSERT INTO boxes (name, tbox_group) VALUES ('b6', 'lab')" >/dev/null
L6=$(q "INSERT INTO leases (job, box, deadline) VALUES ($J6, 'b6', now() + interval '1 hour' + interval '60 seconds') RETURNING id")
q "SELECT robot_expire(60)" >/dev/null
left=$(q "SELECT round(extract(epoch FROM deadline - now())) FROM leases WHERE id = $L6")
check $([ -n "$left" ] && [ "$left" -le 60 ] && [ "$left" -ge 50 ]; echo $?) \
	"a lease's deadline past its lease time (a clock stepped back) comes back to it (${left:-?} s left)"

# 5b. A box turned suspect: its note says when it was the last box of
# its group that may take work (the group's jobs then wait for an
# operator), and only then.
q "INSERT INTO boxes (name, tbox_group) VALUES ('s1', 'sus'), ('s2', 'sus')" >/dev/null
q "SELECT robot_box_suspect('s1', NULL, 'k', 's/sus', 'moved.')" >/dev/null
q "SELECT robot_box_suspect('s2', NULL, 'k', 's/sus', 'moved.')" >/dev/null
notes=$(q "SELECT string_agg(boxes[1] || ': ' || message, ' | ' ORDER BY id) FROM lab_notes WHERE series = 's/sus'")
check $([ "$notes" = "s1: moved. | s2: moved. It was the last box of group sus that may take work: the group's jobs wait until an operator runs robot box reset s2." ]; echo $?) \
	"a suspect box's note says when no other box of its group may take work ($notes)"

# 5c. What a report says of the machine: the box's facts, and what its
# hook said of the last run of the head (the kernel it booted).
P7=$(pair s7/lab a b final)
J7=$(runs s7/lab b done 1)
q "UPDATE jobs SET box = 's1' WHERE id = $J7" >/dev/null
L7=$(q "INSERT INTO leases (job, box, deadline, state) VALUES ($J7, 's1', now(), 'done') RETURNING id")
q "INSERT INTO results (job, lease, series, commit, status, doc) VALUES ($J7, $L7, 's7/lab', 'b', 'ok',
	'{\"provision\": {\"kernel\": \"6.1-robot-b\", \"tcg\": \"not for performance\"}}')" >/dev/null
info=$(q "SELECT robot_pair_info($P7)->'provision'")
check $([ "$info" = '{"kernel": "6.1-robot-b", "tcg": "not for performance"}' ]; echo $?) \
	"a pair's report has what the head's box hook said of the kernel it booted ($info)"

# 6. The jobs in each state, as job_counts keeps them for /api/status
# (issue 28), are the jobs' own counts: after jobs are added, moved
# (one at a time and many at once, in sessions side by side, one of
# them rolled back) and removed, and after the sweep folds the rows.
counts() { q "SELECT coalesce(string_agg(state || ' ' || n, ', ' ORDER BY state), '-') FROM $1"; }
real="(SELECT state, count(*) AS n FROM jobs GROUP BY state) x"
kept="robot_job_counts() x WHERE n <> 0"
runs s7/lab a queued 40 >/dev/null
runs s7/lab b leased 3 >/dev/null
later 1 "UPDATE jobs SET state = 'done' WHERE series = 's7/lab' AND state = 'leased'"
later 1 "UPDATE jobs SET state = 'cancelled' WHERE id IN (SELECT id FROM jobs WHERE series = 's7/lab' AND state = 'queued' ORDER BY id LIMIT 10)"
(printf "BEGIN;\nDELETE FROM jobs WHERE series = 's7/lab' AND state = 'queued';\nSELECT pg_sleep(1);\nROLLBACK;\n" |
	psql -h "$T/sock" -U postgres -d postgres -XAtq >/dev/null) &
q "UPDATE jobs SET state = 'failed' WHERE id = (SELECT max(id) FROM jobs WHERE series = 's7/lab' AND commit = 'a')" >/dev/null
q "UPDATE jobs SET priority = priority WHERE series = 's7/lab'" >/dev/null
wait
q "DELETE FROM jobs WHERE id IN (SELECT id FROM jobs WHERE series = 's7/lab' AND state = 'queued' ORDER BY id LIMIT 5)" >/dev/null
before=$(counts "$kept")
rows=$(q "SELECT count(*) FROM job_counts")
q "SELECT robot_job_counts_fold()" >/dev/null || echo "# the fold failed"
after=$(counts "$kept")
folded=$(q "SELECT count(*) || ' ' || count(DISTINCT state) FROM job_counts")
realc=$(counts "$real")
check $([ "$before" = "$realc" ] && [ "$after" = "$before" ] &&
	[ "$rows" -gt 5 ] && [ "${folded%% *}" = "${folded##* }" ]; echo $?) \
	"the jobs in each state, kept as they change, are the jobs' counts (kept $before; real $realc; $rows rows, folded to $folded)"
# 9. A bisection whose claim ran out while its robotd still works on it
# (a stale claim, not yet taken over) is made a follower of a clearer
# regression's bisection: the stale claim must no longer step it, or
# the robotd adds midpoints to a follower (robotd-bisect_follow, once
# in a while).
q "INSERT INTO trees (name, url, branches, base_ref, jobs, tbox_groups, runs, max_runs, poll)
	VALUES ('t9', '/nowhere', '{master}', 'v1', '[]', '{lab}', 3, 10, 60)" >/dev/null
P8=$(pair s8/lab a9 b9 final)
P9=$(pair s9/lab a9 b9 final)
finding() { # SERIES PAIR P: a regression of (a9, b9] with p-value P; its id
	q "INSERT INTO regressions (kind, tree, commit, base, series, kpi, change_pct,
		p_value, runs, pair, last_head) VALUES ('regression', 't9', 'b9', 'a9', '$1',
		'k', -10, $3, 3, $2, 'b9') RETURNING id"
}
R8=$(finding s8/lab "$P8" 0.01)
R9=$(finding s9/lab "$P9" 0.001)
L=$(q "SELECT robot_bisect_start('{\"regression\": $R8}', 'robotd')->>'id'")
C=$(q "UPDATE bisections SET claims = claims + 1, claimed_until = now() - interval '1 minute'
	WHERE id = $L RETURNING claims")
q "SELECT robot_bisect_follow(b, r) FROM bisections b, regressions r WHERE b.id = $L AND r.id = $R9" >/dev/null
lead=$(q "SELECT lead FROM bisections WHERE id = $L")
step=$(q "SELECT robot_bisect_step($L, $C, '{\"kind\": \"mid\", \"commit\": \"m9\", \"against\": \"a9\", \"candidates\": 3}')")
check $([ -n "$lead" ] && [ "$step" = '"stale"' ] &&
	[ "$(q "SELECT count(*) FROM bisect_steps WHERE bisection = $L AND kind = 'mid'")" = 0 ]; echo $?) \
	"a bisection made a follower while its claim ran out is no longer its old claim's to step (lead ${lead:--}, $step)"
# 10. What was mailed stays as mailed (issue 55): a reported record's
# pair measured again (more rounds) keeps the record's figures, and is a
# "measured" event with the new ones, once for each new measure; no
# follow-up is mailed for it.
P10=$(pair s10/lab a10 b10 analysing)
fig() { # PCT: a finding of k with that change
	printf '[{"kpi": "k", "verdict": "regression", "change_pct": %s, "p_value": 0.001, "action": "new"}]' "$1"
}
side() { printf '{"base_runs": {"ok": %s}, "head_runs": {"ok": %s}}' "$1" "$1"; }
q "SELECT robot_pair_done($P10, 1, 'regression', 'k', 3, '$(side 3)', '', 0, '[]', '$(fig -10)')" >/dev/null
R10=$(q "INSERT INTO reports (kind, commit, message_id, subject, body, doc)
	VALUES ('report', 'b10', '<r10@robot.test>', 's', 'b', '{}') RETURNING id")
q "UPDATE regressions SET report = $R10, state = 'reported' WHERE pair = $P10" >/dev/null
again10() { # ANALYSES RUNS PCT
	q "UPDATE pairs SET state = 'analysing', analyses = $1 WHERE id = $P10" >/dev/null
	q "SELECT robot_pair_done($P10, $1, 'regression', 'k', $2, '$(side "$2")', '', 0, '[]', '$(fig "$3")')" >/dev/null
}
again10 2 6 -12.5
again10 3 6 -12.5
again10 4 9 -11
rec=$(q "SELECT change_pct || ' ' || base_runs || '+' || head_runs FROM regressions WHERE pair = $P10")
evs=$(q "SELECT string_agg(e.kind || ' ' || e.change_pct || ' ' || e.base_runs || '+' || e.head_runs, ', ' ORDER BY e.id)
	FROM regression_events e JOIN regressions r ON r.id = e.regression WHERE r.pair = $P10")
told=$(q "SELECT robot_followup_next(0, 60) IS NULL")
check $([ "$rec" = "-10 3+3" ] && [ "$evs" = "measured -12.5 6+6, measured -11 9+9" ] && [ "$told" = t ]; echo $?) \
	"a reported finding measured again keeps its mailed figures; each new measure is an event, mailed to no one ($rec; $evs; none told: $told)"
# 11. A bisection's step pair inconclusive at its first rounds is no
# lab note: its bisection gives it more rounds itself, up to its own
# cap, while the note said "the cap is 3" of a tree whose cap is 10
# (the pages walk, issue 55).  A head's pair still makes one.
P11=$(pair s11/lab a11 b11 analysing)
P12=$(pair s12/lab a12 b12 analysing)
q "UPDATE pairs SET bisection = (SELECT min(id) FROM bisections) WHERE id = $P11" >/dev/null
note="dd.write_bytes_per_sec varies by ±40% between identical runs; a 2% change would need more than 1000 runs a side (the cap is 3)"
q "SELECT robot_pair_done($P11, 1, 'inconclusive', 'k', 3, '$(side 3)', '', 0, '[]', '[]', '$note')" >/dev/null
q "SELECT robot_pair_done($P12, 1, 'inconclusive', 'k', 3, '$(side 3)', '', 0, '[]', '[]', '$note')" >/dev/null
notes=$(q "SELECT string_agg(series, ' ' ORDER BY id) FROM lab_notes WHERE series IN ('s11/lab', 's12/lab')")
check $([ "$notes" = "s12/lab" ]; echo $?) \
	"a bisection's step pair is no lab note, a head's pair is (${notes:-none})"
# 12. A submission's page lists at most 200 of its commits, with their
# total (one of 100,000 runs answered 2.4 MB in 1.4 s: bench/pages_bench).
S12=$(q "INSERT INTO submissions (submitter, body) VALUES ('sql', '') RETURNING id")
q "INSERT INTO jobs (submission, key, tbox_group, series, commit, job, state, pair)
	SELECT $S12, 's12', 'lab', 's12/lab', 'c' || c, '{}', 'done', 0
	FROM generate_series(1, 205) c" >/dev/null
q "UPDATE jobs SET state = 'cancelled' WHERE submission = $S12 AND commit = 'c7'" >/dev/null
got=$(q "SELECT json_array_length(x->'commits') || ' of ' || (x->>'commits_total') || ', pairs ' || (x->>'pairs_total')
	|| ', runs ' || (x->'runs'->>'done') || ' done ' || (x->'runs'->>'cancelled') || ' cancelled'
	FROM robot_submission($S12) x")
check $([ "$got" = "200 of 205, pairs 0, runs 204 done 1 cancelled" ]; echo $?) "a submission's page lists 200 of its commits, and says how many ($got)"

# 13. A range report of 1,500 commits says 1,500, not the listing's cap
# of 1,000 (issue 61: "(1000 commits)" for a range of 10,000), and lists
# 20 of them.
q "INSERT INTO trees (name, url, branches, base_ref, jobs, tbox_groups, runs, max_runs, poll)
	VALUES ('t13', '/nowhere', '{master}', 'v1', '[]', '{lab}', 3, 10, 60)" >/dev/null
q "INSERT INTO tree_commits (tree, sha, parents, author, date, subject)
	SELECT 't13', 'r' || i, ARRAY['r' || (i - 1)], 'A <a@x.org>',
	'2026-01-01'::timestamptz + make_interval(mins => i), 'commit ' || i
	FROM generate_series(1, 1500) i" >/dev/null
P13=$(pair s13/lab r0 r1500 final)
R13=$(q "INSERT INTO regressions (kind, tree, commit, base, series, kpi, change_pct,
	p_value, runs, pair, last_head) VALUES ('regression', 't13', 'r1500', 'r0', 's13/lab',
	'k', -10, 0.001, 3, $P13, 'r1500') RETURNING id")
got=$(q "SELECT (x->'range'->>'count') || ' ' || json_array_length(x->'range'->'commits')
	FROM robot_report_claim('t13', NULL, ARRAY[$R13]::bigint[], ARRAY[]::bigint[], ARRAY[]::bigint[], NULL) x")
check $([ "$got" = "1500 20" ]; echo $?) "a range report counts every commit of its range, not the listing's 1,000 ($got)"
exit $((failed > 0))
