# SPDX-License-Identifier: GPL-2.0
# The smoke suite for a second kernel: load, healthy verify, walk beside
# the kernel's own tables, a module's text replicated, ktrepl-top frames,
# a flipped byte caught and named; then the host reads a vmcore of it.
. /lib.sh
check "insmod ktrepl-test.ko fault_inject=1" insmod /lib/modules/ktrepl-test.ko fault_inject=1
emit summary cat $D/summary
check "verify: healthy" ktrepl-dump --verify
for n in $(grep '^node=' $D/summary | kv node); do
	emit "walk$n" ktrepl-dump -j walk --node $n
	emit "pgt$n" cat $D/pgtables/node$n
done
M=$(head -n1 $D/summary | kv master_node)
R=$(grep 'role=replica' $D/summary | head -n1 | kv node)
echo "REPLICA-NODE $R"

# a Debian module loaded from the replica node's CPUs: its text is on
# node R, and the master node gets its own copy
cpu=$(cut -d- -f1 /sys/devices/system/node/node$R/cpulist)
for m in fat vfat; do
	check "insmod $m from node $R's CPU $cpu" \
		taskset -c $cpu insmod /lib/modules/extra/$m.ko
done
mod=$(grep '^module=vfat ' $D/summary)
echo "# $mod"
check "vfat's text is replicated (a module record, size > 0)" \
	test -n "$mod" -a "$(echo "$mod" | kv size)" -gt 0
# from 6.4 its rodata is an area of its own, replicated too
rs=$(echo "$mod" | kv rodata_start)
if [ -n "$rs" ]; then
	check "vfat's rodata (apart from its text) has a copy on node $R's memory" \
		sh -c "grep '^node=$R region=module va=$rs .* pa_node=$R module=vfat\$' $D/replicas"
else
	echo "# vfat's rodata follows its text (a kernel before 6.4)"
fi
check "verify with vfat replicated: healthy" ktrepl-dump --verify
# this kernel's text patching reaches every replica: a static key, a
# kprobe, a filtered function tracer (every patch from the hook, none by
# the arm64 audit's repair)
mount -t tracefs nodev $TR 2>/dev/null
p=$(patches)
echo 1 > /proc/sys/kernel/sched_schedstats
echo 0 > /proc/sys/kernel/sched_schedstats
kprobe_cycle smoke_kp
echo 'vfs_*' > $TR/set_ftrace_filter
echo function > $TR/current_tracer
check "function tracer on (vfs_*): replicas identical to the master" \
	ktrepl-dump diff
echo nop > $TR/current_tracer
echo > $TR/set_ftrace_filter
q=$(patches)
check "static key, kprobe, tracer: $((q - p)) patches propagated" \
	test "$q" -gt "$p"
check "and the replicas equal the master after" ktrepl-dump diff
check "none missed" test "$(head -n1 $D/patches | kv missed)" = 0
check "none left for the audit to repair" \
	test "$(head -n1 $D/summary | kv audit_repairs)" = 0

start_load
emit top ktrepl-top -j -n 2 -d 1
stop_load

quiesce_audit
check "the test build's kernel is not tainted TAINT_TEST before an inject" \
	test $(($(cat /proc/sys/kernel/tainted) >> 18 & 1)) = 0
check "inject: flip int_sqrt+0x4 on node $R" \
	sh -c "echo 'flip node=$R sym=int_sqrt off=4' > $D/inject"
check "an inject taints the kernel (TAINT_TEST)" \
	test $(($(cat /proc/sys/kernel/tainted) >> 18 & 1)) = 1
emit verify ktrepl-dump -j --verify
ktrepl-dump --verify > /tmp/v
check "verify exits 1 on the flip" test $? = 1
check "and names int_sqrt+0x4 on node $R" \
	grep -q "bytes: node $R .*int_sqrt+0x4" /tmp/v
echo "# after the flip: $(head -n1 $D/summary | tr ' ' '\n' | grep -E '^(patches|audits|audit_repairs)=' | tr '\n' ' ')"
check_dmesg_clean
done_testing
echo "KTREPL-READY-FOR-DUMP"
sleep 600
