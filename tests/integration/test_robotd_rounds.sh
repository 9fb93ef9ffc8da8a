#!/bin/sh
# test_robotd_rounds.sh ROBOTD ROBOT_BOX ROBOT SOURCE_DIR: a pair's runs
# are taken in rounds (issue 26): a round runs each commit once, back to
# back on one box in a random order, and the pair is compared within its
# rounds.  Simulated boxes (simbox.py) with a known truth and a lab's
# faults: a box that drifts, one that dies during a round, one that
# vanishes between two runs of a round.  TAP output.
set -u
ROBOTD=$1 BOX=$2 ROBOT=$3 SRC=$4
. "$SRC/tests/integration/robotd_lib.sh"

cat >"$T/robotd.yaml" <<YAML
state_dir: $T/state
lease_seconds: 3
analysis_claim: 3
max_runs: 8
YAML
start_robotd d --config "$T/robotd.yaml" || { echo "1..0 # robotd did not start"; exit 1; }
U=$URL_d
SUB=$(token submit alice)
echo "1..18"

dd_job "$T/dd.yaml"
BASE=$(sha base) GOOD=$(sha good) BAD=$(sha bad)
final() { [ "$(sql "SELECT count(*) FROM pairs WHERE state <> 'final'")" = 0 ] &&
	[ "$(sql "SELECT count(*) FROM pairs")" -ge "$1" ]; }
# Rounds whose runs were not all leased by one box: must be none.
split_rounds() {
	sql "SELECT count(*) FROM (SELECT round FROM jobs WHERE round IS NOT NULL
		AND state IN ('done', 'failed') GROUP BY round
		HAVING count(DISTINCT box) > 1) x"
}

# 1. A box that drifts up 1% a run (and 0.5% noise): a commit 8% slower
# and an innocent one, three runs each with their base.  Taken one
# commit after the other, the innocent commit's runs would be 3% above
# the base's (tests/unit/test_compare.c shows two such sides called an
# improvement); in rounds the drift cancels.
simbox s1 "$BAD=-8" --noise=0.5 --drift=1 --seed=3
s=$(api POST "$U/api/jobs?tbox_group=lab&repeat=3&commit=$BASE&commit=$GOOD&commit=$BAD" "$SUB" "$T/dd.yaml")
check $([ "$s" = 201 ]; echo $?) "a submission of three commits ($s)"
# (The submission's own runs, 1 to 3 of each commit: the box may have
# taken them all, and the analysis asked for more rounds, before this
# looks.)
first="(SELECT * FROM jobs WHERE run <= 3)"
got=$(sql "SELECT count(*) || ' ' || count(DISTINCT round) || ' ' ||
	bool_and(round IS NOT NULL) FROM $first j")
odd=$(sql "SELECT count(*) FROM (SELECT round FROM $first j GROUP BY round
		HAVING array_agg(round_pos ORDER BY round_pos) <> '{1,2,3}'
		OR count(DISTINCT commit) <> 3) x")
check $([ "$got" = "9 3 true" ] && [ "$odd" = 0 ]; echo $?) \
	"its runs are three rounds, each of the three commits in some order ($got; $odd odd)"
wait_for 120 final 2
check $? "both pairs are final ($(sql "SELECT string_agg(state, ' ') FROM pairs"))"
# The box leased the runs of a round one after the other, in order.
gaps=$(sql "WITH l AS (SELECT j.round, j.round_pos, row_number() OVER (ORDER BY l.id) AS n
	FROM leases l JOIN jobs j ON j.id = l.job WHERE l.box = 's1')
	SELECT count(*) FROM l a JOIN l b ON b.n = a.n + 1
	WHERE b.round_pos > 1 AND (b.round <> a.round OR b.round_pos <> a.round_pos + 1)")
check $([ "$gaps" = 0 ] && [ "$(split_rounds)" = 0 ]; echo $?) \
	"each round ran back to back on one box, in its order ($gaps)"
v=$(sql "SELECT string_agg(verdict || ':' || (comparison->>'rounds'), ' ' ORDER BY head = '$BAD') FROM pairs")
check $(case "$v" in "unchanged:"[3-8]" regression:"[3-8] | "inconclusive:"[3-8]" regression:"[3-8]) true ;; *) false ;; esac; echo $?) \
	"the innocent commit is no regression, the slower one is, each compared within its rounds ($v)"
chg=$(sql "SELECT round(change_pct) FROM regressions WHERE commit = '$BAD'")
check $([ "$chg" -ge -10 ] && [ "$chg" -le -6 ]; echo $?) "its change is -8% ($chg%)"
simbox_stop s1

# 2. A box that dies during a round, holding its second run: the lease
# expires (3 s), and the whole round is measured again on another box;
# the run the dead box finished stays, outside the round.
B2=$(sha b2) H2=$(sha h2)
simbox s2 --hold=1 --seed=4
api POST "$U/api/jobs?tbox_group=lab&repeat=1&commit=$B2&commit=$H2" "$SUB" "$T/dd.yaml" >/dev/null
R2=$(sql "SELECT round FROM jobs WHERE commit = '$H2'")
wait_for 30 sh -c "! kill -0 $SIMBOX_s2 2>/dev/null"
check $? "the box died holding its second run"
held=$(sql "SELECT count(*) FILTER (WHERE state = 'done' AND box = 's2') || ' ' ||
	count(*) FILTER (WHERE state = 'leased' AND box = 's2') FROM jobs WHERE round = $R2")
simbox s3 --seed=5
wait_for 60 final 3
rc=$?
check $([ "$held" = "1 1" ] && [ $rc = 0 ] &&
	[ "$(sql "SELECT count(*) FROM jobs j JOIN results r ON r.job = j.id
		WHERE j.box = 's2' AND j.round IS NULL AND j.state = 'done'")" = 1 ] &&
	[ "$(sql "SELECT string_agg(DISTINCT box, ' ') FROM jobs WHERE round = $R2 AND state = 'done'")" = s3 ] &&
	[ "$(split_rounds)" = 0 ]; echo $?) \
	"the round was measured again, all of it, on the other box; the dead box's run stays outside it ($held)"
simbox_stop s3

# 3. A box that vanishes between two runs of a round: the rest of the
# round waits for it (pinned), until the box has asked for no work for
# a minute (its clock moved on here); then the round is measured again
# elsewhere.
B3=$(sha b3) H3=$(sha h3)
simbox s4 --uploads=1 --seed=6
api POST "$U/api/jobs?tbox_group=lab&repeat=1&commit=$B3&commit=$H3" "$SUB" "$T/dd.yaml" >/dev/null
R3=$(sql "SELECT round FROM jobs WHERE commit = '$H3'")
wait_for 30 sh -c "! kill -0 $SIMBOX_s4 2>/dev/null"
pinned=$(sql "SELECT string_agg(state || ':' || coalesce(box, '-'), ' ' ORDER BY round_pos) FROM jobs WHERE round = $R3")
simbox s5 --seed=7
sleep 1
early=$(sql "SELECT count(*) FROM jobs WHERE round = $R3 AND box = 's5'")
sql "UPDATE boxes SET last_seen = now() - interval '2 minutes', last_asked = now() - interval '2 minutes' WHERE name = 's4'" >/dev/null
wait_for 60 final 4
rc=$?
check $([ "$pinned" = "done:s4 queued:s4" ] && [ "$early" = 0 ] && [ $rc = 0 ] &&
	[ "$(sql "SELECT string_agg(DISTINCT box, ' ') FROM jobs WHERE round = $R3")" = s5 ] &&
	grep -q "1 round left by a box that asked for no work for a minute" "$T/d.log"; echo $?) \
	"the rest of the round waited for its box, then the round was measured again on another ($pinned; $early)"

# 4. The order within a round is random: over 24 rounds of two commits,
# the base ran first in some and second in others.
B4=$(sha b4) H4=$(sha h4)
api POST "$U/api/jobs?tbox_group=lab&repeat=24&commit=$B4&commit=$H4" "$SUB" "$T/dd.yaml" >/dev/null
wait_for 120 final 5
check $? "24 rounds run"
o=$(sql "SELECT count(*) FILTER (WHERE round_pos = 1) || ' ' || count(*) FILTER (WHERE round_pos = 2) FROM jobs WHERE commit = '$B4'")
check $(set -- $o; [ "$1" -gt 0 ] && [ "$2" -gt 0 ] && [ $(($1 + $2)) -ge 24 ]; echo $?) \
	"the base ran first in some rounds and second in others ($o)"

# 5. More runs are more rounds: a pair asked for more (inconclusive)
# gets rounds of its base and head, each on one box.
B5=$(sha b5) H5=$(sha h5)
simbox_stop s5
simbox s6 "$H5=-10" --noise=4 --seed=8
api POST "$U/api/jobs?tbox_group=lab&repeat=3&commit=$B5&commit=$H5" "$SUB" "$T/dd.yaml" >/dev/null
wait_for 120 final 6
r=$(sql "SELECT (comparison->>'rounds') || ' ' || (SELECT count(*) FROM jobs WHERE pair = p.id AND round IS NOT NULL)
	FROM pairs p WHERE head = '$H5'")
check $(set -- $r; [ "$1" -gt 3 ] && [ "$2" = $((2 * ($1 - 3))) ] && [ "$(split_rounds)" = 0 ]; echo $?) \
	"an inconclusive pair asked for more rounds, each of its base and head on one box ($r)"
simbox_stop s6
wait "$SIMBOX_s6" 2>/dev/null

# 6. A lab as labs are, watching a tree: three boxes 3% apart, each
# drifting 0.1% a run (10% over the scenario), with 2% noise, and one
# that steps down 20% from its 15th run (0.3% a run adds up to a step of
# the canary's between runs of the base far apart: docs/statistics.md).  An innocent head is no regression; a head 8% slower
# (from its 7th commit on) is one, and its bisection finds that commit.
# The base and the innocent head have 1% noise, under the 2% floor, so
# that only what the rounds must cancel (drift, offsets, the step)
# could make a change of them: with 2% noise the noise alone crossed
# the floor, at the false-alarm budget's rate, once in about 60 runs
# of this scenario (2 of 134), as each box's seeded noise gives the
# same magnitudes every run and only their signs vary.
ADMIN=$(token admin root)
export GIT_AUTHOR_NAME="A Developer" GIT_AUTHOR_EMAIL=dev@example.org
export GIT_COMMITTER_NAME="A Developer" GIT_COMMITTER_EMAIL=dev@example.org
R="$T/lab"
git init -q -b main "$R"
echo init >"$R/file"
git -C "$R" add file
git -C "$R" commit -q -m init
git -C "$R" tag v1.0
V1=$(git -C "$R" rev-parse v1.0)
for i in $(seq 1 12); do
	echo "$i" >>"$R/file"
	git -C "$R" commit -q -am "lab: change $i"
	git -C "$R" rev-parse HEAD
done >"$T/lab.shas"
C3=$(sed -n 3p "$T/lab.shas") C7=$(sed -n 7p "$T/lab.shas") C12=$(sed -n 12p "$T/lab.shas")
git -C "$R" update-ref refs/heads/main "$C3"
slow=$(sed -n '7,$p' "$T/lab.shas" | sed 's/$/=-8/' | tr '\n' ' ')
# shellcheck disable=SC2086
simbox l1 $slow "$V1=0~1" "$C3=0~1" --noise=2 --offset=-3 --drift=0.1 --seed=11
# shellcheck disable=SC2086
simbox l2 $slow "$V1=0~1" "$C3=0~1" --noise=2 --drift=0.1 --step=15:-20 --seed=12
# shellcheck disable=SC2086
simbox l3 $slow "$V1=0~1" "$C3=0~1" --noise=2 --offset=3 --drift=0.1 --seed=13
ROBOT_SERVER=$U ROBOT_TOKEN=$ADMIN "$ROBOT" tree add lab --url "$R" --branch main --base v1.0 \
	--job "$T/dd.yaml" --tbox-group lab --runs 3 --poll 300 >/dev/null 2>&1
pair_final() { [ "$(sql "SELECT state FROM pairs WHERE base = '$V1' AND head = '$1'")" = final ]; }
wait_for 120 pair_final "$C3"
v3=$(sql "SELECT verdict FROM pairs WHERE base = '$V1' AND head = '$C3'")
git -C "$R" update-ref refs/heads/main "$C12"
fetch_now lab
wait_for 120 pair_final "$C12"
v12=$(sql "SELECT verdict FROM pairs WHERE base = '$V1' AND head = '$C12'")
bis_ended() { [ -n "$(sql "SELECT 1 FROM bisections WHERE tree = 'lab' AND state <> 'running'")" ]; }
wait_for 300 bis_ended
b=$(sql "SELECT state || ' ' || coalesce(first_bad, '-') FROM bisections WHERE tree = 'lab'")
diag "steps: $(sql "SELECT string_agg(kind || ':' || left(commit, 10) || ':' || coalesce(verdict, '-'), ' ' ORDER BY n) FROM bisect_steps")"
check $([ -n "$v3" ] && [ "$v3" != regression ] && [ "$v3" != improvement ] &&
	[ "$(sql "SELECT count(*) FROM regressions WHERE commit = '$C3'")" = 0 ]; echo $?) \
	"in a lab that drifts, stands apart and steps, the innocent head is no regression ($v3)"
sus=$(sql "SELECT coalesce(string_agg(name, ' ' ORDER BY name), '-') FROM boxes WHERE suspect IS NOT NULL AND name LIKE 'l%'")
check $([ "$v12" = regression ] && [ "$b" = "bisected $C7" ] && { [ "$sus" = - ] || [ "$sus" = l2 ]; }; echo $?) \
	"the 8% slower head is a regression, bisected to the commit that slowed it; no box that only drifts is suspect ($v12; $b; C7 $C7; suspect: $sus)"
for b in l1 l2 l3; do touch "$T/stop-$b"; done
for b in l1 l2 l3; do simbox_stop "$b"; done

# 7. Box health: a box whose runs of one commit drop 20% from its 13th
# run on (with the commit unchanged) is suspect: logged, a note for the
# operators, shown by robot status; it takes no work, and the rounds it
# ran since the change are measured again on another box, until robot
# box reset.
B7=$(sha b7) H7=$(sha h7) H8=$(sha h8)
SIMBOX_GROUP=hg simbox sb1 "$H8=-10" --noise=1 --step=13:-20 --seed=14
api POST "$U/api/jobs?tbox_group=hg&repeat=6&commit=$B7&commit=$H7" "$SUB" "$T/dd.yaml" >/dev/null
hg_final() { [ "$(sql "SELECT count(*) FROM pairs WHERE series LIKE '%/hg' AND state = 'final'")" -ge "$1" ]; }
wait_for 60 hg_final 1
api POST "$U/api/jobs?tbox_group=hg&repeat=4&commit=$B7&commit=$H8" "$SUB" "$T/dd.yaml" >/dev/null
suspect() { [ -n "$(sql "SELECT suspect FROM boxes WHERE name = 'sb1'")" ]; }
wait_for 60 suspect
rc=$?
sleep 1
queued=$(sql "SELECT count(*) FROM jobs WHERE state = 'queued' AND series LIKE '%/hg'")
# (The pair of B7 and H7 shares the base's runs but none of its rounds
# ran since: it keeps the rounds it asked for, as does the pair of B7
# and H8, which has those it ran on sb1 since measured again; it lost
# some when the first pair's turn dropped them.)
asked_rounds() { # asked_rounds HEAD REPEAT: the rounds its pair asked for before sb1 was suspect
	n=$(sed -n '1,/health: box sb1 is suspect/p' "$T/d.log" |
		grep "\.\.$(echo "$1" | cut -c1-12): .*more runs, to " | tail -1 | sed 's/.*more runs, to \([0-9]*\).*/\1/')
	echo "${n:-$2}"
}
hg_rounds=$(sql "SELECT string_agg((SELECT count(*) FROM robot_pair_rounds(p.series, p.base, p.head))::text, ' ' ORDER BY p.id)
	FROM pairs p WHERE p.series LIKE '%/hg'")
hg_asked="$(asked_rounds "$H7" 6) $(asked_rounds "$H8" 4)"
taken=$(sql "SELECT count(*) FROM leases WHERE box = 'sb1' AND created > (SELECT suspect FROM boxes WHERE name = 'sb1') + interval '2 seconds'")
status=$(ROBOT_SERVER=$U ROBOT_TOKEN=$SUB "$ROBOT" status 2>&1)
check $([ $rc = 0 ] && [ "$queued" -gt 0 ] && [ "$taken" = 0 ] && [ "$hg_rounds" = "$hg_asked" ] &&
	grep -q "health: box sb1 changed: 3 runs in a row of .* moved -[12][0-9].[0-9]% from its" "$T/d.log" &&
	[ "$(sql "SELECT count(*) FROM lab_notes WHERE kind = 'suspect' AND boxes = '{sb1}'")" = 1 ] &&
	echo "$status" | grep -q "sb1 .*suspect"; echo $?) \
	"a box whose runs of one commit moved is suspect: logged, noted, shown; it takes no work ($rc $queued $taken; rounds $hg_rounds of $hg_asked)"
SIMBOX_GROUP=hg simbox sb2 "$H8=-10" --noise=1 --seed=15
hg_done() { [ "$(sql "SELECT count(*) FROM pairs WHERE series LIKE '%/hg' AND state <> 'final'")" = 0 ] &&
	[ "$(sql "SELECT count(*) FROM jobs WHERE state IN ('queued', 'leased') AND series LIKE '%/hg'")" = 0 ]; }
wait_for 60 hg_done
rc=$?
v8=$(sql "SELECT verdict FROM pairs WHERE head = '$H8'")
on1=$(sql "SELECT count(*) FROM jobs j JOIN leases l ON l.job = j.id WHERE j.round IS NOT NULL AND j.commit = '$H8'
	AND l.box = 'sb1' AND l.created >= (SELECT suspect FROM boxes WHERE name = 'sb1')")
ROBOT_SERVER=$U ROBOT_TOKEN=$ADMIN "$ROBOT" box reset sb1 >"$T/reset.out" 2>&1
check $([ $rc = 0 ] && [ "$v8" = regression ] && [ "$on1" = 0 ] &&
	[ -z "$(sql "SELECT suspect FROM boxes WHERE name = 'sb1'")" ] && grep -q "reset" "$T/reset.out"; echo $?) \
	"the rounds it ran since are measured again on another box, the finding stands; robot box reset puts it back ($rc $v8 $on1)"
touch "$T/stop-sb1" "$T/stop-sb2"
simbox_stop sb1
simbox_stop sb2

# 8. Outliers and heavy tails: a box whose runs are one in twenty half
# as fast, with noise of Student's t (3 degrees of freedom): an innocent
# commit is no regression, one 25% slower still is (with up to 14
# rounds: from 10 the trimming takes a round off each end).
B9=$(sha b9) G9=$(sha g9) S9=$(sha s9)
SIMBOX_GROUP=tails simbox so "$S9=-25" --noise=2 --tails=3 --outliers=0.05:0.5 --seed=16
api POST "$U/api/jobs?tbox_group=tails&repeat=5&max_runs=14&commit=$B9&commit=$G9&commit=$S9" "$SUB" "$T/dd.yaml" >/dev/null
tails_final() { [ "$(sql "SELECT count(*) FROM pairs WHERE series LIKE '%/tails' AND state = 'final'")" = 2 ]; }
wait_for 120 tails_final
rc=$?
v=$(sql "SELECT string_agg(verdict, ' ' ORDER BY head = '$S9') FROM pairs WHERE series LIKE '%/tails'")
check $([ $rc = 0 ] && case "$v" in "unchanged regression" | "inconclusive regression") true ;; *) false ;; esac; echo $?) \
	"with outliers and heavy tails, the innocent commit is no regression and the slower one is ($v)"
simbox_stop so
sanitizer_clean
exit $((failed > 0))
