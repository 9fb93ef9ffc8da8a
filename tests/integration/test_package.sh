#!/bin/sh
# test_package.sh SOURCE_DIR: robot installed as a service (issue 57,
# docs/deploy.md), as root: scripts/package builds the Debian packages,
# lintian finds no error in them, apt-get installs them; robotd runs as
# its installed unit says (its ExecStartPre, ExecStart, User,
# environment and StateDirectory, and a notification socket for
# Type=notify: these machines have no systemd as PID 1), a box token is
# made, the box runs as its unit says, a dd job goes through it to its
# result, and robotd backup writes the database as the unit's user;
# then remove keeps the state, purge removes it.  The units
# pass systemd-analyze verify, and their exposure is printed.  TAP.
#
# It runs in a mount namespace of its own whose /var/lib/robot,
# /var/lib/robot-box and /etc/robot are fresh (a quickstart's state in
# /var/lib/robot, owned by root, is not touched); the packages are
# installed for real and purged at the end, even when a check fails.
set -u
SRC=$1

if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP installing packages needs root"
	exit 77
fi
if [ -z "${ROBOT_PACKAGE_NS:-}" ]; then
	# The namespace: the rest of this script, again, inside it.
	ROBOT_PACKAGE_NS=1 exec unshare --mount --propagation private "$0" "$@"
fi

T=$(mktemp -d /tmp/robot-package-test.XXXXXX)
chmod 755 "$T"
PIDS=""
SAVED=""
for k in dirty_ratio dirty_background_ratio dirty_bytes dirty_background_bytes; do
	SAVED="$SAVED $k=$(cat /proc/sys/vm/$k)"
done
finish() {
	for p in $PIDS; do kill -TERM "$p" 2>/dev/null; done
	sleep 1
	for p in $PIDS; do kill -KILL "$p" 2>/dev/null; done
	if dpkg-query -W -f='${Status}' robot 2>/dev/null | grep -q installed ||
		dpkg-query -W -f='${Status}' robot-box 2>/dev/null | grep -q installed; then
		DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq robot robot-box >/dev/null 2>&1
	fi
	for kv in $SAVED; do
		k=${kv%%=*} v=${kv#*=}
		case $k in *_ratio) echo "$v" >/proc/sys/vm/$k ;; esac
	done 2>/dev/null
	for kv in $SAVED; do
		k=${kv%%=*} v=${kv#*=}
		case $k in *_bytes) [ "$v" != 0 ] && echo "$v" >/proc/sys/vm/$k ;; esac
	done 2>/dev/null
	rm -rf "$T"
}
trap finish EXIT
trap 'exit 1' INT TERM

. "$SRC/tests/integration/tap.sh"
# wait_for SECONDS COMMAND...: until COMMAND succeeds (false at the end).
wait_for() {
	_w=$(($1 * 10))
	shift
	while [ $_w -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		_w=$((_w - 1))
	done
	return 1
}
# unit_key UNIT KEY: KEY's value in the installed unit (the last one).
unit_key() { sed -n "s/^$2=//p" "/lib/systemd/system/$1" | tail -1; }
echo "1..7"

# The namespace's own state directories and configuration.
for d in /var/lib/robot /var/lib/robot-box /etc/robot; do
	mkdir -p "$d" 2>/dev/null
	mount -t tmpfs -o mode=0755 tmpfs "$d" || { echo "Bail out! cannot mount a tmpfs on $d"; exit 1; }
done

# 1. The packages, from this tree.
(cd "$SRC" && scripts/package "$T/deb") >"$T/package.log" 2>&1
rc=$?
debs=$(ls "$T"/deb/robot_*.deb "$T"/deb/robot-box_*.deb 2>/dev/null | wc -l)
check $([ $rc = 0 ] && [ "$debs" = 2 ]; echo $?) "scripts/package builds robot and robot-box ($rc: $(tail -1 "$T/package.log"))"
lintian --allow-root "$T"/deb/robot_*.deb "$T"/deb/robot-box_*.deb >"$T/lintian.out" 2>&1
check $(! grep -q "^E:" "$T/lintian.out"; echo $?) \
	"lintian finds no error ($(grep -c "^E:" "$T/lintian.out") errors, $(grep -c "^W:" "$T/lintian.out") warnings: $(grep "^[EW]:" "$T/lintian.out" | cut -d' ' -f2-3 | sort -u | tr '\n' ' ' | cut -c1-200))"

# 2. Installed: the files in their places, the user made, nothing
# enabled or started.
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$T"/deb/robot_*.deb "$T"/deb/robot-box_*.deb >"$T/install.log" 2>&1
rc=$?
check $([ $rc = 0 ] && [ -x /usr/sbin/robotd ] && [ -x /usr/bin/robot ] && [ -x /usr/bin/robot-box ] &&
	[ -f /etc/robot/robotd.yaml ] && [ -f /etc/robot/box.yaml ] && [ -f /lib/systemd/system/robotd.service ] &&
	getent passwd robot >/dev/null && [ ! -e /etc/systemd/system/multi-user.target.wants/robotd.service ] &&
	[ -z "$(ls /var/lib/robot)" ]; echo $?) \
	"apt-get installs them: robotd in /usr/sbin, robot and robot-box in /usr/bin, /etc/robot, the units, the user robot; nothing enabled ($rc: $(tail -1 "$T/install.log"))"
# (nothing below can work without them)
[ -x /usr/sbin/robotd ] && [ -x /usr/bin/robot-box ] || { echo "Bail out! the packages are not installed"; exit 1; }
systemd-analyze verify /lib/systemd/system/robotd.service /lib/systemd/system/robot-box.service >"$T/verify.out" 2>&1
rc=$?
check $([ $rc = 0 ] && [ ! -s "$T/verify.out" ]; echo $?) "systemd-analyze verify passes on both units ($rc: $(head -2 "$T/verify.out" | tr '\n' ' '))"
for u in robotd robot-box; do
	diag "$(systemd-analyze security --offline=yes "/lib/systemd/system/$u.service" 2>&1 | tail -1)"
done

# 3. robotd as its unit runs it: the unit's user, environment and state
# directory (StateDirectory=robot: /var/lib/robot, the user's, 0750),
# ExecStartPre then ExecStart, Type=notify.  It listens on a port of its
# own here (/etc/robot is the namespace's).
sed -i 's/^listen: .*/listen: 127.0.0.1:0/' /etc/robot/robotd.yaml
user=$(unit_key robotd.service User)
chown "$user:$user" /var/lib/robot
chmod "$(unit_key robotd.service StateDirectoryMode)" /var/lib/robot
/usr/bin/python3 "$SRC/tests/integration/notifysink.py" "$T/notify.sock" "$T/notify.out" &
PIDS="$PIDS $!"
wait_for 10 test -S "$T/notify.sock"
chmod 777 "$T/notify.sock"
# as_unit COMMAND...: COMMAND as systemd runs the unit's: its user, a
# clean environment with the unit's, and its umask; it replaces the
# shell that calls it (a subshell, or a job whose PID is then robotd's)
as_unit() {
	umask "$(unit_key robotd.service UMask)"
	exec env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/var/lib/robot USER="$user" LOGNAME="$user" NOTIFY_SOCKET="$T/notify.sock" \
		WATCHDOG_USEC=60000000 setpriv --reuid="$user" --regid="$user" --init-groups "$@"
}
# shellcheck disable=SC2046
(as_unit $(unit_key robotd.service ExecStartPre)) >"$T/pre.out" 2>&1
pre=$?
# shellcheck disable=SC2046
as_unit $(unit_key robotd.service ExecStart) 2>"$T/robotd.log" &
RD=$!
PIDS="$PIDS $RD"
# (robotd's READY=1, which names where it serves)
wait_for 120 grep -q "^READY=1|STATUS=serving on" "$T/notify.out"
port=$(sed -n 's/^READY=1|STATUS=serving on 127.0.0.1:\([0-9]*\)|.*/\1/p' "$T/notify.out" | head -1)
U=http://127.0.0.1:$port
owner=$(stat -c %U /var/lib/robot/pg/data 2>/dev/null)
pgowner=$(ps -o user= -C postgres 2>/dev/null | sort -u | tr '\n' ' ')
check $([ $pre = 0 ] && [ -n "$port" ] && curl -sf -o /dev/null "$U/api/status" && [ "$owner" = "$user" ] &&
	[ "$(ps -o user= -p "$RD" | tr -d ' ')" = "$user" ]; echo $?) \
	"robotd starts as its unit says: --check-config passes, READY=1 once it serves, as $user with its PostgreSQL's files $user's (${owner:-none}; postgres processes run as: $pgowner)"

# 4. A box enrolled (a token made on the server, as the unit's user),
# run as its unit says, and a dd job through it to its result.
(as_unit /usr/sbin/robotd --config /etc/robot/robotd.yaml token create --kind box --name pkgbox) >/etc/robot/box.token 2>"$T/tok.log"
chmod 600 /etc/robot/box.token
SUB=$( (as_unit /usr/sbin/robotd --config /etc/robot/robotd.yaml token create --kind submit --name pkg) 2>>"$T/tok.log")
printf 'ROBOT_SERVER=%s\n' "$U" >/etc/robot/box.env
printf 'name: pkgbox\ntbox_group: pkg\nworkdir: /var/lib/robot-box\nram_disk_limit: 1G\n' >/etc/robot/box.yaml
# shellcheck disable=SC2046
(set -a && . /etc/robot/box.env && exec $(unit_key robot-box.service ExecStart)) >"$T/box.log" 2>&1 &
PIDS="$PIDS $!"
printf 'suite: dd-write\ntestcase: dd-write\ndisk: 1LOOP_64M\nfs: ext4\nnr_threads: 1dd\nruntime: 1s\ndd:\n  bs: 1M\n' >"$T/dd.yaml"
/usr/bin/robot submit "$T/dd.yaml" --server "$U" --token "$SUB" --tbox-group pkg >"$T/submit.out" 2>&1
job=$(curl -s "$U/api/jobs?limit=1" | /usr/bin/python3 -c "import json, sys; print(json.load(sys.stdin)['jobs'][0]['id'])" 2>/dev/null)
done_() { [ "$(curl -s "$U/api/jobs/$job" | /usr/bin/python3 -c "import json, sys; print(json.load(sys.stdin)['state'])" 2>/dev/null)" = done ]; }
wait_for 300 done_
kpi=$(curl -s "$U/api/jobs/$job" | /usr/bin/python3 -c "
import json, sys
j = json.load(sys.stdin)
print(j['result']['stats']['dd.write_bytes_per_sec'])" 2>/dev/null)
# and a backup, as the unit's user, while it serves (docs/deploy.md)
(as_unit /usr/sbin/robotd --config /etc/robot/robotd.yaml backup /var/lib/robot/backup.dump) >"$T/backup.log" 2>&1
bk=$(stat -c '%U %a' /var/lib/robot/backup.dump 2>/dev/null)
check $([ -n "$job" ] && done_ && [ -n "$kpi" ] && [ "$bk" = "$user 600" ]; echo $?) \
	"a box enrolled with a token robotd made, run as its unit says, runs a dd job to its result; a backup as the unit's user (job ${job:-none}, dd.write_bytes_per_sec ${kpi:-none}; backup ${bk:-none}; $(tail -1 "$T/box.log"))"
kill -TERM "$RD"
wait_for 30 sh -c "! kill -0 $RD 2>/dev/null"
grep -q "^STOPPING=1" "$T/notify.out"
stopped=$?

# 5. Removed, the state stays; purged, it goes (and the box's).
DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq robot robot-box >"$T/remove.log" 2>&1
rc=$?
kept=$([ -d /var/lib/robot/pg/data ] && [ ! -e /usr/sbin/robotd ] && [ -f /etc/robot/robotd.yaml ]; echo $?)
DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq robot robot-box >"$T/purge.log" 2>&1
rc2=$?
check $([ $stopped = 0 ] && [ $rc = 0 ] && [ "$kept" = 0 ] && [ $rc2 = 0 ] && [ ! -e /var/lib/robot/pg ] &&
	[ -z "$(ls /var/lib/robot-box 2>/dev/null)" ] && [ ! -e /etc/robot/robotd.yaml ] &&
	! dpkg-query -W robot >/dev/null 2>&1; echo $?) \
	"SIGTERM stops it (STOPPING=1); remove keeps its state and configuration, purge removes them ($rc $kept $rc2)"
exit $((failed > 0))
