#!/bin/sh
# test_robotd_changes.sh ROBOTD ROBOT_BOX ROBOT SOURCE_DIR: change points
# over a branch's history (robot/analysis/changes.c in robotd), on
# simulated boxes with a chosen truth: a creep of five 1% steps, one a
# head, that no pair calls a regression (each head's pair measures it
# against the head before, 1% under the 2% floor), is found in the
# history, recorded as a regression found by a change point at a commit
# of the creep, reported by mail, and shown by the pages and the API; a
# branch without a change records none; and a regression that comes in
# through the branch's base (a merge of upstream, measured against it,
# so that no pair sees it) is found in the history at the merge and
# bisected into the merged commits, to the one at fault.  TAP.
set -u
ROBOTD=$1 BOX=$2 ROBOT=$3 SRC=$4
. "$SRC/tests/integration/robotd_lib.sh"
. "$SRC/tests/integration/bisect_lib.sh"
PY=/usr/bin/python3
echo "1..10"

# push REPO PREFIX I: one commit on main (its date I minutes past noon),
# and the branch "base" moved to the commit before it (the head's base
# is then the previous head); its SHA on stdout.
push() {
	git -C "$T/$1" branch -f base HEAD
	echo "$2 $3" >>"$T/$1/file"
	git -C "$T/$1" add file
	d=$(printf '2026-11-21T12:%02d:00Z' "$3")
	GIT_AUTHOR_DATE=$d GIT_COMMITTER_DATE=$d GIT_AUTHOR_EMAIL="$2$3@example.org" \
		git -C "$T/$1" commit -q -m "$2: change $3"
	git -C "$T/$1" rev-parse HEAD
}
# final REPO SHA: the pair of SHA's head is final.
final() {
	[ "$(sql "SELECT count(*) FROM pairs WHERE tree = '$1' AND head = '$2' AND state = 'final'")" -ge 1 ]
}
# grow REPO PREFIX N: N heads, one at a time, each measured before the
# next; the SHAs, oldest first, in $T/REPO.shas.
grow() {
	for i in $(seq 1 "$3"); do
		sha=$(push "$1" "$2" "$i")
		echo "$sha" >>"$T/$1.shas"
		fetch_now "$1"
		wait_for 120 final "$1" "$sha" || { echo "# $1: the pair of head $i never ended"; return 1; }
	done
}

# The creep: heads 1 to 12; from head 4 on the KPI is 1% lower at each of
# five heads (-1% at 4, ..., -5% from 8 on).  0.3% noise.  The commits
# are made first on a branch of their own, to know their SHAs for the
# simulated box; main then takes them one at a time.
repo creep
git -C "$T/creep" branch base
git -C "$T/creep" checkout -q -b scratch
for i in $(seq 1 12); do
	# A minute apart: the history page orders commits by their dates.
	d=$(printf '2026-11-20T12:%02d:00Z' "$i")
	echo "creep $i" >>"$T/creep/file"
	git -C "$T/creep" add file
	GIT_AUTHOR_DATE=$d GIT_COMMITTER_DATE=$d git -C "$T/creep" commit -q -m "creep: change $i"
	git -C "$T/creep" rev-parse HEAD
done >"$T/creep.planned"
git -C "$T/creep" checkout -q main
: >"$T/creep.shas"
shifts=""
i=0
while read -r sha; do
	i=$((i + 1))
	s=$((i >= 8 ? 5 : (i >= 4 ? i - 3 : 0)))
	[ "$s" -gt 0 ] && shifts="$shifts $sha=-$s"
done <"$T/creep.planned"
# shellcheck disable=SC2086
simbox s1 $shifts --noise=0.3 --seed=1
AS=$ADMIN robot tree add creep --url "$T/creep" --branch main --base base \
	--job "$T/dd.yaml" --tbox-group lab --runs 3 --max-runs 6 --poll 300 \
	--mail-author yes >/dev/null
i=0
ok=0
while read -r sha; do
	i=$((i + 1))
	git -C "$T/creep" branch -f base main
	git -C "$T/creep" merge -q --ff-only "$sha"
	echo "$sha" >>"$T/creep.shas"
	fetch_now creep
	wait_for 120 final creep "$sha" || { echo "# creep: the pair of head $i never ended"; ok=1; break; }
done <"$T/creep.planned"
check $ok "twelve heads, each measured against the one before ($(wc -l <"$T/creep.shas") heads)"

# 1. No pair calls it: every pair of the branch is unchanged (or at most
# inconclusive), and no regression is a pair's.
check $([ "$(sql "SELECT count(*) FROM regressions WHERE tree = 'creep' AND found_by = 'pair'")" = 0 ] &&
	[ "$(sql "SELECT count(*) FROM pairs WHERE tree = 'creep' AND verdict = 'regression'")" = 0 ]; echo $?) \
	"no pair calls the creep a regression ($(sql "SELECT string_agg(coalesce(verdict, state), ' ' ORDER BY id) FROM pairs WHERE tree = 'creep' AND bisection IS NULL"))"

# 2. The history does: a regression found by a change point, at a commit
# of the creep (heads 4 to 8), of about the creep's size.
CREEP=$(sed -n '4,8p' "$T/creep.shas" | tr '\n' ' ')
cp_row() { sql "SELECT id, commit, round(change_pct::numeric, 1), state, coalesce(culprit, '-') FROM regressions
	WHERE tree = 'creep' AND found_by = 'change point' AND state <> 'invalid' ORDER BY id"; }
recorded() { [ -n "$(cp_row)" ]; }
wait_for 30 recorded
row=$(cp_row | head -1)
RID=$(echo "$row" | cut -d'|' -f1)
check $($PY - "$row" "$CREEP" "$(cp_row | wc -l)" <<'PY'; echo $?
import sys
row, creep, n = sys.argv[1], sys.argv[2].split(), int(sys.argv[3])
rid, commit, change, state, culprit = row.split("|")
assert n in (1, 2), n
assert commit in creep, (commit, creep)
assert -6 < float(change) <= -2, change
assert culprit == commit, (culprit, commit)   # its base is the head before
PY
) "the history finds it: a regression by change point at a commit of the creep ($row; creep: $CREEP)"

# 3. Reported: a mail names the commit and says it is a change point of
# the branch's history, with the segments' means.
mail_creep() { mail_about creep; }
wait_for 60 mail_creep
check $(about creep "
assert len(m) >= 1, [x['Subject'] for x in m]
body = text(m[0])
assert \"a change point of the branch's history\" in body, body[:1500]
assert ' MB/s over ' in body and ' commits -> ' in body, body[:1500]
assert \"(A change point of a branch's history: where\" in body, body[:2500]
assert m[0]['Subject'].startswith('[robot] [creep:main] [creep] '), m[0]['Subject']
"; echo $?) "reported by mail: the change point of the branch's history, with its segments"

# 4. The API and the pages: the record says how it was found, the list
# filters by it, the regression page shows the segments, the history
# page marks the change point.
curl -s "$U/api/regressions/$RID" >"$T/reg.json"
curl -s "$U/api/regressions?kind=change%20point" >"$T/list.json"
curl -s "$U/regressions/$RID" >"$T/reg.html"
curl -s "$U/series/$(echo "$SERIES" | sed 's|/|%2F|g')/history?metric=dd.write_bytes_per_sec" >"$T/hist.html"
curl -s "$U/api/series/$(echo "$SERIES" | sed 's|/|%2F|g')/changes?metric=dd.write_bytes_per_sec" >"$T/changes.json"
check $($PY - "$T" "$RID" "$CREEP" <<'PY'; echo $?
import json, sys
t, rid = sys.argv[1], int(sys.argv[2])
r = json.load(open(t + "/reg.json"))
assert r["found_by"] == "change point" and r["kind"] == "regression", r
h = r["history"]
assert h["after"]["mean"] < h["before"]["mean"] and h["points"] >= 12, h
l = json.load(open(t + "/list.json"))["regressions"]
assert [x["id"] for x in l] == [rid] or rid in [x["id"] for x in l], l
assert all(x["found_by"] == "change point" for x in l), l
page = open(t + "/reg.html").read()
assert "a change point of the branch&#39;s history" in page or "a change point of the branch's history" in page, page[:2000]
# The history as the pages show it (every commit of the series, by
# date) has its change point in the creep too: a ramp's change point
# may move along it as heads come; a record reported stays where it was
# reported (its figures follow).
creep = sys.argv[3].split()
c = json.load(open(t + "/changes.json"))
at = [x["commit"] for x in c["changes"] if x["commit"] in creep]
assert len(at) >= 1 and all(x["change_pct"] < 0 for x in c["changes"]), (c, creep)
hist = open(t + "/hist.html").read()
assert "change point at " + at[0][:12] in hist
PY
) "the API, the regression page and the history page show it"

# 5. A branch without a change: twelve heads at one level, no change
# point recorded.
simbox_stop s1
repo flat
git -C "$T/flat" branch base
simbox s2 --noise=0.3 --seed=2
AS=$ADMIN robot tree add flat --url "$T/flat" --branch main --base base \
	--job "$T/dd.yaml" --tbox-group lab --runs 3 --max-runs 6 --poll 300 >/dev/null
grow flat flat 12
rc=$?
check $([ $rc = 0 ] && [ "$(sql "SELECT count(*) FROM regressions WHERE tree = 'flat'")" = 0 ]; echo $?) \
	"a branch whose twelve heads stay level records nothing ($(sql "SELECT count(*) FROM regressions WHERE tree = 'flat'") records)"
simbox_stop s2

# 6. Through the base: main has h1 and h2 on the base (init); upstream
# (the branch "base") gets m1 to m4, of which m3 is 10% slower; main
# merges it (h3, first parent h2) and goes on (h4).  h3's and h4's pairs
# measure them against m4, as slow as they are: no pair sees it.  The
# history along main's first parent (init, h1, h2, h3, h4) does, at h3;
# its record's base is h2, and the range (h2, h3] holds m1 to m4: the
# bisection finds m3.
repo merge
git -C "$T/merge" branch base
# at REPO DATE BRANCH MESSAGE: a commit on BRANCH, at minute DATE; its SHA.
at() {
	git -C "$T/$1" checkout -q "$3"
	d=$(printf '2026-11-22T12:%02d:00Z' "$2")
	echo "$4" >>"$T/$1/$3.txt"
	git -C "$T/$1" add "$3.txt"
	GIT_AUTHOR_DATE=$d GIT_COMMITTER_DATE=$d GIT_AUTHOR_EMAIL="$3$2@example.org" \
		git -C "$T/$1" commit -q -m "$4"
	git -C "$T/$1" rev-parse HEAD
}
git -C "$T/merge" branch work
git -C "$T/merge" branch up
H1=$(at merge 1 work "fs: one")
H2=$(at merge 2 work "fs: two")
M1=$(at merge 3 up "mm: one")
M2=$(at merge 4 up "mm: two")
M3=$(at merge 5 up "mm: slow writeback")
M4=$(at merge 6 up "mm: four")
git -C "$T/merge" checkout -q work
GIT_AUTHOR_DATE=2026-11-22T12:07:00Z GIT_COMMITTER_DATE=2026-11-22T12:07:00Z \
	git -C "$T/merge" merge -q --no-ff -m "Merge branch 'up'" up
H3=$(git -C "$T/merge" rev-parse HEAD)
H4=$(at merge 8 work "fs: four")
git -C "$T/merge" checkout -q main
simbox s3 "$M3=-10" "$M4=-10" "$H3=-10" "$H4=-10" --noise=0.3 --seed=3
# (5 runs a pair: the history has five points, and with 3 runs each the
# change point's permutation p sat at alpha itself, 0.001, one run in
# CI just above it)
AS=$ADMIN robot tree add merge --url "$T/merge" --branch main --base base \
	--job "$T/dd.yaml" --tbox-group lab --runs 5 --max-runs 10 --poll 300 \
	--mail-author yes >/dev/null
ok=0
for step in "$H1 init" "$H2 init" "$H3 $M4" "$H4 $M4"; do
	head=${step% *} base=${step#* }
	[ "$base" = init ] || git -C "$T/merge" branch -f base "$base"
	git -C "$T/merge" merge -q --ff-only "$head"
	fetch_now merge
	wait_for 120 final merge "$head" || { echo "# merge: the pair of $head never ended"; ok=1; break; }
done
mrow() { sql "SELECT left(commit, 10), left(base, 10), coalesce(left(culprit, 10), '-'), round(change_pct::numeric, 1)
	FROM regressions WHERE tree = 'merge' AND found_by = 'change point' AND state <> 'invalid'"; }
# (the record comes from the scan after the last pair is final, on the
# analysis thread: under ASan on a busy machine it may come later)
mrecorded() { [ -n "$(mrow)" ]; }
wait_for 60 mrecorded || diag "no change-point record yet: $(grep -E 'change point|history' "$T/d.log" | tail -3)"
# (the merge is no culprit of its own: none yet, or m3 when its
# bisection, quick on a quiet machine, has ended already)
check $([ $ok = 0 ] && [ "$(mrow)" != "" ] &&
	case "$(mrow | cut -d'|' -f1,2,3)" in
	"$(echo "$H3" | cut -c1-10)|$(echo "$H2" | cut -c1-10)|-") true ;;
	"$(echo "$H3" | cut -c1-10)|$(echo "$H2" | cut -c1-10)|$(echo "$M3" | cut -c1-10)") true ;;
	*) false ;;
	esac &&
	[ "$(sql "SELECT count(*) FROM regressions WHERE tree = 'merge' AND found_by = 'pair'")" = 0 ]; echo $?) \
	"through the base: no pair sees it; the history finds it at the merge, against the head before ($(mrow); h3 $(echo "$H3" | cut -c1-10), h2 $(echo "$H2" | cut -c1-10))"
mbisected() { [ "$(sql "SELECT state FROM bisections WHERE tree = 'merge' ORDER BY id DESC LIMIT 1")" = bisected ]; }
wait_for 180 mbisected
check $([ "$(sql "SELECT first_bad FROM bisections WHERE tree = 'merge' ORDER BY id DESC LIMIT 1")" = "$M3" ] &&
	[ "$(sql "SELECT bisected_to FROM regressions WHERE tree = 'merge' AND found_by = 'change point'")" = "$M3" ]; echo $?) \
	"bisected between its neighbouring points into the merged commits: m3 is the first bad ($(sql "SELECT state || ' ' || coalesce(left(first_bad, 10), '-') || ' ' || coalesce(reason, '') FROM bisections WHERE tree = 'merge' ORDER BY id DESC LIMIT 1"); m3 $(echo "$M3" | cut -c1-10))"
mail_merge() { mail_about merge; }
wait_for 60 mail_merge
check $(about merge "
assert len(m) == 1, [x['Subject'] for x in m]
assert m[0]['Subject'].startswith('[robot] [merge:main] [mm] $(echo "$M3" | cut -c1-10): dd.write_bytes_per_sec -'), m[0]['Subject']
assert \"a change point of the branch's history\" in text(m[0]), text(m[0])[:1500]
"; echo $?) "reported once bisected: the mail names the first bad commit"
simbox_stop s3
sanitizer_clean
exit $((failed > 0))
