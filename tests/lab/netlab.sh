# netlab.sh: a lab of hosts on one machine (sourced; issue 56): each
# host a network namespace of its own with one address on 10.77.0.0/24,
# its veth pair's other end on a bridge in a namespace of the lab's own
# (the switch), so that nothing of the machine's own network is touched.
# The namespaces are named after the test's shell ($NETLAB), and
# netlab_down deletes them; what runs in them is stopped by PID by the
# test (robotd_lib.sh's PIDS).
#
#   netlab_up                 the switch
#   netlab_host NAME N        host NAME at 10.77.0.N; ns NAME: its namespace
#   on NAME CMD...            CMD in host NAME's namespace
#   on_bg NAME CMD...         the same in the background: $! is CMD's own
#                             PID (ip netns exec execs it), added to PIDS;
#                             never "on ... &", whose $! is a subshell's
#                             that leaves CMD running when it is killed
#   netlab_loss NAME PCT      NAME drops PCT% of the packets it sends and
#                             of those it receives (nftables: numgen)
#   netlab_cut NAME N         NAME's traffic with 10.77.0.N dropped, both
#                             ways (a partition); netlab_heal NAME ends it
#   netlab_relay NAME N PORT DELAY JITTER: on NAME's 127.0.0.1, a relay to
#                             10.77.0.N:PORT that delays each chunk DELAY
#                             +- JITTER ms (this kernel has no netem);
#                             its port in $RELAY_PORT
#
# Needs root, iproute2 and nftables (scripts/deps installs it).
NETLAB=rl$$
netlab_up() {
	ip netns add "$NETLAB-sw" &&
		ip -n "$NETLAB-sw" link add br0 type bridge &&
		ip -n "$NETLAB-sw" link set br0 up &&
		ip -n "$NETLAB-sw" link set lo up
}
ns() { echo "$NETLAB-$1"; }
on() {
	_on_ns=$(ns "$1")
	shift
	ip netns exec "$_on_ns" "$@"
}
on_bg() {
	_on_ns=$(ns "$1")
	shift
	ip netns exec "$_on_ns" "$@" &
	PIDS="$PIDS $!"
}
netlab_host() {
	ip netns add "$(ns "$1")" &&
		ip -n "$NETLAB-sw" link add "$1" type veth peer name eth0 netns "$(ns "$1")" &&
		ip -n "$NETLAB-sw" link set "$1" master br0 up &&
		ip -n "$(ns "$1")" addr add "10.77.0.$2/24" dev eth0 &&
		ip -n "$(ns "$1")" link set eth0 up &&
		ip -n "$(ns "$1")" link set lo up &&
		on "$1" nft -f - <<NFT
table inet lab {
	chain loss_in { type filter hook input priority 0; }
	chain loss_out { type filter hook output priority 0; }
	chain cut_in { type filter hook input priority 1; }
	chain cut_out { type filter hook output priority 1; }
}
NFT
}
netlab_loss() {
	on "$1" nft flush chain inet lab loss_in &&
		on "$1" nft flush chain inet lab loss_out &&
		on "$1" nft add rule inet lab loss_in iifname eth0 numgen random mod 100 "<" "$2" drop &&
		on "$1" nft add rule inet lab loss_out oifname eth0 numgen random mod 100 "<" "$2" drop
}
netlab_cut() {
	on "$1" nft add rule inet lab cut_in ip saddr "10.77.0.$2" drop &&
		on "$1" nft add rule inet lab cut_out ip daddr "10.77.0.$2" drop
}
netlab_heal() {
	on "$1" nft flush chain inet lab cut_in &&
		on "$1" nft flush chain inet lab cut_out
}
netlab_relay() {
	rm -f "$T/relay-$1.port"
	on_bg "$1" /usr/bin/python3 "$SRC/tests/lab/relay.py" 0 "10.77.0.$2" "$3" "$4" "$5" \
		"$T/relay-$1.port" 2>>"$T/relay-$1.log"
	wait_for 10 test -s "$T/relay-$1.port"
	RELAY_PORT=$(cat "$T/relay-$1.port")
}
netlab_down() {
	for n in $(ip netns list | awk -v p="$NETLAB-" 'index($1, p) == 1 {print $1}'); do
		ip netns del "$n"
	done
}
