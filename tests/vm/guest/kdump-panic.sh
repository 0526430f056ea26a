# SPDX-License-Identifier: GPL-2.0
# A panic as a fleet captures it: Debian's kexec-tools loads the crash
# kernel (as kdump-tools does), the box panics on a CPU of a replica node,
# and the capture kernel saves the dump with makedumpfile (kdump.py).
#
# /etc/kdump-scenario names the order of events:
#   kexec-first   kdump-tools' boot order: crash kernel, then ktrepl.ko,
#                 a flipped replica byte, the panic
#   insmod-first  ktrepl.ko, then the crash kernel; flip; panic
#   unloaded      ktrepl.ko, crash kernel, rmmod: the VMCOREINFO copy
#                 kexec took names a descriptor that is gone
#   reloaded      ktrepl.ko, crash kernel, kdump-config reload (unload and
#                 load again), rmmod and insmod: VMCOREINFO's copy points
#                 at the first descriptor, freed; the second is the one
#   trap          kexec-first, and a trap (ud2, brk) at write_sysrq_trigger
#                 in the same replica: the panic is an oops on that
#                 replica's own bytes, which crash> ktrepl -p must name
# The chosen order is one scenario with the kernel log it must leave
# before the panic (lib.sh: start_test, check_log): the steps' commands,
# ktrepl.ko's load and unload lines (the load's says it taints).
# The crash kernel's load logs nothing of ktrepl's, in any order.
. /lib.sh
SCENARIO=$(cat /etc/kdump-scenario)
echo "KDUMP-SCENARIO $SCENARIO"
want=
# expect TEXT: the next lines of the expected log
expect() {
	want="$want
$1"
}

# kdump-tools' load step: the running command line without the
# reservation, and the options kdump-tools gives the capture kernel
load_crash_kernel() {
	_cmdline=$(sed 's/crashkernel=[^ ]*//; s/panic=[^ ]*//' /proc/cmdline)
	if [ "$(uname -m)" = aarch64 ] && ! grep -q ' T _text$' /proc/kallsyms; then
		# kexec-tools 2.0.25 needs _text to find page_offset; Debian's
		# arm64 kernel has no KALLSYMS_ALL, and _text is 64 KiB below
		# _stext (README: kdump on arm64)
		_stext=$(grep ' T _stext$' /proc/kallsyms | cut -d' ' -f1)
		{ cat /proc/kallsyms
		  printf '%016x T _text\n' $((0x$_stext - 0x10000)); } > /tmp/kallsyms
		mount --bind /tmp/kallsyms /proc/kallsyms
	fi
	log_cmd "kexec -p /boot/vmlinuz --initrd=/boot/capture.gz --append=..."
	kexec -p /boot/vmlinuz --initrd=/boot/capture.gz \
		--append="$_cmdline nr_cpus=1 irqpoll nousb reset_devices panic=-1" \
		> /tmp/kexec.out 2>&1
	_rc=$?
	expect "% kexec -p /boot/vmlinuz --initrd=/boot/capture.gz --append=..."
	sed 's/^/# kexec: /' /tmp/kexec.out
	check "kexec -p loads the crash kernel (rc $_rc)" \
		grep -qx 1 /sys/kernel/kexec_crash_loaded
	[ -e /tmp/kallsyms ] && umount /proc/kallsyms
	return 0
}

unload_crash_kernel() {
	logged kexec -p -u
	expect "% kexec -p -u"
	check "kexec -p -u unloads it" grep -qx 0 /sys/kernel/kexec_crash_loaded
}

load_ktrepl() {
	expect "$(load_log /lib/modules/ktrepl-test.ko fault_inject=1)"
	check "insmod ktrepl-test.ko fault_inject=1" \
		logged insmod /lib/modules/ktrepl-test.ko fault_inject=1
	emit summary head -n1 $D/summary
}

R=
flip() {
	R=$(grep 'role=replica' $D/summary | head -n1 | kv node)
	quiesce_audit
	check "inject: flip int_sqrt+0x4 on node $R" \
		sh -c "echo 'flip node=$R sym=int_sqrt off=4' > $D/inject"
	ktrepl-dump --verify > /tmp/v 2>&1
	check "live verify exits 1 on the flip" test $? = 1
}

# trap: the panicking CPU's node gets an undefined instruction where the
# panic's write to /proc/sysrq-trigger enters; the master keeps its own
T=
trap_sysrq() {
	T=h
	check "inject: trap at write_sysrq_trigger on node $R" \
		sh -c "echo 'trap node=$R sym=write_sysrq_trigger' > $D/inject"
	echo 1 > /proc/sys/kernel/panic_on_oops
}

unload_ktrepl() {
	check "rmmod ktrepl" logged rmmod ktrepl
	expect "$(unload_log)"
}

# TEST: kexec-first | insmod-first | unloaded | reloaded | trap (one per
# boot)
# - the steps /etc/kdump-scenario names, each checked as it runs
# - then a CPU of a replica node panics (after the check of the log)
# Expected log: each step's, in the order taken.
start_test "$SCENARIO"
case $SCENARIO in
kexec-first)
	load_crash_kernel
	load_ktrepl
	flip
	;;
insmod-first)
	load_ktrepl
	load_crash_kernel
	flip
	;;
unloaded)
	load_ktrepl
	load_crash_kernel
	unload_ktrepl
	;;
reloaded)
	load_ktrepl
	load_crash_kernel
	unload_crash_kernel
	load_crash_kernel
	unload_ktrepl
	load_ktrepl
	flip
	;;
trap)
	load_crash_kernel
	load_ktrepl
	flip
	trap_sysrq
	;;
*)
	not_ok "unknown scenario '$SCENARIO'"
	;;
esac
check_log "the steps' log" "$want"
[ -n "$R" ] || R=1
C=$(cut -d, -f1 /sys/devices/system/node/node$R/cpulist | cut -d- -f1)
check_dmesg_clean
# every CPU's root as it is loaded now, an oracle apart from the
# descriptor the dump will carry (percpu: each CPU keeps its node's)
emit pgds grep '^cpu=' $D/pgds
done_testing
echo "KDUMP-PANIC cpu=$C node=$R"
echo 1 > /proc/sys/kernel/sysrq
# c panics on any node; h (help) panics only through the trap
[ -n "$T" ] || T=c
# one process pinned to a CPU of node R from its start: under activation
# mm it is bound to R's set during the sleep, before it panics (a shell
# that execs after its binding would run a new, unbound mm). Its last
# words, in builtins only: the live bindings, its own pid among them;
# then a second for the serial line to carry them (a panic does not
# drain it), in a child that leaves the shell's own mm bound.
taskset -c $C sh -c "sleep 2
	if [ -e $D/bind ]; then
		while read -r l; do echo \"@@bind_live@@ \$l\"; done < $D/bind
	fi
	echo \"@@panic_shell@@ pid=\$\$\"
	sleep 1
	echo $T > /proc/sysrq-trigger"
sleep 60
echo "STILL-ALIVE"
