# shellcheck shell=sh disable=SC2154
# scripts/demo-lib.sh: what scripts/quickstart and scripts/kernel-demo
# share, sourced by both: a local SMTP server, robotd on its embedded
# PostgreSQL, tokens, a test box, a confirmed subscription, and waiting
# for a tree's heads, robotd's analysis, its bisection and its mail.
# They set, before they call these: top (the source tree), state (the
# state directory), port, server, smtp_port, inbox, treename, and build
# (the build directory).

# running NAME: whether the process in $state/NAME.pid is alive.
running() { [ -s "$state/$1.pid" ] && kill -0 "$(cat "$state/$1.pid")" 2>/dev/null; }
# stop NAME: stops it by its PID.
stop() {
	if running "$1"; then
		kill -TERM "$(cat "$state/$1.pid")"
		i=0
		while running "$1" && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
		echo "stopped $1" >&2
	fi
	rm -f "$state/$1.pid"
}

# start_robotd WHAT BOX: the SMTP server, robotd (on $port, or the port
# it already runs on) and the tokens (the box's for BOX); WHAT names the
# run in messages.
start_robotd() {
	echo "== a local SMTP server on 127.0.0.1:$smtp_port (aiosmtpd, mail in $state/mail)" >&2
	if ! running smtp; then
		setsid /usr/bin/python3 -m aiosmtpd -n -l "127.0.0.1:$smtp_port" \
			-c aiosmtpd.handlers.Mailbox "$state/mail" >>"$state/smtp.log" 2>&1 &
		echo $! >"$state/smtp.pid"
	fi
	cat >"$state/robotd.yaml" <<YAML
# robotd's settings for $1 (robot/daemon/settings.h has them all).
state_dir: $state
smtp: smtp://127.0.0.1:$smtp_port
mail_from: robot@localhost
public_url: $server
YAML
	# A robotd still running from before keeps its port.
	if running robotd && [ -s "$state/port" ] && [ "$(cat "$state/port")" != "$port" ]; then
		echo "$1: robotd runs on port $(cat "$state/port") already: using it (--stop, then --port, to move it)" >&2
		port=$(cat "$state/port")
		server=http://127.0.0.1:$port
		sed -i "s|^public_url: .*|public_url: $server|" "$state/robotd.yaml"
	fi
	echo "== robotd on $server (embedded PostgreSQL in $state/pg; as root, --allow-root, for a demo: docs/deploy.md runs it as a service, as its own user)" >&2
	if ! running robotd; then
		echo "$port" >"$state/port"
		# A session of its own: a Ctrl-C here does not stop it.
		# (as root, a demo on one machine: a service runs it as its own
		# user, docs/deploy.md)
		setsid "$build/robotd" --allow-root --config "$state/robotd.yaml" --listen "127.0.0.1:$port" \
			>>"$state/robotd.log" 2>&1 &
		echo $! >"$state/robotd.pid"
		i=0
		until curl -sf -o /dev/null "$server/api/status"; do
			i=$((i + 1))
			if [ $i -gt 600 ] || ! running robotd; then
				echo "$1: robotd did not start; see $state/robotd.log:" >&2
				tail -5 "$state/robotd.log" >&2
				exit 1
			fi
			sleep 0.1
		done
	fi
	mkdir -p "$state/tokens"
	chmod 700 "$state/tokens"
	for kind in submit box admin; do
		[ -s "$state/tokens/$kind" ] ||
			(umask 077 && "$build/robotd" --allow-root --state-dir "$state" token create --kind "$kind" \
				--name "$([ $kind = box ] && echo "$2" || echo "$1-$kind")" \
				>"$state/tokens/$kind" 2>>"$state/robotd.log")
	done
	chmod 600 "$state/tokens/"* # the box refuses a token file others may read
	export ROBOT_SERVER="$server"
	admin=$(cat "$state/tokens/admin")
}

# start_box NAME: robot-box serve with $state/box.yaml (its environment
# is this one's), until it has registered as NAME.
start_box() {
	if ! running box; then
		setsid "$build/robot-box" serve --server "$server" \
			--token-file "$state/tokens/box" --config "$state/box.yaml" \
			>>"$state/box.log" 2>&1 &
		echo $! >"$state/box.pid"
	fi
	# The box registers first: then a job it cannot run is refused at once.
	i=0
	until curl -sf "$server/api/status" | grep -q "\"name\" : \"$1\""; do
		i=$((i + 1))
		if [ $i -gt 300 ] || ! running box; then
			echo "the box did not register; see $state/box.log:" >&2
			tail -5 "$state/box.log" >&2
			exit 1
		fi
		sleep 0.1
	done
}

# mail_to ADDRESS SUBJECT-PREFIX: the newest mail in the maildir to
# ADDRESS whose subject starts so (its file), or nothing.
mail_to() {
	/usr/bin/python3 - "$state/mail/new" "$1" "$2" <<'PY'
import email, email.policy, os, sys
d, to, prefix = sys.argv[1:]
files = sorted(os.listdir(d), key=lambda f: os.stat(os.path.join(d, f)).st_mtime) if os.path.isdir(d) else []
for f in reversed(files):
    m = email.message_from_bytes(open(os.path.join(d, f), "rb").read(), policy=email.policy.default)
    if m["To"] == to and str(m["Subject"]).startswith(prefix):
        print(os.path.join(d, f))
        break
PY
}

# subscribe: $inbox subscribes to robotd's reports and follows the
# confirmation link robotd mails.
subscribe() {
	if [ "$(curl -sf -H "Authorization: Bearer $admin" "$server/api/subscriptions" | grep -c "\"$inbox\".*confirmed")" = 0 ]; then
		echo "== $inbox subscribes to robotd's reports (robot subscribe)" >&2
		# (this robotd's admin: a config file of the user's own may
		# name another robotd's token)
		"$build/robot" subscribe "$inbox" --server "$server" --token "$admin" >&2
		i=0
		until f=$(mail_to "$inbox" "[robot] confirm") && [ -n "$f" ]; do
			i=$((i + 1))
			if [ $i -gt 100 ]; then
				echo "no confirmation mail came; see $state/robotd.log and $state/smtp.log" >&2
				exit 1
			fi
			sleep 0.2
		done
		link=$(grep -o "$server/subscriptions/confirm?t=[0-9a-f]*" "$f")
		curl -sf -o /dev/null "$link"
		echo "   the confirmation mail came; its link confirmed the subscription" >&2
	fi
}

# seen TREEDIR SHA [SECONDS]: until robotd has fetched the tree with
# master at SHA (at most SECONDS, default 60).
seen() {
	i=0
	until curl -sf "$server/api/trees/$treename" | /usr/bin/python3 -c '
import json, sys
heads = {h["branch"]: h["sha"] for h in json.load(sys.stdin)["heads"]}
sys.exit(heads.get("master") != sys.argv[1])' "$2"; do
		i=$((i + 1))
		if [ $i -gt $((${3:-60} * 2)) ]; then
			echo "robotd did not fetch the tree $treename in ${3:-60} s; see $state/robotd.log" >&2
			exit 1
		fi
		sleep 0.5
	done
	echo "   robotd found the new head $(git -C "$1" log -1 --format='%h "%s"' "$2")" >&2
}

# lab_stopped: whether what the demo waits for can no longer come, and
# why, with the box's last error and where to see more: a box broken
# (its runs failed one after the other: a hook's or the box's fault), or
# a run failed since the demo started ($demo_started: a commit that does
# not build or boot).  Robotd not answering is no reason (it may be busy).
demo_started=$(date -u +%Y-%m-%dT%H:%M:%S.%6N+00:00)
lab_stopped() {
	/usr/bin/python3 - "$server" "$build" "$state" "$demo_started" <<'PY'
import datetime, json, sys, urllib.request
server, build, state, since = sys.argv[1:]
since = datetime.datetime.fromisoformat(since)
def get(path):
    with urllib.request.urlopen(server + path, timeout=10) as r:
        return json.load(r)
try:
    s = get("/api/status")
    jobs = None
    why = job = None
    for b in s.get("boxes", []):
        if b.get("state") == "broken":
            jobs = get("/api/jobs?limit=200")["jobs"]
            job = next((j for j in jobs if j.get("box") == b["name"] and j.get("error")), None)
            why = "the box %s is broken after %d failed runs in a row" % (b["name"], b.get("failures") or 0)
            break
    if why is None:
        new = [f for f in s.get("failed", []) if datetime.datetime.fromisoformat(f["updated"]) >= since]
        if new:
            job = new[0]
            why = "run %d failed (%s at %.12s)" % (job["id"], job.get("series"), job.get("commit") or "?")
except Exception:
    sys.exit(1)
if why is None:
    sys.exit(1)
print(why)
if job:
    print("   its last error: %s" % (job.get("error") or "(none recorded)"))
    print("   more: %s/jobs/%d (the run, its attempts and result), %s/box.log, %s/robot status" % (server, job["id"], state, build))
else:
    print("   more: %s/box.log, %s/robot status" % (state, build))
PY
}
# watch_lab: ends the script (exit 1) when lab_stopped, saying why.
watch_lab() {
	if stopped=$(lab_stopped); then
		echo "the demo stops: $stopped" >&2
		exit 1
	fi
}

# wait_analysis: until the queue is empty and every comparison final,
# printing the lab's progress as it changes (and ending when the lab
# cannot finish it: watch_lab).
wait_analysis() {
	echo "== waiting for the runs and robotd's analysis (robot status shows the lab)" >&2
	last=
	while :; do
		line=$(curl -sf "$server/api/status" | /usr/bin/python3 -c '
import json, sys
s = json.load(sys.stdin)
q, a = s["queue"], s["analysis"]
print("%d runs done, %d running, %d queued, %d failed; %d comparisons final, %d waiting for runs, %d being analysed" % (
    q["done"], q["leased"], q["queued"], q["failed"], a["final"], a["waiting"], a["analysing"]))
') || line="robotd does not answer"
		[ "$line" != "$last" ] && echo "   $(date +%T) $line" >&2
		last=$line
		watch_lab
		case "$line" in *" 0 running, 0 queued"*"; "[1-9]*" comparisons final, 0 waiting for runs, 0 being analysed") break ;; esac
		running box || {
			echo "the box stopped; see $state/box.log" >&2
			exit 1
		}
		sleep 2
	done
}

# wait_bisection MINUTES: until the newest bisection ends, printing its
# steps; then shows it.
wait_bisection() {
	echo "== before it mails anything, robotd bisects the range to its first bad commit (robot bisections)" >&2
	last=
	i=0
	while :; do
		line=$(curl -sf "$server/api/bisections" | /usr/bin/python3 -c '
import json, sys
b = json.load(sys.stdin)["bisections"]
if not b:
    print("no bisection yet")
    sys.exit()
b = b[0]
s = b["step"] or {}
if b["state"] == "running":
    print("bisection %d: %d steps, %s commits left, testing %.10s" % (b["id"], b["steps"], b["candidates"], s.get("commit") or "?"))
else:
    print("bisection %d %s: %s" % (b["id"], b["state"], b["reason"]))
') || line="robotd does not answer"
		[ "$line" != "$last" ] && echo "   $(date +%T) $line" >&2
		last=$line
		case "$line" in "bisection "*" bisected: "* | "bisection "*" failed: "*) break ;; esac
		i=$((i + 1))
		if [ $i -gt $(($1 * 30)) ]; then
			echo "the bisection did not end in $1 minutes; $build/robot bisections shows it" >&2
			break
		fi
		watch_lab
		sleep 2
	done
	bid=$(curl -sf "$server/api/bisections" | /usr/bin/python3 -c '
import json, sys
b = json.load(sys.stdin)["bisections"]
print(b[0]["id"] if b else "")')
	[ -z "$bid" ] || "$build/robot" bisections "$bid"
}

# show_mail SUBJECT-PREFIX: prints the report mail $inbox got.
show_mail() {
	echo "== the report mail $inbox got (the maildir $state/mail)" >&2
	i=0
	until f=$(mail_to "$inbox" "$1") && [ -n "$f" ]; do
		i=$((i + 1))
		if [ $i -gt 150 ]; then
			echo "no report mail came yet; $build/robot reports --token \$(cat $state/tokens/admin) shows the outbox" >&2
			break
		fi
		sleep 0.2
	done
	[ -z "$f" ] || tr -d '\r' <"$f"
}
