#!/bin/sh
# test_robotd_analysis.sh ROBOTD ROBOT_BOX ROBOT SOURCE_DIR: robotd decides
# by itself.  Simulated boxes (simbox.py: they upload result documents
# with a chosen KPI shift and noise, to drive the decisions with a known
# truth) run the jobs of submissions of several commits; robotd compares
# each later commit with the first, asks for more runs while a KPI is
# inconclusive, and records what regressed.  Two robotd on one database
# analyse each pair once; a pair claimed by a robotd that died is
# finished by another.  TAP output.
set -u
ROBOTD=$1 BOX=$2 ROBOT=$3 SRC=$4
. "$SRC/tests/integration/robotd_lib.sh"

smtp_start
/usr/bin/python3 "$SRC/tests/integration/hookrecv.py" "$T/hook.port" "$T/hooks.log" s3cret 0 2>>"$T/hook.err" &
PIDS="$PIDS $!"
wait_for 20 test -s "$T/hook.port"
cat >"$T/robotd.yaml" <<YAML
state_dir: $T/state
lease_seconds: 60
analysis_claim: 3
max_runs: 10
compare_max_running: 1
compare_max_values: 2000
smtp: smtp://127.0.0.1:$(cat "$T/smtp.port")
mail_from: robot@robot.test
webhook_secret: s3cret
operator_mail: ops@robot.test
operator_webhook: http://127.0.0.1:$(cat "$T/hook.port")/hook?token=T0K3N-s3cr3t
YAML
start_robotd d --config "$T/robotd.yaml" || { echo "1..0 # robotd did not start"; exit 1; }
U=$URL_d
SUB=$(token submit alice)
B1=$(token box b1)
echo "1..37"

dd_job "$T/dd.yaml"
SERIES=dd-write/1M-1LOOP_64M-ext4-1dd-1s/lab
# simbox NAME ARGS...: a simulated box of group lab until $T/stop-NAME.
pairs_final() { [ "$(sql "SELECT count(*) FROM pairs WHERE state <> 'final'")" = 0 ] &&
	[ "$(sql "SELECT count(*) FROM pairs")" -ge "$1" ]; }

# Commits: made-up full SHAs (robotd takes no other outside a tree).
BASE=$(sha base) BAD=$(sha bad) GOOD=$(sha good) D4=$(sha d4) E5=$(sha e5)
M1=$(sha m1)
short() { echo "$1" | cut -c1-12; }

# 1. A regressing commit and an innocent one, compared with their base.
simbox s1 "$BAD=-10" --noise=1 --seed=1
s=$(api POST "$U/api/jobs?tbox_group=lab&repeat=3&commit=$BASE&commit=$BAD&commit=$GOOD" "$SUB" "$T/dd.yaml")
check $([ "$s" = 201 ]; echo $?) "a submission of three commits ($s)"
wait_for 60 pairs_final 2
check $? "both pairs are analysed and final"
check $([ "$(sql "SELECT base || ' ' || head || ' ' || verdict FROM pairs ORDER BY head = '$GOOD'")" = "$BASE $BAD regression
$BASE $GOOD unchanged" ]; echo $?) "bad regressed, good is unchanged ($(sql "SELECT string_agg(head || '=' || verdict, ' ') FROM pairs"))"
check $([ "$(sql "SELECT count(*) || ' ' || min(commit) || ' ' || min(kpi) || ' ' || min(kind) || ' ' || (max(change_pct) < -5) FROM regressions")" = "1 $BAD dd.write_bytes_per_sec regression true" ]; echo $?) \
	"exactly one regression record: bad, dd.write_bytes_per_sec, negative"

# 2. The API and the CLI show it.
s=$(api GET "$U/api/regressions?state=new" "")
check $([ "$s" = 200 ] && py "r = j['regressions']; assert len(r) == 1 and r[0]['commit'] == '$BAD', r"; echo $?) \
	"GET /api/regressions lists it ($s)"
RID=$(py "print(j['regressions'][0]['id'])")
s=$(api GET "$U/api/regressions/$RID" "")
check $([ "$s" = 200 ] && py "assert j['comparison']['metrics'][0]['metric'] == 'dd.write_bytes_per_sec'; assert '%change' in j['table'] and 'dd.write_bytes_per_sec' in j['table'], j['table']"; echo $?) \
	"GET /api/regressions/ID has the comparison and LKP's table ($s)"
ROBOT_SERVER=$U "$ROBOT" regressions >"$T/regs.out" 2>&1
ROBOT_SERVER=$U "$ROBOT" regression "$RID" >"$T/reg.out" 2>&1
check $(grep -q "regression  new .*dd.write_bytes_per_sec .*$(echo $BAD | cut -c1-10)" "$T/regs.out" && grep -q "%stddev" "$T/reg.out"; echo $?) \
	"robot regressions and robot regression ID print it"
s=$(api GET "$U/api/compare?series=$SERIES&base=$BASE&head=$GOOD" "")
s2=$(api GET "$U/api/compare?series=$SERIES&base=$BAD&head=$GOOD" "")
# BAD and GOOD ran in the same three rounds: compared within them.
check $([ "$s" = 200 ] && [ "$s2" = 200 ] && py "
assert j['stored'] is False and j['comparison']['rounds'] == 3, (j['stored'], j['comparison']['rounds'])
assert j['verdict'] in ('improvement', 'inconclusive'), j['verdict']
assert j['comparison']['metrics'][0]['change_pct'] > 5, j['comparison']['metrics'][0]"; echo $?) \
	"GET /api/compare: the stored comparison, or one made on request, within the rounds the two commits ran in ($s $s2)"
ROBOT_SERVER=$U "$ROBOT" compare --series "$SERIES" --base $BASE --head ${GOOD%?}x >"$T/cmp.out" 2>&1
ROBOT_SERVER=$U "$ROBOT" compare --series "${SERIES%lab}lbb" --base $BASE --head $GOOD >>"$T/cmp.out" 2>&1
check $(grep -q "no ok runs at commit '${GOOD%?}x'; did you mean '$GOOD'" "$T/cmp.out" &&
	grep -q "no runs of series '.*lbb'; did you mean '$SERIES'" "$T/cmp.out"; echo $?) \
	"robot compare of an unknown commit or series names the nearest"
# robot compare --series: robotd compares its stored values with the
# command's options and sends what is shown (issue 16).
ROBOT_SERVER=$U "$ROBOT" compare --series "$SERIES" --base $BASE --head $BAD >"$T/cs.out" 2>&1
rc1=$?
ROBOT_SERVER=$U "$ROBOT" compare --series "$SERIES" --base $BASE --head $BAD --method lkp --min-effect 5 >"$T/cs2.out" 2>&1
rc2=$?
ROBOT_SERVER=$U "$ROBOT" compare --series "$SERIES" --base $BASE --head $BAD --json >"$T/body" 2>"$T/cs3.err"
rc3=$?
[ $rc3 = 0 ] && py "c = j['comparisons'][0]; assert c['compared'] == len(c['metrics']) > 1, c['compared']; assert c['base_commit'] == '$BASE'"
rc3=$?
s=$(api GET "$U/api/compare?series=$SERIES&base=$BASE&head=$BAD&method=magic" "")
s2=$(api GET "$U/api/compare?series=$SERIES&base=$BASE&head=$BAD&all=maybe" "")
s3=$(api GET "$U/api/compare?series=$SERIES&base=$BASE&head=$BAD&min_effect=-1" "")
printf 'dd\\.write_bytes_per_sec +1\n' >"$T/dirs"
ROBOT_SERVER=$U "$ROBOT" compare --series "$SERIES" --base $BASE --head $BAD --directions "$T/dirs" >"$T/cs4.out" 2>&1
rc4=$?
ok=$([ $rc1 = 0 ] && grep -q "KPIs (the robust method)" "$T/cs.out" &&
	grep -q "dd.write_bytes_per_sec *regression" "$T/cs.out" && grep -q "%stddev" "$T/cs.out" &&
	[ $rc2 = 0 ] && grep -q "KPIs (the lkp method)" "$T/cs2.out" &&
	[ $rc3 = 0 ] &&
	[ "$s $s2 $s3" = "400 400 400" ] &&
	[ $rc4 = 2 ] && grep -q "directions is for result files" "$T/cs4.out"; echo $?)
check $ok "robot compare --series: robotd's comparison with the options asked, every metric with --json; bad options refused ($rc1 $rc2 $rc3 $rc4; $s $s2 $s3)"
[ $ok = 0 ] || sed 's/^/# /' "$T/cs.out" "$T/cs2.out" "$T/cs4.out"
ROBOT_SERVER=$U "$ROBOT" results --series "${SERIES%lab}lbb" --commit $BASE >"$T/res.out" 2>&1
rc=$?
ROBOT_SERVER=$U "$ROBOT" results --series "$SERIES" --commit $BASE -o "$T/res/a/b/" >"$T/res2.out" 2>&1
rc2=$?
check $([ $rc = 1 ] && grep -q "no runs of series '.*lbb'; did you mean '$SERIES'" "$T/res.out" &&
	[ $rc2 = 0 ] && [ "$(ls "$T/res/a/b" | wc -l)" = "$(sql "SELECT count(*) FROM jobs WHERE commit = '$BASE' AND state = 'done'")" ] && ! grep -q "//" "$T/res2.out"; echo $?) \
	"robot results: an unknown series is an error naming the nearest; -o makes its folders ($rc $rc2)"
# GET /api/results answers in pages of at most 4 MiB (one document
# always): five documents of 1.5 MB (two stored before their length was
# kept) and one of 5 MB come in pages that hold each once, and robot
# results follows them (issue 61: one answer of every document, 157 MB).
PC=$(sha paged)
sql "WITH j AS (INSERT INTO jobs (submission, key, tbox_group, series, commit, job, state, run, runs)
	SELECT (SELECT min(id) FROM submissions), 'dd-write/paged', 'lab', 'dd-write/paged/lab', '$PC',
	'{\"suite\": \"dd-write\"}', 'done', i, 6 FROM generate_series(1, 6) i RETURNING id, run),
	l AS (INSERT INTO leases (job, box, state, deadline)
	SELECT id, (SELECT min(name) FROM boxes), 'done', now() FROM j RETURNING id, job)
	INSERT INTO results (job, lease, series, commit, status, doc, bytes)
	SELECT l.job, l.id, 'dd-write/paged/lab', '$PC', 'ok', json_build_object('version', 1, 'run', j.run,
	'outputs', json_build_object('dd', repeat('x', CASE WHEN j.run = 4 THEN 5000000 ELSE 1500000 END))),
	CASE WHEN j.run > 2 THEN octet_length(repeat('x', CASE WHEN j.run = 4 THEN 5000000 ELSE 1500000 END)) + 60 END
	FROM l JOIN j ON j.id = l.job" >/dev/null
pages=""
after=0
while [ -n "$after" ] && [ "$(echo "$pages" | wc -w)" -lt 10 ]; do
	curl -s -o "$T/page.json" "$U/api/results?series=dd-write/paged/lab&commit=$PC&after=$after"
	page=$(/usr/bin/python3 -c "import json; p = json.load(open('$T/page.json'))
print(','.join(str(d['run']) for d in p['results']), p['next'] or '')")
	pages="$pages ${page% *}"
	after=$(echo "$page" | cut -s -d' ' -f2)
done
ROBOT_SERVER=$U "$ROBOT" results --series dd-write/paged/lab --commit "$PC" -o "$T/paged" >"$T/paged.out" 2>&1
rc=$?
check $([ "$pages" = " 1,2 3 4 5,6" ] && [ $rc = 0 ] && [ "$(ls "$T/paged" | wc -l)" = 6 ] &&
	[ "$(cat "$T/paged/"* | grep -c '"run": 4')" = 1 ]; echo $?) \
	"GET /api/results in pages of at most 4 MiB, each document once; robot results follows them (pages:$pages; $rc)"
# A run's page shows the first 64 KiB of an output and 2,000 of its
# numbers, and says where the rest is (issue 61: 8.7 MB pages, and a
# 15 MB output printed whole); it is made off the loop.
BIGJ=$(sql "SELECT job FROM results WHERE commit = '$PC' AND doc->>'run' = '4'")
sql "UPDATE results SET doc = json_build_object('version', 1, 'run', 4, 'stats', (SELECT json_object_agg('m.x' || i, i)
	FROM generate_series(1, 3000) i), 'outputs', json_build_object('dd', repeat('y', 5000000)))
	WHERE job = ${BIGJ:-0}" >/dev/null
s=$(curl -s -o "$T/bigrun.html" -w '%{http_code} %{size_download}' "$U/jobs/$BIGJ")
check $([ "${s% *}" = 200 ] && [ "${s#* }" -lt 400000 ] && grep -q "The first 65536 of its 5000000 bytes" "$T/bigrun.html" &&
	grep -q "The first 2000 of its 3000 numbers" "$T/bigrun.html" && [ "$(grep -o '<tr><th scope="row">m\.x' "$T/bigrun.html" | wc -l)" = 2000 ]; echo $?) \
	"a large run's page shows 64 KiB of an output and 2,000 numbers, and says where the rest is ($s)"
s1=$(api POST "$U/api/regressions/$RID" "" "$T/dd.yaml")
echo '{"state": "invalid"}' >"$T/inv"
# (another submitter's token may not: issue 61, any submit token could
# set any regression invalid, which stopped it from being mailed)
s0=$(api POST "$U/api/regressions/$RID" "$(token submit mallory)" "$T/inv")
cp "$T/body" "$T/mallory.json"
s2=$(api POST "$U/api/regressions/$RID" "$SUB" "$T/inv")
st=$(sql "SELECT state FROM regressions WHERE id = $RID")
echo '{"state": "gone"}' >"$T/bad"
s3=$(api POST "$U/api/regressions/$RID" "$SUB" "$T/bad")
s4=$(api GET "$U/api/regressions?state=bogus" "")
s5=$(api GET "$U/api/regressions/999" "")
check $([ "$s1" = 401 ] && [ "$s0" = 403 ] && grep -q "only alice, a triage or an admin token may change it" "$T/mallory.json" &&
	[ "$s2" = 200 ] && [ "$st" = invalid ] && [ "$s3" = 400 ] && [ "$s4" = 400 ] && [ "$s5" = 404 ]; echo $?) \
	"its submitter's token marks it invalid, another's may not; bad states and ids refused ($s1 $s0 $s2 $st $s3 $s4 $s5)"

# 3. A 12% move under 4% noise: more rounds, look by look (3, 5, 8) to
# the cap (10) or a verdict, and no record before the verdict is final.
# (Beyond the floor whatever three rounds show, so it is not futile; a
# round cut short is measured again, so a side may have a run more.
# Its first three runs scatter 8% either way, far beyond the series'
# history of 1% noise: the guard leaves it to its own noise, which no
# first look can decide on, and its looks are the planned ones.)
simbox_stop s1
simbox s2 "$E5=-12~4@8,-10,9" --noise=4 --seed=3
api POST "$U/api/jobs?tbox_group=lab&repeat=3&commit=$D4&commit=$E5" "$SUB" "$T/dd.yaml" >/dev/null
early=0
i=0
while [ $i -lt 300 ] && [ "$(sql "SELECT state FROM pairs WHERE head = '$E5'")" != final ]; do
	[ "$(sql "SELECT count(*) FROM regressions r JOIN pairs p ON p.id = r.pair WHERE p.head = '$E5' AND p.state <> 'final'")" = 0 ] ||
		early=$((early + 1))
	sleep 0.2
	i=$((i + 1))
done
runs=$(sql "SELECT string_agg(n::text, ' ' ORDER BY commit = '$E5') FROM (SELECT commit, count(*) n FROM jobs WHERE commit IN ('$D4', '$E5') GROUP BY commit) x")
rounds=$(sql "SELECT analyses FROM pairs WHERE head = '$E5'")
check $([ "$(sql "SELECT state FROM pairs WHERE head = '$E5'")" = final ] && [ "$rounds" -ge 2 ] &&
	{ [ "${runs% *}" -ge 10 ] && [ "${runs#* }" -ge 10 ] || [ "$rounds" -le 3 ]; } && [ $early = 0 ]; echo $?) \
	"an inconclusive KPI gets more runs ($runs at base and head after $rounds analyses), no record before the final verdict"
grep "analysis: .*$(short $D4)..$(short $E5)" "$T/d.log" | sed 's/^/# /'
check $(grep -q "$(short $D4)..$(short $E5): dd.write_bytes_per_sec inconclusive with 3 runs a side: more runs, to 5" "$T/d.log"; echo $?) \
	"the first analysis asked for 5 rounds, the next planned look"
simbox_stop s2

# 4. Two robotd on one database: each pair analysed once.
start_robotd e --db "host=$T/state/pg/run user=robot dbname=postgres" --state-dir "$T/e" ||
	{ check 1 "a second robotd on the database"; }
simbox s3 --noise=1 --seed=5
commits=""
for i in $(seq 1 12); do commits="$commits&commit=$(sha m$i)"; done
api POST "$U/api/jobs?tbox_group=lab&repeat=3$commits" "$SUB" "$T/dd.yaml" >/dev/null
wait_for 120 pairs_final 14
check $? "the 11 pairs of a 12-commit submission are final"
# Each claim analysed by one robotd: as many analyses in the logs as
# claims in the database, none stale.
both=$(grep -h "analysis: .*$(short $M1)\.\." "$T/d.log" "$T/e.log" | wc -l)
claims=$(sql "SELECT sum(analyses) FROM pairs WHERE base = '$M1'")
check $([ "$both" = "$claims" ] && ! grep -q stale "$T/d.log" "$T/e.log"; echo $?) \
	"two robotd analyse each pair once per claim ($both analyses, $claims claims; by d: $(grep -c "analysis: .*$(short $M1)\.\." "$T/d.log"), by e: $(grep -c "analysis: .*$(short $M1)\.\." "$T/e.log"))"
simbox_stop s3

# 5. A pair claimed by a robotd that died (its claim taken by hand, as a
# robotd killed -9 in the middle leaves it) is finished by another once
# the claim runs out; and robotd killed -9 with pairs ready finishes
# them when it comes back.
# (Analysed again, against the series' history as it is by now, a
# pair may want a round more than it had: BAD's 10% at 1% noise once did
# beside a noisier box's history, under ASan.  The claim's mechanics are
# the test: the other robotd analyses it once, whatever it decides.)
a0=$(sql "SELECT analyses FROM pairs WHERE head = '$BAD'")
# (made ready and claimed in one transaction: a robotd that looked in
# between would claim it first)
sql "BEGIN; UPDATE pairs SET state = 'ready' WHERE head = '$BAD'; SELECT robot_pair_next(3) IS NOT NULL; COMMIT" >/dev/null
check $([ "$(sql "SELECT state FROM pairs WHERE head = '$BAD'")" = analysing ]; echo $?) "a pair is claimed and its robotd gone"
wait_for 30 sql_is "t$((a0 + 2))" "SELECT (state IN ('final', 'waiting'))::text::char || analyses FROM pairs WHERE head = '$BAD'"
check $? "another robotd analyses it once after the claim runs out ($(sql "SELECT state || ' ' || analyses FROM pairs WHERE head = '$BAD'"))"
kill -9 "$PID_e"
kill -9 "$PID_d"
# (gone before d2 starts: a killed robotd not yet reaped still holds its
# state directory, and d2 refused to start beside it, "another robotd
# serves", under ASan in CI)
wait "$PID_e" "$PID_d" 2>/dev/null
before=$(sql "SELECT string_agg((analyses + 1)::text, ',' ORDER BY id) FROM pairs WHERE base = '$M1'")
sql "UPDATE pairs SET state = 'ready' WHERE base = '$M1'" >/dev/null
start_robotd d2 --config "$T/robotd.yaml"
m1_final() { [ "$(sql "SELECT count(*) FROM pairs WHERE base = '$M1' AND state <> 'final'")" = 0 ]; }
wait_for 60 m1_final
after=$(sql "SELECT string_agg(analyses::text, ',' ORDER BY id) FROM pairs WHERE base = '$M1'")
check $([ "$after" = "$before" ]; echo $?) \
	"robotd killed -9 and started again analyses the pairs left ready, once each ($after)"
check $([ "$(sql "SELECT count(*) FROM regressions WHERE commit <> '$E5'")" = 1 ]; echo $?) "still one regression record besides section 3's ($(sql "SELECT count(*) FROM regressions WHERE commit <> '$E5'"))"

# 6. A stream of submits on four boxes, commits shared between them and
# one noisy (more runs): every pair reaches its verdict, none is left
# waiting (issue 26: 14 of 300 pairs were), and the janitor never had to
# mend one.
U=$URL_d2
for b in t1 t2 t3 t4; do
	SIMBOX_GROUP=stream simbox "$b" "$(sha c3)=-6~5" --noise=2 --seed="$(echo $b | cut -c2)"
done
sleep 1
# Eight at a time (a bare wait would wait for the boxes too).
i=0
while [ $i -lt 40 ]; do
	x=$(sha c$((i % 8))) y=$(sha c$(((i * 3 + i / 8 + 1) % 8)))
	[ "$x" = "$y" ] && y=$(sha c$(((i + 2) % 8)))
	echo "$U/api/jobs?tbox_group=stream&repeat=3&commit=$x&commit=$y"
	i=$((i + 1))
done | xargs -P 8 -n 1 curl -s -o /dev/null -X POST -H "Authorization: Bearer $SUB" \
	--data-binary @"$T/dd.yaml"
stream_done() {
	[ "$(sql "SELECT count(*) FROM jobs WHERE tbox_group = 'stream' AND state IN ('queued', 'leased')")" = 0 ] &&
		[ "$(sql "SELECT count(*) FROM pairs WHERE series LIKE '%/stream' AND state <> 'final'")" = 0 ]
}
wait_for 300 stream_done
rc=$?
check $([ $rc = 0 ] && ! grep -q "waited for runs that had all ended" "$T/d2.log"; echo $?) \
	"40 concurrent submits on four boxes: every pair final, none mended ($(sql "SELECT count(*) || ' pairs: ' || string_agg(DISTINCT state, ',') FROM pairs WHERE series LIKE '%/stream'"), $(sql "SELECT count(*) FROM jobs WHERE tbox_group = 'stream'") runs)"
for b in t1 t2 t3 t4; do touch "$T/stop-$b"; done
for b in t1 t2 t3 t4; do simbox_stop "$b"; done

# 7. The submitter caps the runs analysis adds (issue 26): robot submit
# says what robotd may add; --max-runs equal to --repeat adds none, even
# to a noisy head; below it is refused.
SIMBOX_GROUP=capped simbox t5 "$(sha n2)=-6~8" --noise=1 --seed=5
ROBOT_SERVER=$U ROBOT_TOKEN=$SUB "$ROBOT" submit "$T/dd.yaml" --tbox-group capped \
	--commit "$(sha n1)" --commit "$(sha n3)" >"$T/cap1.out" 2>&1
ROBOT_SERVER=$U ROBOT_TOKEN=$SUB "$ROBOT" submit "$T/dd.yaml" --tbox-group capped \
	--commit "$(sha n1)" --commit "$(sha n2)" --repeat 3 --max-runs 3 >"$T/cap2.out" 2>&1
ROBOT_SERVER=$U ROBOT_TOKEN=$SUB "$ROBOT" submit "$T/dd.yaml" --tbox-group capped \
	--commit "$(sha n1)" --commit "$(sha n4)" --repeat 3 --max-runs 2 >"$T/cap3.out" 2>&1
rc3=$?
capped_final() { [ "$(sql "SELECT state FROM pairs WHERE head = '$(sha n2)'")" = final ]; }
wait_for 60 capped_final
check $(grep -q "robotd may add runs, up to 10 a side" "$T/cap1.out" &&
	grep -q "robotd adds no runs" "$T/cap2.out" &&
	[ "$(sql "SELECT count(*) FROM jobs WHERE commit = '$(sha n2)'")" = 3 ] &&
	[ "$(sql "SELECT max_runs FROM pairs WHERE head = '$(sha n2)'")" = 3 ] &&
	[ $rc3 = 1 ] && grep -q "max_runs (2) is below the runs asked" "$T/cap3.out"; echo $?) \
	"--max-runs caps the runs analysis adds, and robot submit says so ($(sql "SELECT verdict || ', ' || runs || ' runs' FROM pairs WHERE head = '$(sha n2)'"); $rc3)"
simbox_stop t5

# 8. A box too noisy for the job (issue 26, "noisy boxes named"): its
# (its group's name long enough that the note passes 200 characters:
# robot status printed it cut)
# pair stays inconclusive at the cap, says so naming the box and the
# runs its minimum effect would need, and that goes to the lab's
# operators (their mail and webhook), to robot status and the lab page;
# not to the job's mail_to, nor as a regression.
sed 's/^runtime: 1s$/runtime: 1s\nmail_to: maint@robot.test/' "$T/dd.yaml" >"$T/noisy.yaml"
SIMBOX_GROUP=noisy-lab-on-the-second-floor simbox loud "$(sha q2)=-5" --noise=40 --seed=8
s=$(api POST "$U/api/jobs?tbox_group=noisy-lab-on-the-second-floor&repeat=3&max_runs=4&commit=$(sha q1)&commit=$(sha q2)" "$SUB" "$T/noisy.yaml")
noisy_final() { [ "$(sql "SELECT state FROM pairs WHERE head = '$(sha q2)'")" = final ]; }
wait_for 90 noisy_final
note=$(sql "SELECT note FROM pairs WHERE head = '$(sha q2)'")
check $([ "$s" = 201 ] && [ "$(sql "SELECT verdict FROM pairs WHERE head = '$(sha q2)'")" = inconclusive ] &&
	echo "$note" | grep -q "^too noisy on box loud for this job (dd-write/1M-1LOOP_64M-ext4-1dd-1s/noisy-lab-on-the-second-floor): dd.write_bytes_per_sec varied by ±[0-9]*% between this pair's runs of one commit; a 2% change would need \(about [0-9]*\|more than 1000\) runs a side (this pair's cap is 4)$" &&
	[ "$(sql "SELECT count(*) FROM regressions r JOIN pairs p ON p.id = r.pair WHERE p.head = '$(sha q2)'")" = 0 ]; echo $?) \
	"inconclusive at the cap on a noisy box: the pair says so, naming the box ($note)"
wait_for 30 mails "sys.exit(0 if any('too noisy on loud' in m['Subject'] for f, m in mails) else 1)"
wait_for 30 grep -qs '"kind": "note"' "$T/hooks.log"
# The same box and job again the same day, and the same box with
# another job (a matrix of 30 mailed the operators 30 times: issue 61):
# the pairs say so, the operators are not told twice; the note names
# the other job.
sed 's/^  bs: 1M$/  bs: 4M/' "$T/noisy.yaml" >"$T/noisy4.yaml"
api POST "$U/api/jobs?tbox_group=noisy-lab-on-the-second-floor&repeat=3&max_runs=4&commit=$(sha q1)&commit=$(sha q3)" "$SUB" "$T/noisy.yaml" >/dev/null
api POST "$U/api/jobs?tbox_group=noisy-lab-on-the-second-floor&repeat=3&max_runs=4&commit=$(sha q1)&commit=$(sha q4)" "$SUB" "$T/noisy4.yaml" >/dev/null
noisy_again() { [ "$(sql "SELECT count(*) FROM pairs WHERE head IN ('$(sha q3)', '$(sha q4)') AND state = 'final'")" = 2 ]; }
wait_for 120 noisy_again
sleep 1
again=$(sql "SELECT (note IS NOT NULL) || ' ' || (SELECT count(*) || ' ' || max(cardinality(also)) FROM lab_notes WHERE boxes = '{loud}') FROM pairs WHERE head = '$(sha q3)'")
robot_status=$(ROBOT_SERVER=$U ROBOT_TOKEN=$SUB "$ROBOT" status 2>&1)
check $(mails "
n = [m for f, m in mails if 'too noisy on loud' in m['Subject']]
assert len(n) == 1 and n[0]['To'] == 'ops@robot.test', [(m['To'], m['Subject']) for f, m in mails]
assert n[0]['Subject'] == '[robot] [lab] too noisy on loud: dd-write/1M-1LOOP_64M-ext4-1dd-1s/noisy-lab-on-the-second-floor', n[0]['Subject']
assert \"runs a side (this pair's cap is 4)\" in text(n[0]).replace('\n', ' ')
assert not [m for f, m in mails if m['To'] == 'maint@robot.test'], 'a maintainer was mailed'
" && /usr/bin/python3 -c "
import json, sys
posts = [json.loads(l) for l in open('$T/hooks.log')]
notes = [p for p in posts if p['doc'] and p['doc'].get('kind') == 'note' and p['doc']['boxes'] == ['loud']]
assert len(notes) == 1 and notes[0]['valid'] and notes[0]['status'] == 200, posts
" && echo "$robot_status" | grep -qF "$note" &&
	curl -s "$U/lab" | grep -q "too noisy on box loud" && [ "$again" = "true 1 1" ]; echo $?) \
	"the note goes to the operators' mail and webhook, robot status and the lab page, once a day; no maintainer is mailed ($again)"
# A webhook's URL is its credential (Slack's and Mattermost's hooks): the
# log names its scheme and host, never its path or query (issue 61).
check $(! grep -q "T0K3N" "$T"/d*.log && grep -q "outbox [0-9]*: webhook http://127.0.0.1:[0-9]*/\.\.\.: sent" "$T"/d*.log; echo $?) \
	"the log names a webhook by its scheme and host only ($(grep -h "webhook" "$T"/d*.log | head -1))"
simbox_stop loud

# robot submit --wait counts the rounds robotd adds while a KPI is
# inconclusive (never "20 of 6 runs done"), and waits for the verdict:
# the head's first three runs scatter (-4%, -16%, -10%: no first look
# can call it), so robotd asks for more.
WB=$(sha wb) WH=$(sha wh)
SIMBOX_GROUP=waiter simbox w1 "$WH=-10~1@6,-6,0" --noise=1 --seed=9
timeout 120 env ROBOT_SERVER=$U ROBOT_TOKEN=$SUB "$ROBOT" submit --wait --tbox-group waiter --repeat 3 \
	--commit "$WB" --commit "$WH" "$T/dd.yaml" >"$T/wait.out" 2>&1
rc=$?
simbox_stop w1
check $([ $rc = 0 ] && /usr/bin/python3 - "$T/wait.out" <<'PY'; echo $?
import re, sys
out = open(sys.argv[1]).read()
counts = [(int(a), int(b)) for a, b in re.findall(r"(\d+) of (\d+) runs done", out)]
assert counts and all(a <= b for a, b in counts), counts
assert counts[-1][0] == counts[-1][1] > 6, counts[-1]
assert "robotd added" in out
assert re.search(r": [0-9a-f]{12} against [0-9a-f]{12}: regression", out), out[-600:]
assert re.search(r"dd\.write_bytes_per_sec +regression +-\d", out), out[-600:]
# which runs the verdict read: its rounds, all of them this
# submission's (its commits had no runs before)
m = re.search(r"\n  read (\d+) rounds: (\d+) of this submission's runs\n", out)
assert m and m.group(1) == m.group(2) and counts[-1][1] == 2 * int(m.group(1)), (m and m.group(0), out[-600:])
PY
) "robot submit --wait counts the runs robotd adds and ends with the verdict, and says which runs it read ($rc: $(grep 'runs done' "$T/wait.out" | tail -1))"
# Runs stored before submits resolved commits can carry a short one
# (robotd-upgrade's old data), which resolves to itself: GET
# /api/compare of them asked robot_series_commit() again and again, and
# never answered.
LSID=$(sql "INSERT INTO submissions (submitter, body) VALUES ('legacy', '') RETURNING id")
sql "INSERT INTO jobs (submission, key, tbox_group, series, commit, job, state, run, runs)
	SELECT $LSID, 'dd-write/legacy', 'lab', 'dd-write/legacy/lab', c, '{\"suite\": \"dd-write\"}', 'done', r, 3
	FROM unnest(ARRAY['abcd0001', 'abcd0002']) c, generate_series(1, 3) r" >/dev/null
sql "INSERT INTO metric_values (series, commit, metric, vals, n, mean, stddev, min, max)
	SELECT 'dd-write/legacy/lab', c, 'dd.write_bytes_per_sec', ARRAY[100, 101, 99]::float8[], 3, 100, 1, 99, 101
	FROM unnest(ARRAY['abcd0001', 'abcd0002']) c" >/dev/null
s=$(curl -s -m 20 -o "$T/legacy.json" -w '%{http_code}' "$U/api/compare?series=dd-write/legacy/lab&base=abcd0001&head=abcd0002&all=1")
check $([ "$s" = 200 ] && /usr/bin/python3 -c "import json; c = json.load(open('$T/legacy.json'))
assert c['base'] == 'abcd0001' and c['head'] == 'abcd0002', c"; echo $?) \
	"GET /api/compare of runs stored with short commits answers ($s)"

# A comparison made on request holds every value of both sides: one over
# compare_max_values (2,000 here) is a 413 that says what to do instead,
# and one while compare_max_running (1 here) others are being made is a
# 429, at once.  The first is held in SIZING by a lock on the values.
WA=$(sha wide-a) WB=$(sha wide-b)
sql "INSERT INTO jobs (submission, key, tbox_group, series, commit, job, state, run, runs)
	SELECT $LSID, 'dd-write/wide', 'lab', 'dd-write/wide/lab', c, '{\"suite\": \"dd-write\"}', 'done', r, 3
	FROM unnest(ARRAY['$WA', '$WB']) c, generate_series(1, 3) r" >/dev/null
sql "INSERT INTO metric_values (series, commit, metric, vals, n, mean, stddev, min, max)
	SELECT 'dd-write/wide/lab', c, 'proc-vmstat.m' || m, ARRAY[1, 2, 3]::float8[], 3, 2, 1, 1, 3
	FROM unnest(ARRAY['$WA', '$WB']) c, generate_series(1, 400) m" >/dev/null
s=$(curl -s -m 20 -o "$T/wide.json" -w '%{http_code}' "$U/api/compare?series=dd-write/wide/lab&base=$WA&head=$WB")
check $([ "$s" = 413 ] && grep -q "reads 2400 values (metrics x runs), over this robotd's compare_max_values (2000): fetch the runs with robot results" "$T/wide.json"; echo $?) \
	"a comparison over compare_max_values is refused before its values are read ($s $(head -c 300 "$T/wide.json"))"
locked() { [ "$(sql "SELECT count(*) FROM pg_locks WHERE relation = 'metric_values'::regclass AND mode = 'AccessExclusiveLock' AND granted")" = 1 ]; }
sizing() { [ "$(sql "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%sum(n)%'")" = 1 ]; }
sql_own "BEGIN; LOCK TABLE metric_values IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(30); COMMIT" >/dev/null 2>&1 &
LOCKER=$!
wait_for 10 locked
curl -s -m 60 -o "$T/held.json" -w '%{http_code}' "$U/api/compare?series=dd-write/legacy/lab&base=abcd0001&head=abcd0002&all=1" >"$T/held.code" &
HELD=$!
wait_for 10 sizing
s=$(curl -s -m 20 -o "$T/busy.json" -w '%{http_code}' "$U/api/compare?series=dd-write/legacy/lab&base=abcd0001&head=abcd0002&min_effect=3")
sql "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(30)%' AND pid <> pg_backend_pid()" >/dev/null
wait $HELD
wait $LOCKER
check $([ "$s" = 429 ] && grep -q "1 comparisons are being made (this robotd's compare_max_running): ask again in a few seconds" "$T/busy.json" &&
	[ "$(cat "$T/held.code")" = 200 ]; echo $?) \
	"a comparison asked while compare_max_running are being made is a 429; the one held answers when it can ($s $(cat "$T/held.code"))"

# A history (/changes, /history, its page) is bounded as a comparison is
# (issue 61: a million values were read and their change points found
# on the loop): over compare_max_values (2,000 here) it is a 413 before
# anything is read, and while compare_max_running (1 here) others are
# in hand a 429, at once; the one held answers when it can.
sql "INSERT INTO metric_values (series, commit, metric, vals, n, mean, stddev, min, max)
	SELECT 'dd-write/long/lab', md5(c::text), 'dd.write_bytes_per_sec',
	array_fill(1::float8 + c % 2, ARRAY[100]), 100, 1 + c % 2, 0, 1 + c % 2, 1 + c % 2
	FROM generate_series(1, 30) c" >/dev/null
LH="$U/api/series/dd-write/long/lab"
s1=$(curl -s -m 20 -o "$T/long.json" -w '%{http_code}' "$LH/changes?metric=dd.write_bytes_per_sec")
s2=$(curl -s -m 20 -o "$T/long.html" -w '%{http_code}' "$U/series/dd-write/long/lab/history?metric=dd.write_bytes_per_sec")
s3=$(curl -s -m 20 -o "$T/long15.json" -w '%{http_code}' "$LH/history?metric=dd.write_bytes_per_sec&limit=15")
check $([ "$s1" = 413 ] && grep -q "may hold 3000 values at its newest 200 commits, over this robotd's compare_max_values (2000): ask for fewer commits with ?limit=" "$T/long.json" &&
	[ "$s2" = 413 ] && grep -q "compare_max_values" "$T/long.html" && [ "$s3" = 200 ] &&
	/usr/bin/python3 -c "import json; h = json.load(open('$T/long15.json'))
assert len(h['commits']) == 15 and sum(len(c['vals']) for c in h['commits']) == 1500, h['commits'][:2]"; echo $?) \
	"a history over compare_max_values is a 413 before it is read, a shorter one answers ($s1 $s2 $s3 $(head -c 300 "$T/long.json"))"
hreading() { [ "$(sql "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%robot_series_history%'")" = 1 ]; }
sql_own "BEGIN; LOCK TABLE metric_values IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(30); COMMIT" >/dev/null 2>&1 &
LOCKER=$!
wait_for 10 locked
curl -s -m 60 -o "$T/hheld.json" -w '%{http_code}' "$LH/changes?metric=dd.write_bytes_per_sec&limit=15" >"$T/hheld.code" &
HELD=$!
wait_for 10 hreading
s=$(curl -s -m 20 -o "$T/hbusy.json" -w '%{http_code}' "$LH/history?metric=dd.write_bytes_per_sec&limit=5")
sp=$(curl -s -m 20 -o /dev/null -w '%{http_code}' "$U/series/dd-write/long/lab/history?metric=dd.write_bytes_per_sec&limit=5")
sql "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(30)%' AND pid <> pg_backend_pid()" >/dev/null
wait $HELD
wait $LOCKER
check $([ "$s" = 429 ] && [ "$sp" = 429 ] && grep -q "1 large answers (histories, runs, pages of results) are being made (this robotd's compare_max_running): ask again in a few seconds" "$T/hbusy.json" &&
	[ "$(cat "$T/hheld.code")" = 200 ] && grep -q '"points":15' "$T/hheld.json"; echo $?) \
	"a history asked while compare_max_running are in hand is a 429, the page too; the one held answers when it can ($s $sp $(cat "$T/hheld.code"))"
# The metric picker of a series of 1,200 metrics lists 500, KPIs first,
# and says how many there are (it listed every one: 8.3 MB at 100,000).
WC=$(sha wide-c)
sql "INSERT INTO jobs (submission, key, tbox_group, series, commit, job, state, run, runs)
	VALUES ($LSID, 'dd-write/many', 'lab', 'dd-write/many/lab', '$WC', '{\"suite\": \"dd-write\"}', 'done', 1, 1)" >/dev/null
sql "INSERT INTO metric_values (series, commit, metric, vals, n, mean, stddev, min, max)
	SELECT 'dd-write/many/lab', '$WC', 'proc-vmstat.m' || lpad(m::text, 4, '0'), ARRAY[1]::float8[], 1, 1, 0, 1, 1
	FROM generate_series(1, 1200) m" >/dev/null
s=$(curl -s -m 20 -o "$T/pick.html" -w '%{http_code}' "$U/series/dd-write/many/lab/history")
check $([ "$s" = 200 ] && [ "$(grep -o '<option' "$T/pick.html" | wc -l)" = 500 ] &&
	grep -q "The first 500 of its 1200 metrics" "$T/pick.html"; echo $?) \
	"a history's metric picker lists 500 of 1,200 metrics and says so ($s $(grep -o '<option' "$T/pick.html" | wc -l))"
# A series' commits are the newest 1,000, with how many there are.
sql "INSERT INTO jobs (submission, key, tbox_group, series, commit, job, state, run, runs)
	SELECT $LSID, 'dd-write/manyc', 'lab', 'dd-write/manyc/lab', md5(c::text) || left(md5('y' || c), 8),
	'{\"suite\": \"dd-write\"}', 'done', 1, 1 FROM generate_series(1, 1200) c" >/dev/null
s=$(api GET "$U/api/series/dd-write/manyc/lab/commits" "")
check $([ "$s" = 200 ] && py "assert len(j['commits']) == 1000 and j['total'] == 1200, (len(j['commits']), j.get('total'))"; echo $?) \
	"a series' commits are its newest 1,000, and how many it has ($s)"

# Anonymous reads take a share of the database pool (8 here: 6 of it),
# so that a crowd of them cannot hold every connection: with the
# histories held by a lock, 12 readers wait on 6 connections and
# /api/status still answers (before, all 8 waited, and status with
# them until the lock went).
# (Twelve histories in hand at once: compare_max_running 12, read again
# on SIGHUP.)
sed -i 's/^compare_max_running: 1$/compare_max_running: 12/' "$T/robotd.yaml"
kill -HUP "$PID_d2"
wait_for 10 grep -q "SIGHUP: reloaded" "$T/d2.log"
HQ="%robot_series_history%"
readers() { [ "$(sql "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '$HQ'")" = "$1" ]; }
sql_own "BEGIN; LOCK TABLE metric_values IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(60); COMMIT" >/dev/null 2>&1 &
LOCKER=$!
wait_for 10 locked
RPIDS=""
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
	curl -s -m 60 -o /dev/null -w '%{http_code}\n' "$U/api/series/$SERIES/history?metric=dd.write_bytes_per_sec" >>"$T/readers.codes" &
	RPIDS="$RPIDS $!"
done
wait_for 10 readers 6
s=$(curl -s -m 15 -o /dev/null -w '%{http_code}' "$U/api/status")
held=$(kill -0 $LOCKER 2>/dev/null && echo held || echo gone)
most=$(sql "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '$HQ'")
sql "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(60)%' AND pid <> pg_backend_pid()" >/dev/null
wait $LOCKER
# shellcheck disable=SC2086
wait $RPIDS
check $([ "$s" = 200 ] && [ $held = held ] && [ "$most" = 6 ] && [ "$(grep -c '^200$' "$T/readers.codes")" = 12 ]; echo $?) \
	"12 anonymous readers held by a lock take 6 of 8 connections; /api/status answers meanwhile, and then they do ($s $held $most $(sort "$T/readers.codes" | uniq -c | tr -s ' \n' ' '))"
sanitizer_clean
exit $((failed > 0))
