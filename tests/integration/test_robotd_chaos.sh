#!/bin/sh
# test_robotd_chaos.sh ROBOTD ROBOT_BOX ROBOT SOURCE_DIR: several robotd
# on one PostgreSQL under chaos (issue 56).  Hosts are network namespaces
# (tests/lab/netlab.sh): PostgreSQL from Debian's packages on one, three
# robotd on three more, HAProxy (dist/haproxy/robotd.cfg, the three its
# servers, health-checked each second) and an SMTP peer on another, and the
# clients on the last: four simulated boxes, a stream of ad hoc
# submissions, a poller of /api/status, and the admin's CLI, all through
# HAProxy.  A watched tree gets an innocent head, then a push whose
# second commit is 20% slower, which is bisected and mailed.
# Meanwhile, for CHAOS_SECONDS (120; bench/chaos.sh runs 600): every 30 s
# one robotd is killed with -9 and started again 3 s later (one that
# exits on its own is started again 5 s later, as systemd's Restart=
# would); PostgreSQL is
# restarted once (fast shutdown); one robotd is cut off from the
# database for 30 s.  Then the lab finishes its work, and the test checks:
# no acknowledged submit lost, every pair final, no round of two boxes,
# the regression bisected to its commit and mailed, and a mail sent again
# (its Message-ID the same) at most once a kill.  It prints the
# figures (diag lines "figure: ..."): submits, runs leased again, mails
# and duplicates, pairs, the time from each kill to the next lease, the
# time from the partition's end to that robotd's next answer, and
# /api/status's p50 and p99 through HAProxy.  TAP.
set -u
ROBOTD=$1 BOX=$2 ROBOT=$3 SRC=$4
SECONDS_CHAOS=${CHAOS_SECONDS:-120}
. "$SRC/tests/integration/robotd_lib.sh"
. "$SRC/tests/lab/netlab.sh"
PGBIN=$(dirname "$PGCTL")
stop_pg() { runuser -u postgres -- "$PGCTL" stop -m immediate -D "$T/pg" >/dev/null 2>&1; }
trap 'touch "$T/stop"; netlab_down; stop_pg; finish' EXIT
echo "1..8"
HAPROXY=$(command -v haproxy || echo /usr/sbin/haproxy)
for t in nft "$HAPROXY"; do
	command -v "$t" >/dev/null || { echo "Bail out! $t is not installed (scripts/deps installs it)"; exit 1; }
done
now() { date +%s.%N | cut -c1-14; }

# Hosts: db .2, robotd r1 .3, r2 .4, r3 .5, the proxy and SMTP peer .6,
# the clients .10.
netlab_up && netlab_host db 2 && netlab_host r1 3 && netlab_host r2 4 && netlab_host r3 5 &&
	netlab_host px 6 && netlab_host cl 10
check $? "the lab's hosts"

install -d -o postgres -g postgres -m 700 "$T/pg"
install -d -o postgres -g postgres -m 755 "$T/sock"
runuser -u postgres -- "$PGBIN/initdb" -D "$T/pg" -U postgres -A trust -E UTF8 --no-locale --no-sync >/dev/null
echo "host all all 10.77.0.0/24 trust" >>"$T/pg/pg_hba.conf"
pg_start() {
	on db runuser -u postgres -- "$PGCTL" -D "$T/pg" -l "$T/pg/server.log" -w \
		-o "-k $T/sock -c listen_addresses=10.77.0.2 -c fsync=off -c max_connections=200" start >/dev/null
}
pg_start
psql -h "$T/sock" -U postgres -d postgres -Xqc "CREATE ROLE robot LOGIN" -c "CREATE DATABASE robot OWNER robot" >/dev/null
pgq() { psql -h "$T/sock" -U postgres -d robot -XAtqc "$1" 2>/dev/null; }

# The SMTP peer on host px.
on_bg px /usr/bin/python3 "$SRC/tests/integration/smtpsink.py" "$T/smtp.port" "$T/mail" 0 10.77.0.6 2>"$T/smtp.err"
wait_for 20 test -s "$T/smtp.port"

# Three robotd on the one database.
for i in 1 2 3; do
	cat >"$T/r$i.yaml" <<YAML
state_dir: $T/r$i
db: host=10.77.0.2 user=robot dbname=robot
listen: 10.77.0.$((i + 2)):8420
trusted_proxy: 10.77.0.6
lease_seconds: 15
long_poll: 10
analysis_claim: 10
report_claim: 10
report_window: 0
smtp: smtp://10.77.0.6:$(cat "$T/smtp.port")
mail_from: robot@chaos.test
YAML
	mkdir -p "$T/r$i"
done
start_r() { # start_r I: robotd rI on its host
	on_bg "r$1" "$ROBOTD" --config "$T/r$1.yaml" >>"$T/r$1.log" 2>&1
	eval "RPID_$1=$!"
}
# alive PID: it runs (a zombie, which exited but was not waited for, not)
alive() { [ -e "/proc/$1" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }
for i in 1 2 3; do start_r $i; done
for i in 1 2 3; do wait_for 60 grep -q "listening on http://10.77.0.$((i + 2)):8420" "$T/r$i.log"; done
tok() { on r1 "$ROBOTD" --config "$T/r1.yaml" token create --kind "$1" --name "$2" 2>/dev/null; }
ADMIN=$(tok admin root)
SUB=$(tok submit stream)

# HAProxy on px: the documented configuration, its port, certificate
# and the three robotd put in.
C=$T/ca
mkdir -p "$C"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$C/ca.key" -out "$C/ca.pem" -days 2 \
	-subj "/CN=robot chaos CA" 2>/dev/null
printf 'subjectAltName=IP:10.77.0.6\n' >"$C/ext"
openssl req -newkey rsa:2048 -nodes -keyout "$C/px.key" -out "$C/px.csr" -subj "/CN=10.77.0.6" 2>/dev/null
openssl x509 -req -in "$C/px.csr" -CA "$C/ca.pem" -CAkey "$C/ca.key" -CAcreateserial \
	-out "$C/px.crt" -days 2 -extfile "$C/ext" 2>/dev/null
cat "$C/px.crt" "$C/px.key" >"$C/px.pem"
sed -e "s|bind :8443 ssl crt /etc/haproxy/robotd.pem|bind 10.77.0.6:8443 ssl crt $C/px.pem|" \
	-e "s|	server robotd 127.0.0.1:8420|	server r1 10.77.0.3:8420\\
	server r2 10.77.0.4:8420\\
	server r3 10.77.0.5:8420|" \
	"$SRC/dist/haproxy/robotd.cfg" >"$T/haproxy.cfg"
on_bg px "$HAPROXY" -db -f "$T/haproxy.cfg" >"$T/haproxy.log" 2>&1
P=https://10.77.0.6:8443
export SSL_CERT_FILE="$C/ca.pem" CURL_CA_BUNDLE="$C/ca.pem"
ok_status() { [ "$(on cl curl -s -o /dev/null -w '%{http_code}' "$P/api/status")" = 200 ]; }
wait_for 30 ok_status
crobot() { on cl env ROBOT_SERVER=$P ROBOT_TOKEN=$ADMIN ROBOT_CA_FILE="$C/ca.pem" "$ROBOT" "$@"; }
crobot status >"$T/status.out" 2>&1
check $? "three robotd on one PostgreSQL, behind HAProxy with TLS, each on a host of its own"

# The tree: its base, an innocent head, then four commits whose second
# is 20% slower (the boxes know: a known truth).
R=$T/tree
git init -q -b main "$R"
echo init >"$R/file"
git -C "$R" add file
git -C "$R" -c user.name=dev -c user.email=dev@chaos.test commit -q -m init
git -C "$R" tag v1.0
commit() {
	echo "$1" >>"$R/file"
	git -C "$R" -c user.name=dev -c user.email=dev@chaos.test commit -q -am "$1"
	git -C "$R" rev-parse HEAD
}
INN=$(commit "innocent change")
P1=$(commit "push 1")
BAD=$(commit "push 2: slower")
P3=$(commit "push 3")
P4=$(commit "push 4")
git -C "$R" update-ref refs/heads/main v1.0
SLOW="$BAD=-20 $P3=-20 $P4=-20"

# The clients: four boxes, the stream of submits, the status poller.
for b in 1 2 3 4; do
	_t=$(tok box "s$b")
	# shellcheck disable=SC2086
	on_bg cl /usr/bin/python3 "$SRC/tests/integration/simbox.py" "$P" "$_t" "s$b" lab "$T/stop" \
		$SLOW --noise=1 --delay=1 --resilient=1 --heartbeat=3 --timeout=20 --seed="$b" >>"$T/s$b.log" 2>&1
done
dd_job "$T/one.yaml"
on_bg cl sh -c "
	n=0
	while [ ! -e '$T/stop' ] && [ ! -e '$T/stop-stream' ]; do
		n=\$((n + 1))
		out=\$(curl -s -w ' %{http_code}' -X POST -H 'Authorization: Bearer $SUB' \
			--data-binary @'$T/one.yaml' '$P/api/jobs?tbox_group=lab&repeat=1&commit=$(sha stream)' 2>/dev/null)
		case \$out in
		*' 201') echo \"\$out\" | /usr/bin/python3 -c 'import json, sys; print(json.loads(sys.stdin.read().rsplit(\" \", 1)[0])[\"submission\"])' >>'$T/acked' ;;
		*) echo \"\$(date +%s) \${out##* }\" >>'$T/refused' ;;
		esac
		sleep 2
	done" 2>>"$T/stream.err"
on_bg cl sh -c "
	while [ ! -e '$T/stop' ] && [ ! -e '$T/stop-stream' ]; do
		curl -s -o /dev/null -w '%{http_code} %{time_total}\n' --max-time 30 '$P/api/status' >>'$T/status.times'
		sleep 0.2
	done" 2>/dev/null

printf 'suite: dd-write\ntestcase: dd-write\ndisk: 1LOOP_64M\nfs: ext4\nnr_threads: 1dd\nruntime: 1s\ndd:\n  bs: 1M\nmail_to: maint@chaos.test\n' >"$T/tree.yaml"
crobot tree add chaos --url "$R" --branch main --base v1.0 --job "$T/tree.yaml" \
	--tbox-group lab --runs 3 --max-runs 10 --poll 300 >"$T/tree.out" 2>&1
push() {
	git -C "$R" update-ref refs/heads/main "$1"
	crobot tree set chaos --poll 300 >/dev/null 2>&1
}
push "$INN"

# What was claimed, sampled each second: a claim whose robotd died stays
# until its time runs out (analysis_claim, report_claim: 10 s here) and
# another robotd takes the work over.
(
	while [ ! -e "$T/stop" ] && [ ! -e "$T/stop-stream" ]; do
		pgq "SELECT extract(epoch FROM now()), 'pair ' || id FROM pairs WHERE state = 'analysing'
			UNION ALL SELECT extract(epoch FROM now()), 'bisection ' || id FROM bisections
				WHERE claimed_until > now()
			UNION ALL SELECT extract(epoch FROM now()), 'outbox ' || id FROM outbox
				WHERE claimed_until > now()" >>"$T/claims"
		sleep 1
	done
) &
PIDS="$PIDS $!"

# The chaos.
T0=$(now)
echo "$T0" >"$T/t0"
next_kill=30 killed=0 pg_done= cut_done= healed= pushed=
while :; do
	el=$(awk -v a="$(now)" -v b="$T0" 'BEGIN { print int(a - b) }')
	[ "$el" -ge "$SECONDS_CHAOS" ] && break
	if [ -z "$pushed" ] && [ "$el" -ge 15 ]; then
		push "$P4"
		pushed=1
	fi
	if [ "$el" -ge "$next_kill" ]; then
		i=$((killed % 3 + 1))
		# (one that exited on its own is gone already: see below)
		eval "kill -9 \$RPID_$i" 2>/dev/null
		eval "wait \$RPID_$i" 2>/dev/null
		echo "$(now) r$i" >>"$T/kills"
		killed=$((killed + 1))
		sleep 3
		start_r $i
		next_kill=$((next_kill + 30))
	fi
	# A robotd that exited on its own (one started while it could not
	# reach the database stops, as at any start) is started again 5 s
	# later, as robotd.service's Restart=on-failure and RestartSec=5 do.
	for i in 1 2 3; do
		eval "p=\$RPID_$i gone=\${GONE_$i:-}"
		if alive "$p"; then
			continue
		elif [ -z "$gone" ]; then
			wait "$p" 2>/dev/null
			eval "GONE_$i=$(date +%s)"
			echo "$(now) r$i" >>"$T/exited"
		elif [ $(($(date +%s) - gone)) -ge 5 ]; then
			eval "GONE_$i="
			start_r $i
		fi
	done
	if [ -z "$cut_done" ] && [ "$el" -ge $((SECONDS_CHAOS / 4)) ]; then
		netlab_cut r2 2
		echo "$(now)" >"$T/cut"
		cut_done=1
	fi
	if [ -n "$cut_done" ] && [ -z "$healed" ] &&
		[ "$(awk -v a="$(now)" -v b="$(cat "$T/cut")" 'BEGIN { print (a - b >= 30) }')" = 1 ]; then
		netlab_heal r2
		echo "$(now)" >"$T/healed"
		healed=1
	fi
	if [ -z "$pg_done" ] && [ "$el" -ge $((SECONDS_CHAOS / 2)) ]; then
		echo "$(now)" >"$T/pg_restart"
		on db runuser -u postgres -- "$PGCTL" -D "$T/pg" -m fast -w restart \
			-o "-k $T/sock -c listen_addresses=10.77.0.2 -c fsync=off -c max_connections=200" \
			-l "$T/pg/server.log" >/dev/null 2>&1
		echo "$(now)" >"$T/pg_back"
		pg_done=1
	fi
	sleep 0.5
done
[ -n "$healed" ] || { netlab_heal r2; echo "$(now)" >"$T/healed"; }
touch "$T/stop-stream"
check $([ "$killed" -ge 1 ] && [ -n "$pg_done" ] && [ -n "$cut_done" ]; echo $?) \
	"${SECONDS_CHAOS} s of chaos: $killed robotd killed -9 and started again, PostgreSQL restarted, r2 cut off from it for 30 s"

# The lab finishes: the regression bisected and mailed, every pair final.
mailed() { grep -qs "^Subject: \[robot\] \[chaos:main\] .*$(echo "$BAD" | cut -c1-10)" "$T"/mail/new/*; }
wait_for 400 mailed
m=$?
settled() { [ "$(pgq "SELECT count(*) FROM pairs WHERE state <> 'final'")" = 0 ] &&
	[ -z "$(pgq "SELECT 1 FROM bisections WHERE state = 'running'")" ]; }
wait_for 300 settled
check $([ $m = 0 ] && [ "$(pgq "SELECT first_bad FROM bisections WHERE tree = 'chaos' AND lead IS NULL ORDER BY id LIMIT 1")" = "$BAD" ]; echo $?) \
	"the regression was bisected to its commit and mailed through the chaos"
check $([ "$(pgq "SELECT count(*) FROM pairs WHERE state <> 'final'")" = 0 ] &&
	[ "$(pgq "SELECT count(*) FROM (SELECT round FROM jobs WHERE state = 'done' AND round IS NOT NULL
		GROUP BY round HAVING count(DISTINCT box) > 1) x")" = 0 ]; echo $?) \
	"no pair lost ($(pgq "SELECT count(*) FROM pairs") final), no round of two boxes"

# No acknowledged submit lost.
acked=$(sort -u "$T/acked" 2>/dev/null | wc -l)
found=$(pgq "SELECT count(*) FROM submissions WHERE id IN ($(sort -u "$T/acked" | paste -sd, -))")
check $([ "$acked" -gt 0 ] && [ "$found" = "$acked" ]; echo $?) \
	"every acknowledged submit is in the database ($found of $acked; $(cat "$T/refused" 2>/dev/null | wc -l) refused while robotd could not take them)"

# Mails: duplicates at most one a kill, with the same Message-ID.
/usr/bin/python3 - "$T/mail/new" "$killed" >"$T/mails.out" <<'EOF'
import email, os, sys
d, kills = sys.argv[1], int(sys.argv[2])
ids = {}
for f in os.listdir(d):
    m = email.message_from_binary_file(open(os.path.join(d, f), "rb"))
    ids[m["Message-ID"]] = ids.get(m["Message-ID"], 0) + 1
dups = sum(n - 1 for n in ids.values())
print(sum(ids.values()), dups)
sys.exit(0 if dups <= kills else 1)
EOF
r=$?
read -r nmail ndup <"$T/mails.out"
check $r "mails: $nmail sent, $ndup of them again with the same Message-ID (at most one a kill: $killed)"

# The figures.
/usr/bin/python3 - "$T" <<'EOF' | while read -r line; do diag "figure: $line"; done
import datetime, os, subprocess, sys
T = sys.argv[1]
def q(sql):
    return subprocess.run(["psql", "-h", T + "/sock", "-U", "postgres", "-d", "robot", "-XAtqc", sql],
                          capture_output=True, text=True).stdout.strip()
t0 = float(open(T + "/t0").read())
times = [l.split() for l in open(T + "/status.times")]
ok = sorted(float(t) for c, t in times if c == "200")
bad = sum(1 for c, t in times if c != "200")
if ok:
    print("/api/status through HAProxy: %d answered 200, p50 %.0f ms, p99 %.0f ms, max %.0f ms; %d not 200"
          % (len(ok), 1000 * ok[len(ok) // 2], 1000 * ok[min(len(ok) - 1, int(len(ok) * 0.99))], 1000 * ok[-1], bad))
for l in open(T + "/kills"):
    at, r = l.split()
    nxt = q("SELECT extract(epoch FROM min(created)) FROM leases WHERE created > to_timestamp(%s)" % at)
    print("%s killed at %+.0f s: the next lease %.1f s later" % (r, float(at) - t0, float(nxt) - float(at)) if nxt
          else "%s killed at %+.0f s: no lease after" % (r, float(at) - t0))
healed = float(open(T + "/healed").read())
first = None
for l in open(T + "/haproxy.log"):
    if "robotd/r2 " in l:
        parts = l.split()
        try:
            status = int(parts[5])
        except (IndexError, ValueError):
            continue
        ts = parts[1].strip("[]")
        at = datetime.datetime.strptime(ts, "%d/%b/%Y:%H:%M:%S.%f").replace(tzinfo=datetime.timezone.utc).timestamp()
        if at > healed and status < 500:
            first = at
            break
print("r2 answered again %.1f s after its partition from PostgreSQL ended" % (first - healed) if first
      else "r2 did not answer through HAProxy after its partition")
if os.path.exists(T + "/exited"):
    for l in open(T + "/exited"):
        at, r = l.split()
        print("%s exited on its own at %+.0f s (it could not reach the database at its start) and was started again 5 s later"
              % (r, float(at) - t0))
pg = float(open(T + "/pg_back").read())
nxt = q("SELECT extract(epoch FROM min(created)) FROM leases WHERE created > to_timestamp(%s)" % pg)
if nxt:
    print("PostgreSQL restarted (fast) at %+.0f s: the next lease %.1f s after it was back" % (pg - t0, float(nxt) - pg))
acked = len(set(open(T + "/acked").read().split())) if os.path.exists(T + "/acked") else 0
print("submits: %d acknowledged, %s of them in the database, %d refused while no robotd could take them"
      % (acked, q("SELECT count(*) FROM submissions WHERE submitter = 'stream'"),
         len(open(T + "/refused").readlines()) if os.path.exists(T + "/refused") else 0))
print("runs leased more than once: %s of %s (a lease that ended with its box or robotd: the run measured again); results stored twice: %s"
      % (q("SELECT count(*) FROM (SELECT job FROM leases GROUP BY job HAVING count(*) > 1) x"), q("SELECT count(*) FROM jobs"),
         q("SELECT count(*) FROM (SELECT job FROM results GROUP BY job HAVING count(*) > 1) x")))
runs, open_runs = [], {}  # each claim's unbroken runs of samples
for l in open(T + "/claims") if os.path.exists(T + "/claims") else []:
    at, what = l.strip().split("|")
    at = float(at)
    first, last = open_runs.get(what, (at, at))
    if at - last > 2.5:
        runs.append((what, last - first))
        first = at
    open_runs[what] = (first, at)
runs += [(w, last - first) for w, (first, last) in open_runs.items()]
for kind in ("pair", "bisection", "outbox"):
    spans = sorted(d for w, d in runs if w.startswith(kind + " "))
    if spans:
        print("%s claims: %d seen, the longest held %.0f s (a claim whose robotd died is taken over once its time runs out)"
              % (kind, len(spans), spans[-1]))
print("pairs: %s final, %s not" % (q("SELECT count(*) FROM pairs WHERE state = 'final'"), q("SELECT count(*) FROM pairs WHERE state <> 'final'")))
EOF
touch "$T/stop"
sanitizer_clean
exit $((failed > 0))
