#!/bin/sh
# test_robotd_tls.sh ROBOTD ROBOT_BOX ROBOT SOURCE_DIR: robotd serves
# HTTPS itself (tls_cert, tls_key; issue 56), and its clients verify it:
# a test CA (openssl) signs its certificate; curl, robot and robot-box
# reach it with that CA and refuse it without; a renewed certificate is
# read on SIGHUP without dropping a long-poll in flight, and a key that
# does not fit is refused with the old certificate kept; robot and
# robot-box refuse plain http to an address not on this machine (in a
# network namespace of the test's own) unless told --insecure-http.
# TAP.
set -u
ROBOTD=$1 BOX=$2 ROBOT=$3 SRC=$4
. "$SRC/tests/integration/robotd_lib.sh"
echo "1..8"

# A CA and robotd's certificate for 127.0.0.1, and a renewal of it.
C=$T/ca
mkdir -p "$C"
cert() { # cert NAME: NAME.key and NAME.pem, for 127.0.0.1, signed by the CA
	openssl req -newkey rsa:2048 -nodes -keyout "$C/$1.key" -out "$C/$1.csr" -subj "/CN=127.0.0.1" 2>/dev/null &&
		openssl x509 -req -in "$C/$1.csr" -CA "$C/ca.pem" -CAkey "$C/ca.key" -CAcreateserial \
			-out "$C/$1.pem" -days 2 -extfile "$C/ext" 2>/dev/null
}
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$C/ca.key" -out "$C/ca.pem" -days 2 \
	-subj "/CN=robot test CA" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$C/ext"
cert srv && cert renewed
cp "$C/srv.pem" "$C/live.pem"
cp "$C/srv.key" "$C/live.key"
# serial URL-HOST:PORT: the serial of the certificate a new handshake gets
serial() { echo | openssl s_client -connect "$1" -CAfile "$C/ca.pem" 2>/dev/null | openssl x509 -noout -serial 2>/dev/null; }

# 1. The configuration: HTTPS wants both files, each readable.
printf 'tls_cert: %s\n' "$C/live.pem" >"$T/half.yaml"
"$ROBOTD" --config "$T/half.yaml" --check-config >"$T/half.out" 2>&1
rc=$?
printf 'state_dir: %s/bad\ntls_cert: %s\ntls_key: %s\n' "$T" "$C/nosuch.pem" "$C/live.key" >"$T/bad.yaml"
"$ROBOTD" --config "$T/bad.yaml" --listen 127.0.0.1:0 >"$T/bad.out" 2>&1
rc2=$?
check $([ $rc = 2 ] && grep -q "tls_cert without tls_key: HTTPS needs the certificate and its key" "$T/half.out" &&
	[ $rc2 = 1 ] && grep -q "cannot read the certificate '$C/nosuch.pem'" "$T/bad.out"; echo $?) \
	"tls_cert without tls_key is a configuration error; a certificate that cannot be read stops robotd, saying which ($rc $rc2)"

# 2. robotd serves HTTPS: with the CA, curl and robot get their answers;
# without it, a certificate problem; plain http on its port, nothing.
robotd_up "tls_cert: $C/live.pem
tls_key: $C/live.key"
HP=${U#https://}
export CURL_CA_BUNDLE="$C/ca.pem" # (robotd_lib's api() and token())
s=$(api GET "$U/api/status" "")
s2=$(curl -s -o /dev/null -w '%{http_code}' --cacert /dev/null "$U/api/status" 2>/dev/null)
s3=$(curl -s -o /dev/null -w '%{http_code}' "http://$HP/api/status" 2>/dev/null)
ROBOT_SERVER=$U "$ROBOT" status --ca-file "$C/ca.pem" >"$T/st1.out" 2>&1
rc=$?
ROBOT_SERVER=$U ROBOT_CA_FILE="$C/ca.pem" "$ROBOT" status >"$T/st2.out" 2>&1
rc2=$?
ROBOT_SERVER=$U "$ROBOT" status >"$T/st3.out" 2>&1
rc3=$?
check $(case $U in https://*) true ;; *) false ;; esac && [ "$s" = 200 ] && [ "$s2" = 000 ] && [ "$s3" != 200 ] &&
	[ $rc = 0 ] && [ $rc2 = 0 ] && [ $rc3 = 1 ] && grep -q "SSL certificate problem" "$T/st3.out"; echo $?) \
	"robotd serves HTTPS ($U): with its CA curl and robot (--ca-file, ROBOT_CA_FILE) are answered; without it, a certificate problem; plain http, no answer ($s $s2 $s3; $rc $rc2 $rc3)"

# 3. robot-box reaches it with the CA: it registers (and waits for work).
BT=$(token box tlsbox)
printf 'name: tlsbox\ntbox_group: tls\nworkdir: %s/box\n' "$T" >"$T/box.yaml"
ROBOT_SERVER=$U ROBOT_TOKEN=$BT "$BOX" serve --config "$T/box.yaml" --ca-file "$C/ca.pem" >"$T/box.log" 2>&1 &
PIDS="$PIDS $!"
BOXPID=$!
registered() { [ "$(sql "SELECT count(*) FROM boxes WHERE name = 'tlsbox'")" = 1 ]; }
wait_for 60 registered
reg=$?
kill -TERM "$BOXPID" 2>/dev/null
wait "$BOXPID" 2>/dev/null
check $([ $reg = 0 ]; echo $?) "robot-box --ca-file registers over HTTPS ($(tail -1 "$T/box.log"))"

# 4. A renewed certificate in the same files, read on SIGHUP: a new
# handshake gets it; a long-poll begun before goes on to its end.
before=$(serial "$HP")
curl -s -o "$T/poll.out" -w '%{http_code}' -X POST -H "Authorization: Bearer $BT" \
	"$U/api/boxes/tlsbox/lease?wait=4" >"$T/poll.code" 2>"$T/poll.err" &
POLL=$!
sleep 1
cp "$C/renewed.pem" "$C/live.pem"
cp "$C/renewed.key" "$C/live.key"
kill -HUP "$PID_d"
wait_for 10 grep -q "read the certificate '$C/live.pem' again" "$T/d.log"
after=$(serial "$HP")
wait "$POLL"
check $([ -n "$before" ] && [ -n "$after" ] && [ "$before" != "$after" ] && [ "$(cat "$T/poll.code")" = 204 ]; echo $?) \
	"SIGHUP reads a renewed certificate: new handshakes get it ($before -> $after); a long-poll begun before ends as it would ($(cat "$T/poll.code"))"

# 5. A key that is not the certificate's: refused on SIGHUP, the
# certificate before kept.
cp "$C/srv.key" "$C/live.key"
kill -HUP "$PID_d"
wait_for 10 grep -q "is not the certificate '$C/live.pem''s; keeping the certificate before" "$T/d.log"
kept=$?
again=$(serial "$HP")
check $([ $kept = 0 ] && [ "$again" = "$after" ] && [ "$(api GET "$U/api/status" "")" = 200 ]; echo $?) \
	"a key that does not fit the certificate is refused on SIGHUP; the one before stays ($again)"
stop "$PID_d"

# 6. Plain http to another machine: robot and robot-box refuse it before
# connecting, unless told --insecure-http.  The other machine is an
# address of a network namespace of this test's own, where a robotd
# serves plain HTTP.
NS=robot-tls-$$
ip netns add "$NS" || { echo "Bail out! cannot make a network namespace"; exit 1; }
cleanup_ns() { ip netns pids "$NS" 2>/dev/null | xargs -r kill -9 2>/dev/null; ip netns del "$NS" 2>/dev/null; }
trap 'cleanup_ns; finish' EXIT
ip -n "$NS" link set lo up
ip -n "$NS" addr add 10.231.0.1/32 dev lo
printf 'state_dir: %s/state\n' "$T" >"$T/plain.yaml"
ip netns exec "$NS" "$ROBOTD" --config "$T/plain.yaml" --listen 10.231.0.1:8420 >"$T/ns.log" 2>&1 &
NSD=$!
PIDS="$PIDS $NSD"
wait_for 60 grep -q "listening on http://10.231.0.1:8420" "$T/ns.log"
ip netns exec "$NS" "$ROBOT" status --server http://10.231.0.1:8420 >"$T/ns1.out" 2>&1
rc=$?
ip netns exec "$NS" "$ROBOT" status --server http://10.231.0.1:8420 --insecure-http >"$T/ns2.out" 2>&1
rc2=$?
ip netns exec "$NS" env ROBOT_TOKEN="$BT" "$BOX" serve --server http://10.231.0.1:8420 --config "$T/box.yaml" >"$T/ns3.out" 2>&1
rc3=$?
check $([ $rc = 1 ] && grep -q "refusing plain http to 10.231.0.1: a token would cross the network in clear" "$T/ns1.out" &&
	[ $rc2 = 0 ] && grep -q "^queue:" "$T/ns2.out" && [ $rc3 = 2 ] && grep -q "refusing plain http to 10.231.0.1" "$T/ns3.out"; echo $?) \
	"plain http to another machine: robot and robot-box refuse it before connecting; robot --insecure-http allows it ($rc $rc2 $rc3)"
stop "$NSD"
cleanup_ns

# 7. Loopback stays allowed in plain http (the tests, the quickstart).
printf 'state_dir: %s/state\n' "$T" >"$T/plain2.yaml"
start_robotd p --config "$T/plain2.yaml"
ROBOT_SERVER=$URL_p "$ROBOT" status >"$T/lo.out" 2>&1
rc=$?
check $([ $rc = 0 ]; echo $?) "plain http to this machine ($URL_p) needs no flag ($rc)"
stop "$PID_p"
sanitizer_clean
exit $((failed > 0))
