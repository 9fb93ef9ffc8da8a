#!/bin/sh
# bench/perf_profile_cost.sh [PAIRS]: what the perf-profile monitor costs
# the workload's KPI, and what it adds to the result document.  As root;
# prints figures, checks nothing.
#
# For fs_mark and for dd, PAIRS times (default 10): the same robot-box job
# without and with perf-profile (perf record -a -g from the workload's
# start, at the box's default rate or FREQ Hz when set in the environment),
# in alternating order so that drift hits both.  fs_mark on a RAM loop
# device (100,000 creates with fsync, some 15 s: fsmark.files_per_sec);
# dd for 10 s on a RAM loop device (dd.write_bytes_per_sec).  Prints the
# ratio with/without of each pair, their median and quartiles, perf's
# CPU while it recorded, and the result document's size and metrics
# without and with.
set -eu
PAIRS=${1:-10}
FREQ=${FREQ:-}
JOBS=${JOBS:-fsmark dd}
HERE=$(cd "$(dirname "$0")/.." && pwd)
BOX=${ROBOT_BOX:-$HERE/build/robot-box}
T=$(mktemp -d /tmp/robot-perfcost.XXXXXX)

cleanup() {
	"$BOX" cleanup --config "$T/box.yaml" >/dev/null 2>&1 || true
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
[ "$(id -u)" = 0 ] || { echo "perf_profile_cost: run as root" >&2; exit 1; }
printf 'name: perfcost-%s\nworkdir: %s/work\n' $$ "$T" >"$T/box.yaml"

cat >"$T/fsmark.yaml" <<'YAML'
suite: fsmark
disk: 1LOOP_1G
fs: xfs
nr_threads: 1t
fsmark:
  filesize: 4K
  test_size: 400M
  sync_method: fsyncBeforeClose
YAML
cat >"$T/dd.yaml" <<'YAML'
suite: dd
disk: 1LOOP_1G
fs: xfs
nr_threads: 1dd
runtime: 10s
dd:
YAML
for j in fsmark dd; do
	cp "$T/$j.yaml" "$T/$j-perf.yaml"
	printf 'perf-profile:\n' >>"$T/$j-perf.yaml"
	[ -z "$FREQ" ] || printf '  freq: %s\n' "$FREQ" >>"$T/$j-perf.yaml"
done

median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
# run JOB KPI OUT: one run; prints the KPI, keeps the document in OUT.
run() {
	"$BOX" run --repeat 1 --json --config "$T/box.yaml" "$T/$1.yaml" 2>/dev/null >"$3"
	/usr/bin/python3 -c "
import json, sys
d = json.load(open('$3'))[0]
assert d['status'] == 'ok', d.get('error')
print(d['stats']['$2'])
p = d['run'].get('perf', {}).get('perf-profile')
if p:
    open('$T/cpu', 'a').write('%f\\n' % (p['cpu_seconds'] / p['seconds'] / d['run']['cpus']))"
}
quartiles() { sort -g | awk '{v[NR] = $1} END {printf "%s to %s", v[int((NR + 3) / 4)], v[int((3 * NR + 3) / 4)]}'; }

for job in $JOBS; do
	case $job in
	fsmark) kpi=fsmark.files_per_sec ;;
	dd) kpi=dd.write_bytes_per_sec ;;
	esac
	: >"$T/$job.ratios"
	: >"$T/cpu"
	for i in $(seq "$PAIRS"); do
		if [ $((i % 2)) = 1 ]; then
			off=$(run "$job" "$kpi" "$T/off.json")
			on=$(run "$job-perf" "$kpi" "$T/on.json")
		else
			on=$(run "$job-perf" "$kpi" "$T/on.json")
			off=$(run "$job" "$kpi" "$T/off.json")
		fi
		echo "$on $off" | awk '{printf "%.4f\n", $1 / $2}' >>"$T/$job.ratios"
		echo "$off" >>"$T/$job.off"
		echo "$on" >>"$T/$job.on"
		echo "pair $i $job $kpi: without $off, with $on" >&2
	done
	echo "$job $kpi, $PAIRS pairs (with perf-profile at ${FREQ:-the default} Hz / without; 1.00 = no cost):"
	echo "  median without $(median <"$T/$job.off"), with $(median <"$T/$job.on")"
	echo "  median of the pairs' ratios $(median <"$T/$job.ratios"), quartiles $(quartiles <"$T/$job.ratios")"
	echo "    (all: $(tr '\n' ' ' <"$T/$job.ratios"))"
	echo "  perf record's CPU while recording: median $(median <"$T/cpu" | awk '{printf "%.2f%%", 100 * $1}') of the box's CPUs"
	/usr/bin/python3 -c "
import json
off = json.load(open('$T/off.json'))[0]; on = json.load(open('$T/on.json'))[0]
def size(d): return len(json.dumps(d, separators=(',', ':')))
rows = [k for k in on['stats'] if k.startswith('perf-profile.')]
print('  result document: %d bytes, %d stats without; %d bytes, %d stats with (%d perf-profile rows)'
      % (size(off), len(off['stats']), size(on), len(on['stats']), len(rows)))"
done
