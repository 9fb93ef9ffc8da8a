#!/bin/sh
# test_changes_cli.sh ROBOT: "robot changes" end to end on history files
# written here (a planted step, CSV and JSON, and bad files).  TAP output.
set -u
ROBOT=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

. "$(dirname "$0")/tap.sh"

# A history of 90 commits, 3 runs each, 2% noise, 10% slower from c060
# on (a fixed seed: the truth is known).
/usr/bin/python3 - "$T" <<'PY'
import json, random, sys
random.seed(11)
pts = []
for i in range(90):
    level = 1000 if i < 60 else 900
    pts.append({"commit": "c%03d" % i,
                "values": [round(level * random.lognormvariate(0, 0.02), 3)
                           for _ in range(3)]})
with open(sys.argv[1] + "/h.json", "w") as f:
    json.dump(pts, f, indent=1)
with open(sys.argv[1] + "/h.csv", "w") as f:
    f.write("commit,value\n")
    for p in pts:
        for v in p["values"]:
            f.write("%s,%s\n" % (p["commit"], v))
with open(sys.argv[1] + "/flat.csv", "w") as f:
    for i in range(90):
        f.write("f%03d,%s\n" % (i, round(1000 * random.lognormvariate(0, 0.02), 3)))
PY

# 1. The step, as text.
"$ROBOT" changes "$T/h.csv" >"$T/out" 2>"$T/err"
check $? "changes exits 0"
grep -q '^1 change point in 90 points (270 runs):$' "$T/out"
check $? "says how many change points in how many points"
grep -Eq '^ +60  c060 +-(9|10)\.[0-9]%' "$T/out"
check $? "the change point: index 60, commit c060, about -10%"

# 2. --json, from the JSON file, the same change point.
"$ROBOT" changes --json "$T/h.json" >"$T/json" 2>"$T/err"
check $? "changes --json exits 0"
/usr/bin/python3 - "$T/json" <<'PY'
import json, sys
cps = json.load(open(sys.argv[1]))
assert isinstance(cps, list) and len(cps) == 1, cps
c = cps[0]
assert c["index"] == 60 and c["commit"] == "c060", c
assert -11.5 < c["change_pct"] < -8.5, c
assert 0 <= c["p"] < 1e-6, c
assert c["before"]["from"] == 0 and c["before"]["to"] == 60, c
assert c["after"]["from"] == 60 and c["after"]["to"] == 90, c
assert c["before"]["runs"] == 180 and c["after"]["runs"] == 90, c
PY
check $? "--json: index, commit, change_pct, p and the segments"

# 3. From the standard input; --min-effect above the step hides it.
"$ROBOT" changes --min-effect 15% - <"$T/h.csv" >"$T/out" 2>"$T/err"
check $? "reads the standard input"
grep -q '^no change point in 90 points (270 runs)$' "$T/out"
check $? "--min-effect 15% leaves the 10% step out"
"$ROBOT" changes --json "$T/flat.csv" >"$T/out" 2>"$T/err"
[ "$(tr -d ' \n' <"$T/out")" = "[]" ]
check $? "a history without a change: none, and [] in JSON"

# 4. Bad files: every problem at its line, exit status 2, no output.
printf 'commit,value\na,1\nb,x2\nc\nd,1,2\n,5\ne,nan\n' >"$T/bad.csv"
"$ROBOT" changes "$T/bad.csv" >"$T/out" 2>"$T/err"
check $([ $? = 2 ] && echo 0 || echo 1) "a bad CSV exits 2"
cat >"$T/want" <<EOW
$T/bad.csv:3: 'x2' is not a number
$T/bad.csv:4: expected 'commit,value', found 1 field
$T/bad.csv:5: expected 'commit,value', found 3 fields
$T/bad.csv:6: the commit is empty
$T/bad.csv:7: the value is not a finite number
EOW
cmp -s "$T/err" "$T/want" && [ ! -s "$T/out" ]
check $? "each CSV problem at FILE:LINE, nothing on stdout"
printf '[\n{"commit": "a", "values": [1]},\n{"commit": "b", "values": ["2"]},\n{"commit": "c"}\n]\n' >"$T/bad.json"
"$ROBOT" changes --json "$T/bad.json" >"$T/out" 2>"$T/err"
check $([ $? = 2 ] && echo 0 || echo 1) "a bad JSON history exits 2"
grep -q "^$T/bad.json:3: values\[0\] is a string, not a number$" "$T/err" &&
	grep -q "^$T/bad.json:4: point 3 has no \"values\"$" "$T/err"
check $? "each JSON problem at FILE:LINE"
printf '[{"commit": "a", "values": [1]}' >"$T/cut.json"
"$ROBOT" changes "$T/cut.json" >"$T/out" 2>"$T/err"
check $([ $? = 2 ] && grep -q "cut.json:1: malformed JSON" "$T/err" && echo 0 || echo 1) \
	"a cut JSON file: malformed, exit 2"
# Values a segment's mean cannot hold (issue 61: 1e308s printed inf and
# null): refused at their line, as robotd refuses them at upload.
printf 'commit,value\na,1e308\nb,1.7e308\nc,-1e200\nd,1e100\n' >"$T/huge.csv"
printf '[\n{"commit": "a", "values": [1e308, 1]},\n{"commit": "b", "values": [1]}\n]\n' >"$T/huge.json"
"$ROBOT" changes "$T/huge.csv" >"$T/out" 2>"$T/err"
rc=$?
"$ROBOT" changes --json "$T/huge.json" >"$T/out2" 2>"$T/err2"
rc2=$?
check $([ $rc = 2 ] && [ $rc2 = 2 ] && [ ! -s "$T/out" ] && [ ! -s "$T/out2" ] &&
	[ "$(grep -c "is beyond +-1e+100, more than a mean of them can hold" "$T/err")" = 3 ] &&
	grep -q "^$T/huge.json:2: values\[0\] is beyond +-1e+100" "$T/err2" && echo 0 || echo 1) \
	"values beyond +-1e100 are refused at their lines, never printed as inf or null ($rc $rc2)"

# 5. The command line.
"$ROBOT" changes >"$T/out" 2>"$T/err"
check $([ $? = 2 ] && grep -q "give the history's FILE" "$T/err" && echo 0 || echo 1) \
	"no FILE: exit 2, said"
"$ROBOT" changes --alpha 2 "$T/h.csv" >"$T/out" 2>"$T/err"
check $([ $? = 2 ] && grep -q "alpha wants" "$T/err" && echo 0 || echo 1) \
	"--alpha 2: exit 2, said"
"$ROBOT" changes "$T/none.csv" >"$T/out" 2>"$T/err"
check $([ $? = 2 ] && grep -q "cannot read '$T/none.csv'" "$T/err" && echo 0 || echo 1) \
	"a missing file: exit 2, said"
"$ROBOT" changes --help >"$T/out" 2>&1
check $([ $? = 0 ] && grep -q "usage: robot changes" "$T/out" && echo 0 || echo 1) \
	"--help"

echo "1..$n"
[ "$failed" = 0 ]
