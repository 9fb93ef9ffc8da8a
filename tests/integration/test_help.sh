#!/bin/sh
# test_help.sh ROBOT ROBOT_BOX ROBOTD: every command and subcommand
# answers --help on stdout with exit 0 before doing anything else, and
# names where its server and token come from; messages a new user meets
# first say what is wrong and what is right.  TAP.
set -u
ROBOT=$1 BOX=$2 ROBOTD=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/tap.sh"
echo "1..13"

# help CMD...: CMD --help exits 0, with "usage: NAME" on stdout and
# nothing on stderr.
help() {
	"$@" --help >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	[ $rc = 0 ] && grep -q "^usage: " "$T/out" && [ ! -s "$T/err" ]
}

bad=""
for c in split compare submit status results regressions regression triage mail-in mute mutes unmute series tree jobs box \
	subscribe unsubscribe subscriptions reports bisect bisections; do
	help "$ROBOT" "$c" || bad="$bad $c"
done
check $([ -z "$bad" ]; echo $?) "robot COMMAND --help: exit 0, the usage on stdout (failing:$bad)"
bad=""
for c in "tree add" "tree list" "jobs cancel" "box reset"; do
	# shellcheck disable=SC2086
	help "$ROBOT" $c || bad="$bad '$c'"
done
check $([ -z "$bad" ]; echo $?) "robot's subcommands --help (failing:$bad)"
"$ROBOT" help compare >"$T/out" 2>&1
rc=$?
check $([ $rc = 0 ] && grep -q "^usage: robot compare" "$T/out"; echo $?) "robot help compare shows compare's help ($rc)"
bad=""
for c in serve run cleanup parse; do
	help "$BOX" "$c" || bad="$bad $c"
done
check $([ -z "$bad" ]; echo $?) "robot-box COMMAND --help (failing:$bad)"
help "$ROBOTD"
check $? "robotd --help"
"$ROBOTD" --state-dir "$T/state" token create --help >"$T/out" 2>&1
rc=$?
check $([ $rc = 0 ] && [ ! -e "$T/state" ] && grep -q "token create" "$T/out"; echo $?) \
	"robotd token create --help answers without touching the state directory ($rc)"
bad=""
for c in submit status results regressions regression triage mail-in mute mutes unmute series compare tree jobs box subscribe \
	unsubscribe subscriptions reports bisect bisections; do
	"$ROBOT" "$c" --help 2>&1 | grep -q "ROBOT_SERVER" || bad="$bad $c"
done
for c in submit tree jobs box subscriptions reports bisect triage mute unmute; do
	"$ROBOT" "$c" --help 2>&1 | grep -q "ROBOT_TOKEN" || bad="$bad $c(token)"
done
"$ROBOT" submit --help 2>&1 | grep -q -- "--server URL" && "$ROBOT" submit --help 2>&1 | grep -q -- "--token T" ||
	bad="$bad submit(flags)"
check $([ -z "$bad" ]; echo $?) "the server commands' help names ROBOT_SERVER, ROBOT_TOKEN and the flags (missing:$bad)"
check $("$ROBOT" compare --help | grep -q "0.3% false" && ! "$ROBOT" compare --help | grep -q "0.5%"; echo $?) \
	"compare --help quotes the measured false-alarm rate (0.3%, docs/statistics.md)"

# Messages.
"$ROBOT" compare --min-effect 5% --base "$T/none" --head "$T/none" >"$T/out" 2>&1
check $(! grep -q "wants a percentage" "$T/out" && grep -q "none" "$T/out"; echo $?) \
	"--min-effect 5% is taken as 5 percent"
printf 'suite: fsmark\ntestcase: fsmark\ndisk: 1LOOP_1G\nfs: xfs\nfsmark:\n  filesize: 4K\n  test_size: 1M\n  sync_method: fsync\n' >"$T/sync.yaml"
"$ROBOT" split "$T/sync.yaml" >"$T/out" 2>&1
check $(grep -q "sync_method: 'fsync' is not a known value: one of NoSync, fsyncBeforeClose" "$T/out" &&
	! grep -q "did you mean 'NoSync'" "$T/out"; echo $?) "a wrong sync_method lists the valid ones"
printf 'suite: fsmark\ntestcase: fsmark\nfsmark:\n\tfilesize: 4K\n' >"$T/tab.yaml"
"$ROBOT" split "$T/tab.yaml" >"$T/out" 2>&1
check $(grep -q "tab.yaml:4: .*a tab: YAML indents with spaces" "$T/out"; echo $?) "a tab in YAML is named as such"
mkdir -p "$T/o"
printf 'suite: fsmark\ntestcase: fsmark\ndisk: 1LOOP_1G\nfs: xfs\nfsmark:\n  filesize: 4K\n  test_size: 1M\n' >"$T/ok.yaml"
"$ROBOT" split -o "$T/o/new/dir/" "$T/ok.yaml" >"$T/out" 2>&1
rc=$?
check $([ $rc = 0 ] && ! grep -q "//" "$T/out" && ls "$T/o/new/dir/"*.yaml >/dev/null 2>&1; echo $?) \
	"robot split -o makes missing folders and prints no // ($rc)"

# libcurl (30 libraries, about 450 page faults to map) is loaded only by
# the commands that talk to robotd, when they do (issue 33).
LD_DEBUG=libs "$ROBOT" compare --min-effect 5 --base "$T/none" --head "$T/none" >"$T/out" 2>&1
LD_DEBUG=libs "$ROBOT" status --server http://127.0.0.1:1 >"$T/out2" 2>&1
rc=$?
check $(! grep -q "libcurl" "$T/out" && grep -q "calling init: .*libcurl" "$T/out2" &&
	[ $rc = 1 ] && grep -q "^robot: http://127.0.0.1:1/api/status: .*onnect" "$T/out2"; echo $?) \
	"robot compare does not load libcurl; robot status loads it and says why it got no answer ($rc)"
exit $((failed > 0))
