#!/bin/sh
# bench/chaos.sh [SECONDS] [BUILDDIR]: several robotd on one PostgreSQL
# under chaos for SECONDS (600), as tests/integration/test_robotd_chaos.sh
# runs it for 120 in the e2e suite: three robotd behind HAProxy, each
# killed -9 in turn every 30 s, PostgreSQL restarted once, one robotd
# cut off from it for 30 s, while boxes work, submits stream in and a
# regression is bisected and mailed.  Prints the test's checks and its
# figures (submits acknowledged and lost, runs leased again, mails and
# duplicates, pairs, the time from each kill to the next lease, from the
# partition's end to that robotd's next answer, /api/status's p99).  As
# root, with nothing else running: its figures are times.
set -eu
secs=${1:-600}
build=${2:-build}
cd "$(dirname "$0")/.."
CHAOS_SECONDS=$secs exec sh tests/integration/test_robotd_chaos.sh "$build/robotd" "$build/robot-box" \
	"$build/robot" "$(pwd)"
