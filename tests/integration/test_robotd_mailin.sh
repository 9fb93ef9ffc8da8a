#!/bin/sh
# test_robotd_mailin.sh ROBOTD ROBOT_BOX ROBOT SOURCE_DIR: replies by
# mail (docs/reports.md, "Replies by mail").  A report is mailed through
# a real SMTP server (smtpsink.py) with a reply address of its own for
# each recipient; a recipient's reply, as a mail client makes it
# (multipart, quoted-printable, quoted lines, an HTML part), handed to
# robot mail-in as an MTA's pipe would, triages the finding, and robot
# answers once in its thread.  The same mail again changes nothing; a
# reply from another address, one without a reply address, an unknown
# command, an automatic mail and no mail at all are refused or ignored
# as they should be.  TAP.
set -u
ROBOTD=$1 BOX=$2 ROBOT=$3 SRC=$4
. "$SRC/tests/integration/robotd_lib.sh"

smtp_start
mkdir -p "$T/Maildir/new" "$T/Maildir/cur" "$T/Maildir/tmp"
robotd_up "mail_in_maildir: $T/Maildir
lease_seconds: 60
analysis_claim: 5
max_runs: 10
smtp: smtp://127.0.0.1:$(cat "$T/smtp.port")
mail_from: robot@robot.test
report_window: 0"
SUB=$(token submit alice)
echo "1..13"

printf 'suite: dd-write\ntestcase: dd-write\ndisk: 1LOOP_64M\nfs: ext4\nnr_threads: 1dd\nruntime: 1s\nmail_to: jack@robot.test\nmail_cc: kim@robot.test\ndd:\n  bs: 1M\n' >"$T/dd.yaml"
BASE=$(sha base) BAD=$(sha bad)
simbox s1 "$BAD=-30" --noise=1 --seed=1
api POST "$U/api/jobs?tbox_group=lab&repeat=3&commit=$BASE&commit=$BAD" "$SUB" "$T/dd.yaml" >/dev/null
wait_for 120 mail_to jack@robot.test
wait_for 20 mail_to kim@robot.test
RID=$(sql "SELECT id FROM regressions")
# reply_to ADDRESS: the Reply-To of the report mailed to ADDRESS.
reply_to() {
	mails "
for m in reports:
    if m['To'] == '$1':
        print(m['Reply-To'].addresses[0].addr_spec)"
}
RJ=$(reply_to jack@robot.test)
RK=$(reply_to kim@robot.test)
check $(echo "$RJ" | grep -q '^robot+r[0-9]*\.[0-9a-f]\{20\}@robot\.test$' && [ -n "$RK" ] && [ "$RJ" != "$RK" ]; echo $?) \
	"each recipient's report has a reply address of its own ($RJ, $RK)"

# reply FROM TO ID BODY [HEADERS]: a reply to the report as a mail
# client makes it (multipart/alternative, the text quoted-printable,
# the report quoted below), in $T/reply.ID.
reply() {
	/usr/bin/python3 - "$@" <<'PY'
import email.message, email.policy, os, sys
frm, to, mid, body = sys.argv[1:5]
extra = sys.argv[5] if len(sys.argv) > 5 else ""
m = email.message.EmailMessage(policy=email.policy.SMTP)
m["From"] = "Someone <%s>" % frm
m["To"] = to
m["Subject"] = "Re: [robot] your report"
m["Message-ID"] = "<%s@client.test>" % mid
for h in filter(None, extra.split("|")):
    k, v = h.split(": ", 1)
    m[k] = v
text = body.replace("\\n", "\n") + "\n\nOn Monday, robot wrote:\n> #robot ack\n> the report\n"
m.set_content(text, cte="quoted-printable")
m.add_alternative("<p>%s</p><blockquote>#robot ack</blockquote>" % body, subtype="html")
open(os.path.join(os.environ["T"], "reply." + mid), "wb").write(m.as_bytes())
PY
}
export T
# mail_in ID: robot mail-in with $T/reply.ID on stdin; its exit status,
# its output in $T/in.ID.
mail_in() { ROBOT_SERVER=$U "$ROBOT" mail-in <"$T/reply.$1" >"$T/in.$1" 2>&1; }
# answers ADDRESS: how many answers (In-Reply-To a client's mail) went
# to ADDRESS.
answers() { mails "print(len([m for f, m in mails if m['To'] == '$1' and '@client.test' in (m['In-Reply-To'] or '')]))"; }
answer_to() { [ "$(answers "$1")" -ge "$2" ]; }

# 1. jack's reply: invalid, with its reason; the quoted ack is none.
reply jack@robot.test "$RJ" r1 "#robot invalid: box: the RAID controller changed its cache mode, which made every write of this long line slower"
mail_in r1
rc=$?
wait_for 30 answer_to jack@robot.test 1
st=$(sql "SELECT triage || ' ' || triage_reason || ' ' || state FROM regressions WHERE id = $RID")
ev=$(sql "SELECT string_agg(action || ' ' || by_name || ' ' || how, ', ') FROM triage_events")
check $([ $rc = 0 ] && grep -q "robotd took mail <r1@client.test>: answering" "$T/in.r1" &&
	[ "$st" = "invalid box invalid" ] && [ "$ev" = "invalid jack@robot.test mail" ] &&
	[ "$(sql "SELECT triage_text FROM regressions")" = "the RAID controller changed its cache mode, which made every write of this long line slower" ]; echo $?) \
	"a recipient's reply marks the finding invalid with its reason; the quoted command is none ($rc; $st; $ev)"
check $(mails "
m = [m for f, m in mails if m['To'] == 'jack@robot.test' and m['In-Reply-To'] == '<r1@client.test>']
assert len(m) == 1, len(m)
b = text(m[0])
assert m[0]['Subject'].startswith('Re: [robot] '), m[0]['Subject']
assert 'regression $RID: invalid (box)' in b, b
assert '#robot invalid: box: the RAID controller' in b, b
assert m[0]['Auto-Submitted'] == 'auto-generated'
"; echo $?) "robot answers once in the thread: In-Reply-To the reply, saying what it did"

# 2. The same mail again: nothing changes, no second answer.
mail_in r1
rc=$?
sleep 2
check $([ $rc = 0 ] && grep -q "answered" "$T/in.r1" && [ "$(answers jack@robot.test)" = 1 ] &&
	[ "$(sql "SELECT count(*) FROM triage_events")" = 1 ] &&
	[ "$(sql "SELECT count(*) FROM mail_in")" = 1 ]; echo $?) \
	"the same mail again changes nothing and is not answered again ($rc: $(cat "$T/in.r1"))"

# 3. kim sends with jack's reply address: refused, nothing changes, kim
# is told why.
reply kim@robot.test "$RJ" r2 "#robot untriage"
mail_in r2
wait_for 30 answer_to kim@robot.test 1
check $([ "$(sql "SELECT triage FROM regressions")" = invalid ] && mails "
m = [m for f, m in mails if m['To'] == 'kim@robot.test' and m['In-Reply-To'] == '<r2@client.test>']
assert len(m) == 1
b = text(m[0])
assert 'robot took none of the commands of your mail: the reply address is not the one report' in b and 'kim@robot.test' in b, b
assert 'Nothing changed.' in b, b"; echo $?) \
	"another recipient's reply to jack's address is refused, and told why"

# 4. No reply address (to robot@ itself), and kim's own address with an
# unknown command and a good one: the first refused whole, the second
# takes the good command and refuses the other.
reply kim@robot.test robot@robot.test r3 "#robot ack"
mail_in r3
reply kim@robot.test "$RK" r4 "#robot snooze: 30d\n#robot tag: raid"
mail_in r4
wait_for 30 answer_to kim@robot.test 3
check $([ "$(sql "SELECT array_to_string(tags, ',') FROM regressions")" = raid ] && mails "
a = {m['In-Reply-To']: text(m) for f, m in mails if m['To'] == 'kim@robot.test' and m['In-Reply-To']}
assert 'was not sent to a report\'s reply address' in a['<r3@client.test>'], a['<r3@client.test>']
b = a['<r4@client.test>']
assert '#robot snooze: 30d\n    refused: no command \'snooze\'' in b, b
assert '#robot tag: raid\n    regression $RID: invalid' in b, b"; echo $?) \
	"a mail to no reply address is refused; an unknown command is, and the good one beside it taken"

# 5. Ignored, never answered: no command, an automatic mail.
reply jack@robot.test "$RJ" r5 "thanks, looking at it"
reply jack@robot.test "$RJ" r6 "#robot ack" "Auto-Submitted: auto-replied"
mail_in r5
rc5=$?
mail_in r6
sleep 2
check $([ $rc5 = 0 ] && [ "$(answers jack@robot.test)" = 1 ] &&
	[ "$(sql "SELECT string_agg(state || ':' || refused, ', ' ORDER BY id) FROM mail_in WHERE message_id IN ('<r5@client.test>', '<r6@client.test>')")" = \
		"ignored:no #robot command, ignored:an automatic mail (a bounce, an auto-reply)" ] &&
	[ "$(sql "SELECT triage FROM regressions")" = invalid ]; echo $?) \
	"a mail without commands, and an auto-reply, are kept and never answered"

# 6. What an MTA understands: no mail bounces (65), robotd not reached
# is tried again (75).
printf 'not a mail at all\n' | ROBOT_SERVER=$U "$ROBOT" mail-in >"$T/in.bad" 2>&1
rc1=$?
ROBOT_SERVER=http://127.0.0.1:1 "$ROBOT" mail-in <"$T/reply.r1" >"$T/in.down" 2>&1
rc2=$?
check $([ $rc1 = 65 ] && grep -q "no mail" "$T/in.bad" && [ $rc2 = 75 ]; echo $?) \
	"robot mail-in: 65 for no mail, 75 when robotd is not reached ($rc1 $rc2)"

# 7. Refusals to one sender: three an hour are answered, the rest kept.
for i in 1 2 3 4; do
	reply lena@robot.test "$RJ" "f$i" "#robot ack"
	mail_in "f$i"
done
wait_for 30 answer_to lena@robot.test 3
sleep 2
check $([ "$(answers lena@robot.test)" = 3 ] &&
	[ "$(sql "SELECT state FROM mail_in WHERE message_id = '<f4@client.test>'")" = ignored ]; echo $?) \
	"at most three refusals an hour are mailed to one address ($(answers lena@robot.test))"

# 8. The maildir robotd watches: a mail delivered there is taken as
# robot mail-in takes it, then moved to cur/ (seen); no mail, trashed.
reply jack@robot.test "$RJ" m1 "#robot note: from the maildir"
cp "$T/reply.m1" "$T/Maildir/tmp/m1" && mv "$T/Maildir/tmp/m1" "$T/Maildir/new/1.m1.robot"
printf 'not a mail\n' >"$T/Maildir/new/2.junk.robot"
seen() { [ -e "$T/Maildir/cur/1.m1.robot:2,S" ] && [ -e "$T/Maildir/cur/2.junk.robot:2,T" ]; }
wait_for 30 seen
rc=$?
wait_for 30 answer_to jack@robot.test 2
check $([ $rc = 0 ] && [ -z "$(ls "$T/Maildir/new")" ] &&
	[ "$(sql "SELECT detail || ' ' || by_name || ' ' || how FROM triage_events ORDER BY id DESC LIMIT 1")" = "from the maildir jack@robot.test mail" ] &&
	[ "$(answers jack@robot.test)" = 2 ] && grep -q "mail-in: .*2.junk.robot is no mail" "$T/d.log"; echo $?) \
	"a mail delivered to the watched maildir is taken and moved to cur/; no mail is trashed ($rc; $(ls "$T/Maildir/cur" | tr '\n' ' '))"

# 9. The report mail's one-time link: opened, a cookie for its report's
# findings, as that recipient; the page's form then triages; opened
# again, or with another address, it is refused.
link=$(mails "
for m in reports:
    for l in text(m).splitlines():
        if m['To'] == 'kim@robot.test' and l.startswith('Triage it on the page'):
            print(l.split(': ', 1)[1])")
l1=$(curl -s -o "$T/body" -D "$T/hdr" -w '%{http_code}' "$link")
sess=$(sed -n 's/^Set-Cookie: robot_link=\([0-9a-f]*\);.*/\1/p' "$T/hdr" | tr -d '\r')
loc=$(sed -n 's/^Location: //p' "$T/hdr" | tr -d '\r')
l2=$(curl -s -o "$T/body2" -w '%{http_code}' "$link")
l3=$(curl -s -o /dev/null -w '%{http_code}' "$(echo "$link" | sed 's/a=kim/a=lena/')")
printf 'command=ack+kim' >"$T/form"
f1=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "Cookie: robot_link=$sess" --data-binary @"$T/form" "$U/regressions/$RID/triage")
check $(echo "$link" | grep -q "^$U/triage?t=r[0-9]*\.[0-9a-f]\{20\}&a=kim%40robot.test$" &&
	[ "$l1" = 303 ] && [ -n "$sess" ] && [ "$loc" = "/regressions/$RID" ] &&
	[ "$l2" = 409 ] && grep -q "used already" "$T/body2" && [ "$l3" = 403 ] && [ "$f1" = 303 ] &&
	[ "$(sql "SELECT action || ' ' || detail || ' ' || by_name || ' ' || how FROM triage_events ORDER BY id DESC LIMIT 1")" = "ack kim kim@robot.test page" ]; echo $?) \
	"the mail's one-time link opens the page as its recipient, once ($l1 $l2 $l3 $f1; $loc)"

# 10. The page shows what was said, by whom and how.
s=$(api GET "$U/regressions/$RID" "")
check $([ "$s" = 200 ] && grep -q "invalid box: the RAID controller changed its cache mode.*by jack@robot.test (mail)" "$T/body"; echo $?) \
	"the regression page shows the reply's command, by its sender, by mail ($s)"

touch "$T/stop-s1"; simbox_stop s1
sanitizer_clean
exit $((failed > 0))
