#!/bin/sh
# test_kernel_hook.sh ROBOT_BOX SOURCE_DIR: the contract of the kernel
# hook (examples/hooks/kernel, docs/box.md) with robot-box, in seconds:
# a fake make and a fake qemu stand in for the build and the VM (the real
# ones take minutes; scripts/kernel-demo runs them).  The fake guest runs
# the job with the real robot-box on a real loop device, as the VM's
# init does, so the result robot-box adopts is a real one.  Root (loop
# devices); TAP output.
set -u
BOX=$1
SRC=$2
HOOK=$SRC/examples/hooks/kernel

if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP robot-box needs root (loop devices, mounts)"
	exit 77
fi

T=$(mktemp -d /tmp/robot-kernel-hook.XXXXXX)
NAME=robot-khook-$$
finish() {
	"$BOX" cleanup --config "$T/box.yaml" >/dev/null 2>&1
	"$BOX" cleanup --config "$T/guest-box.yaml" >/dev/null 2>&1
	[ -n "${ROBOT_TEST_KEEP:-}" ] || rm -rf "$T"
}
trap finish EXIT
trap 'exit 1' INT TERM

. "$(dirname "$0")/tap.sh"
py() {
	/usr/bin/python3 -c "import json, sys
docs = json.load(open('$1'))
d = docs[0]
$2"
}

# A kernel tree of four commits: two that build and boot, one that does
# not build, one that does not boot.  What the fake make needs of it:
# scripts/kconfig/merge_config.sh.
mkdir -p "$T/tree/scripts/kconfig"
cat >"$T/tree/scripts/kconfig/merge_config.sh" <<'EOF'
#!/bin/sh
# merge_config.sh -m -O DIR BASE FRAGMENT
while [ $# -gt 2 ]; do shift; done
grep '^CONFIG_' "$2" >>"$1"
EOF
chmod +x "$T/tree/scripts/kconfig/merge_config.sh"
(
	cd "$T/tree" || exit 1
	export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t.invalid GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t.invalid
	git init -q -b master .
	echo 1 >VERSION
	git add -A && git commit -q -m "linux: the base"
	echo 2 >VERSION
	git commit -q -am "mm: an innocent change"
	touch BROKEN
	git add BROKEN && git commit -q -m "mm: a change that does not build"
	git rm -q BROKEN && touch NOBOOT
	git add NOBOOT && git commit -q -m "mm: a change that does not boot"
)
cp -a "$T/tree" "$T/tree.orig" # the same repository, made again later
c1=$(git -C "$T/tree" rev-parse HEAD~3)
c2=$(git -C "$T/tree" rev-parse HEAD~2)
c3=$(git -C "$T/tree" rev-parse HEAD~1)
c4=$(git -C "$T/tree" rev-parse HEAD)
short() { echo "$1" | cut -c1-12; }

# The fake make: logs "TARGET COMMIT" and does what kbuild would, in
# miniature; a tree with BROKEN does not compile.
cat >"$T/make" <<'EOF'
#!/bin/sh
src= obj= lv= target= cc=
for a; do
	case $a in
	-C) next=src ;;
	O=*) obj=${a#O=} ;;
	CC=*) cc=${a#CC=} ;;
	LOCALVERSION=*) lv=${a#LOCALVERSION=} ;;
	-*|*=*) ;;
	*) if [ "${next:-}" = src ]; then src=$a; next=; else target=$a; fi ;;
	esac
done
echo "$target $(git -C "$src" rev-parse HEAD) cc=$cc" >>"$FAKE_LOG"
case $target in
tinyconfig) echo "CONFIG_TINY=y" >"$obj/.config" ;;
olddefconfig) ;;
kernelrelease) echo "${FAKE_RELEASE:-6.1.0$lv}" ;;
bzImage)
	if [ -f "$src/BROKEN" ]; then
		echo "  CC      mm/page-writeback.o" >&2
		echo "mm/page-writeback.c:1:1: error: expected ';'" >&2
		exit 2
	fi
	mkdir -p "$obj/arch/x86/boot"
	echo "fake kernel 6.1.0$lv" >"$obj/arch/x86/boot/bzImage"
	[ ! -f "$src/NOBOOT" ] || echo NOBOOT >>"$obj/arch/x86/boot/bzImage"
	;;
*) echo "fake make: no target '$target'" >&2; exit 2 ;;
esac
EOF
# The fake qemu: boots the "kernel" as the real guest would, by running
# robot-box on the job the hook shared; FAKE_QEMU_MODE makes it fail.
# Without the job's share it is the hook's accelerator probe: the kernel
# says its first line and panics (no root).  FAKE_KVM is what KVM does
# here: msr (-cpu host aborts as these machines' nested KVM does, "failed
# to set MSR 0x10a", and without arch-capabilities the guest says
# nothing), archcap (only -cpu host aborts), runfail (the probe boots,
# the run's QEMU aborts); unset, KVM works.
cat >"$T/qemu" <<'EOF'
#!/bin/sh
kernel= out= console= accel= cpu=
while [ $# -gt 0 ]; do
	case $1 in
	-kernel) kernel=$2; shift ;;
	-fsdev) case $2 in *id=out,*) out=$(echo "$2" | sed 's/.*path=\([^,]*\).*/\1/') ;; esac; shift ;;
	-serial) console=${2#file:}; shift ;;
	-machine) accel=${2#accel=}; shift ;;
	-cpu) cpu=$2; shift ;;
	esac
	shift
done
if [ -z "$kernel" ]; then # qemu --version
	echo "QEMU emulator version 7.2.0 (fake)"
	exit 0
fi
what=probe
[ -z "$out" ] || what=run
echo "qemu $what $accel $cpu" >>"$FAKE_LOG"
msr() {
	echo "qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69" >&2
	echo "qemu-system-x86_64: ../../target/i386/kvm/kvm.c:3183: kvm_buf_set_msrs: Assertion \`ret == cpu->kvm_msr_buf->nmsrs' failed." >&2
	exit 134
}
if [ "$accel" = kvm ]; then
	case ${FAKE_KVM:-}:$cpu in
	msr:host | archcap:host) msr ;;
	msr:*) exec sleep 60 ;;
	runfail:*) [ -z "$out" ] || msr ;;
	esac
fi
release=$(sed -n 's/^fake kernel //p' "$kernel")
echo "Linux version $release" >"$console"
[ -n "$out" ] || exit 0
if grep -q NOBOOT "$kernel"; then
	echo "Kernel panic - not syncing: VFS: Unable to mount root fs" >>"$console"
	exit 0
fi
case ${FAKE_QEMU_MODE:-} in
silent | hang) exec sleep 60 ;;
esac
echo "robot-guest: up on $release" >>"$console"
[ "${FAKE_QEMU_MODE:-}" = wrongkernel ] && release=6.1.0-other
echo "$release" >"$out/kernel"
[ "${FAKE_QEMU_MODE:-}" = noresult ] && exit 0
. "$out/env"
# The guest's robot-box, as the VM's init runs it (a box of its own here,
# beside the one that runs the hook).
sed -e "s|^name: .*|name: $FAKE_GUEST_NAME|" -e "s|^workdir: .*|workdir: $FAKE_GUEST_WORK|" "$out/box.yaml" >"$FAKE_GUEST_CONF"
"$ROBOT_BOX_PROGRAM" run --json --repeat 1 --config "$FAKE_GUEST_CONF" "$out/job.yaml" >"$out/result.json" 2>"$out/robot-box.err"
# The guest's robot-box records the release it ran on.
[ "${FAKE_QEMU_MODE:-}" = liar ] || /usr/bin/python3 -c "
import json, sys
docs = json.load(open(sys.argv[1]))
docs[0]['provision']['kernel'] = sys.argv[2]
json.dump(docs, open(sys.argv[1], 'w'))" "$out/result.json" "$release"
echo "robot-guest: done" >>"$console"
EOF
chmod +x "$T/make" "$T/qemu"
export FAKE_LOG="$T/fake.log" FAKE_GUEST_NAME="$NAME-guest" FAKE_GUEST_WORK="$T/guest-work" \
	FAKE_GUEST_CONF="$T/guest-box.yaml"
export KERNEL_REPO="$T/tree" KERNEL_CACHE="$T/cache" KERNEL_MAKE="$T/make" KERNEL_QEMU="$T/qemu" \
	KERNEL_HOOK_CONF=/nonexistent KERNEL_KVM="$T/kvm"
: >"$T/kvm" # a KVM device as the fake qemu's KVM sees it (FAKE_KVM)
: >"$FAKE_LOG"

cat >"$T/box.yaml" <<YAML
name: $NAME
tbox_group: robot-test
workdir: $T/work
tree: linux
hook: $HOOK
hook_runs_job: yes
hook_timeout: 2m
YAML
printf 'suite: dd\ndisk: 1LOOP_256M\nfs: ext4\nnr_threads: 1\ndd:\n  bs: 1M\n  size: 32M\n' >"$T/dd.yaml"
run() { # COMMIT OUT [ENV...]: one run of the dd job on the commit
	c=$1 out=$2
	shift 2
	env "$@" "$BOX" run --repeat 1 --json --config "$T/box.yaml" --commit "$c" "$T/dd.yaml" >"$T/$out" 2>"$T/$out.err"
}

count() { grep -c "^$1 $2" "$FAKE_LOG"; }

# 1. A commit's kernel built, booted and the job run on it.
run "$c1" one.json
rc=$?
py "$T/one.json" "
p = d['provision']
assert d['status'] == 'ok', d['error']
assert d['commit'] == '$c1' and d['tree'] == 'linux' and d['box'] == '$NAME', d
assert p['kernel'] == '6.1.0-robot-$(short "$c1")', p
assert p['commit'] == '$c1' and p['subject'] == 'linux: the base', p
assert p['hook'] == '$HOOK' and p['kernel_config'] and p['backend'].startswith('qemu-'), p
assert ('tcg' in p) == (p['backend'] == 'qemu-tcg'), p
if 'tcg' in p: assert p['tcg'] == 'not for performance', p
assert d['stats']['dd.write_bytes_per_sec'] > 0, d['stats']
assert d['storage'] and d['run']['index'] == 1, d
assert float(p['boot_seconds']) > 0 and int(p['vm_seconds']) >= 0, p
assert 'building $(short "$c1")' in d['outputs']['provision'], d['outputs']
"
rc2=$?
check $([ $rc = 0 ] && [ $rc2 = 0 ]; echo $?) "a commit's kernel is built, booted and runs the job; its release is the proof"
check $([ "$(count tinyconfig "$c1")" = 1 ] && [ "$(count bzImage "$c1")" = 1 ] &&
	[ -f "$T/cache/kernels/$c1-$(py "$T/one.json" "print(d['provision']['kernel_config'])")/bzImage" ]; echo $?) \
	"the config is made once, from tinyconfig and the fragment; the kernel is cached by (commit, config)"
grep -q '^CONFIG_EXT4_FS=y' "$T"/cache/build/linux-*/obj/.config
check $? "the fragment is in the config"
grep -q "robot-box: hook: kernel hook: building $(short "$c1") in " "$T/one.json.err" &&
	grep -q "robot-box: hook: kernel hook: booting 6.1.0-robot-$(short "$c1") under QEMU" "$T/one.json.err"
check $? "the hook's progress is relayed to the box's log as it comes"

# 1b. The accelerator: tried with the kernel at hand, kept per box, and
# changed within a run when KVM fails there.
probes() { grep -c "^qemu probe" "$FAKE_LOG"; }
acc() { sed -n "s/^$1: //p" "$T/cache/accel"; }
n0=$(probes)
py "$T/one.json" "
p = d['provision']
assert p['backend'] == 'qemu-kvm' and p['accel_cpu'] == 'host' and p['accel_why'] == 'KVM boots the guest', p
" && [ "$(acc accel)" = kvm ] && [ "$(acc cpu)" = host ] &&
	[ "$(acc key)" = "QEMU emulator version 7.2.0 (fake) on $(uname -r)" ] && [ "$n0" = 1 ]
check $? "where KVM works, one probe finds it, and it is kept with QEMU's version and the host's kernel"
rm -f "$T/cache/accel"
run "$c1" msr.json FAKE_KVM=msr KERNEL_PROBE_TIMEOUT=2
rc=$?
py "$T/msr.json" "
p = d['provision']
assert d['status'] == 'ok', d['error']
assert p['backend'] == 'qemu-tcg' and p['accel_cpu'] == 'max' and p['tcg'] == 'not for performance', p
w = p['accel_why']
assert w.startswith('/dev/kvm is there but KVM cannot run the guest: -cpu host: QEMU exited 134: qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69'), w
assert w.endswith('-cpu host,-arch-capabilities: no console output in 2 s'), w
assert 'trying KVM' in d['outputs']['provision'] and 'not performance figures' in d['outputs']['provision'], d['outputs']
" && [ $rc = 0 ] && [ "$(acc accel)" = tcg ] && [ "$(probes)" = $((n0 + 2)) ]
check $? "/dev/kvm there but KVM failing (the MSR abort, then silence): TCG, with QEMU's words, and the run goes on"
run "$c1" msr2.json FAKE_KVM=msr
py "$T/msr2.json" "
p = d['provision']
assert d['status'] == 'ok' and p['backend'] == 'qemu-tcg', d
assert p['accel_why'].endswith('($T/cache/accel)'), p
" && [ "$(probes)" = $((n0 + 2)) ]
check $? "the next run takes the outcome kept, without trying again"
sed -i 's/^key: .*/key: QEMU emulator version 7.1.0 (fake) on 6.0.0/' "$T/cache/accel"
run "$c1" archcap.json FAKE_KVM=archcap
py "$T/archcap.json" "
p = d['provision']
assert d['status'] == 'ok' and p['backend'] == 'qemu-kvm' and p['accel_cpu'] == 'host,-arch-capabilities', p
assert p['accel_why'].startswith('KVM with -cpu host failed (QEMU exited 134: '), p
" && [ "$(probes)" = $((n0 + 4)) ] && grep -q "^qemu run kvm host,-arch-capabilities\$" "$FAKE_LOG"
check $? "QEMU or the host's kernel changed: tried again; KVM without arch-capabilities where that boots"
rm -f "$T/cache/accel"
run "$c1" runfail.json FAKE_KVM=runfail
py "$T/runfail.json" "
p = d['provision']
assert d['status'] == 'ok', d['error']
assert p['backend'] == 'qemu-tcg', p
assert p['accel_why'] == 'KVM (-cpu host) failed in a run: QEMU exited 134: qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69', p
" && [ "$(acc accel)" = tcg ] && [ "$(grep -c '^qemu run' "$FAKE_LOG")" -ge 2 ] &&
	[ "$(grep '^qemu run' "$FAKE_LOG" | tail -n 2 | tr '\n' '|')" = "qemu run kvm host|qemu run tcg max|" ]
check $? "KVM that fails in a run: the same run again on TCG, kept for the next (the box is not at fault)"
n1=$(probes)
run "$c1" forced.json KERNEL_ACCEL=kvm
run "$c1" forced2.json KERNEL_ACCEL=tcg KERNEL_KVM=/nonexistent/kvm
run "$c1" nokvm.json KERNEL_KVM=/nonexistent/kvm
run "$c1" badaccel.json KERNEL_ACCEL=hvf
py "$T/forced.json" "assert d['provision']['backend'] == 'qemu-kvm' and d['provision']['accel_why'] == 'KERNEL_ACCEL=kvm', d['provision']" &&
	py "$T/forced2.json" "assert d['provision']['backend'] == 'qemu-tcg' and d['provision']['accel_why'] == 'KERNEL_ACCEL=tcg', d['provision']" &&
	py "$T/nokvm.json" "assert d['provision']['backend'] == 'qemu-tcg' and d['provision']['accel_why'] == 'no KVM (/nonexistent/kvm)', d['provision']" &&
	py "$T/badaccel.json" "assert d['status'] == 'failed' and d['fault'] == 'box' and \"KERNEL_ACCEL is kvm or tcg, not 'hvf'\" in d['error'], d" &&
	[ "$(probes)" = "$n1" ]
check $? "KERNEL_ACCEL=kvm|tcg forces one, without a probe; no device: TCG; another value: the box's fault"

# The probe with the real QEMU (scripts/deps installs it for the tests):
# a kernel of a few instructions that says one line on the serial port
# (multiboot), booted as the hook boots the commit's; the run's guest is
# the fake's.  On these machines /dev/kvm is there and QEMU aborts with
# -cpu host: the fault the fake stands in for, for real; where KVM works
# or is absent, the check expects what QEMU itself does there.
{
	cat >"$T/tiny.S" <<'EOF'
	.code32
	.text
	.globl _start
	.align 4
	.long 0x1BADB002, 0, -0x1BADB002
_start:	mov $msg, %esi
1:	lodsb
	test %al, %al
	jz 2f
	mov $0x3f8, %dx
	out %al, %dx
	jmp 1b
2:	cli
	hlt
	jmp 2b
	.data
msg:	.asciz "Linux version tiny: the guest CPU runs\n"
EOF
	as --32 -o "$T/tiny.o" "$T/tiny.S" && ld -m elf_i386 -Ttext 0x100000 -o "$T/tiny.elf" "$T/tiny.o"
	cat >"$T/realprobe" <<EOF
#!/bin/sh
# the probe: the real QEMU on the tiny kernel; the run: the fake
case "\$*" in *id=out,*) exec "$T/qemu" "\$@" ;; esac
[ -n "\$*" ] || exec qemu-system-x86_64 --version
a=
for x; do
	case \$x in
	*/bzImage) x="$T/tiny.elf" ;;
	2G | 256M) x=64M ;;
	esac
	a="\$a '\$x'"
done
eval exec qemu-system-x86_64 "\$a"
EOF
	chmod +x "$T/realprobe"
	# what this machine's KVM does with -cpu host, asked directly
	timeout 20 qemu-system-x86_64 -nodefaults -display none -no-reboot -machine accel=kvm -cpu host \
		-m 64M -kernel "$T/tiny.elf" -serial file:"$T/direct.console" >"$T/direct.log" 2>&1
	direct=$(head -n1 "$T/direct.log")
	rm -f "$T/cache/accel"
	run "$c1" real.json KERNEL_KVM=/dev/kvm KERNEL_QEMU="$T/realprobe" KERNEL_PROBE_TIMEOUT=10
	rc=$?
	diag "KVM here: $(head -c 200 "$T/direct.log" | tr '\n' ' '); the hook: $(acc accel) -cpu $(acc cpu): $(acc why)"
	if [ ! -w /dev/kvm ]; then
		want="no KVM (/dev/kvm)"
	elif [ -s "$T/direct.console" ]; then
		want="KVM boots the guest"
	else
		want="QEMU exited 134: $direct"
	fi
	py "$T/real.json" "
p = d['provision']
assert d['status'] == 'ok', d['error']
assert '''$want''' in p['accel_why'], (p['accel_why'], '''$want''')
" && [ $rc = 0 ]
	check $? "the real QEMU: the probe finds what this machine's KVM does (${direct:-it works}), and the run goes on"
}

# 2. The same commit again: no build (and robot-box at a path with a
# space and a parenthesis, which the guest's init reads from a file it
# sources).  The next commit: built in the same object directory (an
# incremental build), its worktree moved to it.
mkdir "$T/bin (x)"
cp "$BOX" "$T/bin (x)/robot-box"
box=$BOX BOX="$T/bin (x)/robot-box"
run "$c1" again.json
rc1=$?
BOX=$box
[ $rc1 = 0 ] || sed 's/^/#   /' "$T/again.json.err"
"$BOX" run --repeat 2 --json --config "$T/box.yaml" --commit "$c2" "$T/dd.yaml" >"$T/two.json" 2>"$T/two.json.err"
rc2=$?
check $([ $rc1 = 0 ] && [ $rc2 = 0 ] && [ "$(count bzImage "$c1")" = 1 ] && [ "$(count bzImage "$c2")" = 1 ] &&
	[ "$(count tinyconfig "")" = 1 ] && [ "$(ls "$T/cache/build" | grep -vc lock)" = 1 ] &&
	[ "$(git -C "$T"/cache/build/linux-*/src rev-parse HEAD)" = "$c2" ]; echo $?) \
	"a cached kernel is not built again; the next commit is built in the same tree and objects"
py "$T/two.json" "
assert d['provision']['kernel'] == '6.1.0-robot-$(short "$c2")', d['provision']
assert [x['run']['index'] for x in docs] == [1, 2] and docs[1]['run']['of'] == 2, [x['run'] for x in docs]
"
check $? "each commit's run names its own release, and its index among the box's runs"
if command -v ccache >/dev/null; then cc="ccache gcc"; else cc=gcc; fi
rm -rf "$T/cache/kernels/$c2-"*
run "$c2" noccache.json KERNEL_CCACHE=no
check $([ $? = 0 ] && grep -q "^bzImage $c1 cc=$cc\$" "$FAKE_LOG" && grep -q "^bzImage $c2 cc=gcc\$" "$FAKE_LOG"; echo $?) \
	"ccache when it is installed, unless KERNEL_CCACHE=no"

# The tree made again (scripts/kernel-demo --fresh): the worktree the
# hook made belongs to a repository that is gone; it is made anew.
rm -rf "$T/tree" "$T/cache/kernels/$c2-"*
cp -a "$T/tree.orig" "$T/tree"
run "$c2" again2.json
check $([ $? = 0 ] && grep -q "the worktree .* is not .*'s any more: made again" "$T/again2.json.err" &&
	[ "$(git -C "$T"/cache/build/linux-*/src rev-parse HEAD)" = "$c2" ]; echo $?) \
	"a worktree of a repository made again since is made anew"

# 3. The commit's faults: it does not build, it does not boot, it is not
# in the tree.  The job's fault, not the box's.
run "$c3" broken.json
py "$T/broken.json" "
assert d['status'] == 'failed' and d['fault'] == 'job', d
assert 'blames the commit' in d['error'] and \"expected ';'\" in d['error'], d['error']
assert 'does not build' in d['outputs']['provision'], d['outputs']
"
check $? "a commit that does not build is the job's fault, with the compiler's words"
run "$c4" noboot.json
py "$T/noboot.json" "
assert d['status'] == 'failed' and d['fault'] == 'job', d
assert 'blames the commit' in d['error'] and 'did not reach init' in d['error'] and 'Unable to mount root' in d['error'], d['error']
"
check $? "a kernel that does not reach init is the job's fault, with its console"
run nosuchcommit unknown.json
py "$T/unknown.json" "
assert d['status'] == 'failed' and d['fault'] == 'job', d
assert 'no commit' in d['error'], d['error']
"
check $? "an unknown commit is the job's fault"
run "$c1" silent.json FAKE_QEMU_MODE=silent KERNEL_BOOT_TIMEOUT=2
py "$T/silent.json" "
assert d['status'] == 'failed' and d['fault'] == 'job', d
assert 'did not reach init within 2 s' in d['error'], d['error']
"
check $? "a kernel that stays silent past the boot deadline is the job's fault"

# 4. The box's faults: no QEMU, a guest on another kernel, a guest that
# writes no result, a hook that lies about the kernel, a hook past its
# time limit.
run "$c1" noqemu.json KERNEL_QEMU=/nonexistent/qemu
py "$T/noqemu.json" "
assert d['status'] == 'failed' and d['fault'] == 'box', d
assert \"no '/nonexistent/qemu' on this box\" in d['error'], d['error']
"
check $? "no QEMU is the box's fault"
run "$c1" wrong.json FAKE_QEMU_MODE=wrongkernel
py "$T/wrong.json" "
assert d['status'] == 'failed' and d['fault'] == 'box', d
assert \"the guest ran '6.1.0-other', not 6.1.0-robot-$(short "$c1")\" in d['error'], d['error']
"
check $? "a guest on another kernel than the one built is the box's fault"
run "$c1" noresult.json FAKE_QEMU_MODE=noresult
py "$T/noresult.json" "
assert d['status'] == 'failed' and d['fault'] == 'box', d
assert 'the guest wrote no result (QEMU exited 0)' in d['error'], d['error']
"
check $? "a guest that writes no result is the box's fault"
run "$c1" liar.json FAKE_QEMU_MODE=liar
py "$T/liar.json" "
assert d['status'] == 'failed' and d['fault'] == 'box', d
assert d['error'].startswith('the hook says it ran kernel 6.1.0-robot-$(short "$c1"), but the job ran on $(uname -r)'), d['error']
"
check $? "robot-box checks the hook's kernel against the one the job ran on"
sed 's/^hook_timeout: .*/hook_timeout: 3s/' "$T/box.yaml" >"$T/slow-box.yaml"
FAKE_QEMU_MODE=hang "$BOX" run --repeat 1 --json --config "$T/slow-box.yaml" --commit "$c1" "$T/dd.yaml" >"$T/hang.json" 2>"$T/hang.err"
py "$T/hang.json" "
assert d['status'] == 'failed' and d['fault'] == 'box', d
assert 'took over 3 s (hook_timeout)' in d['error'], d['error']
"
rc=$?
sleep 0.5
check $([ $rc = 0 ] && ! pgrep -f "$T/qemu" >/dev/null; echo $?) "a hook past hook_timeout is stopped with its VM"

# 5. The kexec back end, a plain provisioning hook (these machines cannot
# kexec: a fake kexec logs what it is asked).  On another kernel it loads
# and executes the built one; on that kernel (its release is uname -r
# here) it says so and the run goes on, here on this box.
printf '#!/bin/sh\necho "kexec $*" >>"$FAKE_LOG"\n' >"$T/kexec"
chmod +x "$T/kexec"
grep -v hook_runs_job "$T/box.yaml" >"$T/kexec-box.yaml"
KERNEL_BACKEND=kexec KERNEL_KEXEC="$T/kexec" "$BOX" run --repeat 1 --json --config "$T/kexec-box.yaml" \
	--commit "$c1" "$T/dd.yaml" >"$T/kexec.json" 2>"$T/kexec.err"
py "$T/kexec.json" "
assert d['status'] == 'failed' and d['fault'] == 'box', d
assert 'kexec into 6.1.0-robot-$(short "$c1")' in d['outputs']['provision'], d['outputs']
" && grep -q "^kexec -l $T/cache/kernels/$c1-[0-9a-f]*/bzImage --reuse-cmdline\$" "$FAKE_LOG" && grep -q "^kexec -e\$" "$FAKE_LOG"
check $? "kexec: on another kernel, the built one is loaded and executed"
rm -rf "$T/cache/kernels/$c2-"*
FAKE_RELEASE=$(uname -r) KERNEL_BACKEND=kexec KERNEL_KEXEC="$T/kexec" "$BOX" run --repeat 1 --json --config "$T/kexec-box.yaml" \
	--commit "$c2" "$T/dd.yaml" >"$T/kexec2.json" 2>"$T/kexec2.err"
py "$T/kexec2.json" "
p = d['provision']
assert d['status'] == 'ok', d['error']
assert p['kernel'] == '$(uname -r)' and p['backend'] == 'kexec' and p['commit'] == '$c2', p
assert d['stats']['dd.write_bytes_per_sec'] > 0
" && [ "$(grep -c '^kexec -e' "$FAKE_LOG")" = 1 ]
check $? "kexec: on the built kernel, the hook says so and the box runs the job"
# After the run (hook_after: yes), "kernel --after": back to the kernel
# the box ran when it first kexec'd away (recorded then: this machine's).
{ cat "$T/kexec-box.yaml"; echo "hook_after: yes"; } >"$T/after-box.yaml"
after() {
	FAKE_RELEASE=$(uname -r) KERNEL_BACKEND=kexec KERNEL_KEXEC="$T/kexec" "$BOX" run --repeat 1 --json \
		--config "$T/after-box.yaml" --commit "$c2" "$T/dd.yaml" >"$T/after.json" 2>"$T/after.err"
}
after
py "$T/after.json" "assert d['status'] == 'ok', d['error']" &&
	[ "$(cat "$T/cache/known-good")" = "$(uname -r)" ] &&
	grep -q "hook: kernel hook: on $(uname -r) ($(uname -r)): nothing to return from" "$T/after.err" &&
	[ "$(grep -c '^kexec -e' "$FAKE_LOG")" = 1 ]
check $? "after the run on the known-good kernel, the hook has nothing to do"
echo 5.10.0-good >"$T/cache/known-good"
: >"$T/good-bzImage"
KERNEL_GOOD_IMAGE=$T/good-bzImage after
py "$T/after.json" "assert d['status'] == 'ok', d['error']" &&
	[ "$(tail -n 2 "$FAKE_LOG" | tr '\n' '|')" = "kexec -l $T/good-bzImage --reuse-cmdline|kexec -e|" ] &&
	sed -n '/\[1\/1\] .*: ok$/,$p' "$T/after.err" | grep -q "back to the known-good 5.10.0-good: kexec into $T/good-bzImage" &&
	grep -q "the hook after the run exited with status 1" "$T/after.err"
check $? "after the run on another kernel, it kexecs into the known-good one, the run's result kept"
printf '#!/bin/sh\necho "reboot $*" >>"$FAKE_LOG"\n' >"$T/reboot"
chmod +x "$T/reboot"
KERNEL_GOOD_IMAGE=$T/no-such-image KERNEL_REBOOT=$T/reboot after
[ "$(tail -n 1 "$FAKE_LOG")" = "reboot " ] && grep -q "no $T/no-such-image, so a reboot" "$T/after.err"
check $? "with no image of the known-good kernel, it reboots (the boot loader's default)"

# 6. Misuse: the vm back end as a plain provisioning hook; bad settings.
grep -v hook_runs_job "$T/box.yaml" >"$T/plain-box.yaml"
"$BOX" run --repeat 1 --json --config "$T/plain-box.yaml" --commit "$c1" "$T/dd.yaml" >"$T/plain.json" 2>/dev/null
py "$T/plain.json" "
assert d['status'] == 'failed' and d['fault'] == 'box', d
assert 'set hook_runs_job: yes' in d['error'], d['error']
"
check $? "the vm back end without hook_runs_job says what to set"
printf 'name: x\nhook_runs_job: maybe\nhook_timeout: soon\n' >"$T/bad1.yaml"
printf 'name: x\nhook_runs_job: yes\nhook_after: yes\n' >"$T/bad2.yaml"
"$BOX" run --config "$T/bad1.yaml" "$T/dd.yaml" >/dev/null 2>"$T/err1"
rc1=$?
"$BOX" run --config "$T/bad2.yaml" "$T/dd.yaml" >/dev/null 2>"$T/err2"
rc2=$?
check $([ $rc1 = 2 ] && grep -q "bad1.yaml:2: hook_runs_job: yes or no is expected" "$T/err1" &&
	grep -q "bad1.yaml:3: hook_timeout" "$T/err1" && [ $rc2 = 2 ] &&
	grep -q "bad2.yaml:2: hook_runs_job: there is no hook to run the job" "$T/err2" &&
	grep -q "bad2.yaml:3: hook_after: there is no hook to run after a run" "$T/err2"; echo $?) \
	"bad hook settings are refused with lines"
printf '#!/bin/sh\nprintf "half a " >&2\nsleep 2.5\necho "line" >&2\nexit 1\n' >"$T/slow-hook"
chmod +x "$T/slow-hook"
printf 'name: %s\nworkdir: %s\nhook: %s\n' "$NAME" "$T/work" "$T/slow-hook" >"$T/slow-hook.yaml"
"$BOX" run --repeat 1 --json --config "$T/slow-hook.yaml" --commit "$c1" "$T/dd.yaml" >/dev/null 2>"$T/slow-hook.err"
check $(grep -q "robot-box: hook: half a line\$" "$T/slow-hook.err" && ! grep -q "robot-box: hook: half a \$" "$T/slow-hook.err"; echo $?) \
	"a line the hook is still writing is relayed once, whole"
KERNEL_BACKEND=bare "$HOOK" linux "$c1" "$T/dd.yaml" "$T/x.json" 2>"$T/err"
check $([ $? = 1 ] && grep -q "KERNEL_BACKEND is vm or kexec, not 'bare'" "$T/err"; echo $?) "an unknown back end is the box's fault"
check $(! grep -qs "/dev/shm/robot-box-$NAME" /sys/block/loop*/loop/backing_file; echo $?) "nothing left behind"

echo "1..$n"
[ $failed = 0 ]
