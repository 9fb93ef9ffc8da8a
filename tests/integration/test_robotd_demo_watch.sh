#!/bin/sh
# test_robotd_demo_watch.sh ROBOTD ROBOT_BOX ROBOT SOURCE_DIR: the demos
# (scripts/quickstart, scripts/kernel-demo) stop with the reason when
# what they wait for cannot come (scripts/demo-lib.sh, watch_lab), within
# a minute of it happening: a box broken by a hook that fails every run
# (as the kernel hook did where /dev/kvm exists and QEMU aborts), and a
# run that failed as its commit's fault (a kernel that does not build).
# A real robot-box whose hook fails before any disk is set up.  TAP.
set -u
ROBOTD=$1 BOX=$2 ROBOT=$3 SRC=$4
. "$SRC/tests/integration/robotd_lib.sh"

cat >"$T/robotd.yaml" <<YAML
state_dir: $T/state
lease_seconds: 30
max_runs: 3
YAML
start_robotd d --config "$T/robotd.yaml" || { echo "1..0 # robotd did not start"; exit 1; }
U=$URL_d
SUB=$(token submit alice)
ADMIN=$(token admin root)
echo "1..5"

# The hook: what the kernel hook said when QEMU aborted (exit 1: the
# box's fault), or a commit that does not build (exit 2: the job's).
cat >"$T/hook" <<'EOF'
#!/bin/sh
if [ -e "$HOOK_FAULT_FILE" ]; then
	echo "kernel hook: mm/page-writeback.c:1:1: error: expected ';'" >&2
	echo "kernel hook: $2 does not build" >&2
	exit 2
fi
echo "kernel hook: QEMU did not start the guest (exit 134): qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69" >&2
exit 1
EOF
chmod +x "$T/hook"
export HOOK_FAULT_FILE="$T/commit-fault"
b=watch-$$
box_config "$b"
printf 'hook: %s\ntree: linux\n' "$T/hook" >>"$T/$b.yaml"
start_box "$b" "$U" "$(token box "$b")"
dd_job "$T/dd.yaml"

# The demo's side: demo-lib.sh as the demos source it (its clock starts
# then), its box's PID where they keep it; at most 150 s.
cat >"$T/demo.sh" <<EOF
top=$SRC state=$T/demo server=$U build=$(dirname "$ROBOT") treename=linux
mkdir -p "\$state"
cp "$T/$b.pid" "\$state/box.pid"
. "$SRC/scripts/demo-lib.sh"
"\$@"
EOF
demo() { timeout 150 sh "$T/demo.sh" "$@"; }

# 1. A hook fault: the first run fails with QEMU's abort, and the demo
# stops there.
t0=$(date +%s)
api POST "$U/api/jobs?tbox_group=lab&repeat=3&commit=$(sha base)&commit=$(sha head)" "$SUB" "$T/dd.yaml" >/dev/null
demo wait_analysis >"$T/w1.out" 2>&1
rc=$?
t1=$(date +%s)
sed 's/^/#   /' "$T/w1.out"
# (The hook fails within a second: the box may be broken by the first
# look, the other reason.)
check $([ $rc = 1 ] && grep -q "^the demo stops: \(run [0-9]* failed (dd-write/.* at [0-9a-f]\{12\})\|the box $b is broken after 3 failed runs in a row\)\$" "$T/w1.out" &&
	grep -q "its last error: .*the hook exited with status 1: kernel hook: QEMU did not start the guest (exit 134): qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69" "$T/w1.out" &&
	grep -q "more: $U/jobs/[0-9]* (the run, its attempts and result), $T/demo/box.log, .*/robot status" "$T/w1.out"; echo $?) \
	"a run failed by the box's hook: the demo stops, with the hook's error and where to see more"
# (the hook fails at once: the run fails within seconds of the submit)
check $([ $((t1 - t0)) -le 60 ]; echo $?) "within a minute ($((t1 - t0)) s from the submit)"

# The box goes on failing until robotd calls it broken; a demo started
# then stops at once, on the broken box.
wait_for 60 sql_is broken "SELECT state FROM boxes WHERE name = '$b'"
demo wait_analysis >"$T/wb.out" 2>&1
rc=$?
sed 's/^/#   /' "$T/wb.out"
check $([ $rc = 1 ] && grep -q "^the demo stops: the box $b is broken after 3 failed runs in a row\$" "$T/wb.out" &&
	grep -q "its last error: .*failed to set MSR 0x10a to 0x69" "$T/wb.out"; echo $?) \
	"a broken box: the demo stops at once, with the box's last error"

# 2. A run fails as its commit's fault: the box is not broken, and the
# demo stops all the same.
printf '{"series": "dd-write/1M-1LOOP_64M-ext4-1dd-1s/lab"}' >"$T/cancel.json"
api POST "$U/api/jobs/cancel" "$SUB" "$T/cancel.json" >/dev/null
api POST "$U/api/boxes/$b/reset" "$ADMIN" /dev/null >/dev/null
: >"$HOOK_FAULT_FILE"
api POST "$U/api/jobs?tbox_group=lab&repeat=1&commit=$(sha other)" "$SUB" "$T/dd.yaml" >/dev/null
demo wait_analysis >"$T/w2.out" 2>&1
rc=$?
sed 's/^/#   /' "$T/w2.out"
check $([ $rc = 1 ] && grep -q "^the demo stops: run [0-9]* failed (dd-write/.* at $(sha other | cut -c1-12))\$" "$T/w2.out" &&
	grep -q "its last error: .*does not build" "$T/w2.out" &&
	[ "$(sql "SELECT state FROM boxes WHERE name = '$b'")" != broken ]; echo $?) \
	"a run that failed as its commit's fault (a kernel that does not build): the demo stops with it"
# A demo started after that failure: not its reason to stop.
sleep 1.1
check $(! demo lab_stopped >"$T/w3.out" 2>&1; echo $?) "a failure from before the demo started is not its reason to stop"
