#!/bin/sh
# test_split_cli.sh ROBOT: "robot split" end to end, as a user runs it.
# TAP output; every check prints "ok N" or "not ok N".
set -u
ROBOT=$1
SHARED=${ROBOT_SHARED_DIR:?}
SRC=${ROBOT_SOURCE_DIR:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
fail() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
check() { if [ "$1" = 0 ]; then ok "$2"; else fail "$2"; fi; }

# 1. LKP's real job files split into the path_params LKP's split-job gave.
for f in "$SHARED"/fixtures/lkp/jobs/*.yaml; do
	name=$(basename "$f" .yaml)
	"$ROBOT" split "$f" 2>"$T/err" | sed 's|^[^/]*/||' | sort >"$T/got"
	sort "$SHARED/fixtures/lkp/jobs/expected/$name.txt" >"$T/want"
	if cmp -s "$T/got" "$T/want"; then
		ok "lkp job $name"
	else
		fail "lkp job $name"
		diff "$T/got" "$T/want" | sed 's/^/# /' | head -20
	fi
done

# 2. -o writes the files LKP's split-job writes, with the same names.
for f in "$SHARED"/fixtures/lkp/split-job/[0-9].yaml; do
	stem=$(basename "$f" .yaml)
	rm -rf "$T/out"
	"$ROBOT" split -o "$T/out" "$f" >/dev/null 2>&1
	(cd "$T/out" && ls) | sort >"$T/got"
	(cd "$SHARED/fixtures/lkp/split-job" && ls "$stem"-*.yaml) | sort >"$T/want"
	if cmp -s "$T/got" "$T/want"; then
		ok "split-job $stem file names"
	else
		fail "split-job $stem file names"
		diff "$T/got" "$T/want" | sed 's/^/# /'
	fi
done

# 3. An atomic job file splits into itself.
rm -rf "$T/out"
"$ROBOT" split -o "$T/out" "$SHARED/fixtures/lkp/jobs/dd-write-4hdd.yaml" >/dev/null 2>&1
bad=0
count=0
for f in "$T"/out/*.yaml; do
	count=$((count + 1))
	key=$("$ROBOT" split "$f" 2>/dev/null)
	want=$(head -1 "$f" | sed 's/^# //')
	[ "$key" = "$want" ] || { bad=1; echo "# $f: $key != $want"; }
done
[ "$count" = 54 ] || bad=1
check $bad "atomic job files split into themselves ($count)"

# 4. A bad file: exit status 2, every problem as FILE:LINE: message,
#    nothing written, even for the good file beside it.
cat >"$T/bad.yaml" <<'YAML'
suite: fsmark
fs: [xfs, btrfz]
fsmark:
  filsize: 4K
  test_size: 0
YAML
rm -rf "$T/out"
"$ROBOT" split -o "$T/out" "$SHARED/fixtures/lkp/jobs/dd-write.yaml" "$T/bad.yaml" >"$T/stdout" 2>"$T/err"
rc=$?
check $([ $rc = 2 ] && echo 0 || echo 1) "bad file exits 2 (got $rc)"
check $([ ! -e "$T/out" ] || [ -z "$(ls -A "$T/out")" ]; echo $?) "nothing written"
check $([ ! -s "$T/stdout" ]; echo $?) "nothing on stdout"
grep -q "^$T/bad.yaml:2: fs: 'btrfz' is not a known value (did you mean 'btrfs'?)$" "$T/err"
check $? "error for the bad fs with its line"
grep -q "^$T/bad.yaml:4: unknown option 'filsize' of fsmark (did you mean 'filesize'?)$" "$T/err"
check $? "error for the unknown option with its line"
grep -q "^$T/bad.yaml:5: test_size: '0' must be more than zero$" "$T/err"
check $? "error for the zero size with its line"
grep -q "^3 errors; nothing written$" "$T/err"
check $? "error count"

# 5. --json gives one array with path_params, key and job.
"$ROBOT" split --json "$SHARED/fixtures/lkp/jobs/fsmark-3hdd-raid-nfs.yaml" >"$T/json" 2>/dev/null
check $? "--json exits 0"
if [ -x /usr/bin/python3 ]; then
	/usr/bin/python3 - "$T/json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
assert isinstance(a, list) and len(a) == 4, a
for j in a:
    assert j["key"] == "fsmark/" + j["path_params"], j
    assert isinstance(j["job"], dict) and j["job"]["fsmark"]["filesize"] == "4M"
assert sorted(j["job"]["fsmark"]["test_size"] for j in a) == ["100G", "30G", "30G", "60G"]
PY
	check $? "--json content"
else
	grep -q '"path_params": "3HDD-4M-ext4-nfsv4-1-RAID5-64-NoSync-60G"' "$T/json"
	check $? "--json content"
fi

# 6. Usage errors and a missing file.
"$ROBOT" split >/dev/null 2>&1
check $([ $? = 2 ]; echo $?) "no file is a usage error"
"$ROBOT" split "$T/nonexistent.yaml" 2>"$T/err"
rc=$?
grep -q "nonexistent.yaml: cannot open" "$T/err"
check $([ $rc = 2 ] && grep -q "cannot open" "$T/err"; echo $?) "missing file"

# 7. The example job files split cleanly.
for f in "$SRC"/examples/jobs/*.yaml; do
	[ -e "$f" ] || continue
	"$ROBOT" split "$f" >/dev/null 2>"$T/err"
	rc=$?
	check $([ $rc = 0 ] && ! grep -q warning "$T/err"; echo $?) "example $(basename "$f") splits without warnings"
done

# 8. -o names files as LKP's split-job, the commit after the
#    path_params, with no "//" when DIR ends in a slash.
printf 'suite: fsmark\ntestcase: fsmark\ndisk: 1HDD\nfs: xfs\nfsmark:\n  filesize: 8K\ncommit: [aaaa111, bbbb222]\n' >"$T/c.yaml"
rm -rf "$T/out"
"$ROBOT" split -o "$T/out/" "$T/c.yaml" >"$T/stdout" 2>/dev/null
check $([ -f "$T/out/c-1HDD-8K-xfs-aaaa111.yaml" ] && [ -f "$T/out/c-1HDD-8K-xfs-bbbb222.yaml" ] &&
	! grep -q '//' "$T/stdout"; echo $?) "-o DIR/: <file>-<path_params>-<commit>.yaml, no //"

# 9. LKP's forms: an include, a template, the sysctl names.
mkdir -p "$T/inc"
printf 'suite: fsmark\ntestcase: fsmark\ndisk: 1HDD\nfs: [xfs, ext4]\nfsmark:\n  filesize: 8K\n  test_size: {{\n    case fs\n    when "xfs" then "1G"\n    end\n  }}\n' >"$T/inc/base.yaml"
printf '<<: {file: base.yaml, disk: 1SSD}\nsysctl:\n  sc_dirty_ratio: [10, 40]\n' >"$T/inc/top.yaml"
"$ROBOT" split "$T/inc/top.yaml" >"$T/stdout" 2>"$T/err"
check $([ "$(cat "$T/stdout")" = "fsmark/1SSD-8K-xfs-10-1G
fsmark/1SSD-8K-xfs-40-1G" ]; echo $?) "an include with an override, a template giving nil, sysctl's sc_* names"
printf 'suite: fsmark\nsysctl:\n  vm.dirty_ratio: 10\nfsmark:\n' >"$T/vm.yaml"
"$ROBOT" split "$T/vm.yaml" >/dev/null 2>"$T/err"
check $([ $? = 2 ] && grep -q "vm.yaml:3: sysctl setting 'vm.dirty_ratio' is written 'sc_dirty_ratio'" "$T/err"; echo $?) \
	"vm.dirty_ratio is refused with LKP's name"

echo "1..$n"
[ $failed = 0 ]
