#!/bin/sh
# test_robotd_health.sh ROBOTD ROBOT_BOX ROBOT SOURCE_DIR: an idle box's
# reference runs (issue 26, box health): a box that took no run for
# reference_every seconds gets a run of its canary, pinned to it, so
# that a box that changed while the lab was quiet is caught before it
# takes a pair.  Simulated boxes (simbox.py) with a known truth.  TAP
# output.
set -u
ROBOTD=$1 BOX=$2 ROBOT=$3 SRC=$4
. "$SRC/tests/integration/robotd_lib.sh"

cat >"$T/robotd.yaml" <<YAML
state_dir: $T/state
lease_seconds: 3
analysis_claim: 3
reference_every: 2
YAML
start_robotd d --config "$T/robotd.yaml" || { echo "1..0 # robotd did not start"; exit 1; }
U=$URL_d
SUB=$(token submit alice)
echo "1..9"

dd_job "$T/dd.yaml"
BASE=$(sha base) HEAD=$(sha head) B3=$(sha b3) H3=$(sha h3)
# refs BOX: the reference runs given to BOX (jobs of robotd's own
# submissions pinned to it).
refs() {
	sql "SELECT count(*) FROM jobs j JOIN submissions s ON s.id = j.submission
		WHERE s.submitter = 'robotd' AND j.box = '$1'"
}

# Three boxes at once: r1 runs a pair, then idles, and from its 15th run
# on (the third reference run) is 20% slower with the commit unchanged;
# r2 never ran a base, so it has no canary; r3 runs a pair, then dies.
SIMBOX_GROUP=g1 simbox r1 "$HEAD=-10" --noise=1 --step=14:-20 --seed=21
SIMBOX_GROUP=g2 simbox r2 --noise=1 --seed=22
SIMBOX_GROUP=g3 simbox r3 "$H3=-10" --noise=1 --seed=23
api POST "$U/api/jobs?tbox_group=g1&repeat=6&max_runs=6&commit=$BASE&commit=$HEAD" "$SUB" "$T/dd.yaml" >/dev/null
api POST "$U/api/jobs?tbox_group=g3&repeat=3&max_runs=3&commit=$B3&commit=$H3" "$SUB" "$T/dd.yaml" >/dev/null
g3_final() { [ "$(sql "SELECT count(*) FROM pairs WHERE head = '$H3' AND state = 'final'")" = 1 ]; }
wait_for 60 g3_final
simbox_stop r3

# 1. The idle box is given runs of its canary, one at a time, each once
# it idled for reference_every, until the runs show it changed: it is
# suspect although no one submitted anything.
suspect() { [ -n "$(sql "SELECT suspect FROM boxes WHERE name = '$1'")" ]; }
wait_for 120 suspect r1
rc=$?
n1=$(refs r1)
what=$(sql "SELECT string_agg(DISTINCT j.commit || ' ' || coalesce(j.pair::text, '-') || ' ' || j.state, ',')
	FROM jobs j JOIN submissions s ON s.id = j.submission WHERE s.submitter = 'robotd' AND j.box = 'r1'
	AND j.state <> 'cancelled'")
# Each began when the box had taken no run for 2 s.
early=$(sql "SELECT count(*) FROM jobs j JOIN submissions s ON s.id = j.submission
	WHERE s.submitter = 'robotd' AND j.box = 'r1' AND EXISTS (SELECT 1 FROM leases l
	WHERE l.box = 'r1' AND l.job <> j.id AND l.created < j.created
	AND l.created > j.created - interval '2 seconds')")
check $([ $rc = 0 ] && [ "$n1" -ge 3 ] && [ "$what" = "$BASE - done" ] && [ "$early" = 0 ] &&
	[ "$(sql "SELECT count(*) FROM pairs")" = 2 ] &&
	grep -q "health: box r1 idle for 2s: a reference run of dd-write.*/g1 at $(echo "$BASE" | cut -c1-12)" "$T/d.log"; echo $?) \
	"an idle box gets reference runs of its base, each after 2 s idle, in no pair ($rc $n1 '$what' $early)"
check $(grep -q "health: box r1 changed: 3 runs in a row of .* moved -[12][0-9].[0-9]% from its" "$T/d.log"; echo $?) \
	"the reference runs caught the box that changed while the lab was quiet"

# 2. A suspect box gets no more of them.
sleep 6
check $([ "$(refs r1)" = "$n1" ] &&
	[ "$(sql "SELECT count(*) FROM jobs WHERE box = 'r1' AND state = 'queued'")" = 0 ]; echo $?) \
	"a suspect box is given no reference run ($(refs r1) after $n1)"

# The tests on real boxes (STUCK_CHECK) stop waiting on such a lab: its
# only box of g1 is suspect, so nothing of g1 runs until a reset.
t0=$(date +%s)
STUCK_CHECK=1 wait_for 600 false >"$T/stuck.out"
took=$(($(date +%s) - t0))
check $(grep -q "the lab is stuck: no box may take work (r1 suspect)" "$T/stuck.out" &&
	grep -q "It was the last box of group g1 that may take work: .* robot box reset r1\." "$T/stuck.out" &&
	[ $took -lt 300 ]; echo $?) \
	"a test's wait on a group whose boxes are all suspect ends at once, saying why (${took}s)"

# A test that allows it (STUCK_RESETS, the real-box tests) resets such a
# box as an operator would, says so, and waits on.
ADMIN=$(token admin root)
r1_back() { [ "$(sql "SELECT suspect IS NULL FROM boxes WHERE name = 'r1'")" = t ]; }
STUCK_CHECK=1
STUCK_RESETS=1
wait_for 60 r1_back >"$T/reset.out"
rc=$?
STUCK_CHECK= STUCK_RESETS=0
check $([ $rc = 0 ] && [ "${STUCK_RESET_DONE:-0}" = 1 ] &&
	grep -q "a box changed under the test; reset as an operator would (r1 suspect)" "$T/reset.out" &&
	grep -q "box r1 changed: 3 runs in a row" "$T/reset.out"; echo $?) \
	"with STUCK_RESETS, the wait resets the suspect box, saying why, and waits on ($rc, ${STUCK_RESET_DONE:-0} resets)"

# 3. A box that never ran a base has no canary to run.
check $([ "$(sql "SELECT count(*) FROM jobs WHERE box = 'r2'")" = 0 ]; echo $?) \
	"a box that never ran a base gets no reference run"

# 4. A reference run queued for a box that then went away is cancelled
# after a minute; a pair of its commit measured meanwhile waits for it
# no longer.
# (On a busy machine the checks above may outlast the minute: the run
# was queued, and is cancelled already.)
wait_for 30 sql_is 1 "SELECT count(*) FROM jobs WHERE box = 'r3' AND (state = 'queued' OR error = 'r3 asked for no work for a minute')"
queued=$?
api POST "$U/api/jobs?tbox_group=g3&repeat=1&max_runs=1&commit=$B3&commit=$H3" "$SUB" "$T/dd.yaml" >/dev/null
SIMBOX_GROUP=g3 simbox r4 "$H3=-10" --noise=1 --seed=24
gone() { [ "$(sql "SELECT count(*) FROM jobs WHERE box = 'r3' AND state = 'cancelled'
	AND error = 'r3 asked for no work for a minute'")" = 1 ]; }
wait_for 120 gone
rc=$?
check $([ $queued = 0 ] && [ $rc = 0 ] && [ "$(refs r3)" = 1 ] &&
	[ "$(sql "SELECT count(*) FROM jobs WHERE box = 'r3' AND state = 'queued'")" = 0 ]; echo $?) \
	"the reference run of a box that went away is cancelled ($queued $rc $(refs r3))"
g3_again() { [ "$(sql "SELECT state FROM pairs WHERE head = '$H3'")" = final ] &&
	[ "$(sql "SELECT count(*) FROM jobs WHERE commit = '$H3' AND state = 'done'")" = 4 ]; }
wait_for 60 g3_again
check $? "the pair of its commit did not wait for it ($(sql "SELECT state FROM pairs WHERE head = '$H3'"))"
for b in r1 r2 r4; do simbox_stop $b; done
sanitizer_clean
exit $((failed > 0))
