#!/bin/sh
# bench/reports_bench.sh [BUILDDIR]: robotd's reports (as root: the
# embedded database runs as postgres), with a real SMTP server
# (tests/integration/smtpsink.py, aiosmtpd writing a maildir).  Prints
#
#   - the time from the last result upload of a regressing pair to its
#     mail in the maildir, report_window 0, over 20 pairs run by 4
#     simulated boxes (p50, p99, max)
#   - mails delivered per second from a full outbox of 1,000 reports
set -eu
export ROBOTD_ALLOW_ROOT=1 # robotd as root, as the tests run it
build=${1:-build}
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "reports_bench: run as root" >&2; exit 1; }
T=$(mktemp -d /tmp/reports-bench.XXXXXX)
chmod 755 "$T"
PIDS=""
finish() {
	touch "$T/stop"
	for p in $PIDS; do kill -TERM "$p" 2>/dev/null || :; done
	sleep 2
	rm -rf "$T"
}
trap finish EXIT
trap 'exit 1' INT TERM
/usr/bin/python3 tests/integration/smtpsink.py "$T/smtp.port" "$T/mail" 2>"$T/smtp.err" &
PIDS="$PIDS $!"
until [ -s "$T/smtp.port" ]; do sleep 0.1; done
cat >"$T/robotd.yaml" <<YAML
state_dir: $T/state
smtp: smtp://127.0.0.1:$(cat "$T/smtp.port")
mail_from: robot@bench.test
report_window: 0
YAML
"$build/robotd" --config "$T/robotd.yaml" --listen 127.0.0.1:0 >"$T/robotd.log" 2>&1 &
PIDS="$PIDS $!"
until grep -q "listening on" "$T/robotd.log"; do sleep 0.1; done
port=$(sed -n 's/.*listening on http:\/\/[^:]*:\([0-9]*\).*/\1/p' "$T/robotd.log")
U=http://127.0.0.1:$port
# psql finds robotd's functions as robotd does.
export PGOPTIONS="-c search_path=robot_functions,public"
sql() { psql -h "$T/state/pg/run" -U robot -d postgres -XAtqc "$1"; }
c() { printf 'c%039x' "$1"; }

echo "== from the last upload of a regressing pair to its mail, 20 pairs, 4 boxes"
sql "INSERT INTO mail_addresses (email, token) VALUES ('bench@bench.test', robot_random_token());
	INSERT INTO subscriptions (email, state) VALUES ('bench@bench.test', 'confirmed')" >/dev/null
SUB=$("$build/robotd" --config "$T/robotd.yaml" token create --kind submit --name bench 2>/dev/null)
shifts=""
for i in $(seq 2 21); do shifts="$shifts $(c $i)=-20"; done
for b in 1 2 3 4; do
	tok=$("$build/robotd" --config "$T/robotd.yaml" token create --kind box --name "sim$b" 2>/dev/null)
	# shellcheck disable=SC2086
	/usr/bin/python3 tests/integration/simbox.py "$U" "$tok" "sim$b" lab "$T/stop" $shifts --noise=0.5 --seed=$b 2>>"$T/sim.log" &
	PIDS="$PIDS $!"
done
printf 'suite: dd-write\ntestcase: dd-write\ndisk: 1LOOP_64M\nfs: ext4\nnr_threads: 1dd\nruntime: 1s\ndd:\n  bs: 1M\n' >"$T/dd.yaml"
q="tbox_group=lab&repeat=3"
for i in $(seq 1 21); do q="$q&commit=$(c $i)"; done
sleep 2
curl -sS -f -o /dev/null -X POST -H "Authorization: Bearer $SUB" --data-binary @"$T/dd.yaml" "$U/api/jobs?$q"
until [ "$(ls "$T/mail/new" 2>/dev/null | wc -l)" -ge 20 ]; do sleep 0.2; done
touch "$T/stop"
# ready_at: the transaction of the pair's last upload (after more runs,
# the last of them).
sql "SELECT r.id, extract(epoch FROM p.ready_at) FROM reports r JOIN pairs p ON p.head = r.commit" >"$T/uploads"
/usr/bin/python3 - "$T/mail/new" "$T/uploads" <<'PY'
import email, os, re, sys
up = {}
for line in open(sys.argv[2]):
    report, t = line.strip().split("|")
    up[report] = float(t)
d = []
for f in os.listdir(sys.argv[1]):
    p = os.path.join(sys.argv[1], f)
    m = email.message_from_bytes(open(p, "rb").read())
    report = re.match(r"<robot\.(\d+)\.", m["Message-ID"]).group(1)
    d.append((os.stat(p).st_mtime - up[report]) * 1000)
d.sort()
pct = lambda q: d[min(len(d) - 1, int(q * len(d)))]
print("%d mails: p50 %.0f ms, p99 %.0f ms, max %.0f ms" % (len(d), pct(0.5), pct(0.99), d[-1]))
PY

echo "== mails delivered per second from a full outbox of 1,000 reports"
sql "WITH r AS (INSERT INTO reports (kind, commit, message_id, subject, body, doc)
	SELECT 'report', 'c' || i, '<robot.b' || i || '@bench.test>', '[robot] bench ' || i,
		repeat('a line of a report, as long as lines of reports are in 0-day mails\n', 120), '{}'
	FROM generate_series(1, 1000) i RETURNING id)
	INSERT INTO outbox (report, channel, recipient) SELECT id, 'mail', 'm' || id || '@bench.test' FROM r;
	NOTIFY robot_jobs, ':outbox'" >/dev/null
t0=$(date +%s.%N)
until [ "$(sql "SELECT count(*) FROM outbox WHERE recipient LIKE 'm%' AND state = 'sent'")" = 1000 ]; do sleep 0.1; done
t1=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" 'BEGIN {printf "1000 mails (8 KB each) in %.2f s: %.0f mails/s\n", b - a, 1000 / (b - a)}'
echo "in the maildir: $(ls "$T/mail/new" | wc -l) mails"
