#!/bin/sh
# test_robotd_durable.sh ROBOTD ROBOT_BOX ROBOT SOURCE_DIR: nothing robotd
# acknowledged is lost.  A stream of submits (submit_stream.py) runs
# while the embedded PostgreSQL's postmaster is killed with SIGKILL
# (robotd must start it again by itself, robot_up 0 meanwhile), then
# while robotd itself is killed with SIGKILL and started again; every
# acknowledged submit must be in the database afterwards.  TAP output.
set -u
ROBOTD=$1 BOX=$2 ROBOT=$3 SRC=$4
. "$SRC/tests/integration/robotd_lib.sh"

cat >"$T/robotd.yaml" <<YAML
state_dir: $T/state
YAML
start_robotd d --config "$T/robotd.yaml" || { echo "1..0 # robotd did not start"; exit 1; }
U=$URL_d
SUB=$(token submit alice)
echo "1..7"

metric_up() { curl -s "$U/metrics" | grep -q "^robot_up $1\$"; }

# missing: the acknowledged submits (and their jobs) not in the database.
missing() {
	awk '{print $1}' "$T/acked" | sort >"$T/acked.ids"
	sql "SELECT id FROM submissions" | sort >"$T/stored.ids"
	awk '{print $2}' "$T/acked" | sort >"$T/acked.commits"
	sql "SELECT commit FROM jobs" | sort >"$T/stored.commits"
	echo $(($(comm -23 "$T/acked.ids" "$T/stored.ids" | wc -l) +
		$(comm -23 "$T/acked.commits" "$T/stored.commits" | wc -l)))
}

: >"$T/acked"
/usr/bin/python3 "$SRC/tests/integration/submit_stream.py" "$U" "$SUB" "$T/acked" "$T/stop" 2>>"$T/stream.log" &
SP=$!
PIDS="$PIDS $SP"
sleep 3
kill -9 "$(head -1 "$T/state/pg/data/postmaster.pid")"
wait_for 10 metric_up 0
check $? "robot_up is 0 while the database is down"
wait_for 90 metric_up 1
check $? "robotd starts its database again by itself, and robot_up is 1"
wait_for 30 grep -q "restarted the embedded database" "$T/d.log"
check $? "robotd logs that it restarted the database"
sleep 3
touch "$T/stop"
wait "$SP"
sed 's/^/# /' "$T/stream.log"
a1=$(wc -l <"$T/acked")
m=$(missing)
check $([ "$a1" -gt 100 ] && [ "$m" = 0 ]; echo $?) \
	"a kill -9 of PostgreSQL under a submit stream: $a1 acknowledged, $m lost"

rm -f "$T/stop"
/usr/bin/python3 "$SRC/tests/integration/submit_stream.py" "$U" "$SUB" "$T/acked" "$T/stop" 2>>"$T/stream.log" &
SP=$!
PIDS="$PIDS $SP"
sleep 3
kill9 "$PID_d"
sleep 1
touch "$T/stop"
wait "$SP"
start_robotd d2 --config "$T/robotd.yaml" --listen "${U#http://}"
check $? "robotd starts again after a kill -9 (its database still running)"
a2=$(wc -l <"$T/acked")
m=$(missing)
check $([ "$a2" -gt "$a1" ] && [ "$m" = 0 ]; echo $?) \
	"a kill -9 of robotd under a submit stream: $((a2 - a1)) more acknowledged, $m lost"
U=$URL_d2
check $(metric_up 1; echo $?) "the new robotd reaches the database"
exit $((failed > 0))
