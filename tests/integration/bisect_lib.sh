# bisect_lib.sh: what the bisection tests share (sourced after
# robotd_lib.sh): an SMTP peer, robotd with its configuration, tokens, a
# dd job, and repositories, trees and mails to read.
smtp_start
SP=$(cat "$T/smtp.port")
# robotd.yaml [WAIT]: the configuration, with report_bisect_wait WAIT
# (default 21600); report_window 120: a thread's news waits until its
# heads' pairs are final (then it goes at once).
config() {
	cat >"$T/robotd.yaml" <<YAML
state_dir: $T/state
lease_seconds: 60
report_window: 120
report_bisect_wait: ${1:-21600}
analysis_claim: 5
smtp: smtp://127.0.0.1:$SP
mail_from: robot@robot.test
YAML
}
config
start_robotd d --config "$T/robotd.yaml" || { echo "1..0 # robotd did not start"; exit 1; }
U=$URL_d
ADMIN=$(token admin root)
SUB=$(token submit alice)

export GIT_AUTHOR_NAME="A Developer" GIT_AUTHOR_EMAIL=dev@example.org
export GIT_COMMITTER_NAME="A Developer" GIT_COMMITTER_EMAIL=dev@example.org
cat >"$T/dd.yaml" <<'YAML'
suite: dd-write
testcase: dd-write
disk: 1LOOP_64M
fs: ext4
nr_threads: 1dd
runtime: 1s
mail_to: maint@robot.test
dd:
  bs: 1M
YAML
SERIES=dd-write/1M-1LOOP_64M-ext4-1dd-1s/lab
robot() { ROBOT_SERVER=$U ROBOT_TOKEN=${AS:-$SUB} "$ROBOT" "$@"; }
# repo NAME: a new repository $T/NAME with its first commit, tagged v1.0.
repo() {
	git init -q -b main "$T/$1"
	echo init >"$T/$1/file"
	git -C "$T/$1" add file
	git -C "$T/$1" commit -q -m "init"
	git -C "$T/$1" tag v1.0
}
# commits REPO N PREFIX [FILE]: N commits on the checked-out branch (to
# FILE, default "file"), the i-th by PREFIXi@example.org; their SHAs,
# oldest first, one a line.
commits() {
	for i in $(seq 1 "$2"); do
		echo "$3 $i" >>"$T/$1/${4:-file}"
		git -C "$T/$1" add "${4:-file}"
		GIT_AUTHOR_EMAIL="$3$i@example.org" git -C "$T/$1" commit -q -m "$3: change $i"
		git -C "$T/$1" rev-parse HEAD
	done
}
# watch NAME MAX_RUNS [JOB]: robotd watches repository NAME's main
# branch, and mails the author of a commit at fault.
watch() {
	AS=$ADMIN robot tree add "$1" --url "$T/$1" --branch main --base v1.0 \
		--job "${3:-$T/dd.yaml}" --tbox-group lab --runs 3 --max-runs "$2" --poll 300 \
		--mail-author yes >/dev/null
}
# mail_about TREE: a report of TREE came.
mail_about() { grep -qs "^Subject: \[robot\] \[$1:" "$T"/mail/new/*; }
# about TREE CODE: CODE in Python with `m`, the reports of TREE, oldest
# first, one mail of each (mails()), and `to`, each one's recipients
# (the outbox mails each recipient a copy).
about() { mails "all = [x for x in reports if x['Subject'].startswith('[robot] [$1:')]
m, to = [], {}
for x in all:
    if x['Message-ID'] not in to:
        m.append(x)
    to.setdefault(x['Message-ID'], []).append(x['To'])
to = [sorted(to[x['Message-ID']]) for x in m]
$2"; }
# bisection_of TREE: the id of the tree's newest bisection.
bisection_of() { sql "SELECT max(id) FROM bisections WHERE tree = '$1'"; }
ended() { [ "$(sql "SELECT state FROM bisections WHERE id = ${1:-0}")" != running ] && [ -n "$(sql "SELECT state FROM bisections WHERE id = ${1:-0}")" ]; }
steps_of() { sql "SELECT string_agg(kind || ':' || left(commit, 10) || ':' || coalesce(verdict, '-'), ' ' ORDER BY n) FROM bisect_steps WHERE bisection = $1"; }
mids() { sql "SELECT count(*) FROM bisect_steps WHERE bisection = $1 AND kind = 'mid'"; }
