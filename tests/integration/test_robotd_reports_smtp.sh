#!/bin/sh
# test_robotd_reports_smtp.sh ROBOTD ROBOT_BOX ROBOT SOURCE_DIR: the
# outbox against a real SMTP server's faults (smtpsink.py): the server
# down and back on its port, a 550 and a 451, robotd killed -9 while the
# server holds its 250, and two robotd on one database, each mail once.
# The mails are subscription confirmations: no box is needed (reports
# and their faults with simulated boxes: test_robotd_reports_sim.sh).
# TAP.
set -u
ROBOTD=$1 BOX=$2 ROBOT=$3 SRC=$4
. "$SRC/tests/integration/robotd_lib.sh"

smtp_start
SP=$(cat "$T/smtp.port")
robotd_up "lease_seconds: 60
smtp: smtp://127.0.0.1:$SP
mail_from: robot@robot.test
report_window: 0
report_claim: 20"
echo "1..6"

# 1. The SMTP server down, then back on its port: every mail once.
kill "$SMTP_PID"
wait "$SMTP_PID" 2>/dev/null
before=$(ls "$T/mail/new" | wc -l)
for a in ivy jack kim; do robot subscribe $a@robot.test >/dev/null 2>&1; done
wait_for 30 sql_ge 3 "SELECT count(*) FROM outbox WHERE recipient LIKE '%@robot.test' AND state = 'pending' AND attempts >= 1 AND last_error IS NOT NULL"
robot reports >"$T/reports2.out" 2>&1
smtp_start "$SP"
wait_for 60 sh -c "[ \$(ls '$T/mail/new' | wc -l) -ge $((before + 3)) ]"
sleep 3
check $(grep -q "Couldn't connect\|Failed to connect\|connect" "$T/reports2.out" &&
	mails "
tos = [m['To'] for f, m in mails[$before:]]
assert sorted(tos) == ['ivy@robot.test', 'jack@robot.test', 'kim@robot.test'], tos"; echo $?) \
	"SMTP down: the mails wait (robot reports says why); back: each arrives once"

# A 5xx for one recipient fails that one only, visibly; a 4xx is tried
# again.
before=$(ls "$T/mail/new" | wc -l)
for a in refused later lena; do robot subscribe $a@robot.test >/dev/null 2>&1; done
refused_failed() {
	[ "$(ls "$T/mail/new" | wc -l)" -ge $((before + 1)) ] &&
		sql_is failed "SELECT state FROM outbox WHERE recipient = 'refused@robot.test'"
}
wait_for 30 refused_failed
robot reports >"$T/reports3.out" 2>&1
check $([ "$(sql "SELECT state || ' ' || attempts FROM outbox WHERE recipient = 'refused@robot.test'")" = "failed 1" ] &&
	[ "$(sql "SELECT state FROM outbox WHERE recipient = 'later@robot.test'")" = pending ] &&
	[ "$(sql "SELECT state FROM outbox WHERE recipient = 'lena@robot.test'")" = sent ] &&
	grep -q "the server answered 550" "$T/reports3.out" && grep -q "the server answered 451" "$T/reports3.out"; echo $?) \
	"a 550 fails that recipient only, a 451 is tried again, robot reports shows both"

# 2. robotd killed -9 while the server holds its 250: the mail is sent
# again once the claim runs out, with the same Message-ID, and only once
# more.  The kill must come within the server's 8 s hold: on a loaded
# machine it once came after it (robotd had its 250 and marked the mail
# sent, so nothing was sent again), so a kill that came too late is
# said, and tried again with another address (three at most).
# copies ADDRESS N: the server holds at least N mails to ADDRESS.
copies() { [ "$(grep -ls "^To: $1" "$T"/mail/new/* | wc -l)" -ge "$2" ]; }
SLOW=
for i in 1 2 3; do
	rm -f "$T/mail.holding"
	robot subscribe slow$i@robot.test >/dev/null 2>&1
	wait_for 20 test -e "$T/mail.holding"
	kill9 "$PID_d"
	late=$(($(date +%s) - $(stat -c %Y "$T/mail.holding" 2>/dev/null || date +%s)))
	start_robotd d --config "$T/robotd.yaml"
	U=$URL_d
	state=$(sql "SELECT state FROM outbox WHERE recipient = 'slow$i@robot.test'")
	[ "$state" = pending ] && SLOW=slow$i@robot.test && break
	diag "robotd killed $late s after the server began to hold slow$i's 250: $state already; again"
done
S=${SLOW:-slow3@robot.test} # (the last one tried, when none came in time)
wait_for 120 copies "$S" 2
sleep 12
check $([ -n "$SLOW" ] && mails "
m = [m for f, m in mails if m['To'] == '$S']
assert len(m) == 2 and m[0]['Message-ID'] == m[1]['Message-ID'], [x['Message-ID'] for x in m]
"; echo $?) "robotd killed -9 mid-delivery: sent again after the claim, one duplicate with the same Message-ID ($S: $(sql "SELECT state || ', ' || attempts || ' attempts, ' || coalesce(last_error, 'no error') FROM outbox WHERE recipient = '$S'"))"
check $([ "$(sql "SELECT state FROM outbox WHERE recipient = '$S'")" = sent ]; echo $?) \
	"and then marked sent"

# 3. Two robotd on one database: each mail once.
sed "s|^state_dir: .*|state_dir: $T/state-e|" "$T/robotd.yaml" >"$T/robotd-e.yaml"
start_robotd e --db "host=$T/state/pg/run user=robot dbname=postgres" --config "$T/robotd-e.yaml" ||
	diag "robotd e did not start"
before=$(ls "$T/mail/new" | wc -l)
posts=""
for i in $(seq 1 30); do
	# (an admin's: an anonymous client asks for ten an hour at most)
	curl -s -o /dev/null -X POST -H "Authorization: Bearer $ADMIN" \
		-d "{\"email\": \"many$i@robot.test\"}" "$U/api/subscriptions" &
	posts="$posts $!"
done
for p in $posts; do wait "$p"; done
wait_for 60 sh -c "[ \$(ls '$T/mail/new' | wc -l) -ge $((before + 30)) ]"
sleep 6
nd=$(grep -c "outbox .*many.*: sent" "$T/d.log")
ne=$(grep -c "outbox .*many.*: sent" "$T/e.log")
check $(mails "
tos = [m['To'] for f, m in mails[$before:]]
assert sorted(tos) == sorted('many%d@robot.test' % i for i in range(1, 31)), sorted(tos)
"; echo $?) "two robotd on one database: 30 mails, each once ($nd by d, $ne by e)"

stop "$PID_e"
stop "$PID_d"
sanitizer_clean
exit $((failed > 0))
