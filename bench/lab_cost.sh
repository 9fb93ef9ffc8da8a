#!/bin/sh
# bench/lab_cost.sh [--seeds N] [--first S] [--quickstart-only | --lab-only]
#                   [--keep] [BUILDDIR]:
# what a verdict costs the lab, on simulated boxes (tests/integration/
# simbox.py, a known truth) against a real robotd (as root: its embedded
# database runs as postgres).  Prints
#
#   - a lab like the one of issue 63 (4 boxes, 4% noise, 3% of the runs
#     30% low, boxes up to 3% apart, each drifting 0.1% a run, one
#     stepping down 20% from its 30th run): a tree whose four innocent
#     heads come one at a time, then a push of eight commits whose third
#     is 8% slower.  Per seed (a tree of its own, on boxes of their own:
#     a series of its own, so a history of its own): the runs a side of
#     each tested head, whether an innocent head was recorded, and the
#     bisection: its steps, the runs of each tested commit (its own, and
#     with the ends' in its rounds), the runs of the whole bisection, and
#     whether it found the 8% commit.  Then the totals over the seeds.
#   - the quickstart's scenario with a run of 5 s on one box: the demo
#     tree's shape (an innocent commit, then seven at once whose first
#     makes dd 93% slower), two series (dirty ratio 10 and 40), the good
#     commits' runs 15% apart, the bad ones' 1%: the runs it took and the
#     wall time from the push to the report mail.
set -eu
export ROBOTD_ALLOW_ROOT=1 # robotd as root, as the tests run it
seeds=20
first=1
keep=
parts="lab quickstart"
while [ $# -gt 0 ]; do
	case $1 in
	--seeds) seeds=$2; shift ;;
	--first) first=$2; shift ;;
	--keep) keep=1 ;;
	--quickstart-only) parts=quickstart ;;
	--lab-only) parts=lab ;;
	*) break ;;
	esac
	shift
done
build=${1:-build}
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "lab_cost: run as root" >&2; exit 1; }
T=$(mktemp -d /tmp/lab-cost.XXXXXX)
chmod 755 "$T"
PIDS=""
SIMGROUPS=""
finish() {
	touch "$T/stop"
	for g in $SIMGROUPS; do touch "$T/stop-$g"; done
	for p in $PIDS; do kill -TERM "$p" 2>/dev/null || :; done
	sleep 2
	if [ -n "$keep" ]; then echo "lab_cost: kept $T" >&2; else rm -rf "$T"; fi
}
trap finish EXIT
trap 'exit 1' INT TERM
export GIT_AUTHOR_NAME="A Developer" GIT_AUTHOR_EMAIL=dev@example.org
export GIT_COMMITTER_NAME="A Developer" GIT_COMMITTER_EMAIL=dev@example.org
export PGOPTIONS="-c search_path=robot_functions,public"

/usr/bin/python3 tests/integration/smtpsink.py "$T/smtp.port" "$T/mail" 2>"$T/smtp.err" &
PIDS="$PIDS $!"
until [ -s "$T/smtp.port" ]; do sleep 0.1; done
cat >"$T/robotd.yaml" <<YAML
state_dir: $T/state
lease_seconds: 120
analysis_claim: 30
max_runs: 14
report_window: 0
smtp: smtp://127.0.0.1:$(cat "$T/smtp.port")
mail_from: robot@bench.test
YAML
"$build/robotd" --config "$T/robotd.yaml" --listen 127.0.0.1:0 >"$T/robotd.log" 2>&1 &
PIDS="$PIDS $!"
until grep -q "listening on" "$T/robotd.log"; do sleep 0.1; done
port=$(sed -n 's/.*listening on http:\/\/[^:]*:\([0-9]*\).*/\1/p' "$T/robotd.log")
U=http://127.0.0.1:$port
sql() { psql -h "$T/state/pg/run" -U robot -d postgres -XAtqc "$1"; }
token() { "$build/robotd" --config "$T/robotd.yaml" token create --kind "$1" --name "$2" 2>/dev/null; }
ADMIN=$(token admin bench)
robot() { ROBOT_SERVER=$U ROBOT_TOKEN=$ADMIN "$build/robot" "$@"; }
# simbox NAME GROUP ARGS...: a simulated box of GROUP until $T/stop or
# $T/stop-GROUP.
simbox() {
	name=$1 group=$2
	shift 2
	[ -e "$T/stop" ] && touch "$T/stop-$group"
	/usr/bin/python3 tests/integration/simbox.py "$U" "$(token box "$name")" "$name" \
		"$group" "$T/stop-$group" "$@" 2>>"$T/simbox.log" &
	PIDS="$PIDS $!"
}
# wait_until SECONDS CMD...: CMD succeeds, or false after SECONDS.
wait_until() {
	end=$(($(date +%s) + $1))
	shift
	until "$@"; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.5
	done
}
# repo DIR: a repository at DIR with its first commit, tagged v1.0.
repo() {
	git init -q -b main "$1"
	echo init >"$1/file"
	git -C "$1" add file
	git -C "$1" commit -q -m init
	git -C "$1" tag v1.0
}
# commit DIR MSG: one commit; its SHA.
commit() {
	echo "$2" >>"$1/file"
	git -C "$1" commit -q -am "$2"
	git -C "$1" rev-parse HEAD
}
head_seen() { [ "$(sql "SELECT count(*) FROM tree_heads WHERE tree = '$1' AND sha = '$2'")" != 0 ]; }
# push TREE DIR SHA: the branch moves to SHA and robotd fetches it.
push() {
	git -C "$2" update-ref refs/heads/main "$3"
	robot tree set "$1" --poll 300 >/dev/null
	wait_until 60 head_seen "$1" "$3"
}
pairs_final() { [ "$(sql "SELECT count(*) FROM pairs WHERE tree = '$1' AND state <> 'final'")" = 0 ]; }

lab() {
	s=$1
	R=$T/lab$s
	repo "$R"
	for i in 1 2 3 4; do commit "$R" "innocent $i" >>"$T/lab$s.innocent"; done
	for i in 1 2 3 4 5 6 7 8; do commit "$R" "push $i" >>"$T/lab$s.push"; done
	slow=$(sed -n '3,$p' "$T/lab$s.push" | sed 's/$/=-8/' | tr '\n' ' ')
	git -C "$R" update-ref refs/heads/main v1.0
	SIMGROUPS="$SIMGROUPS lab$s"
	for b in 1 2 3 4; do
		off=$(echo "$b" | awk '{print ($1 - 2.5) * 2}')
		step=
		[ "$b" = 2 ] && step=--step=30:-20
		# shellcheck disable=SC2086
		simbox "l$s-$b" "lab$s" $slow --noise=4 --outliers=0.03:0.7 --offset="$off" \
			--drift=0.1 $step --seed="$((s * 10 + b))"
	done
	printf 'suite: dd-write\ntestcase: dd-write\ndisk: 1LOOP_64M\nfs: ext4\nnr_threads: 1dd\nruntime: 1s\ndd:\n  bs: 1M\n' >"$T/dd.yaml"
	robot tree add "lab$s" --url "$R" --branch main --base v1.0 --job "$T/dd.yaml" \
		--tbox-group "lab$s" --runs 3 --max-runs 14 --poll 300 >/dev/null
	while read -r sha; do
		push "lab$s" "$R" "$sha"
		wait_until 300 pairs_final "lab$s"
	done <"$T/lab$s.innocent"
	push "lab$s" "$R" "$(tail -1 "$T/lab$s.push")"
	wait_until 300 pairs_final "lab$s"
	ended() { [ -n "$(sql "SELECT 1 FROM bisections WHERE tree = 'lab$1' AND lead IS NULL AND state <> 'running'")" ] ||
		[ -z "$(sql "SELECT 1 FROM regressions WHERE tree = 'lab$1' AND commit = '$(tail -1 "$T/lab$1.push")'")" ]; }
	wait_until 900 ended "$s" || true
	bad=$(sed -n 3p "$T/lab$s.push")
	sql "SELECT '$s', (SELECT string_agg(p.runs::text, ' ' ORDER BY p.id) FROM pairs p WHERE p.tree = 'lab$s'
			AND p.bisection IS NULL AND p.head IN ($(sed "s/.*/'&'/" "$T/lab$s.innocent" | paste -sd,))),
		(SELECT p.runs FROM pairs p WHERE p.tree = 'lab$s' AND p.bisection IS NULL
			AND p.head = '$(tail -1 "$T/lab$s.push")'),
		(SELECT count(*) FROM regressions r WHERE r.tree = 'lab$s'
			AND r.commit IN ($(sed "s/.*/'&'/" "$T/lab$s.innocent" | paste -sd,))),
		coalesce((SELECT b.state || ' ' || (coalesce(b.first_bad, '-') = '$bad')::text FROM bisections b
			WHERE b.tree = 'lab$s' AND b.lead IS NULL ORDER BY b.id LIMIT 1), 'none -'),
		(SELECT count(*) FROM bisect_steps st JOIN bisections b ON b.id = st.bisection
			WHERE b.tree = 'lab$s' AND st.kind IN ('mid', 'confirm')),
		(SELECT count(DISTINCT j.id) FROM jobs j JOIN bisect_steps st ON j.commit = st.commit
			JOIN bisections b ON b.id = st.bisection AND j.series = b.series
			WHERE b.tree = 'lab$s' AND st.kind IN ('mid', 'confirm') AND j.state = 'done'
			AND j.pair IN (SELECT id FROM pairs WHERE bisection = b.id)),
		(SELECT count(*) FROM jobs j JOIN pairs p ON p.id = j.pair
			WHERE p.tree = 'lab$s' AND p.bisection IS NOT NULL AND j.state = 'done')" |
		tr '|' ' ' >>"$T/lab.out"
	touch "$T/stop-lab$s"
}


if echo "$parts" | grep -q lab; then
	echo "lab: 4 boxes, 4% noise, 3% of runs 30% low, offsets, drift 0.1%/run, one box -20% from run 30; an 8% slower commit" >&2
	for s in $(seq "$first" $((first + seeds - 1))); do
		lab "$s"
		tail -1 "$T/lab.out" | awk '{printf "seed %s: innocent heads %s %s %s %s rounds, the slow head %s; innocent recorded %s; bisection %s (right: %s), %s steps, %s runs of tested commits, %s runs in all\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12}'
	done
	awk '{inn += $2 + $3 + $4 + $5; ninn += 4; slow += $6; rec += $7; right += ($9 == "true"); steps += $10; own += $11; all += $12; n++}
	END {printf "over %d seeds: %.2f runs a side per innocent head, %.2f for the slow one; %d innocent heads recorded; bisected right %d of %d; %.2f runs per tested commit (%.2f with the ends'\'' runs in its rounds), %.1f runs a bisection\n",
		n, inn / ninn, slow / n, rec, right, n, own / steps, all / steps, all / n}' "$T/lab.out"
fi

if echo "$parts" | grep -q quickstart; then
	Q=$T/demo
	repo "$Q"
	INN=$(commit "$Q" "mm: clarify the writeback comments")
	for i in 1 2 3 4 5 6 7; do commit "$Q" "push $i" >>"$T/demo.push"; done
	git -C "$Q" update-ref refs/heads/main v1.0
	bad=$(sed -n 1p "$T/demo.push")
	slow=$(sed 's/$/=-93~1/' "$T/demo.push" | tr '\n' ' ')
	SIMGROUPS="$SIMGROUPS demo"
	# shellcheck disable=SC2086
	simbox local demo $slow --noise=15 --delay=5 --seed=1
	printf 'suite: dd-write\ntestcase: dd-write\ndisk: 3LOOP_1G\nfs: xfs\nnr_threads: 1dd\nruntime: 5s\nsysctl:\n  sc_dirty_ratio: [10, 40]\ndd:\n  bs: 1M\nmail_to: maint@bench.test\n' >"$T/demo.yaml"
	robot tree add demo --url "$Q" --branch main --base v1.0 --job "$T/demo.yaml" \
		--tbox-group demo --runs 3 --max-runs 10 --poll 300 >/dev/null
	t0=$(date +%s)
	push demo "$Q" "$INN"
	push demo "$Q" "$(tail -1 "$T/demo.push")"
	mailed() { grep -qs "^Subject: \[robot\] \[demo:main\] .*$(echo "$bad" | cut -c1-10)" "$T"/mail/new/*; }
	wait_until 1800 mailed || echo "quickstart scenario: no report in 30 minutes" >&2
	t1=$(date +%s)
	echo "quickstart scenario (5 s runs, one box): the report mail $((t1 - t0)) s after the pushes; $(sql "SELECT count(*) FROM jobs WHERE state = 'done' AND tbox_group = 'demo'") runs ($(sql "SELECT count(*) FROM jobs j JOIN pairs p ON p.id = j.pair WHERE p.bisection IS NOT NULL AND j.state = 'done' AND j.tbox_group = 'demo'") of them the bisections'); bisections: $(sql "SELECT string_agg(id || ' ' || state || coalesce(' follows ' || lead, '') || ' ' || coalesce(left(first_bad, 10), '-'), ', ' ORDER BY id) FROM bisections WHERE tree = 'demo'") (the bad commit $(echo "$bad" | cut -c1-10))"
fi
