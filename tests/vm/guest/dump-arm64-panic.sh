# SPDX-License-Identifier: GPL-2.0
# arm64 percpu: panic on a CPU of a non-master node. The dump carries no
# TTBR1, so each CPU's root comes from the descriptor's record (t04
# dumps the panicked guest). One scenario; its log is checked just
# before the panic step, and t04 folds the TAP.
. /lib.sh

# TEST: percpu panic
# - insmod the shipped module: activation=percpu
# - the summary's header and each CPU's loaded root, for the host
# - check the log, then a shell pinned to node R's first CPU writes c to
#   /proc/sysrq-trigger: the box panics there, on node R's tables
# Expected log (load_log): the load's. The panic follows the check.
start_test "percpu panic"
want=$(load_log /lib/modules/ktrepl.ko)
check "insmod ktrepl.ko" logged insmod /lib/modules/ktrepl.ko
emit summary head -n1 $D/summary
emit pgds grep '^cpu=' $D/pgds
R=$(grep 'role=replica' $D/summary | head -n1 | kv node)
C=$(cut -d, -f1 /sys/devices/system/node/node$R/cpulist | cut -d- -f1)
echo "PANIC-CPU $C NODE $R"
echo 1 > /proc/sys/kernel/sysrq
check_log "the load's log" "$want"
step "panic on CPU $C (node $R)"
log_cmd "taskset -c $C sh -c 'echo c > /proc/sysrq-trigger'"
before_panic
taskset -c $C sh -c 'echo c > /proc/sysrq-trigger'
sleep 30
echo "STILL-ALIVE"
