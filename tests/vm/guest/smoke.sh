# SPDX-License-Identifier: GPL-2.0
# The smoke suite for a second kernel: load, healthy verify, walk beside
# the kernel's own tables, a module's text replicated, ktrepl-top frames,
# a flipped byte caught and named; then the host reads a vmcore of it.
# Five scenarios, each with the kernel log it must leave (lib.sh:
# start_test, check_log); the host folds their TAP with the rest.
. /lib.sh

# TEST: load
# - insmod the test build (fault_inject=1): verify healthy; the host
#   compares each node's walk with the kernel's own pgtables file
# Expected log: load_log's (this kernel's: its kallsyms decides the
# rodata and VMCOREINFO lines); on an arm64 kernel whose
# __aarch64_insn_write ftrace cannot trace (6.12), first the note that
# text writes are followed through __set_fixmap instead.
want=$(load_log /lib/modules/ktrepl-test.ko fault_inject=1)
mount -t tracefs nodev $TR 2>/dev/null
if [ "$(uname -m)" = aarch64 ] &&
	! grep -qx '__aarch64_insn_write' $TR/available_filter_functions; then
	want=$(echo "$want" | sed '1a\
ktrepl: __aarch64_insn_write cannot be hooked: text writes are followed through __set_fixmap')
fi
start_test "load"
check "insmod ktrepl-test.ko fault_inject=1" logged insmod /lib/modules/ktrepl-test.ko fault_inject=1
emit summary cat $D/summary
check "verify: healthy" ktrepl-dump --verify
for n in $(grep '^node=' $D/summary | kv node); do
	emit "walk$n" ktrepl-dump -j walk --node $n
	emit "pgt$n" cat $D/pgtables/node$n
done
M=$(head -n1 $D/summary | kv master_node)
R=$(grep 'role=replica' $D/summary | head -n1 | kv node)
echo "REPLICA-NODE $R"
check_log "the load's log" "$want"

# TEST: a module from a replica node
# - fat and vfat (Debian's) loaded from a CPU of replica node R: vfat's
#   text is replicated, and from 6.4 its rodata too, a copy on node R's
#   memory; verify healthy
# Expected log: each module's replication, in load order.
start_test "a module from a replica node"
cpu=$(cut -d- -f1 /sys/devices/system/node/node$R/cpulist)
want=
for m in fat vfat; do
	log_cmd taskset -c $cpu insmod /lib/modules/extra/$m.ko
	check "insmod $m from node $R's CPU $cpu" \
		taskset -c $cpu insmod /lib/modules/extra/$m.ko
	want="$want
% taskset -c $cpu insmod /lib/modules/extra/$m.ko
$(module_replicated_log $m)"
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
check_log "each module's replication" "$want"

# TEST: patching
# - this kernel's text patching reaches every replica: a static key, a
#   kprobe, a filtered function tracer (every patch from the hook, none
#   by the arm64 audit's repair); the replicas equal the master with
#   the tracer on and after
# Expected log: the tracer commands alone (patches that reach every
# replica are counted, never logged).
start_test "patching"
mount -t tracefs nodev $TR 2>/dev/null
p=$(patches)
echo 1 > /proc/sys/kernel/sched_schedstats
echo 0 > /proc/sys/kernel/sched_schedstats
kprobe_cycle smoke_kp
echo 'vfs_*' > $TR/set_ftrace_filter
log_cmd "echo function > $TR/current_tracer"
echo function > $TR/current_tracer
check "function tracer on (vfs_*): replicas identical to the master" \
	ktrepl-dump diff
log_cmd "echo nop > $TR/current_tracer"
echo nop > $TR/current_tracer
echo > $TR/set_ftrace_filter
q=$(patches)
check "static key, kprobe, tracer: $((q - p)) patches propagated" \
	test "$q" -gt "$p"
check "and the replicas equal the master after" ktrepl-dump diff
check "none missed" test "$(head -n1 $D/patches | kv missed)" = 0
check "none left for the audit to repair" \
	test "$(head -n1 $D/summary | kv audit_repairs)" = 0
check_log "patches reach the replicas without a message" \
	"% echo function > $TR/current_tracer
% echo nop > $TR/current_tracer"

# TEST: top
# - ktrepl-top, every CPU busy: 2 frames (the host judges them)
# Expected log: none (ktrepl-top reads without a message).
start_test "top"
start_load
emit top ktrepl-top -j -n 2 -d 1
stop_load
check_log "ktrepl-top reads without a message" ""

# TEST: flip
# - the audit stopped and patching calm (the flip must last until the
#   dump); the test build's load tainted the kernel TAINT_TEST (an oops
#   report says it ran); flip int_sqrt+0x4 on node R: verify exits 1
#   and names it
# - the guest then waits for the host's dump (KTREPL-READY-FOR-DUMP)
# Expected log: none (the flip logs nothing).
start_test "flip"
quiesce_audit
check "the test build's load tainted the kernel (TAINT_TEST)" \
	test $(($(cat /proc/sys/kernel/tainted) >> 18 & 1)) = 1
check "inject: flip int_sqrt+0x4 on node $R" \
	sh -c "echo 'flip node=$R sym=int_sqrt off=4' > $D/inject"
emit verify ktrepl-dump -j --verify
ktrepl-dump --verify > /tmp/v
check "verify exits 1 on the flip" test $? = 1
check "and names int_sqrt+0x4 on node $R" \
	grep -q "bytes: node $R .*int_sqrt+0x4" /tmp/v
echo "# after the flip: $(head -n1 $D/summary | tr ' ' '\n' | grep -E '^(patches|audits|audit_repairs)=' | tr '\n' ' ')"
check_log "the flip logs nothing" ""
check_dmesg_clean
done_testing
echo "KTREPL-READY-FOR-DUMP"
sleep 600
