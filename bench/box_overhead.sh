#!/bin/sh
# bench/box_overhead.sh [PAIRS]: what running under robot-box costs the
# workload.  As root; prints figures, checks nothing.
#
# For fs_mark and for dd, PAIRS times (default 7): the same command run by
# hand on a fresh xfs (a 1 GiB image, a direct-I/O loop device, LKP's mkfs
# options), and the same job under robot-box run, in alternating order so
# that drift hits both.  fs_mark runs on images in /dev/shm (RAM); dd on
# images on the disk (1FILE_1G): dd on tmpfs-backed loops swings between
# 0.5 and 4 GB/s from run to run on these machines, far too much to see a
# 2% overhead, while the disk gives 1.2-1.4 GB/s.  The ratio robot/hand of each pair,
# and their median, for:
#   fs_mark  Files/sec from fs_mark's own table (both runs)
#   dd       dd's own throughput (its last line), and the robot's
#            dd.write_bytes_per_sec against the wall time by hand
# and the CPU the monitors use per second of sampling.
set -eu
PAIRS=${1:-7}
HERE=$(cd "$(dirname "$0")/.." && pwd)
BOX=${ROBOT_BOX:-$HERE/build/robot-box}
T=$(mktemp -d /tmp/robot-bench.XXXXXX)
RAMIMG=/dev/shm/robot-bench-$$.img
DISKIMG=$T/bench.img
IMG=$RAMIMG
MNT=/fs/robot-bench-$$
LOOP=

cleanup() {
	mountpoint -q "$MNT" 2>/dev/null && umount "$MNT"
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	rm -rf "$T" "$RAMIMG"
	rmdir "$MNT" 2>/dev/null || true
	"$BOX" cleanup --config "$T.box" >/dev/null 2>&1 || true
	rm -f "$T.box"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

printf 'name: bench-%s\nworkdir: %s/work\n' $$ "$T" >"$T.box"

fresh_fs() {
	truncate -s 1G "$IMG"
	LOOP=$(losetup -f --show --direct-io=on "$IMG")
	mkfs.xfs -q -f -mreflink=0 "$LOOP"
	mkdir -p "$MNT"
	mount -t xfs -o inode64 "$LOOP" "$MNT"
	sync
	echo 3 >/proc/sys/vm/drop_caches
}
drop_fs() {
	umount "$MNT"
	losetup -d "$LOOP"
	LOOP=
	rm -f "$IMG"
}
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

cat >"$T/fsmark.yaml" <<'YAML'
suite: fsmark
disk: 1LOOP_1G
fs: xfs
nr_threads: 1t
fsmark:
  filesize: 4K
  test_size: 40M
  sync_method: fsyncBeforeClose
YAML
cat >"$T/dd.yaml" <<'YAML'
suite: dd
disk: 1FILE_1G
fs: xfs
nr_threads: 1dd
dd:
  bs: 1M
  size: 768M
YAML

: >"$T/fs.ratios"
: >"$T/dd.ratios"
: >"$T/ddwall.ratios"
: >"$T/monitor"
for i in $(seq "$PAIRS"); do
	# fs_mark: 40M / 4K = 10240 files, as the job's LKP formula gives.
	IMG=$RAMIMG
	robot_fsmark() {
		robot=$("$BOX" run --repeat 1 --json --config "$T.box" "$T/fsmark.yaml" 2>/dev/null |
			/usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["stats"]["fsmark.files_per_sec"])')
	}
	[ $((i % 2)) = 0 ] && robot_fsmark
	fresh_fs
	mkdir "$MNT/1"
	hand=$(fs_mark -d "$MNT/1" -n 10240 -L 1 -S 1 -s 4096 |
		awk 'NF == 5 && $1 ~ /^[0-9]+$/ {f = $4} END {print f}')
	drop_fs
	[ $((i % 2)) = 1 ] && robot_fsmark
	echo "$robot $hand" | awk '{printf "%.4f\n", $1 / $2}' >>"$T/fs.ratios"
	echo "$robot" >>"$T/fs.robot"
	echo "$hand" >>"$T/fs.hand"
	echo "pair $i fs_mark files/sec: robot $robot, by hand $hand" >&2

	# dd: 768 MiB with fdatasync; dd's own rate and the wall time.  The
	# first dd after the fs_mark runs is much slower than the next
	# (whoever runs it): an unmeasured one goes first.
	IMG=$DISKIMG
	fresh_fs
	dd if=/dev/zero of="$MNT/zero-1" bs=1M count=768 conv=fdatasync 2>/dev/null
	drop_fs
	[ $((i % 2)) = 0 ] && "$BOX" run --repeat 1 --json --config "$T.box" "$T/dd.yaml" 2>/dev/null >"$T/dd.json"
	fresh_fs
	start=$(date +%s.%N)
	dd if=/dev/zero of="$MNT/zero-1" bs=1M count=768 conv=fdatasync 2>"$T/hand.err"
	end=$(date +%s.%N)
	drop_fs
	hand_own=$(awk '/copied/ {for (k = 1; k <= NF; k++) if ($k == "s,") s = $(k-1); print $1 / s}' "$T/hand.err")
	hand_wall=$(awk -v a="$start" -v b="$end" '/copied/ {printf "%.0f", $1 / (b - a)}' "$T/hand.err")
	[ $((i % 2)) = 1 ] && "$BOX" run --repeat 1 --json --config "$T.box" "$T/dd.yaml" 2>/dev/null >"$T/dd.json"
	echo "$hand_own" >>"$T/dd.hand"
	/usr/bin/python3 - "$T/dd.json" "$hand_own" "$hand_wall" >>"$T/pairs" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))[0]
own = [int(m.group(1)) / float(m.group(2)) for m in
       re.finditer(r"^(\d+) bytes .*copied, ([\d.]+) s", d["outputs"]["dd"], re.M)]
run = d["run"]
print(own[-1] / float(sys.argv[2]), d["stats"]["dd.write_bytes_per_sec"] / float(sys.argv[3]),
      run["monitor_cpu_seconds"] / max(run["samples"], 1), own[-1])
PY
	tail -1 "$T/pairs" | awk '{print $1}' >>"$T/dd.ratios"
	tail -1 "$T/pairs" | awk '{print $2}' >>"$T/ddwall.ratios"
	tail -1 "$T/pairs" | awk '{print $3}' >>"$T/monitor"
	tail -1 "$T/pairs" | awk '{print $4}' >>"$T/dd.robot"
	echo "pair $i dd: robot/hand $(tail -1 "$T/pairs")" >&2
done

# A longer run for the monitors' cost: 20 s of dd on three filesystems.
cat >"$T/dd20.yaml" <<'YAML'
suite: dd
disk: 3LOOP_1G
fs: xfs
runtime: 20s
dd:
YAML
"$BOX" run --repeat 1 --json --config "$T.box" "$T/dd20.yaml" 2>/dev/null >"$T/dd20.json"
mon=$(/usr/bin/python3 -c "
import json; r = json.load(open('$T/dd20.json'))[0]['run']
print('%.3f ms of CPU per sample (%d samples, 3 devices)' % (1000 * r['monitor_cpu_seconds'] / r['samples'], r['samples']))")

ratio() { echo "$1 $2" | awk '{printf "%.4f", $1 / $2}'; }
fr=$(median <"$T/fs.robot") fh=$(median <"$T/fs.hand")
dr=$(median <"$T/dd.robot") dh=$(median <"$T/dd.hand")
echo "robot-box overhead, $PAIRS pairs (robot / by hand; 1.00 = no overhead):"
echo "  fs_mark files/sec: median robot $fr, by hand $fh: ratio $(ratio "$fr" "$fh");"
echo "    median of the pairs' ratios $(median <"$T/fs.ratios") (all: $(tr '\n' ' ' <"$T/fs.ratios"))"
echo "  dd's own MB/s: median robot $(echo "$dr" | awk '{printf "%.0f", $1 / 1e6}'), by hand $(echo "$dh" | awk '{printf "%.0f", $1 / 1e6}'): ratio $(ratio "$dr" "$dh");"
echo "    median of the pairs' ratios $(median <"$T/dd.ratios" | awk '{printf "%.4f", $1}') (all: $(awk '{printf "%.3f ", $1}' "$T/dd.ratios"))"
echo "  dd, the robot's dd.write_bytes_per_sec against bytes / wall time by hand:"
echo "    median of the pairs' ratios $(median <"$T/ddwall.ratios" | awk '{printf "%.4f", $1}')"
echo "  monitors: $mon"
