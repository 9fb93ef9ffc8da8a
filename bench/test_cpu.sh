#!/bin/sh
# bench/test_cpu.sh [BUILDDIR] [SUITE...]: what each test costs the
# machine, not only how long it takes.  As root; prints figures, checks
# nothing.  Runs meson's tests of the suites (default unit and daemon)
# in BUILDDIR (default build), TEST_CPU_JOBS at a time (default 5, as
# scripts/test), each in a cpuacct cgroup of its own (cgroup v1, as on
# these machines), so that its CPU seconds count every process it
# started: robotd, its PostgreSQL, the simulated boxes, Chromium.
# Prints the wall time, the machine's busy share over it, the CPU
# seconds of all the tests, the fifteen dearest and the ten longest.
set -u
HERE=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$HERE/build}
[ $# -gt 0 ] && shift
suites=${*:-unit daemon}
acct=/sys/fs/cgroup/cpuacct
[ -d "$acct" ] || { echo "test_cpu: no cpuacct cgroup at $acct" >&2; exit 1; }
out=$(mktemp)
wrap=$(mktemp)
trap 'rm -f "$out" "$wrap"' EXIT
trap 'exit 1' INT TERM
cat >"$wrap" <<WRAP
#!/bin/sh
g=$acct/robot-test-cpu-\$\$
mkdir "\$g" && echo \$\$ >"\$g/tasks"
"\$@"
rc=\$?
echo \$\$ >$acct/tasks
sleep 0.5 # (what it started and killed, gone)
printf '%s\t%s\n' "\$(basename "\$1")" "\$(awk '{printf "%.1f", \$1 / 1e9}' "\$g/cpuacct.usage")" >>$out
rmdir "\$g" 2>/dev/null
exit \$rc
WRAP
chmod +x "$wrap"
set --
for s in $suites; do set -- "$@" --suite "$s"; done
read -r _ u n s i w q sq st _ </proc/stat
busy0=$((u + n + s + q + sq + st)) idle0=$((i + w))
t0=$(date +%s)
meson test -C "$build" --num-processes "${TEST_CPU_JOBS:-5}" --logbase test_cpu --wrapper "$wrap" "$@" >/dev/null 2>&1
rc=$?
t1=$(date +%s)
read -r _ u n s i w q sq st _ </proc/stat
busy=$((u + n + s + q + sq + st - busy0)) idle=$((i + w - idle0))
echo "suites: $suites (meson test exit $rc)"
echo "wall: $((t1 - t0)) s; the machine $((100 * busy / (busy + idle)))% busy"
awk -F'\t' '{s += $2} END {printf "CPU: %.0f s in %d tests\n", s, NR}' "$out"
echo "the dearest:"
sort -t"$(printf '\t')" -k2 -rn "$out" | head -15 | awk -F'\t' '{printf "  %7.1f CPU s  %s\n", $2, $1}'
echo "the longest:"
/usr/bin/python3 - "$build"/meson-logs/test_cpu-*.json <<'PY'
import json, sys
rows = sorted(((t["duration"], t["name"]) for f in sys.argv[1:] for t in map(json.loads, open(f))),
              reverse=True)
for d, name in rows[:10]:
    print("  %7.1f s      %s" % (d, name))
PY
rm -f "$build"/meson-logs/test_cpu-*
