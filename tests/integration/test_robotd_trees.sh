#!/bin/sh
# test_robotd_trees.sh ROBOTD ROBOT_BOX ROBOT SOURCE_DIR: robotd watches
# git trees made by the test.  New heads are queued with their base on
# their own, analysed, and a regressing head gives one regression
# record, updated by a later head that still shows it and fixed by one
# that does not; a force-push cancels the dropped head's queued runs.
# Simulated boxes (simbox.py) upload the results with a chosen shift per
# commit.  Trees that cannot be fetched: test_robotd_trees_fetch.sh; two
# robotd sharing a tree: test_robotd_trees_shared.sh.  TAP.
set -u
ROBOTD=$1 BOX=$2 ROBOT=$3 SRC=$4
. "$SRC/tests/integration/robotd_lib.sh"

cat >"$T/robotd.yaml" <<YAML
state_dir: $T/state
lease_seconds: 60
tree_fetch_timeout: 3
YAML
start_robotd d --config "$T/robotd.yaml" || { echo "1..0 # robotd did not start"; exit 1; }
U=$URL_d
ADMIN=$(token admin root)
SUB=$(token submit alice)
echo "1..27"

export GIT_AUTHOR_NAME="A Developer" GIT_AUTHOR_EMAIL=dev@example.org
export GIT_COMMITTER_NAME="A Developer" GIT_COMMITTER_EMAIL=dev@example.org
R="$T/repo"
git init -q -b main "$R"
# commit BRANCH SUBJECT: a commit on BRANCH (made from main's first
# commit when new); its SHA.
commit() {
	if ! git -C "$R" rev-parse -q --verify HEAD >/dev/null; then
		: # the first commit
	elif git -C "$R" rev-parse -q --verify "refs/heads/$1" >/dev/null; then
		git -C "$R" checkout -q "$1"
	else
		git -C "$R" checkout -q -b "$1" "$(git -C "$R" rev-list --max-parents=0 main)"
	fi
	echo "$2" >>"$R/file"
	git -C "$R" add file
	git -C "$R" commit -q -m "$2"
	git -C "$R" rev-parse HEAD
}
A=$(commit main "init")
git -C "$R" tag v1.0
dd_job "$T/dd.yaml"
SERIES=dd-write/1M-1LOOP_64M-ext4-1dd-1s/lab
head_is() { [ "$(sql "SELECT sha FROM tree_heads WHERE tree = '$1' AND branch = '$2'")" = "$3" ]; }
pair_is() { [ "$(sql "SELECT state || ' ' || coalesce(verdict, '-') FROM pairs WHERE base = '$1' AND head = '$2'")" = "$3" ]; }
sq() { printf "'%s'" "$1"; }

# 1. A tree is checked before it is stored; only an admin adds one.
cat >"$T/bad.json" <<JSON
{"name": "bad", "url": "-uupload-pack=touch /tmp/x", "branches": ["main"],
 "jobs": [{"name": "j.yaml", "text": "testcase: [unclosed"}],
 "runs": 0, "poll": 1, "colour": "red"}
JSON
s1=$(api POST "$U/api/trees" "$ADMIN" "$T/bad.json")
n1=$(py "d = j['details']; print(len(d), any('url is' in x for x in d), any(\"unknown member 'colour'\" in x for x in d), any('j.yaml' in x for x in d))" 2>/dev/null)
echo '{"name": "x", "url": "ext::sh -c touch% /tmp/y", "jobs": []}' >"$T/ext.json"
s2=$(api POST "$U/api/trees" "$ADMIN" "$T/ext.json")
s3=$(api POST "$U/api/trees" "$SUB" "$T/bad.json")
s4=$(api POST "$U/api/trees" "" "$T/bad.json")
echo '{"name": "x", ' >"$T/trunc.json"
s5=$(api POST "$U/api/trees" "$ADMIN" "$T/trunc.json")
check $([ "$s1" = 400 ] && [ "$n1" = "5 True True True" ] && [ "$s2" = 400 ] && [ "$s3" = 403 ] && [ "$s4" = 401 ] && [ "$s5" = 400 ] &&
	[ "$(sql "SELECT count(*) FROM trees")" = 0 ]; echo $?) \
	"bad trees refused with every fault, and only for an admin ($s1 $n1 $s2 $s3 $s4 $s5)"

# 2. robot tree add; the first fetch records the head, which is its base.
robot tree add linux --url "$R" --branch main --branch 'dev*' --base 'v*' --job "$T/dd.yaml" \
	--tbox-group lab --runs 3 --max-runs 6 --poll 5 >"$T/add.out" 2>&1
rc=$?
robot tree add linux --url "$R" --job "$T/dd.yaml" >"$T/add2.out" 2>&1
rc2=$?
check $([ $rc = 0 ] && [ $rc2 = 1 ] && grep -q "tree linux exists" "$T/add2.out"; echo $?) \
	"robot tree add adds a tree, once ($rc $rc2)"
wait_for 30 head_is linux main "$A"
check $? "the first fetch records main's head"
robot tree list >"$T/list.out" 2>&1
check $(grep -q "^  main  *$(echo "$A" | cut -c1-12)  base $(echo "$A" | cut -c1-12)" "$T/list.out" &&
	[ "$(sql "SELECT count(*) FROM jobs")" = 0 ]; echo $?) \
	"robot tree list shows it; a head that is its base queues nothing"

# 3. An innocent head on main, a regressing one on dev-x: each queued in
# rounds with their base (the base measured in each head's rounds); one
# regression record, at the right commit.
# The innocent one's subject is not UTF-8: a latin-1 byte, as old
# histories have (git commit would convert it, so the commit object is
# written by hand): its commit is kept, with U+FFFD.
B0=$(commit main "fs: tidy up a cafe comment")
B=$(git -C "$R" cat-file commit "$B0" | LC_ALL=C sed "s/a cafe comment/a caf$(printf '\351') comment/" |
	git -C "$R" hash-object -t commit -w --stdin)
git -C "$R" update-ref refs/heads/main "$B"
C=$(commit dev-x "mm: write back more eagerly")
simbox s1 "$C=-10" --noise=1 --seed=1
wait_for 90 pair_is "$A" "$C" "final regression"
check $? "the regressing head is queued, run and found a regression ($(sql "SELECT string_agg(head || ' ' || state || ' ' || coalesce(verdict, '-'), ', ') FROM pairs"))"
# (At 1% noise six rounds show "within 2%" about nine times in ten;
# else the truth, no change, leaves it inconclusive: never a change.)
pair_final_is() { [ "$(sql "SELECT state FROM pairs WHERE base = '$1' AND head = '$2'")" = final ]; }
wait_for 120 pair_final_is "$A" "$B"
vB=$(sql "SELECT verdict FROM pairs WHERE base = '$A' AND head = '$B'")
check $(case "$vB" in unchanged | inconclusive) true ;; *) false ;; esac; echo $?) "the innocent head is no change ($vB)"
check $([ "$(sql "SELECT subject FROM tree_commits WHERE sha = '$B'")" = "$(printf 'fs: tidy up a caf\357\277\275 comment')" ] &&
	grep -q "commit $(echo "$B" | cut -c1-12): its subject or author is not UTF-8: kept with U+FFFD" "$T/d.log"; echo $?) \
	"a commit whose subject is not UTF-8 is kept, with U+FFFD, and logged ($(sql "SELECT count(*) FROM tree_commits WHERE sha = '$B'"))"
rounds_of() { sql "SELECT count(*) FROM robot_pair_rounds((SELECT series FROM pairs LIMIT 1), '$1', '$2')"; }
check $([ "$(sql "SELECT count(*) FROM jobs WHERE commit = '$A' AND pair IS NULL")" = 6 ] &&
	[ "$(sql "SELECT count(*) FROM jobs WHERE commit = '$C' AND pair IS NULL")" = 3 ] &&
	[ "$(rounds_of "$A" "$C")" -ge 3 ] && [ "$(rounds_of "$A" "$B")" -ge 3 ] &&
	[ "$(sql "SELECT count(*) FROM jobs WHERE commit = '$A' AND round IS NULL")" = 0 ] &&
	[ "$(sql "SELECT count(*) FROM pairs")" = 2 ]; echo $?) \
	"each head is queued in 3 rounds with the base, two pairs ($(sql "SELECT count(*) FROM jobs WHERE commit = '$A'") runs of the base)"
check $([ "$(sql "SELECT count(*) || ' ' || min(commit) || ' ' || min(base) || ' ' || min(branch) || ' ' || min(kpi) || ' ' || (max(change_pct) < -5) FROM regressions")" = \
	"1 $C $A dev-x dd.write_bytes_per_sec true" ]; echo $?) \
	"exactly one regression: dev-x's head, dd.write_bytes_per_sec, negative"

# 4. A later head that still regresses updates the record; one that is
# back to the base's level marks it fixed.
# (The box that knows only C's shift stops before C2 exists.)
touch "$T/stop-s1"
wait $SIMBOX_s1 2>/dev/null
C2=$(commit dev-x "mm: and a comment")
simbox s2 "$C=-10" "$C2=-10" --noise=1 --seed=2
wait_for 90 pair_is "$A" "$C2" "final regression"
check $([ "$(sql "SELECT count(*) || ' ' || min(commit) || ' ' || min(last_head) || ' ' || min(state) FROM regressions")" = "1 $C $C2 new" ]; echo $?) \
	"a later head that still regresses updates the one record ($(sql "SELECT count(*) || ' ' || min(commit) || ' ' || min(last_head) || ' ' || min(state) FROM regressions") C=$C C2=$C2)"
# A tree's finding is triaged by a triage or admin token, not a
# submitter's (docs/reports.md, "Triage").
RID=$(sql "SELECT id FROM regressions")
printf '{"command": "ack"}' >"$T/ack.json"
s1=$(api POST "$U/api/regressions/$RID/triage" "$SUB" "$T/ack.json")
e1=$(cat "$T/body")
s2=$(api POST "$U/api/regressions/$RID/triage" "$(token triage jack)" "$T/ack.json")
check $([ "$s1" = 403 ] && echo "$e1" | grep -q "found in tree linux: only a triage or admin token may change it" &&
	[ "$s2" = 200 ] && [ "$(sql "SELECT triage FROM regressions")" = acknowledged ]; echo $?) \
	"a tree's finding: a triage token acknowledges it, a submit token may not ($s1 $s2)"
G=$(commit dev-x "Revert \"mm: write back more eagerly\"")
wait_for 90 pair_is "$A" "$G" "final unchanged"
check $([ "$(sql "SELECT state || ' ' || fixed_by || ' ' || triage FROM regressions")" = "fixed $G recovered" ] &&
	[ "$(sql "SELECT action || ' ' || detail || ' ' || by_name || ' ' || how FROM triage_events ORDER BY id DESC LIMIT 1")" = "recovered $G robotd robotd" ]; echo $?) \
	"a later head back at the base's level marks it fixed, its triage recovered ($(sql "SELECT state || ' ' || coalesce(fixed_by, '-') || ' ' || triage FROM regressions"))"

# 5. A force-push cancels the dropped head's queued runs.
touch "$T/stop-s2"
wait $SIMBOX_s2 2>/dev/null
D=$(commit dev-y "block: a change that will be dropped")
wait_for 30 sql_is 3 "SELECT count(*) FROM jobs WHERE commit = '$D' AND state = 'queued'"
check $? "a new branch's head is queued"
git -C "$R" checkout -q main
git -C "$R" branch -q -f dev-y "$A"
E=$(commit dev-y "block: the change done right")
wait_for 30 head_is linux dev-y "$E"
check $([ "$(sql "SELECT count(*) FROM jobs WHERE commit = '$D' AND state = 'cancelled' AND error LIKE 'dev-y was force-pushed%'")" = 3 ] &&
	[ "$(sql "SELECT count(*) FROM jobs WHERE commit = '$A' AND state = 'cancelled' AND error LIKE 'dev-y was force-pushed%'")" = 3 ] &&
	pair_is "$A" "$D" "final cancelled" &&
	[ "$(sql "SELECT count(*) FROM jobs WHERE commit = '$E' AND state = 'queued'")" = 3 ]; echo $?) \
	"the force-push cancels the dropped head's runs (and the base's in its rounds) and queues the new head's"

# 6. robot jobs cancel, by series, for people.
robot jobs cancel --series "$SERIES" >"$T/cancel.out" 2>&1
rc=$?
ROBOT_SERVER=$U "$ROBOT" jobs cancel --series "$SERIES" --token nope_nope_nope >"$T/cancel2.out" 2>&1
rc2=$?
echo '{"series": "x", "job": 1}' >"$T/two.json"
s=$(api POST "$U/api/jobs/cancel" "$SUB" "$T/two.json")
check $([ $rc = 0 ] && grep -q "cancelled 6 queued runs" "$T/cancel.out" && [ $rc2 = 1 ] && [ "$s" = 400 ] &&
	[ "$(sql "SELECT count(*) FROM jobs WHERE state = 'queued'")" = 0 ]; echo $?) \
	"robot jobs cancel --series cancels what is queued ($rc $rc2 $s)"

# 7. set and show; robot tree's help.
robot tree set linux --poll 60 --runs 4 >"$T/set.out" 2>&1
rc=$?
robot tree show linux >"$T/show.out" 2>&1
robot tree set ghost --poll 60 >"$T/set2.out" 2>&1
rc2=$?
robot tree set linux --max-runs 2 >"$T/set3.out" 2>&1
rc3=$?
check $([ $rc = 0 ] && grep -q "4 runs a side (at most 6), poll every 60 s" "$T/show.out" &&
	[ $rc2 = 1 ] && grep -q "no tree ghost" "$T/set2.out" && [ $rc3 = 1 ]; echo $?) \
	"robot tree set changes a tree, refuses an unknown one ($rc $rc2 $rc3)"
robot tree set linux --poll 5 >/dev/null 2>&1
"$ROBOT" tree --help >"$T/help.out" 2>&1
rc=$?
"$ROBOT" tree frob x >"$T/frob.out" 2>&1
rc2=$?
check $([ $rc = 0 ] && grep -q "robot tree add NAME" "$T/help.out" && [ $rc2 = 2 ] &&
	grep -q "robot tree has no 'frob'" "$T/frob.out"; echo $?) "robot tree's help and an unknown verb"

# 8. robot box reset, with an admin token.
robot box reset s1 >"$T/reset.out" 2>&1
rc=$?
ROBOT_SERVER=$U ROBOT_TOKEN=$SUB "$ROBOT" box reset s1 >"$T/reset2.out" 2>&1
rc2=$?
check $([ $rc = 0 ] && [ $rc2 = 1 ] && grep -q "admin token" "$T/reset2.out"; echo $?) "robot box reset ($rc $rc2)"

# 9. A robotd restarted finds its mirrors and goes on.
touch "$T/state/trees/linux.git/kept"
stop "$PID_d"
start_robotd d --config "$T/robotd.yaml"
U=$URL_d
F=$(commit main "fs: another innocent change")
wait_for 30 head_is linux main "$F"
check $? "after a restart the mirror is fetched again and the new head found"
check $([ -e "$T/state/trees/linux.git/kept" ]; echo $?) "the mirror is kept across restarts"
# 10. A head whose base already has more runs (another head's pair asked
# for them) still gets its own side's runs up to the cap (or the
# promising look's 9, when its p at the cap is near the line).  It may
# stop before the cap only when the cap could not decide: too noisy to
# show it unchanged, or, its noise known from the series' history, a
# change below the least one its cap could find (decide.h,
# DECIDE_FUTILE_Z; which of the two depends on the rounds the simulated
# box happens to run).
R2="$T/repo2"
git init -q -b main "$R2"
R_SAVE=$R
R=$R2
A2=$(commit main "init")
git -C "$R" tag v1.0
touch "$T/stop-s3" 2>/dev/null
robot tree add noisy --url "$R" --branch main --branch 'dev*' --job "$T/dd.yaml" --tbox-group lab \
	--runs 3 --max-runs 6 --poll 5 >/dev/null 2>&1
wait_for 30 head_is noisy main "$A2"
B2=$(commit main "sched: a change within the noise")
simbox s3 "$B2=-4" --noise=8 --seed=5
wait_for 90 sql_is final "SELECT state FROM pairs WHERE head = '$B2'"
nA=$(sql "SELECT count(*) FROM jobs WHERE commit = '$A2'")
touch "$T/stop-s3"
wait $SIMBOX_s3 2>/dev/null
C3=$(commit dev-z "sched: another change within the noise")
simbox s4 "$B2=-4" "$C3=-4" --noise=8 --seed=6
wait_for 90 sql_is final "SELECT state FROM pairs WHERE head = '$C3'"
v=$(sql "SELECT verdict || ' ' || (SELECT m->>'reason' FROM json_array_elements(comparison->'metrics') m
	WHERE m->>'metric' = 'dd.write_bytes_per_sec') FROM pairs WHERE head = '$C3'")
nC=$(sql "SELECT count(*) FROM jobs WHERE commit = '$C3'")
nA2=$(sql "SELECT count(*) FROM jobs WHERE commit = '$A2'")
check $([ "$nA2" -ge $((nA + nC)) ] && [ "$(sql "SELECT count(*) FROM robot_pair_rounds((SELECT series FROM pairs WHERE head = '$C3'), '$A2', '$C3')")" = "$nC" ] &&
	case "$v" in "inconclusive too noisy to show it unchanged" | "inconclusive below the least change its cap could find") true ;; inconclusive*) [ "$nC" = 6 ] || [ "$nC" = 9 ] ;; *) true ;; esac; echo $?) \
	"a later head is measured in rounds of its own with the base, though the base has runs; inconclusive only at the cap or when the cap could not show it unchanged ($nA then $nA2 at the base, $nC at the head, $v)"
R=$R_SAVE

# 11. Commits are resolved at submit to full SHAs: a tag, a prefix and a
# branch in the tree's mirror, and a job file's tree:; an unknown or an
# ambiguous name is refused with the reason; without a tree only a full
# SHA is taken.  2000 commits on a side branch, so that two commits share
# a 4-digit prefix.
/usr/bin/python3 -c "
import sys
w = sys.stdout.write
for i in range(2000):
    msg = 'many %d\\n' % i
    w('commit refs/heads/many\\ncommitter A <a@example.org> %d +0000\\n' % (1700000000 + i))
    w('data %d\\n%s' % (len(msg), msg))
    if i == 0:
        w('from $A\\n')
    w('\\n')
" | git -C "$R" fast-import --quiet
AMB=$(git -C "$R" rev-list many | cut -c1-4 | sort | uniq -d | head -1)
wait_for 30 git -C "$T/state/trees/linux.git" rev-parse -q --verify refs/heads/many >/dev/null
CP=$(echo "$C" | cut -c1-7)
robot submit --tree linux --commit v1.0 --commit "$CP" --commit dev-x --tbox-group elsewhere --repeat 1 \
	"$T/dd.yaml" >"$T/resolve.out" 2>&1
rc=$?
check $([ $rc = 0 ] && grep -q "^v1.0 is $A" "$T/resolve.out" && grep -q "^$CP is $C" "$T/resolve.out" &&
	grep -q "^dev-x is $G" "$T/resolve.out" &&
	[ "$(sql "SELECT string_agg(commit || ' ' || tree, ',' ORDER BY id) FROM jobs WHERE tbox_group = 'elsewhere'")" = "$A linux,$C linux,$G linux" ]; echo $?) \
	"a tag, a prefix and a branch are stored as their full SHAs ($rc $(cat "$T/resolve.out" | head -3 | tr '\n' ' '))"
s=$(api POST "$U/api/jobs?tree=linux&tbox_group=elsewhere&commit=v9.9&commit=$AMB&commit=$A" "$SUB" "$T/dd.yaml")
check $([ "$s" = 400 ] && py "
d = j['details']
assert len(d) == 2, d
assert \"no commit 'v9.9' in tree linux\" in d, d
assert \"commit '$AMB' is ambiguous in tree linux: give more of its SHA\" in d, d"; echo $?) \
	"an unknown name and an ambiguous prefix: 400 with both reasons ($s, prefix $AMB)"
s1=$(api POST "$U/api/jobs?tbox_group=elsewhere&commit=$CP" "$SUB" "$T/dd.yaml")
grep -q "is not a full 40-hex SHA: name its tree" "$T/body"
n1=$?
s2=$(api POST "$U/api/jobs?tree=ghost&tbox_group=elsewhere&commit=v1.0" "$SUB" "$T/dd.yaml")
grep -q "no tree named 'ghost'" "$T/body"
n2=$?
s3=$(api POST "$U/api/jobs?tbox_group=elsewhere&repeat=1&commit=$(echo "$B" | tr a-f A-F)" "$SUB" "$T/dd.yaml")
check $([ "$s1" = 400 ] && [ $n1 = 0 ] && [ "$s2" = 400 ] && [ $n2 = 0 ] && [ "$s3" = 201 ] &&
	[ "$(sql "SELECT count(*) || ' ' || count(*) FILTER (WHERE commit = '$B' AND tree IS NULL) FROM jobs WHERE tbox_group = 'elsewhere'")" = "4 1" ]; echo $?) \
	"without a tree only a full SHA is taken, stored in lowercase; an unknown tree is named ($s1 $s2 $s3)"
{ cat "$T/dd.yaml"; printf 'tree: linux\ncommit: v1.0\n'; } >"$T/dd-tree.yaml"
s=$(api POST "$U/api/jobs?tbox_group=elsewhere&repeat=1" "$SUB" "$T/dd-tree.yaml")
check $([ "$s" = 201 ] && py "
assert j['jobs'][0]['commit'] == '$A', j
assert j['resolved'] == {'v1.0': '$A'}, j"; echo $?) "a job file's tree: and commit: are resolved too ($s)"
robot tree add fresh --url "$T/no-such-repo-either" --job "$T/dd.yaml" --poll 600 >/dev/null 2>&1
s=$(api POST "$U/api/jobs?tree=fresh&tbox_group=elsewhere&commit=v1.0" "$SUB" "$T/dd.yaml")
check $([ "$s" = 409 ] && grep -q "tree fresh has not been fetched yet" "$T/body" &&
	[ "$(sql "SELECT count(*) FROM jobs WHERE tbox_group = 'elsewhere'")" = 5 ]; echo $?) \
	"a tree not fetched yet: 409, and no refused submit queued anything ($s)"

sanitizer_clean
exit $((failed > 0))
