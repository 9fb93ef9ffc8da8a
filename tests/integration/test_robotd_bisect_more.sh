#!/bin/sh
# test_robotd_bisect_more.sh ROBOTD ROBOT_BOX ROBOT SOURCE_DIR: more of
# what robotd bisects (test_robotd_bisect.sh has the linear history, the
# kill and the requests; split so that the two run side by side):
# a regression that comes in through a merged branch, a midpoint that
# cannot be provisioned (skipped), a bisection that fails and is reported
# as a range, and a range of 100,000 commits.  Simulated boxes (simbox.py)
# with a chosen shift per commit.  TAP.
set -u
ROBOTD=$1 BOX=$2 ROBOT=$3 SRC=$4
. "$SRC/tests/integration/robotd_lib.sh"
. "$SRC/tests/integration/bisect_lib.sh"
echo "1..5"

# 4. A regression that comes in through a merged branch: the first bad
# commit is on the branch.
repo mer
git -C "$T/mer" checkout -q -b side
commits mer 4 "side" side.c >"$T/side.shas"
git -C "$T/mer" checkout -q main
commits mer 4 "main" >"$T/main.shas"
git -C "$T/mer" merge -q --no-edit side
git -C "$T/mer" log -1 --format=%P | grep -q ' ' || diag "no merge commit"
MHEAD=$(git -C "$T/mer" rev-parse HEAD)
SBAD=$(sed -n 3p "$T/side.shas")
mshifts="$(sed -n '3,$p' "$T/side.shas" | sed 's/$/=-10/' | tr '\n' ' ') $MHEAD=-10"
# shellcheck disable=SC2086
simbox s2 $mshifts --noise=1 --seed=2
watch mer 6
wait_for 60 sql_some "SELECT id FROM bisections WHERE tree = 'mer'"
M=$(bisection_of mer)
wait_for 240 ended "$M"
diag "steps: $(steps_of "$M")"
check $([ "$(sql "SELECT state || ' ' || first_bad FROM bisections WHERE id = ${M:-0}")" = "bisected $SBAD" ]; echo $?) \
	"through a merge: the first bad commit is the branch's ($(sql "SELECT state || ' ' || coalesce(first_bad, '-') || ' ' || coalesce(reason, '') FROM bisections WHERE id = ${M:-0}")) SBAD=$SBAD"
simbox_stop s2

# 5. The first midpoint cannot be provisioned: skipped, as git bisect
# skip, and the first bad commit is found all the same.
repo skp
commits skp 8 "skp" >"$T/skp.shas"
SKHEAD=$(tail -1 "$T/skp.shas")
MID1=$(git -C "$T/skp" rev-list --bisect "$SKHEAD" --not v1.0)
KBAD=$(sed -n 6p "$T/skp.shas")
[ "$MID1" != "$KBAD" ] || diag "the first midpoint is the bad commit: the test proves nothing"
kshifts="$(sed -n '6,$p' "$T/skp.shas" | sed 's/$/=-10/' | tr '\n' ' ') $MID1=fail"
# shellcheck disable=SC2086
simbox s3 $kshifts --noise=1 --seed=3
watch skp 6
wait_for 60 sql_some "SELECT id FROM bisections WHERE tree = 'skp'"
K=$(bisection_of skp)
wait_for 240 ended "$K"
diag "steps: $(steps_of "$K")"
check $([ "$(sql "SELECT state || ' ' || first_bad FROM bisections WHERE id = ${K:-0}")" = "bisected $KBAD" ] &&
	[ "$(sql "SELECT verdict FROM bisect_steps WHERE bisection = ${K:-0} AND commit = '$MID1'")" = skip ] &&
	sql "SELECT reason FROM bisect_steps WHERE bisection = ${K:-0} AND commit = '$MID1'" | grep -q "cannot provision"; echo $?) \
	"a midpoint that cannot be provisioned is skipped, and the commit found ($(sql "SELECT state || ' ' || coalesce(first_bad, '-') FROM bisections WHERE id = ${K:-0}"); $(sql "SELECT verdict || ': ' || reason FROM bisect_steps WHERE bisection = ${K:-0} AND commit = '$MID1'"))"
simbox_stop s3

# 11. A bisection that fails (its one midpoint cannot be provisioned:
# every commit left is skipped): the report is about the range, says
# why, and names no commit at fault.
repo sk2
commits sk2 2 "sk2" >"$T/sk2.shas"
simbox s7 "$(sed -n 1p "$T/sk2.shas")=fail" "$(sed -n 2p "$T/sk2.shas")=-10" --noise=1 --seed=7
watch sk2 6
wait_for 120 mail_about sk2
check $(about sk2 "
assert len(m) == 1, [x['Subject'] for x in m]
s, body = m[0]['Subject'], text(m[0])
assert ' (2 commits): dd.write_bytes_per_sec -' in s and '[sk2]' not in s, s
assert 'The bisection could not name the commit at fault: ' in body, body[:900]
assert 'Reported-by' not in body and to[0] == ['maint@robot.test'], to
"; echo $?) "a bisection that fails: a range report that says why ($(sql "SELECT state || ': ' || coalesce(reason, '') FROM bisections WHERE tree = 'sk2'"))"
simbox_stop s7

# 12. A range of 100,000 commits: git's listing of them (about 9.5 MB)
# is over robotd's 8 MiB cap, so the step takes git's own best midpoint
# (it failed with no reason, every 30 s, for ever).  fast-import's heap
# grows with a larger pad: glibc's default made it call brk 80,000
# times for 20,000 commits, 16 s of CPU (10 s in the kernel) for the
# 100,000 instead of 2.
repo big
/usr/bin/python3 -c "
import sys
w = sys.stdout.write
w('reset refs/heads/main\nfrom refs/heads/main^0\n')
for i in range(1, 100001):
    w('commit refs/heads/main\nmark :%d\ncommitter A Developer <dev@example.org> %d +0000\ndata %d\nbig %d\n' % (i, 1700000000 + i, len('big %d' % i), i))
    w('from :%d\n' % (i - 1) if i > 1 else 'from refs/heads/main^0\n')
    w('M 100644 inline file\ndata %d\n%d\n\n' % (len(str(i)), i))
" | GLIBC_TUNABLES=glibc.malloc.top_pad=67108864 git -C "$T/big" fast-import --quiet --force
BHEAD=$(git -C "$T/big" rev-parse main)
simbox s12 "$BHEAD=-10" --noise=1 --seed=12
watch big 6
wait_for 120 grep -q "next (100000 commits left)" "$T/d.log"
G=$(bisection_of big)
check $([ -n "$G" ] && grep -q "bisection $G: over 8 MiB of commits left: git's midpoint" "$T/d.log" &&
	grep -q "bisection $G: testing [0-9a-f]* next (100000 commits left)" "$T/d.log"; echo $?) \
	"a range of 100,000 commits is bisected from git's own midpoint ($(grep -o "bisection ${G:-0}: testing.*" "$T/d.log" | head -1))"
AS=$ADMIN robot bisect --cancel "${G:-0}" >/dev/null 2>&1
simbox_stop s12

sanitizer_clean
exit $((failed > 0))
