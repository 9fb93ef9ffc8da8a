# tap.sh: TAP output for the shell tests (sourced, as
# . "$(dirname "$0")/tap.sh"): check STATUS TEXT counts one check, ok
# when STATUS is 0; diag TEXT prints a comment.  The test ends with
# echo "1..$n" and [ $failed = 0 ].
n=0
failed=0
check() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else failed=$((failed + 1)); echo "not ok $n - $2"; fi
}
diag() { printf "%s\n" "$*" | sed "s/^/# /"; } # each line a comment
