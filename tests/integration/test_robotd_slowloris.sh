#!/bin/sh
# test_robotd_slowloris.sh ROBOTD ROBOT_BOX ROBOT SOURCE_DIR: robotd under
# a slowloris attack from another address (a network namespace of the
# test's own, on a veth pair): 300 connections that send their headers a
# byte a second.  robotd (max_connections 200, 32 per client, a request
# deadline of 3 s) must keep serving a client from the host address,
# hold at most 32 of the attacker's connections, and close those that
# dawdle past the deadline.  TAP output.
set -u
ROBOTD=$1 BOX=$2 ROBOT=$3 SRC=$4
. "$SRC/tests/integration/robotd_lib.sh"

NS=rbtslow$$
NET=10.213.$(($$ % 250)).
VETH=vslow$$
cleanup_ns() {
	ip link del "$VETH" 2>/dev/null
	ip netns del "$NS" 2>/dev/null
}
trap 'cleanup_ns; finish' EXIT
if ! ip netns add "$NS" 2>/dev/null; then
	echo "1..0 # SKIP cannot make a network namespace"
	exit 77
fi
ip netns exec "$NS" ip link set lo up
ip link add "$VETH" type veth peer name eth0 netns "$NS"
ip addr add "${NET}1/24" dev "$VETH"
ip link set "$VETH" up
ip netns exec "$NS" ip addr add "${NET}2/24" dev eth0
ip netns exec "$NS" ip link set eth0 up

cat >"$T/robotd.yaml" <<YAML
state_dir: $T/state
max_connections: 200
max_connections_per_client: 32
request_timeout: 3
YAML
start_robotd d --config "$T/robotd.yaml" --listen "${NET}1:0" ||
	{ echo "1..0 # robotd did not start"; exit 1; }
U=$URL_d
PORT=${U##*:}
echo "1..8"

# served URL SECONDS: how many of 50 GET URL/api/status answered 200
# within SECONDS each.
served() {
	n=0
	for i in $(seq 1 50); do
		c=$(curl -s -m "$2" -o /dev/null -w '%{http_code}' "$1/api/status")
		[ "$c" = 200 ] && n=$((n + 1))
		sleep 0.1
	done
	echo $n
}

ip netns exec "$NS" /usr/bin/python3 "$SRC/tests/integration/slowloris.py" "${NET}1" "$PORT" 300 15 \
	>"$T/attack" 2>&1 &
ATTACK=$!
PIDS="$PIDS $ATTACK"
sleep 4
ok=$(served "$U" 5)
check $([ $ok = 50 ]; echo $?) "a client from another address is served during the attack ($ok of 50)"
wait $ATTACK
sed 's/^/# attacker: /' "$T/attack"
most=$(sed -n 's/^most_open //p' "$T/attack")
closed=$(sed -n 's/^deadline_closed //p' "$T/attack")
check $([ -n "$most" ] && [ "$most" -le 32 ]; echo $?) \
	"the attacker holds at most 32 connections at once ($most)"
check $([ -n "$closed" ] && [ "$closed" -ge 32 ]; echo $?) \
	"robotd closes connections that dawdle past the request deadline ($closed closed)"
check $(kill -0 "$PID_d" 2>/dev/null; echo $?) "robotd is still running"
stop "$PID_d"

# From 8 addresses at 32 each the attack is over max_connections (100
# here), and the request deadline is 30 s: robotd closes the oldest
# connection that has sent no headers when it is at its cap, and a
# client is served: each request waits its turn in the kernel's queue of
# connections behind the attacker's, a few seconds at most on a loaded
# machine.  (Before, every slot was the attacker's until a timeout, and
# the client could not connect: 19 of 50 in 5 s each.)
SRCS=""
for i in 10 11 12 13 14 15 16 17; do
	ip netns exec "$NS" ip addr add "${NET}$i/24" dev eth0
	SRCS="$SRCS${SRCS:+,}${NET}$i"
done
cat >"$T/capped.yaml" <<YAML
state_dir: $T/state
max_connections: 100
max_connections_per_client: 32
request_timeout: 30
YAML
start_robotd e --config "$T/capped.yaml" --listen "${NET}1:0" ||
	{ echo "not ok 5 - robotd did not start"; exit 1; }
U=$URL_e
PORT=${U##*:}
ip netns exec "$NS" /usr/bin/python3 "$SRC/tests/integration/slowloris.py" "${NET}1" "$PORT" 300 40 "$SRCS" \
	>"$T/attack2" 2>&1 &
ATTACK=$!
PIDS="$PIDS $ATTACK"
sleep 4
ok=$(served "$U" 15)
wait $ATTACK
sed 's/^/# attacker: /' "$T/attack2"
# (At least 45: on a loaded machine a newcomer can be the oldest
# connection without headers before its client writes them, and be
# closed; twice in CI one of 50 was.  Before: 19.)
check $([ $ok -ge 45 ]; echo $?) "over max_connections from 8 addresses, a client is still served ($ok of 50)"
check $(grep -q "at the connection cap (100): closed [0-9]* connections that had sent no headers" "$T/e.log" &&
	kill -0 "$PID_e" 2>/dev/null; echo $?) "robotd says it closed connections at its cap, and runs on"

# A body that keeps coming is not cut at request_timeout (3 s): a
# box's 400 KB sent at 40 KB/s takes 10 s and is answered (issue 61: a
# slow but live upload was cut, and every retry the same way); one that
# averages less than 4 KiB/s is closed after it, as a slowloris is.
stop "$PID_e"
start_robotd f --config "$T/robotd.yaml" || { echo "not ok 7 - robotd did not start"; exit 1; }
SUB=$(token submit alice)
{ printf 'suite: dd-write\ntestcase: dd-write\n# '; head -c 400000 /dev/zero | tr '\0' x; printf '\n'; } >"$T/slow.yaml"
t0=$(date +%s)
s=$(curl -s -m 60 -o "$T/slow.out" -w '%{http_code}' --limit-rate 40k -X POST -H "Authorization: Bearer $SUB" \
	--data-binary @"$T/slow.yaml" "$URL_f/api/jobs?tbox_group=lab")
took=$(($(date +%s) - t0))
check $([ "$s" != 000 ] && [ $took -ge 6 ]; echo $?) "a body sent at 40 KB/s for ${took} s is answered ($s)"
head -c 40000 "$T/slow.yaml" >"$T/slower.yaml"
t0=$(date +%s)
s=$(curl -s -m 60 -o /dev/null -w '%{http_code}' --limit-rate 1k -X POST -H "Authorization: Bearer $SUB" \
	--data-binary @"$T/slower.yaml" "$URL_f/api/jobs?tbox_group=lab")
took=$(($(date +%s) - t0))
check $([ "$s" = 000 ] && [ $took -le 15 ]; echo $?) "a body sent at 1 KB/s is closed soon after request_timeout ($s after ${took} s)"
exit $((failed > 0))
