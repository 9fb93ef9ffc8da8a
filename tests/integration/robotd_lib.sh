# robotd_lib.sh: what the robotd integration tests share (sourced).
#
# Needs ROBOTD, BOX (robot-box) and ROBOT set.  Makes $T, a fresh
# directory (readable by postgres, which runs the embedded database),
# and a trap that stops everything the test started, by PID, cleans up
# the boxes' devices and stops the embedded database, even when a check
# fails.

if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP robotd's tests need root (the embedded database runs as postgres; boxes need loop devices)"
	exit 77
fi

# Absolute paths: some checks run elsewhere.
for v in ROBOTD BOX ROBOT; do
	eval "p=\$$v"
	case $p in /*) ;; *) eval "$v=\$(pwd)/\$p" ;; esac
done

# psql finds robotd's functions as robotd does (DB_FUNCTIONS_SCHEMA).
export PGOPTIONS="-c search_path=robot_functions,public"
# The tests run robotd as root (its embedded database as postgres):
# robotd refuses root unless told so (docs/deploy.md).
export ROBOTD_ALLOW_ROOT=1

PGCTL=$(ls -d /usr/lib/postgresql/*/bin/pg_ctl 2>/dev/null | sort -V | tail -1)
# psql itself, not Debian's pg_wrapper (a Perl script that picks a
# cluster): 13 ms of CPU a call instead of 51, and the tests call it
# about 1,700 times a quick pass (65 CPU seconds; `sa` on a process
# accounting file of one).  sh -c and hostile.py find it first too.
[ -n "$PGCTL" ] && PATH=${PGCTL%/pg_ctl}:$PATH && export PATH

# What an earlier test left when it was killed outright (SIGKILL at its
# time limit, after which no trap runs): each test's directory names the
# shell that made it ($T/owner), and one whose shell is gone is stale.
# The processes started for it are killed (their command lines name the
# directory, which was that test's alone: a robotd's --config or --db, a
# box's --config, PostgreSQL's -D, a simulated box's stop file), its
# databases stopped, its boxes' devices cleaned up, and it is removed.
# A test that still runs (its shell alive) is left alone, and so is a
# directory kept by ROBOT_TEST_KEEP (it has no owner left).  The
# directories are made in ROBOT_TEST_TMP (default /tmp): the test of the
# reaping itself (robotd-leftovers) keeps its own in a directory of its
# own, /tmp/robotd-leftovers.*, which other tests leave alone while that
# test runs, and clean up once it is gone.
TESTS_TMP=${ROBOT_TEST_TMP:-/tmp}
# gone FILE: FILE names a process that no longer runs.  An empty FILE
# is one being written (a test between its mktemp and its pid), not a
# stale one: the owner files are written whole (own_dir) for that.
gone() {
	_o=$(cat "$1" 2>/dev/null) && [ -n "$_o" ] && ! kill -0 "$_o" 2>/dev/null
}
# own_dir DIR: DIR belongs to this shell, written whole (a reaping
# beside it sees no owner or the whole pid, never an empty file).
own_dir() { echo $$ >"$1/owner.$$" && mv -f "$1/owner.$$" "$1/owner"; }
reap_stale() {
	for d in "$TESTS_TMP"/robotd-test.* /tmp/robotd-leftovers.*/robotd-test.*; do
		gone "$d/owner" || continue
		top=${d%/robotd-test.*}
		[ "$top" = "$TESTS_TMP" ] || gone "$top/owner" || continue
		echo "# $d was left by a test that was killed: cleaning it up" >&2
		for p in $(ps -eo pid=,args= | awk -v d="$d/" 'index($0, d) && !/postgres/ {print $1}'); do
			kill -9 "$p" 2>/dev/null
		done
		for data in "$d"/*/pg/data "$d"/*/*/pg/data; do
			[ -f "$data/postmaster.pid" ] &&
				runuser -u postgres -- "$PGCTL" stop -m immediate -D "$data" >/dev/null 2>&1
		done
		for y in "$d"/*.yaml; do
			grep -q '^tbox_group:' "$y" 2>/dev/null &&
				"$BOX" cleanup --config "$y" >/dev/null 2>&1
		done
		for p in $(ps -eo pid=,args= | awk -v d="$d/" 'index($0, d) {print $1}'); do
			kill -9 "$p" 2>/dev/null
		done
		rm -rf "$d"
	done
	for top in /tmp/robotd-leftovers.*; do
		[ "$top" != "$TESTS_TMP" ] && gone "$top/owner" &&
			rm -f "$top/owner" && rmdir "$top" 2>/dev/null
	done
}
reap_stale

T=$(mktemp -d "$TESTS_TMP"/robotd-test.XXXXXX)
chmod 755 "$T"
own_dir "$T"

# The embedded database as robotd makes it (initdb, every migration, the
# functions), made once per build by robotd itself in $DB_TEMPLATE and
# copied into each test's state directory, $T/state: about 2 s of initdb
# and migrations a test saved.  Remade when robotd is newer; one test at a
# time makes it (flock).  A test that must see robotd make a fresh
# database sets ROBOT_TEST_FRESH_DB=1 before sourcing this file.
DB_TEMPLATE=$(dirname "$ROBOTD")/test-db
db_template() {
	(
		flock 9
		[ -f "$DB_TEMPLATE/made" ] && [ ! "$ROBOTD" -nt "$DB_TEMPLATE/made" ] && exit 0
		for d in "$DB_TEMPLATE".new.*; do # a run killed while making it
			[ -d "$d" ] || continue
			for p in $(ps -eo pid=,args= | awk -v d="$d" 'index($0, d) && !/postgres/ {print $1}'); do
				kill -9 "$p" 2>/dev/null
			done
			[ -f "$d/pg/data/postmaster.pid" ] &&
				runuser -u postgres -- "$PGCTL" stop -m immediate -D "$d/pg/data" >/dev/null 2>&1
			rm -rf "$d"
		done
		new=$DB_TEMPLATE.new.$$
		mkdir -p "$new" && chmod 755 "$new" || exit 1
		# (robotd without the lock: were this shell to end early, robotd
		# left behind would hold it, and every later test wait for it)
		"$ROBOTD" --state-dir "$new" --listen 127.0.0.1:0 >"$new/log" 2>&1 9>&- &
		pid=$!
		# (or robotd gave up, a zombie until waited for: its reason is
		# in the log, shown below)
		wait_for 120 sh -c "grep -qs 'listening on http' '$new/log' ||
			! grep -qs '^State:[[:space:]]*[^Z]' /proc/$pid/status"
		kill -TERM $pid 2>/dev/null
		wait $pid
		grep -q "stopped the embedded database" "$new/log" || { cat "$new/log" >&2; exit 1; }
		rm -rf "$DB_TEMPLATE"
		touch "$new/made"
		mv "$new" "$DB_TEMPLATE"
	) 9>"$DB_TEMPLATE.lock"
}
PIDS=""
BOXES=""

finish() {
	for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
	# A killed box's runner tears down on SIGTERM (its parent died):
	# let it, then clean up whatever is left.
	[ -z "$BOXES" ] || sleep 1
	for b in $BOXES; do "$BOX" cleanup --config "$T/$b.yaml" >/dev/null 2>&1; done
	[ -d "$T/state/pg/data" ] &&
		runuser -u postgres -- "$PGCTL" stop -m immediate -D "$T/state/pg/data" >/dev/null 2>&1
	if [ -n "${ROBOT_TEST_KEEP:-}" ]; then
		rm -f "$T/owner" # (kept: the next test's reaping leaves it)
		echo "# kept $T" >&2
	else
		rm -rf "$T"
	fi
}
trap finish EXIT
trap 'exit 1' INT TERM

. "$SRC/tests/integration/tap.sh"

# wait_for SECONDS CMD...: until CMD succeeds; false after SECONDS of
# waiting (the time CMD takes not counted, so that a busy machine gets
# more).  It tries again after 0.1 s, then less and less often, every
# 0.5 s at most: a try is a psql or a python3 of 50-60 ms of CPU, and ten
# a second took half a core from the tests beside a long wait.
wait_for() {
	_wf_limit=$(($1 * 100))
	shift
	_wf_waited=0 _wf_step=10 _wf_stuck=0
	[ -z "${SQL_PID:-}" ] || sql_mend
	while [ $_wf_waited -lt $_wf_limit ]; do
		"$@" && return 0
		if [ -n "${STUCK_CHECK:-}" ] && [ $_wf_waited -ge $_wf_stuck ]; then
			lab_stuck && return 1
			_wf_stuck=$((_wf_waited + 500))
		fi
		# (the fraction without a $(printf) subshell: a fork a try)
		_wf_c=$((_wf_step % 100))
		[ $_wf_c -ge 10 ] || _wf_c=0$_wf_c
		sleep "$((_wf_step / 100)).$_wf_c"
		_wf_waited=$((_wf_waited + _wf_step))
		_wf_step=$((_wf_step * 3 / 2))
		[ $_wf_step -le 50 ] || _wf_step=50
	done
	return 1
}

# lab_stuck: true, with a line saying why, when a group's boxes
# registered and none of them may take work any more (each suspect or
# broken), so that its jobs wait until an operator resets one.  A test on real boxes
# sets STUCK_CHECK=1: its waits then end at once, with the reason,
# instead of at their limits (a real box can change under a test: this
# machine's dd stalls, docs/box.md), unless STUCK_RESETS allows a reset.
lab_stuck() {
	[ -d "$T/state/pg/run" ] || return 1
	why=$(sql "
		SELECT string_agg(name || ' ' || CASE WHEN state = 'broken'
			THEN 'broken' ELSE 'suspect' END, ', ')
		FROM boxes WHERE tbox_group IN (SELECT tbox_group FROM boxes
			GROUP BY 1 HAVING bool_and(suspect IS NOT NULL
				OR state = 'broken'))" 2>/dev/null) || return 1
	[ -n "$why" ] || return 1
	# A test that asks (STUCK_RESETS=N) acts as the operator who looked:
	# up to N times it resets the suspect boxes of a stuck group
	# (robot box reset, with the test's own robot()), and waits on.
	if [ "${STUCK_RESETS:-0}" -gt 0 ] && ! echo "$why" | grep -q broken; then
		STUCK_RESETS=$((STUCK_RESETS - 1))
		echo "# a box changed under the test; reset as an operator would ($why):"
		sql "SELECT message FROM lab_notes WHERE id > ${STUCK_NOTES_SEEN:-0} ORDER BY id" 2>/dev/null |
			sed 's/^/#   /'
		STUCK_NOTES_SEEN=$(sql "SELECT coalesce(max(id), 0) FROM lab_notes" 2>/dev/null)
		STUCK_RESET_DONE=$((${STUCK_RESET_DONE:-0} + 1))
		for b in $(echo "$why" | sed 's/ suspect,*//g'); do
			robot box reset "$b" >/dev/null 2>&1 ||
				echo "# robot box reset $b failed"
		done
		return 1
	fi
	if [ -z "${STUCK_SAID:-}" ]; then
		STUCK_SAID=1
		echo "# the lab is stuck: no box may take work ($why):"
		sql "SELECT message FROM lab_notes ORDER BY id" 2>/dev/null |
			sed 's/^/#   /'
	fi
	return 0
}

if [ -z "${ROBOT_TEST_FRESH_DB:-}" ] && db_template; then
	mkdir -p "$T/state/pg"
	cp -a "$DB_TEMPLATE/pg/data" "$T/state/pg/data"
	# Without fsync (a test's copy only, as robotd-sql's and -upgrade's
	# clusters): what a killed robotd or PostgreSQL wrote stays in the
	# page cache, and only a crash of the machine needs the flush.
	# Commits stay synchronous, as robotd's, so the kill tests still see
	# what a kill loses.
	printf 'fsync = off\nfull_page_writes = off\n' >>"$T/state/pg/data/postgresql.conf"
fi

# start_robotd NAME ARGS...: starts a robotd logging to $T/NAME.log;
# sets PID_<NAME> and URL_<NAME>.
start_robotd() {
	name=$1
	shift
	: >"$T/$name.log"
	"$ROBOTD" --listen 127.0.0.1:0 "$@" >>"$T/$name.log" 2>&1 &
	pid=$!
	PIDS="$PIDS $pid"
	eval "PID_$name=$pid"
	if ! wait_for 60 grep -q "listening on http" "$T/$name.log"; then
		diag "robotd $name did not start:"
		sed 's/^/# /' "$T/$name.log"
		return 1
	fi
	url=$(sed -n 's/.*listening on \(https\{0,1\}:[^ ]*\).*/\1/p' "$T/$name.log" | tail -1)
	eval "URL_$name=$url"
	sql_open # (robotd may have started the database anew)
}

# stop PID: SIGTERM, and wait until it is gone.
stop() {
	kill -TERM "$1" 2>/dev/null
	wait_for 30 sh -c "! kill -0 $1 2>/dev/null"
}

# robotd_up YAML: robotd "d" on $T/robotd.yaml (state_dir $T/state,
# then YAML's lines); U is its URL, ADMIN an admin's token, and robot()
# the CLI as that admin.  Ends the test ("1..0") when robotd does not
# start.
robotd_up() {
	printf 'state_dir: %s/state\n%s\n' "$T" "$1" >"$T/robotd.yaml"
	start_robotd d --config "$T/robotd.yaml" || { echo "1..0 # robotd did not start"; exit 1; }
	U=$URL_d
	ADMIN=$(token admin root)
}
robot() { ROBOT_SERVER=$U ROBOT_TOKEN=$ADMIN "$ROBOT" "$@"; }

# fetch_now TREE: robotd fetches TREE at once (a setting given again
# fetches it, docs/trees.md).  The tests' trees poll every 300 s,
# robot's default, but for those of the tests of polling itself
# (robotd-trees*): a test that pushes to its tree after adding it says
# so with fetch_now.  A fetch that finds nothing new costs about 70 ms
# of CPU (five git processes and the store), and a test's trees polled
# every 5 s for as long as it ran, longer on a busy machine: in a quick
# pass eight at a time (bench/test_cpu.sh) the tests took 357 CPU s
# instead of 379, robotd-bisect_reports 18.9 instead of 25.6.  (The
# admin's token, not robot()'s: bisect_lib.sh's robot() is a
# submitter's, who may not change a tree.)
fetch_now() { ROBOT_SERVER=$U ROBOT_TOKEN=$ADMIN "$ROBOT" tree set "$1" --poll 300 >/dev/null; }

# kill9 PID: SIGKILL, and wait until it is gone: a robotd under ASan on a
# busy machine takes a while to die, and until it has, its lock on the
# state directory keeps a new robotd from starting there.
kill9() {
	kill -9 "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

# token KIND NAME: a new token (robotd's token command).
token() {
	"$ROBOTD" --config "$T/robotd.yaml" token create --kind "$1" --name "$2" 2>/dev/null
}

# api METHOD URL TOKEN [BODYFILE]: the HTTP status; the body in $T/body.
api() {
	if [ -n "${4:-}" ]; then
		curl -s -o "$T/body" -w '%{http_code}' -X "$1" -H "Authorization: Bearer $3" \
			--data-binary @"$4" "$2"
	else
		curl -s -o "$T/body" -w '%{http_code}' -X "$1" -H "Authorization: Bearer $3" "$2"
	fi
}

# dd_job FILE: writes the small dd job most daemon tests submit.
dd_job() {
	printf 'suite: dd-write\ntestcase: dd-write\ndisk: 1LOOP_64M\nfs: ext4\nnr_threads: 1dd\nruntime: 1s\ndd:\n  bs: 1M\n' >"$1"
}

# sha NAME: a made-up full SHA, the same for the same name (robotd takes
# only full SHAs for commits outside a watched tree).
# Kept in $T/sha.NAME, read back without a process: a test asks for the
# same few names hundreds of times (robotd-analysis' stream of submits:
# 136 sha1sum and cut before).
sha() {
	case $1 in
	*[!A-Za-z0-9_.-]* | '' | .*) _sha_f= ;; # (not a file's name)
	*) _sha_f=$T/sha.$1 ;;
	esac
	if [ -z "$_sha_f" ] || ! { read -r _sha <"$_sha_f"; } 2>/dev/null; then
		_sha=$(printf '%s' "$1" | sha1sum | cut -c1-40)
		[ -z "$_sha_f" ] || echo "$_sha" >"$_sha_f"
	fi
	echo "$_sha"
}

# sql QUERY: QUERY's rows from the embedded database as `psql -XAtqc`
# prints them, false when it failed (its error on stderr).  A test asks
# the database hundreds of times, and a new psql costs about 45 ms of
# CPU: 14 the client, 30 the server's new backend (page faults, dear on
# these VMs; perf).  So the queries go to one psql the test keeps open
# (sql_open, from start_robotd), a fork a query instead: QUERY, then
# `\o` and an end line naming this call and psql's ERROR on the pipe
# back, its rows in $T/sql.rows.  One caller at a time: a query held in
# the background takes a psql of its own (sql_own), as a `flock` on the
# kept one decided before, one process more a query (robotd-changes
# made 205 of them).  While the kept psql is gone (robotd stopped the
# database under it), a query gets a psql of its own, and the test's
# own shell opens a new one at its next query.  Statements of one QUERY
# run one after the other, not as psql -c's one implicit transaction.
SQL_PID= SQL_OWNER= SQL_N=0
sql_open() {
	if [ -n "$SQL_PID" ]; then
		kill -9 "$SQL_PID" 2>/dev/null
		wait "$SQL_PID" 2>/dev/null
		exec 7>&- 8<&-
	fi
	SQL_PID=
	rm -f "$T/sql.in" "$T/sql.out"
	mkfifo "$T/sql.in" "$T/sql.out" || return 1
	psql -h "$T/state/pg/run" -U robot -d postgres -XAtq <"$T/sql.in" >"$T/sql.out" 2>&1 &
	SQL_PID=$!
	PIDS="$PIDS $SQL_PID"
	exec 7>"$T/sql.in" 8<"$T/sql.out"
	read -r SQL_OWNER _ </proc/self/stat
}
# sql_up: the kept psql runs (a zombie is gone too).
sql_up() {
	[ -n "$SQL_PID" ] && read -r _ _ _su_state _ <"/proc/$SQL_PID/stat" 2>/dev/null &&
		[ "$_su_state" != Z ]
}
# sql_mend: in the test's own shell (not a subshell, whose psql would
# end with it), a kept psql that is gone is opened again.
sql_mend() {
	[ -n "$SQL_PID" ] && ! sql_up && read -r _sm_me _ </proc/self/stat &&
		[ "$_sm_me" = "$SQL_OWNER" ] && sql_open
	:
}
sql() {
	sql_mend
	if sql_up; then
		SQL_N=$((SQL_N + 1))
		read -r _sql_me _ </proc/self/stat
		_sql_mark=$_sql_me.$SQL_N
		_sql_q=$1 # (without its last ';': a lone ';' resets ERROR)
		while :; do
			case $_sql_q in
			*[\;\ \	\
]) _sql_q=${_sql_q%?} ;;
			*) break ;;
			esac
		done
		(
			trap '' PIPE
			printf '\\o %s\n%s\n;\n\\o\n\\echo __sql_end__ %s :ERROR\n' \
				"$T/sql.rows" "$_sql_q" "$_sql_mark" >&7
		) 2>/dev/null
		_sql_err= _sql_rc=
		while IFS= read -r _sql_l <&8; do
			case $_sql_l in
			"__sql_end__ $_sql_mark "*)
				[ "${_sql_l##* }" = false ] && _sql_rc=0 || _sql_rc=1
				break
				;;
			__sql_end__\ *) _sql_err= ;; # (a call cut short before)
			*) _sql_err="$_sql_err$_sql_l
" ;;
			esac
		done
		if [ -n "$_sql_rc" ]; then
			printf '%s' "$_sql_err" >&2
			while IFS= read -r _sql_l || [ -n "$_sql_l" ]; do
				printf '%s\n' "$_sql_l"
			done <"$T/sql.rows"
			return $_sql_rc
		fi
	fi
	sql_own "$1"
}
# sql_own QUERY: QUERY on a psql of its own.  A query run in the
# background (`sql_own ... &`) must take one: the kept psql serves one
# caller at a time, and the test's shell asks it while the background
# query runs.
sql_own() { psql -h "$T/state/pg/run" -U robot -d postgres -XAtqc "$1"; }
# sql_is VALUE QUERY, sql_some QUERY, sql_ge N QUERY: QUERY's value is
# VALUE, not empty, a number of at least N (for wait_for).
sql_is() { [ "$(sql "$2")" = "$1" ]; }
sql_some() { [ -n "$(sql "$1")" ]; }
sql_ge() { _sg=$(sql "$2") && [ "$_sg" -ge "$1" ] 2>/dev/null; }

# box NAME: writes the box's configuration; starting it is start_box.
# (It waits at most a second for a quiet machine before a run: the tests
# run beside other tests and CPU hogs, where a box waits its whole
# settle time.)
box_config() {
	cat >"$T/$1.yaml" <<YAML
name: $1
tbox_group: lab
workdir: $T/$1
ram_disk_limit: 2G
timeout: 5m
settle: 1s
YAML
	BOXES="$BOXES $1"
}

# start_box NAME URL TOKEN: robot-box serve in the background; its PID
# is pid_box NAME.
pid_box() { cat "$T/$1.pid"; }
start_box() {
	# A killed box's runner holds the work directory until it has
	# torn down.
	mkdir -p "$T/$1"
	flock -w 60 "$T/$1/lock" true
	# The token from a file of mode 0600, not argv (ps shows argv).
	(umask 077 && printf '%s\n' "$3" >"$T/$1.token")
	"$BOX" serve --server "$2" --token-file "$T/$1.token" --config "$T/$1.yaml" >>"$T/$1.log" 2>&1 &
	PIDS="$PIDS $!"
	echo $! >"$T/$1.pid"
}

# simbox NAME ARGS...: a simulated box (simbox.py: ARGS are its shifts
# and options) of group $SIMBOX_GROUP (default lab) on robotd $U, until
# simbox_stop NAME; its PID is $SIMBOX_<NAME>.  Needs SRC.
simbox() {
	name=$1
	shift
	rm -f "$T/stop-$name"
	/usr/bin/python3 "$SRC/tests/integration/simbox.py" "$U" "$(token box "$name")" "$name" \
		"${SIMBOX_GROUP:-lab}" "$T/stop-$name" "$@" 2>>"$T/simbox.log" &
	PIDS="$PIDS $!"
	eval "SIMBOX_$name=$!"
}
simbox_stop() {
	touch "$T/stop-$1"
	eval "wait \$SIMBOX_$1" 2>/dev/null
}

# py CODE: Python checks on $T/body as "j".
py() {
	/usr/bin/python3 -c "import json, sys
j = json.load(open('$T/body'))
$1"
}

# sanitizer_clean: no AddressSanitizer, LeakSanitizer or UBSan report in
# the logs of the daemons and boxes (they run instrumented in CI).
sanitizer_clean() {
	if grep -l 'Sanitizer\|runtime error:' "$T"/*.log >/dev/null 2>&1; then
		grep -h -A20 'Sanitizer\|runtime error:' "$T"/*.log | head -60 | sed 's/^/# /'
		check 1 "no sanitizer reports in the logs"
	else
		check 0 "no sanitizer reports in the logs"
	fi
}

# smtp_start [PORT]: the SMTP peer, storing into $T/mail.
smtp_start() {
	rm -f "$T/smtp.port"
	/usr/bin/python3 "$SRC/tests/integration/smtpsink.py" "$T/smtp.port" "$T/mail" ${1:-} 2>>"$T/smtp.err" &
	SMTP_PID=$!
	PIDS="$PIDS $SMTP_PID"
	wait_for 20 test -s "$T/smtp.port"
}

# mail_to ADDR: a mail to ADDR came (the folder read anew at each call:
# `wait_for N grep ... "$T"/mail/new/*` would glob it only once).
# (the stored mail's lines end in CRLF: a "$" after the address never
# matched, and each wait ran to its end)
mail_to() { cat "$T"/mail/new/* 2>/dev/null | tr -d '\r' | grep -q "^To: $1\$"; }

# report_for SHA: a report of SHA came (its subject names SHA's first 10
# digits; grep, not Python: a wait asks it often).
report_for() { grep -qs "$(echo "$1" | cut -c1-10):" "$T"/mail/new/*; }

# confirm_link ADDRESS: the confirmation link mailed to ADDRESS.
confirm_link() {
	mails "
for f, m in mails:
    if m['To'] == '$1' and m['Subject'].startswith('[robot] confirm'):
        print([l.strip() for l in m.get_content().splitlines() if '/subscriptions/confirm?t=' in l][0])"
}

# mails CODE: CODE in Python with `mails`, every mail stored so far as
# (file, message) parsed with the strict policy, oldest first, and
# `reports`, those that are not confirmations.
mails() {
	/usr/bin/python3 -c "
import email, email.policy, os, sys
d = '$T/mail/new'
files = sorted(os.listdir(d), key=lambda f: os.stat(os.path.join(d, f)).st_mtime_ns) if os.path.isdir(d) else []
mails = [(f, email.message_from_bytes(open(os.path.join(d, f), 'rb').read(), policy=email.policy.strict)) for f in files]
text = lambda m: m.get_content().replace('\\r\\n', '\\n')
reports = [m for f, m in mails if not m['Subject'].startswith('[robot] confirm')]
${MAILS_PRELUDE:-}
$1"
}
count_mails() { mails "sys.exit(0 if len(mails) >= $1 else 1)"; }
