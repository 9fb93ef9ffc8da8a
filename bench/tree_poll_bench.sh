#!/bin/sh
# bench/tree_poll_bench.sh [COMMITS] [BUILDDIR]: what robotd's tree watcher
# costs (as root: the embedded database runs as postgres).  Makes a git
# repository of COMMITS (100000) commits with git fast-import, has robotd
# watch it (poll 5 s), and prints
#
#   - the first fetch: wall time and the commits recorded
#   - one poll with no new commits: robotd's own CPU, and its git
#     children's, per poll (from /proc: utime+stime and cutime+cstime),
#     over 6 polls; robotd's idle CPU over as long is printed beside it
set -eu
export ROBOTD_ALLOW_ROOT=1 # robotd as root, as the tests run it
N=${1:-100000}
build=${2:-build}
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "tree_poll_bench: run as root" >&2; exit 1; }
T=$(mktemp -d /tmp/tree-bench.XXXXXX)
chmod 755 "$T"
PIDS=""
finish() {
	for p in $PIDS; do kill -TERM "$p" 2>/dev/null || :; done
	sleep 3
	rm -rf "$T"
}
trap finish EXIT
trap 'exit 1' INT TERM

echo "making a repository of $N commits" >&2
/usr/bin/python3 - "$N" >"$T/stream" <<'PY'
import sys
n = int(sys.argv[1])
out = sys.stdout
for i in range(1, n + 1):
    msg = "commit %d\n" % i
    data = "%d\n" % i
    out.write("commit refs/heads/main\nmark :%d\n" % i)
    out.write("committer Bench <bench@example.org> %d +0000\n" % (1700000000 + i))
    out.write("data %d\n%s" % (len(msg), msg))
    if i > 1:
        out.write("from :%d\n" % (i - 1))
    out.write("M 644 inline file\ndata %d\n%s\n" % (len(data), data))
out.write("reset refs/tags/v1.0\nfrom :1\n\n")
PY
git init -q --bare "$T/repo.git"
GLIBC_TUNABLES=glibc.malloc.top_pad=67108864 git -C "$T/repo.git" fast-import --quiet <"$T/stream"

cat >"$T/robotd.yaml" <<YAML
state_dir: $T/state
YAML
"$build/robotd" --config "$T/robotd.yaml" --listen 127.0.0.1:0 >"$T/robotd.log" 2>&1 &
RD=$!
PIDS="$RD"
i=0
until grep -q "listening on http" "$T/robotd.log"; do
	i=$((i + 1))
	[ $i -lt 600 ] || { cat "$T/robotd.log"; exit 1; }
	sleep 0.1
done
U=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$T/robotd.log" | tail -1)
ADMIN=$("$build/robotd" --config "$T/robotd.yaml" token create --kind admin --name bench 2>/dev/null)
sql() { psql -h "$T/state/pg/run" -U robot -d postgres -XAtqc "$1"; }
# cpu: robotd's own and its reaped children's CPU, in clock ticks.
cpu() { awk '{print $14 + $15, $16 + $17}' "/proc/$RD/stat"; }
tck=$(getconf CLK_TCK)
calc() { awk "BEGIN {printf \"%.1f\", $1}"; }

cat >"$T/dd.yaml" <<'YAML'
suite: dd-write
testcase: dd-write
disk: 1LOOP_64M
fs: ext4
nr_threads: 1dd
runtime: 1s
dd:
  bs: 1M
YAML
sleep 2
set -- $(cpu)
idle0=$1
sleep 30
set -- $(cpu)
idle=$(( $1 - idle0 ))

start=$(date +%s.%N)
ROBOT_SERVER=$U ROBOT_TOKEN=$ADMIN "$build/robot" tree add big --url "$T/repo.git" \
	--branch main --base v1.0 --job "$T/dd.yaml" --runs 1 --poll 5 >/dev/null
until [ "$(sql "SELECT fetched IS NOT NULL FROM trees")" = t ]; do sleep 0.1; done
end=$(date +%s.%N)
echo "first fetch: $(calc "$end - $start") s, $(sql "SELECT count(*) FROM tree_commits") commits recorded"

f0=$(sql "SELECT fetched FROM trees")
until [ "$(sql "SELECT fetched FROM trees")" != "$f0" ]; do sleep 0.1; done
set -- $(cpu)
own0=$1 kids0=$2
t0=$(date +%s.%N)
polls=6
for k in $(seq $polls); do
	f=$(sql "SELECT fetched FROM trees")
	until [ "$(sql "SELECT fetched FROM trees")" != "$f" ]; do sleep 0.1; done
done
t1=$(date +%s.%N)
set -- $(cpu)
echo "one poll, no new commits, $N commits known ($polls polls in $(calc "$t1 - $t0") s):"
echo "  robotd's CPU: $(calc "($1 - $own0) * 1000 / $tck / $polls") ms a poll (idle: $(calc "$idle * 1000 / $tck / 6") ms per 5 s)"
echo "  git's CPU:    $(calc "($2 - $kids0) * 1000 / $tck / $polls") ms a poll"
