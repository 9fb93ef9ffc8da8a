#!/bin/sh
# bench/accel_boot.sh BZIMAGE [SECONDS]: how a kernel boots here on each
# accelerator the kernel hook tries (examples/hooks/kernel, docs/box.md
# "The accelerator"): KVM with -cpu host, KVM with -cpu
# host,-arch-capabilities, TCG with -cpu max.  Each boot as the hook's
# probe makes it (one vCPU, 256 MiB, console=ttyS0 panic=-1, no root: a
# kernel that boots ends in its root-mount panic), for at most SECONDS
# (60).  Prints per accelerator the seconds to the first console line,
# to the panic, and how QEMU ended (its first error line).  As root, for
# /dev/kvm; the machine should be quiet.
set -u
kernel=${1:?usage: bench/accel_boot.sh BZIMAGE [SECONDS]}
limit=${2:-60}
qemu=${KERNEL_QEMU:-qemu-system-x86_64}
[ -r "$kernel" ] || { echo "accel_boot: no kernel '$kernel'" >&2; exit 1; }
d=$(mktemp -d /tmp/accel-boot.XXXXXX)
trap 'rm -rf "$d"' EXIT
trap 'exit 1' INT TERM

# now: seconds since the epoch, to the millisecond.
now() { date +%s.%N | cut -c1-14; }
echo "$("$qemu" --version | head -n1) on $(uname -r); $kernel; at most $limit s"
for a in kvm:host kvm:host,-arch-capabilities tcg:max; do
	accel=${a%%:*} cpu=${a#*:}
	if [ "$accel" = kvm ] && [ ! -w /dev/kvm ]; then
		printf '%-34s no writable /dev/kvm\n' "$accel -cpu $cpu"
		continue
	fi
	: >"$d/console" && : >"$d/qemu"
	t0=$(now)
	"$qemu" -nodefaults -display none -no-reboot \
		-machine accel="$accel" -cpu "$cpu" -smp 1 -m 256M \
		-kernel "$kernel" -append "console=ttyS0 panic=-1" \
		-serial file:"$d/console" >"$d/qemu" 2>&1 &
	pid=$!
	first="" panic=""
	while kill -0 $pid 2>/dev/null; do
		t=$(now)
		[ -z "$first" ] && [ -s "$d/console" ] && first=$t
		[ -z "$panic" ] && grep -q "Kernel panic" "$d/console" && panic=$t
		[ -n "$panic" ] && break
		[ "$(echo "$t - $t0 >= $limit" | bc)" = 1 ] && break
		sleep 0.05
	done
	kill $pid 2>/dev/null
	wait $pid
	rc=$?
	t=$(now)
	[ -z "$first" ] && [ -s "$d/console" ] && first=$t
	# (panic=-1 and -no-reboot: QEMU may end before the poll saw it)
	[ -z "$panic" ] && grep -q "Kernel panic" "$d/console" && panic=$t
	since() { echo "$1 - $t0" | bc; }
	if [ -n "$panic" ]; then
		how="ended at the panic"
	elif [ "$(echo "$t - $t0 >= $limit" | bc)" = 1 ]; then
		how="still running at $limit s"
	else
		how="exit $rc after $(since "$t") s: $(grep -m1 . "$d/qemu")"
	fi
	printf '%-34s first line %s, panic %s; QEMU: %s\n' "$accel -cpu $cpu" \
		"$([ -n "$first" ] && echo "$(since "$first") s" || echo none)" \
		"$([ -n "$panic" ] && echo "$(since "$panic") s" || echo none)" "$how"
done
