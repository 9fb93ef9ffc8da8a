#!/bin/sh
# test_robotd_promising.sh ROBOTD ROBOT_BOX ROBOT SOURCE_DIR: the
# promising look (docs/statistics.md): a KPI inconclusive at robotd's
# cap whose p there is near the line gets one look more, at half as many
# rounds again, and is decided there; a submission's own cap is the most
# it gets.  A simulated box with exact values (a known truth): the base
# swings 6% either way from round to round (so the rounds differ, and
# the test is the paired one), the head is 4%, 2.5%, 4%, 2.5%, 3.25% and
# 3.25% below it in rounds 1 to 6: at the cap of 4 rounds, p = 0.005
# (inconclusive: the last look's alpha is 0.0015), at 6 a regression.
# TAP output.
set -u
ROBOTD=$1 BOX=$2 ROBOT=$3 SRC=$4
. "$SRC/tests/integration/robotd_lib.sh"

robotd_up "lease_seconds: 60
analysis_claim: 5
max_runs: 4"
SUB=$(token submit alice)
echo "1..4"

dd_job "$T/dd.yaml"
B1=$(sha base1) N1=$(sha near1) B2=$(sha base2) N2=$(sha near2)
# the base's runs and the head's, as percent off 100 MB/s
base=6,-6,6,-6,6,-6
head=1.76,-8.35,1.76,-8.35,2.555,-9.055
simbox s1 "$B1=0@$base" "$N1=0@$head" "$B2=0@$base" "$N2=0@$head" --noise=0.3 --seed=1
final() { [ "$(sql "SELECT state FROM pairs WHERE head = '$1'")" = final ]; }
ran() { sql "SELECT count(*) FROM jobs WHERE commit = '$1' AND state = 'done'"; }

# 1. robotd's cap: the promising look, and robot submit says it may come.
ROBOT_SERVER=$U ROBOT_TOKEN=$SUB "$ROBOT" submit "$T/dd.yaml" --tbox-group lab \
	--commit "$B1" --commit "$N1" >"$T/sub1.out" 2>&1
wait_for 120 final "$N1"
v=$(sql "SELECT verdict || ' ' || runs FROM pairs WHERE head = '$N1'")
grep "analysis: .*$(echo "$N1" | cut -c1-12)" "$T/d.log" | sed 's/^/# /'
check $([ "$v" = "regression 6" ] && [ "$(ran "$N1")" = 6 ] &&
	grep -q "$(echo "$N1" | cut -c1-12): dd.write_bytes_per_sec inconclusive with 4 runs a side, near the line at the cap: more runs, to 6 (the promising look)" "$T/d.log"; echo $?) \
	"inconclusive at robotd's cap of 4, p near the line: the promising look at 6 rounds finds the regression ($v)"
check $(grep -q "robotd may add runs, up to 4 a side (6 for a KPI near the line at 4)" "$T/sub1.out"; echo $?) \
	"robot submit says where the promising look may take the runs ($(grep "robotd" "$T/sub1.out"))"

# 2. The submitter's own cap: none past it.
s=$(api POST "$U/api/jobs?tbox_group=lab&repeat=3&max_runs=4&commit=$B2&commit=$N2" "$SUB" "$T/dd.yaml")
promising=$(/usr/bin/python3 -c "import json; print(json.load(open('$T/body')).get('promising_runs'))")
wait_for 120 final "$N2"
v=$(sql "SELECT verdict || ' ' || runs FROM pairs WHERE head = '$N2'")
sleep 1
check $([ "$s" = 201 ] && [ "$promising" = None ] && [ "$v" = "inconclusive 4" ] &&
	[ "$(sql "SELECT count(*) FROM jobs WHERE commit = '$N2'")" = 4 ]; echo $?) \
	"a submission's own cap of 4: inconclusive there, no look past it ($s; promising_runs $promising; $v)"

simbox_stop s1
sanitizer_clean
exit $((failed > 0))
