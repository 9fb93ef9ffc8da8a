#!/bin/sh
# bench/tls_bench.sh [BUILDDIR]: lease cycles per second (a lease and an
# empty result's upload) against robotd over plain HTTP and over HTTPS
# (tls_cert, tls_key: a test CA's certificate made with openssl), one
# after the other in one run, from 8 simulated boxes
# (bench/tls_cycles.py), each with a connection per request as robot-box
# makes them, and with kept-alive connections.  As root (the embedded
# database runs as postgres); robotd, PostgreSQL and the boxes share
# this machine's cores.
set -eu
export ROBOTD_ALLOW_ROOT=1 # robotd as root, as the tests run it
build=${1:-build}
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "tls_bench: run as root" >&2; exit 1; }
T=$(mktemp -d /tmp/tls-bench.XXXXXX)
chmod 755 "$T"
PIDS=""
finish() {
	for p in $PIDS; do kill -TERM "$p" 2>/dev/null || :; done
	sleep 2
	rm -rf "$T"
}
trap finish EXIT
trap 'exit 1' INT TERM
export PGOPTIONS="-c search_path=robot_functions,public"

openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/ca.key" -out "$T/ca.pem" -days 2 \
	-subj "/CN=bench CA" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -keyout "$T/srv.key" -out "$T/srv.csr" -subj "/CN=127.0.0.1" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\n' >"$T/ext"
openssl x509 -req -in "$T/srv.csr" -CA "$T/ca.pem" -CAkey "$T/ca.key" -CAcreateserial \
	-out "$T/srv.pem" -days 2 -extfile "$T/ext" 2>/dev/null

# run MODE [YAML...]: robotd with its own state, 20,000 runs to lease,
# 8 boxes' cycles for 20 s a way
run() {
	mode=$1
	shift
	rm -rf "$T/state"
	printf 'state_dir: %s/state\nlease_seconds: 600\n' "$T" >"$T/robotd.yaml"
	for l in "$@"; do echo "$l" >>"$T/robotd.yaml"; done
	"$build/robotd" --config "$T/robotd.yaml" --listen 127.0.0.1:0 >"$T/robotd.log" 2>&1 &
	rd=$!
	PIDS="$PIDS $rd"
	i=0
	until grep -q "listening on" "$T/robotd.log"; do
		sleep 0.1
		i=$((i + 1))
		[ $i -lt 600 ] || { cat "$T/robotd.log"; exit 1; }
	done
	url=$(sed -n 's/.*listening on \(https\{0,1\}:[^ ]*\).*/\1/p' "$T/robotd.log")
	: >"$T/tokens"
	for b in 1 2 3 4 5 6 7 8; do
		echo "sim$b $("$build/robotd" --config "$T/robotd.yaml" token create --kind box --name "sim$b" 2>/dev/null)" >>"$T/tokens"
	done
	sub=$("$build/robotd" --config "$T/robotd.yaml" token create --kind submit --name bench 2>/dev/null)
	{
		printf 'suite: dd-write\ntestcase: dd-write\ndisk: 1LOOP_64M\nfs: ext4\n'
		printf 'nr_threads: 1dd\nruntime: 1s\nrepeat: 100\ndd:\n  bs: ['
		seq -s, 1 100 | sed 's/,/K, /g; s/$/K]/'
	} >"$T/job.yaml"
	for c in 1 2; do
		curl -sf -o /dev/null --cacert "$T/ca.pem" -X POST -H "Authorization: Bearer $sub" \
			--data-binary @"$T/job.yaml" \
			"$url/api/jobs?tbox_group=bench&commit=$(printf '%s%039x' $c 0)"
	done
	for conns in fresh kept; do
		echo "$mode, a connection $([ $conns = fresh ] && echo "per request (robot-box's)" || echo "kept alive per box"): $(/usr/bin/python3 bench/tls_cycles.py "$url" "$T/ca.pem" "$T/tokens" 20 $conns)"
	done
	kill -TERM "$rd"
	wait "$rd" 2>/dev/null || :
}
run "plain HTTP"
run "HTTPS" "tls_cert: $T/srv.pem" "tls_key: $T/srv.key"
