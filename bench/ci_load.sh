#!/bin/sh
# bench/ci_load.sh [RUNS] [HOGS] [COMMIT]: .ci/run RUNS times in a row
# (default 5), each on a clean clone of COMMIT (default HEAD) with
# ../shared beside it, as CI runs it, while HOGS CPU-bound processes
# (default 2: `while :; do :; done`) run beside it the whole time: what
# a test needs of a quiet machine shows here.  As root.  Prints one line
# a run (its wall time, its last line, its failed checks) and keeps each
# run's log in /tmp/ci_load.N.log (and a failed run's meson logs, and
# its fuzzers' crashes and timeouts, in /tmp/ci_load.N.meson-logs).
# Checks nothing itself; exits 1 when a run failed.
set -u
HERE=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${1:-5}
HOGS=${2:-2}
COMMIT=$(git -C "$HERE" rev-parse "${3:-HEAD}") || exit 2
SHARED=$(cd "$HERE/../shared" && pwd) || exit 2
W=$(mktemp -d /tmp/ci_load.XXXXXX)
chmod 755 "$W" # (PostgreSQL's user enters the clone: the tests' template database)
hogs=
cleanup() {
	for p in $hogs; do kill "$p" 2>/dev/null; done
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
for _ in $(seq "$HOGS"); do
	sh -c 'while :; do :; done' &
	hogs="$hogs $!"
done
echo "commit $COMMIT; $HOGS CPU hogs beside each run (PIDs$hogs)"
status=0
for i in $(seq "$RUNS"); do
	rm -rf "$W/ci" && mkdir -p "$W/ci" && ln -s "$SHARED" "$W/ci/shared"
	git clone -q "$HERE" "$W/ci/main" && git -C "$W/ci/main" checkout -q "$COMMIT" || exit 2
	t0=$(date +%s)
	(cd "$W/ci/main" && .ci/run) >"/tmp/ci_load.$i.log" 2>&1
	rc=$?
	[ $rc = 0 ] || status=1
	# A failed run's meson logs (each check's TAP lines and diags), before
	# the next run removes its clone.
	if [ $rc != 0 ]; then
		rm -rf "/tmp/ci_load.$i.meson-logs"
		for b in "$W/ci/main"/build*/meson-logs; do
			[ -d "$b" ] || continue
			d=/tmp/ci_load.$i.meson-logs/$(basename "$(dirname "$b")")
			mkdir -p "$d" && cp -r "$b"/. "$d"
		done
		# and what a failed fuzzer found (its inputs are lost with
		# the clone otherwise)
		[ -d "$W/ci/main/fuzz-corpus/crashes" ] &&
			mkdir -p "/tmp/ci_load.$i.meson-logs" &&
			cp -r "$W/ci/main/fuzz-corpus/crashes" "/tmp/ci_load.$i.meson-logs/fuzz-crashes"
	fi
	echo "run $i: $(($(date +%s) - t0)) s, exit $rc, $(tail -1 "/tmp/ci_load.$i.log")" \
		"$(grep -h '^not ok' "/tmp/ci_load.$i.log" | cut -c1-120 | tr '\n' ';')"
done
exit $status
