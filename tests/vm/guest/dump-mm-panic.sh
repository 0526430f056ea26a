# SPDX-License-Identifier: GPL-2.0
# activation=mm: a process bound to a non-master node's set panics the
# box (t04 dumps the panicked guest). One scenario; its log is checked
# just before the panic step, and t04 folds the TAP.
. /lib.sh

# TEST: bound panic
# - insmod the shipped module: activation=mm
# - check the log, then start a shell confined to node R's CPUs: it is
#   bound to node R's set within the second, then writes c to
#   /proc/sysrq-trigger and the box panics
# Expected log (load_log): the load's. The panic follows the check.
start_test "bound panic"
want=$(load_log /lib/modules/ktrepl.ko)
check "insmod ktrepl.ko" logged insmod /lib/modules/ktrepl.ko
R=$(grep 'role=replica' $D/summary | head -n1 | kv node)
check_log "the load's log" "$want"
step "a shell bound to node $R's set panics the box"
cpus=$(cat /sys/devices/system/node/node$R/cpulist)
log_cmd "taskset -c $cpus sh -c 'sleep 1.5; echo c > /proc/sysrq-trigger' &"
taskset -c "$cpus" \
	sh -c 'sleep 1.5; echo c > /proc/sysrq-trigger' &
echo "BOUND-PANIC $! $R"
sleep 1
grep "^pid=" $D/bind
sleep 30
echo "STILL-ALIVE"
