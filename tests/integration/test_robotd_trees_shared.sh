#!/bin/sh
# test_robotd_trees_shared.sh ROBOTD ROBOT_BOX ROBOT SOURCE_DIR: two
# robotd on one database share a tree: only one fetches it at a time, a
# robotd killed -9 mid-fetch takes its git with it, and the other fetches
# the tree once the dead one's claim has run out.  TAP.
set -u
ROBOTD=$1 BOX=$2 ROBOT=$3 SRC=$4
. "$SRC/tests/integration/robotd_lib.sh"

robotd_up "tree_fetch_timeout: 3"
echo "1..5"
dd_job "$T/dd.yaml"

# Two robotd on one database share a tree: only one fetches it at a
# time.  A git:// server that never answers logs when each fetch connects
# and hangs up; a robotd killed -9 mid-fetch takes its git with it, and
# the other fetches the tree once the dead one's claim has run out.
cat >"$T/robotd-e.yaml" <<YAML
state_dir: $T/state-e
tree_fetch_timeout: 3
YAML
start_robotd e --db "host=$T/state/pg/run user=robot dbname=postgres" --config "$T/robotd-e.yaml" ||
	diag "robotd e did not start"
/usr/bin/python3 -c "
import socket, threading, time
s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(8)
print(s.getsockname()[1], flush=True)
def hold(c):
    t = time.time()
    while c.recv(4096):
        pass
    print('%.3f %.3f' % (t, time.time()), flush=True)
while True:
    c, _ = s.accept()
    print('open', flush=True)
    threading.Thread(target=hold, args=(c,), daemon=True).start()
" >"$T/shared.log" 2>/dev/null &
PIDS="$PIDS $!"
wait_for 10 test -s "$T/shared.log"
SPORT=$(head -1 "$T/shared.log")
robot tree add shared --url "git://127.0.0.1:$SPORT/x.git" --job "$T/dd.yaml" --poll 5 >/dev/null 2>&1
# opens N, closes N: at least N fetches connected, ended.
opens() { [ "$(grep -c '^open$' "$T/shared.log")" -ge "$1" ]; }
closes() { [ "$(grep -c '^[0-9.]* [0-9.]*$' "$T/shared.log")" -ge "$1" ]; }
# The first fetch, then the second (after a 10 s backoff): kill the
# robotd whose git is connected.
wait_for 30 closes 1
wait_for 30 opens 2
victim=none git=
for p in $PID_d $PID_e; do
	c=$(ps -o pid= --ppid "$p" | tr -d ' ' | head -1)
	[ -n "$c" ] && victim=$p git=$c
done
# git may use only the transports robotd's URL check allows, whatever
# a URL (or a submodule, or a redirect) asks for.
allow=$(tr '\0' '\n' <"/proc/${git:-0}/environ" 2>/dev/null | sed -n 's/^GIT_ALLOW_PROTOCOL=//p')
check $([ "$allow" = "file:git:http:https:ssh" ]; echo $?) \
	"robotd's git runs with GIT_ALLOW_PROTOCOL ($allow)"
kill -9 "$victim" 2>/dev/null
wait_for 2 closes 2
check $? "robotd killed -9 mid-fetch: its git goes with it (robotd $victim)"
wait_for 90 closes 3
check $? "the other robotd fetches the tree after the dead one's claim ran out"
ov=$(grep '^[0-9.]* [0-9.]*$' "$T/shared.log" | sort -n | awk '{ if (NR > 1 && $1 < end) o++; end = $2 } END { print NR " " o + 0 }')
check $([ "${ov#* }" = 0 ] && [ "${ov% *}" -ge 3 ]; echo $?) \
	"two robotd fetch a shared tree one at a time (fetches, overlaps: $ov)"
sed -n 's/.*robotd: \(tree shared: .*\)/# \1/p' "$T/d.log" "$T/e.log" | head -6

sanitizer_clean
exit $((failed > 0))
