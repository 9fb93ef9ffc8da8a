#!/bin/sh
# test_robotd_proxy.sh ROBOTD ROBOT_BOX ROBOT SOURCE_DIR: robotd behind
# HAProxy terminating TLS (issue 56), with the configuration docs/
# deploy.md gives (dist/haproxy/robotd.cfg, its port, certificate and
# robotd's address put in): robot and robot-box verify the proxy's
# certificate; a box enrolls, registers and long-polls for the whole of
# robotd's long_poll through it; robotd reads each client's address from
# the X-Forwarded-For that HAProxy appends (trusted_proxy), so that one
# client's subscriptions are limited and another's are not, and what a
# client writes there itself is not believed; the proxy's connections
# are not held to max_connections_per_client.  A bad trusted_proxy is a
# configuration error.  TAP.
set -u
ROBOTD=$1 BOX=$2 ROBOT=$3 SRC=$4
. "$SRC/tests/integration/robotd_lib.sh"
echo "1..9"
HAPROXY=$(command -v haproxy || echo /usr/sbin/haproxy)
if [ ! -x "$HAPROXY" ]; then
	echo "Bail out! haproxy is not installed (scripts/deps installs it)"
	exit 1
fi

# 1. trusted_proxy takes IP addresses only.
printf 'trusted_proxy: 127.0.0.1, proxy.example.org\n' >"$T/bad.yaml"
"$ROBOTD" --config "$T/bad.yaml" --check-config >"$T/bad.out" 2>&1
rc=$?
printf 'trusted_proxy: 127.0.0.1 ::1,10.0.0.1\n' >"$T/good.yaml"
"$ROBOTD" --config "$T/good.yaml" --check-config >"$T/good.out" 2>&1
rc2=$?
check $([ $rc = 2 ] && grep -q "trusted_proxy: 'proxy.example.org' is not an IP address" "$T/bad.out" &&
	[ $rc2 = 0 ]; echo $?) "trusted_proxy: a name instead of an address is a configuration error; addresses by spaces or commas are not ($rc $rc2)"

# A CA, and the proxy's certificate for 127.0.0.1 with its key in one PEM.
C=$T/ca
mkdir -p "$C"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$C/ca.key" -out "$C/ca.pem" -days 2 \
	-subj "/CN=robot test CA" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\n' >"$C/ext"
openssl req -newkey rsa:2048 -nodes -keyout "$C/px.key" -out "$C/px.csr" -subj "/CN=127.0.0.1" 2>/dev/null
openssl x509 -req -in "$C/px.csr" -CA "$C/ca.pem" -CAkey "$C/ca.key" -CAcreateserial \
	-out "$C/px.crt" -days 2 -extfile "$C/ext" 2>/dev/null
cat "$C/px.crt" "$C/px.key" >"$C/px.pem"

# robotd on loopback, plain HTTP, trusting the proxy; HAProxy in front.
robotd_up "trusted_proxy: 127.0.0.1
max_connections_per_client: 2"
RP=${U##*:}
HP=$(/usr/bin/python3 -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
sed -e "s|bind :8443 ssl crt /etc/haproxy/robotd.pem|bind 127.0.0.1:$HP ssl crt $C/px.pem|" \
	-e "s|server robotd 127.0.0.1:8420|server robotd 127.0.0.1:$RP|" \
	"$SRC/dist/haproxy/robotd.cfg" >"$T/haproxy.cfg"
"$HAPROXY" -db -f "$T/haproxy.cfg" >"$T/haproxy.log" 2>&1 &
HPID=$!
PIDS="$PIDS $HPID"
P=https://127.0.0.1:$HP
export CURL_CA_BUNDLE="$C/ca.pem"
up() { [ "$(api GET "$P/api/status" "")" = 200 ]; }
wait_for 20 up

# 2. Through the proxy with its CA: curl and robot; without it, refused.
s=$(api GET "$P/api/status" "")
ROBOT_SERVER=$P ROBOT_TOKEN=$ADMIN "$ROBOT" status --ca-file "$C/ca.pem" >"$T/st.out" 2>&1
r1=$?
ROBOT_SERVER=$P ROBOT_TOKEN=$ADMIN "$ROBOT" status --ca-file /dev/null >"$T/st2.out" 2>&1
r2=$?
check $([ "$s" = 200 ] && [ $r1 = 0 ] && [ $r2 = 1 ] && grep -qi "certificate" "$T/st2.out"; echo $?) \
	"robot and curl reach robotd through HAProxy's TLS with its CA, and refuse it without ($s $r1 $r2)"

# 3. A box enrolls and registers through the proxy.
CODE=$("$ROBOTD" --config "$T/robotd.yaml" box enroll px1 --group lab 2>/dev/null)
printf 'workdir: %s/px1\nsettle: 0\n' "$T" >"$T/px1.yaml"
"$BOX" enroll "$P" "$CODE" --config "$T/px1.yaml" --ca-file "$C/ca.pem" >"$T/en.out" 2>&1
r1=$?
"$BOX" serve --config "$T/px1.yaml" --ca-file "$C/ca.pem" >"$T/px1.log" 2>&1 &
BPID=$!
PIDS="$PIDS $BPID"
wait_for 30 grep -q "registered px1" "$T/px1.log"
check $([ $r1 = 0 ] && grep -q "registered px1 (tbox_group lab) with $P" "$T/px1.log" &&
	sql_is lab "SELECT tbox_group FROM boxes WHERE name = 'px1'"; echo $?) \
	"a box enrolls and registers through HAProxy, verifying it with the CA ($r1)"
stop "$BPID"

# 4. A long-poll for the whole of robotd's long_poll (30 s) comes back
# as robotd's 204, not as the proxy's timeout.
TOKP=$(cat "$T/px1/token")
t0=$(date +%s)
s=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "Authorization: Bearer $TOKP" "$P/api/boxes/px1/lease")
t=$(($(date +%s) - t0))
check $([ "$s" = 204 ] && [ $t -ge 28 ]; echo $?) \
	"a box's long-poll through HAProxy waits robotd's 30 s and ends with its 204 ($s after $t s)"

# 5. Four boxes wait at once through the proxy although
# max_connections_per_client is 2: the proxy is not held to it.
for i in 1 2 3 4; do
	tk=$(token box "w$i")
	printf '{"tbox_group": "lab"}' >"$T/w.json"
	curl -s -o /dev/null -X POST -H "Authorization: Bearer $tk" --data-binary @"$T/w.json" "$P/api/boxes/w$i/register"
	curl -s -o "$T/w$i.code" -w '%{http_code}' -X POST -H "Authorization: Bearer $tk" "$P/api/boxes/w$i/lease?wait=4" >"$T/w$i.st" &
done
wait_for 20 sh -c "[ \$(cat $T/w1.st $T/w2.st $T/w3.st $T/w4.st 2>/dev/null | wc -c) = 12 ]"
check $([ "$(cat "$T/w1.st" "$T/w2.st" "$T/w3.st" "$T/w4.st")" = 204204204204 ]; echo $?) \
	"four long-polls at once through HAProxy, with max_connections_per_client 2: each its 204 ($(cat "$T"/w?.st | tr '\n' ' '))"

# 6. Subscriptions are limited per client, the client as HAProxy saw it:
# ten from 127.0.0.2, the eleventh refused; 127.0.0.3 still may.
sub() { # sub FROM EMAIL [HEADER]: the status of a subscription asked from FROM
	printf '{"email": "%s"}' "$2" >"$T/sub.json"
	curl -s -o "$T/body" -w '%{http_code}' --interface "$1" ${3:+-H "$3"} \
		-H 'Content-Type: application/json' --data-binary @"$T/sub.json" "$P/api/subscriptions"
}
codes=
for i in 1 2 3 4 5 6 7 8 9 10; do codes="$codes$(sub 127.0.0.2 "a$i@proxy.test")"; done
s11=$(sub 127.0.0.2 a11@proxy.test)
m11=$(cat "$T/body")
s12=$(sub 127.0.0.3 b1@proxy.test)
check $([ "$codes" = "$(printf '202%.0s' 1 2 3 4 5 6 7 8 9 10)" ] && [ "$s11" = 429 ] &&
	echo "$m11" | grep -q "ten subscriptions were asked from your address in the last hour" &&
	[ "$s12" = 202 ] &&
	sql_is 10 "SELECT count(*) FROM subscriptions WHERE client = '127.0.0.2'" &&
	sql_is 1 "SELECT count(*) FROM subscriptions WHERE client = '127.0.0.3'"; echo $?) \
	"one client's subscriptions through HAProxy are limited by its own address, not the proxy's ($s11 $s12)"

# 7. What a client writes in X-Forwarded-For itself is not believed.
s=$(sub 127.0.0.2 c1@proxy.test "X-Forwarded-For: 127.0.0.9")
check $([ "$s" = 429 ] && sql_is 0 "SELECT count(*) FROM subscriptions WHERE client = '127.0.0.9'"; echo $?) \
	"a client's own X-Forwarded-For does not make it another client ($s)"

# 8. HAProxy logged each request.
check $(grep -q "robot~ robotd/robotd .* \"POST /api/subscriptions HTTP/1.1\"" "$T/haproxy.log"; echo $?) "HAProxy logs each request it passes to robotd, TLS in front (robot~)"
stop "$HPID"

sanitizer_clean
exit $((failed > 0))
