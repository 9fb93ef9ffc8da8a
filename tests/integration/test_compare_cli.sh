#!/bin/sh
# test_compare_cli.sh ROBOT: "robot compare" end to end on result
# documents written here.  TAP output.
set -u
ROBOT=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

. "$(dirname "$0")/tap.sh"

# doc DIR NAME COMMIT STATUS FILES_PER_SEC CS [KEY]
doc() {
	key=${7:-fsmark/1LOOP_1G-4K-xfs-1x-1t-fsyncBeforeClose-40M}
	if [ "$4" = ok ]; then
		stats="{\"fsmark.files_per_sec\": $5, \"fsmark.time.voluntary_context_switches\": $6, \"vmstat.system.cs\": 5000}"
		err=null
	else
		stats=null
		err='"mkfs.xfs failed"'
	fi
	mkdir -p "$1"
	printf '{"version": 1, "job": {"suite": "fsmark", "fsmark": {"filesize": "4K"}}, "key": "%s", "tbox_group": "lab-xfs", "box": "lab-xfs-1", "tree": "demo", "commit": "%s", "started": "2026-11-30T10:00:00Z", "finished": "2026-11-30T10:01:00Z", "status": "%s", "error": %s, "stats": %s, "series": {}, "outputs": {}}\n' \
		"$key" "$3" "$4" "$err" "$stats" >"$1/$2.json"
}

B=1111111111111111111111111111111111111111
H=2222222222222222222222222222222222222222
doc "$T/base" 1 $B ok 8300 25000
doc "$T/base" 2 $B ok 8320 25100
doc "$T/base" 3 $B ok 8310 24900
doc "$T/base" 4 $B ok 8290 25050
doc "$T/base" 5 $B ok 8305 24950
doc "$T/head" 1 $H ok 7800 25000
doc "$T/head" 2 $H ok 7820 25100
doc "$T/head" 3 $H ok 7790 24900
doc "$T/head" 4 $H ok 7810 25050
doc "$T/head" 5 $H ok 7805 24950
doc "$T/head" 6 $H failed

# 1. The table, as LKP prints it.
"$ROBOT" compare --base "$T/base" --head "$T/head" >"$T/out" 2>"$T/err"
check $? "compare exits 0"
grep -q "^1111111111111111 222222222222222222222222222 $" "$T/out"
check $? "commit header"
grep -q '^         %stddev     %change         %stddev$' "$T/out"
check $? "column titles"
grep -q '^      8305            -6.0%       7805        fsmark.files_per_sec$' "$T/out"
check $? "the regressed KPI's row"
! grep -q 'vmstat.system.cs' "$T/out"
check $? "unchanged metrics left out by default"
grep -q "left out 0 failed\|left out 1 failed and 0 incomplete head runs" "$T/err"
check $? "failed run counted on stderr"
# The verdict first: a block of the KPIs above the table.
/usr/bin/python3 - "$T/out" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
k = lines.index("KPIs (the robust method):")
row = lines[k + 1].split()
assert row[:3] == ["fsmark.files_per_sec", "regression", "-6.0%"], row
assert row[3].startswith("p=") and row[4:6] == ["5+5", "runs"], row
t = [i for i, l in enumerate(lines) if l.startswith("1111111111111111 ")][0]
assert k < t, (k, t)
PY
check $? "a verdict block above the table: the KPI, its verdict, change, p and runs a side"
"$ROBOT" compare --kpi-only --base "$T/base" --head "$T/head" >"$T/kpi" 2>/dev/null
check $(grep -q 'fsmark.time.voluntary_context_switches\|fsmark.files_per_sec$' "$T/kpi" &&
	! grep -q 'vmstat\.' "$T/kpi" && "$ROBOT" compare --all --kpi-only --base "$T/base" --head "$T/head" 2>/dev/null |
	grep -q 'fsmark.time.voluntary_context_switches$' &&
	! "$ROBOT" compare --all --kpi-only --base "$T/base" --head "$T/head" 2>/dev/null | grep -q 'vmstat.system.cs'; echo $?) \
	"--kpi-only keeps the workload's own rows, no monitors"

# Runs a box labelled without provisioning them: compare says so.
mkdir -p "$T/bare"
sed 's/"outputs": {}/"outputs": {}, "provision": {"kernel": "6.18", "hook": null, "note": "no provisioning hook"}/' \
	"$T/head/1.json" >"$T/bare/1.json"
"$ROBOT" compare --base "$T/base" --head "$T/bare" >/dev/null 2>"$T/err"
check $(grep -q "1 of the 1 head runs (2222222222222222222222222222222222222222) were not provisioned for their commit" "$T/err" &&
	! "$ROBOT" compare --base "$T/base" --head "$T/head" 2>&1 | grep -q "not provisioned"; echo $?) \
	"compare warns when a side's runs were not provisioned for their commit"

# The commit lines carry the subjects the provisioning hook told.
mkdir -p "$T/subj"
for i in 1 2 3; do
	sed 's/"outputs": {}/"outputs": {}, "provision": {"hook": "\/x", "subject": "mm: cap dirty memory"}/' \
		"$T/head/$i.json" >"$T/subj/$i.json"
done
"$ROBOT" compare --base "$T/base" --head "$T/subj" >"$T/out2" 2>/dev/null
check $(grep -q '^  2222222222 ("mm: cap dirty memory") (head)$' "$T/out2" && grep -q '^  1111111111 (base)$' "$T/out2"; echo $?) \
	"the commit lines carry the commits' subjects where the runs know them"

# A monitor that only follows a tunable the commit set is noted so.
mkdir -p "$T/tb" "$T/th"
for i in 1 2 3; do
	sed 's/"vmstat.system.cs": 5000/"vmstat.system.cs": 5000, "proc-vmstat.nr_dirty_threshold": 56100'$i'/' \
		"$T/base/$i.json" >"$T/tb/$i.json"
	sed -e 's/"vmstat.system.cs": 5000/"vmstat.system.cs": 5000, "proc-vmstat.nr_dirty_threshold": 204'$i'/' \
		-e 's/"outputs": {}/"outputs": {}, "provision": {"hook": "\/x", "tunable vm.dirty_bytes": "8388608"}/' \
		"$T/head/$i.json" >"$T/th/$i.json"
done
"$ROBOT" compare --base "$T/tb" --head "$T/th" >"$T/out3" 2>/dev/null
check $(grep -q "proc-vmstat.nr_dirty_threshold$" "$T/out3" &&
	grep -q "^note: proc-vmstat.nr_dirty_threshold follow vm.dirty_bytes (base -, head 8388608): the tunable changed, not the code$" "$T/out3"; echo $?) \
	"a monitor that follows a tunable the commit set is noted as the tunable's"

# A short run's warning (too few monitor samples) is shown.
mkdir -p "$T/short"
sed 's/"outputs": {}/"outputs": {}, "warnings": ["a short run: 2 monitor samples"]/' \
	"$T/head/2.json" >"$T/short/2.json"
"$ROBOT" compare --base "$T/base" --head "$T/short" >/dev/null 2>"$T/err"
check $(grep -q "1 of the 1 head runs: a short run: 2 monitor samples" "$T/err"; echo $?) \
	"compare shows a run's warning"

# Runs with perf beside the workload and runs without, in one comparison.
mkdir -p "$T/prof"
for i in 1 2 3; do
	sed 's/"job": {"suite": "fsmark",/"job": {"suite": "fsmark", "perf-profile": {"delay": 1},/' \
		"$T/head/$i.json" >"$T/prof/$i.json"
done
"$ROBOT" compare --base "$T/base" --head "$T/prof" >/dev/null 2>"$T/err"
"$ROBOT" compare --base "$T/prof" --head "$T/prof" >/dev/null 2>"$T/err2"
check $(grep -q "0 of the 5 base runs and 3 of the 3 head runs ran perf (perf-profile or perf-stat) beside the workload" "$T/err" &&
	! grep -q "ran perf" "$T/err2"; echo $?) \
	"compare warns when one side's runs ran perf and the other's not"

# 2. --all, --method lkp, --json.
"$ROBOT" compare --all --base "$T/base" --head "$T/head" 2>/dev/null | grep -q 'vmstat.system.cs$'
check $? "--all shows every metric"
"$ROBOT" compare --method lkp --base "$T/base" --head "$T/head" 2>/dev/null | grep -q 'fsmark.files_per_sec$'
check $? "--method lkp finds it too"
"$ROBOT" compare --json --base "$T/base" --head "$T/head" >"$T/json" 2>/dev/null
check $? "--json exits 0"
if [ -x /usr/bin/python3 ]; then
	/usr/bin/python3 - "$T/json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["comparisons"][0]
assert c["base_commit"] == "1" * 40 and c["head_commit"] == "2" * 40
assert c["head_runs"] == {"ok": 5, "failed": 1, "incomplete": 0}
m = {x["metric"]: x for x in c["metrics"]}
f = m["fsmark.files_per_sec"]
assert f["verdict"] == "regression" and f["direction"] == 1 and f["kpi"]
assert set(f["base"]) == {"n", "mean", "stddev", "min", "max"}
assert f["base"]["n"] == 5 and abs(f["change_pct"] + 6.02) < 0.01
assert 0 <= f["p_value"] < 0.001
assert m["vmstat.system.cs"]["verdict"] == "unchanged" and not m["vmstat.system.cs"]["kpi"]
PY
	check $? "--json content"
fi

# 3. Bad input: clear errors, exit 2.
doc "$T/other" 1 $H ok 7800 25000 "fsmark/2LOOP_1G-4K-ext4"
"$ROBOT" compare --base "$T/base" --head "$T/other" >/dev/null 2>"$T/err"
rc=$?
check $([ $rc = 2 ] && grep -q "only runs of one series can be compared" "$T/err"; echo $?) "different series refused"
mkdir -p "$T/bad"
printf '{"version": 1, "key": "k", "tbox_group": "g", "status": "ok", "stats": {"x": NaN}}' >"$T/bad/nan.json"
"$ROBOT" compare --base "$T/base" --head "$T/bad" >/dev/null 2>"$T/err"
rc=$?
check $([ $rc = 2 ] && grep -q "nan.json:1: malformed JSON" "$T/err"; echo $?) "NaN refused with file and line"
printf '{"version": 1, "key": "k", "tbox_group": "g", "status": "ok", "stats": {"x": "fast"}}' >"$T/bad/nan.json"
"$ROBOT" compare --base "$T/base" --head "$T/bad" >/dev/null 2>"$T/err"
check $(grep -q "stats 'x' is not a finite number" "$T/err"; echo $?) "non-number refused"
mkdir -p "$T/empty"
"$ROBOT" compare --base "$T/base" --head "$T/empty" >/dev/null 2>"$T/err"
check $([ $? = 2 ] && grep -q "no result documents on the head side" "$T/err"; echo $?) "empty side"
mkdir -p "$T/allfail"
doc "$T/allfail" 1 $H failed
"$ROBOT" compare --base "$T/base" --head "$T/allfail" >/dev/null 2>"$T/err"
check $([ $? = 2 ] && grep -q "no complete head runs to compare (1 failed" "$T/err"; echo $?) "only failed runs"
"$ROBOT" compare --base "$T/base" >/dev/null 2>&1
check $([ $? = 2 ]; echo $?) "missing --head"
"$ROBOT" compare --method magic --base "$T/base" --head "$T/head" >/dev/null 2>"$T/err"
check $([ $? = 2 ] && grep -q "unknown method" "$T/err"; echo $?) "unknown method"

# 4. Single runs: inconclusive, never NaN.
doc "$T/b1" 1 $B ok 8300 25000
doc "$T/h1" 1 $H ok 7000 25000
"$ROBOT" compare --json --base "$T/b1" --head "$T/h1" >"$T/json" 2>/dev/null
check $([ $? = 0 ] && ! grep -qi 'nan\|inf' "$T/json" && grep -q '"inconclusive"' "$T/json"; echo $?) "single runs inconclusive, no NaN"

# 5. --history: earlier runs of one commit of the series tell the KPI's
# noise.  Three runs a side, 12% apart with 3% noise, are too few for
# their own noise at the budget (inconclusive); with eight earlier runs
# of one commit (the same 3%), the noise weighed with the history's
# makes them a regression, and the KPI says so.
X=3333333333333333333333333333333333333333
for i in 1 2 3; do
	doc "$T/hb" $i $B ok "$(echo "$i" | awk '{print 1000 * (1 + ($1 - 2) * 0.03)}')" 25000
	doc "$T/hh" $i $H ok "$(echo "$i" | awk '{print 880 * (1 + (2 - $1) * 0.03)}')" 25000
done
for i in 1 2 3 4 5 6 7 8; do
	doc "$T/hist" $i $X ok "$(echo "$i" | awk '{print 1000 * (1 + (($1 % 3) - 1) * 0.035)}')" 25000
done
"$ROBOT" compare --json --base "$T/hb" --head "$T/hh" >"$T/noh.json" 2>/dev/null
"$ROBOT" compare --json --history "$T/hist" --base "$T/hb" --head "$T/hh" >"$T/h.json" 2>"$T/h.err"
rc=$?
/usr/bin/python3 - "$T/noh.json" "$T/h.json" >"$T/py.out" 2>&1 <<'PY'
import json, sys
def kpi(f):
    c = json.load(open(f))["comparisons"][0]
    return [m for m in c["metrics"] if m["metric"] == "fsmark.files_per_sec"][0]
a, b = kpi(sys.argv[1]), kpi(sys.argv[2])
assert a["verdict"] == "inconclusive" and "history" not in a, a
assert b["verdict"] == "regression", b
h = b["history"]
assert h["state"] == "used" and h["prior_df"] > 0 and h["own_df"] == 4, h
assert h["note"].startswith("its noise weighed with its history's"), h
PY
check $([ $rc = 0 ] && [ ! -s "$T/py.out" ]; echo $?) "--history: the KPI's noise weighed with earlier runs' makes 3+3 runs a regression"
sed 's/^/# /' "$T/py.out"
"$ROBOT" compare --history "$T/hist" --base "$T/hb" --head "$T/hh" >"$T/out" 2>&1
check $(grep -q "(its noise weighed with its history's" "$T/out"; echo $?) "and the KPI block says so"
# A history of other series, or of one run a commit: a warning, the
# pair's own noise.
"$ROBOT" compare --history "$T/hist/1.json" --base "$T/hb" --head "$T/hh" >"$T/out" 2>"$T/err"
check $([ $? = 0 ] && grep -q "holds no two ok runs of one commit of this series" "$T/err" &&
	! grep -q "weighed with its history" "$T/out"; echo $?) "--history of one run: said, and the pair's own noise"
"$ROBOT" compare --history "$T/nothere" --base "$T/hb" --head "$T/hh" >/dev/null 2>"$T/err"
check $([ $? = 2 ] && grep -q "nothere" "$T/err"; echo $?) "--history of a path that is not there: an error"
printf '{"version": 1, "key": ' >"$T/broken.json"
"$ROBOT" compare --history "$T/broken.json" --base "$T/hb" --head "$T/hh" >/dev/null 2>"$T/err"
check $([ $? = 2 ] && grep -q "broken.json" "$T/err"; echo $?) "--history of a malformed document: its error, nothing compared"
"$ROBOT" compare --history "$T/hist" --series x/y --base a --head b >/dev/null 2>"$T/err"
check $([ $? = 2 ] && grep -q "history is for result files" "$T/err"; echo $?) "--history with --series: refused"

echo "1..$n"
[ $failed = 0 ]
