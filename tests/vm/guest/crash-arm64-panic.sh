# SPDX-License-Identifier: GPL-2.0
# arm64 percpu, for crash> ktrepl under Debian's arm64 crash (t12): node
# R's replica gets a flipped byte (int_sqrt+0x10, which nothing here
# runs) and a trap at write_sysrq_trigger, then a shell pinned to a
# node-R CPU writes /proc/sysrq-trigger: it runs node R's copy, so the
# box panics on that CPU, from the replica. The master's text is
# untouched, so nothing on node 0 can hit either. One scenario; its log
# is checked just before the panic step, and t12 folds the TAP.
. /lib.sh

# TEST: replica trap
# - insmod the test build (fault_inject=1): activation=percpu
# - start the shell that will panic, pinned to node R's first CPU,
#   waiting for /tmp/go
# - stop the audit (quiesce_audit), panic_on_oops=1,
#   crash_kexec_post_notifiers=Y
# - flip int_sqrt+0x10 and plant a trap at write_sysrq_trigger, both in
#   node R's replica
# - check the log, then touch /tmp/go: the shell writes h to
#   /proc/sysrq-trigger, runs into the trap and the box panics
# Expected log (load_log): the load's; the inject commands. The panic
# follows the check.
start_test "replica trap"
want=$(load_log /lib/modules/ktrepl-test.ko fault_inject=1)
check "insmod ktrepl-test.ko fault_inject=1" \
	logged insmod /lib/modules/ktrepl-test.ko fault_inject=1
emit summary head -n1 $D/summary
R=$(grep 'role=replica' $D/summary | head -n1 | kv node)
C=$(cut -d, -f1 /sys/devices/system/node/node$R/cpulist | cut -d- -f1)
echo "REPLICA-NODE $R"
echo "PANIC-CPU $C"
# The shell that will panic starts first. Debian's crash 8.0.2 has only
# a few of a 6.1 kernel's tasks in its task table (TASKS: 7 of about a
# hundred) and finds the panic task only there: a shell started early
# (as t04's sysrq one) is in it, the workload threads that panicked a
# later trap were not. It writes from its own process (echo is a
# builtin).
log_cmd "taskset -c $C sh -c 'while [ ! -e /tmp/go ]; do usleep 100000; done; echo h > /proc/sysrq-trigger' &"
taskset -c $C sh -c 'while [ ! -e /tmp/go ]; do usleep 100000; done
	echo h > /proc/sysrq-trigger' &
for s in int_sqrt write_sysrq_trigger; do
	echo "SYM $s $(grep " $s\$" /proc/kallsyms | cut -d' ' -f1)"
done
# the audit would repair both (a missed write) once their page sees a
# patch: off, and patching calm, before the damage
quiesce_audit
echo 1 > /proc/sys/kernel/panic_on_oops
# panic() then stops the other CPUs as a kdump kernel's crash stop does,
# leaving them online: plain smp_send_stop() takes them offline, and
# crash 8.0.2 then gives CPU 0's NT_PRSTATUS note to the one CPU left
# online and finds no panic task
echo Y > /sys/module/kernel/parameters/crash_kexec_post_notifiers
log_cmd "echo 'flip node=$R sym=int_sqrt off=16' > $D/inject"
check "inject: flip int_sqrt+0x10 on node $R" \
	sh -c "echo 'flip node=$R sym=int_sqrt off=16' > $D/inject"
log_cmd "echo 'trap node=$R sym=write_sysrq_trigger' > $D/inject"
check "inject: trap at write_sysrq_trigger on node $R" \
	sh -c "echo 'trap node=$R sym=write_sysrq_trigger' > $D/inject"
check_log "the load's log and the injects'" "$want
% taskset -c $C sh -c 'while [ ! -e /tmp/go ]; do usleep 100000; done; echo h > /proc/sysrq-trigger' &
% echo 'flip node=$R sym=int_sqrt off=16' > $D/inject
% echo 'trap node=$R sym=write_sysrq_trigger' > $D/inject"
# every CPU's root as loaded now, apart from the descriptor in the dump
emit pgds grep '^cpu=' $D/pgds
step "touch /tmp/go: the shell on CPU $C runs into the trap"
echo "panicking"
log_cmd "touch /tmp/go"
touch /tmp/go
sleep 30
echo "STILL-ALIVE"
