# SPDX-License-Identifier: GPL-2.0
# The per-node workload runs on its node's tables, and execution (not
# only CR3) proves it: a replica-only change is seen on that node alone.
# Three scenarios, each with its kernel log (lib.sh: start_test,
# check_log).
. /lib.sh

# TEST: workers
# - insmod the test build with activation=workload
# - start the workers: verify is healthy while they run (the host reads
#   tasks, pgds and summary)
# Expected log: the load's (no activation line: workers start on a
# control write), nothing for starting them.
# audit_period_ms=0: the replica-only change below must outlive a patch
# on its page, which an audit pass would take for a missed write
mod="/lib/modules/ktrepl-test.ko activation=workload fault_inject=1 audit_period_ms=0"
want=$(load_log $mod)
start_test "workers"
check "insmod ktrepl-test.ko fault_inject=1 audit_period_ms=0" logged insmod $mod
check "writing 'start' to workload succeeds" sh -c "echo start > $D/workload_ctl"
sleep 3
emit tasks1 cat $D/tasks
sleep 2
emit tasks2 cat $D/tasks
emit pgds cat $D/pgds
emit summary cat $D/summary
check "workload runs without fault: verify healthy" ktrepl-dump --verify
check_log "the load's log, and none for the workers" "$want"

# TEST: the rule
# - the rule ktrepl-top resolves samples by: a CPU is on a node's tables
#   only while a listed worker is the task it runs. Each pgds read
#   interrupts every CPU and reports its loaded root and current task
#   (the host judges 40 reads).
# - moving each worker between its node's CPUs leaves the CPU it left
#   to idle and kernel threads, which is where lazy TLB would keep its
#   tables; this shell and its children stay on the last CPU, out of
#   their way
# - stop the workers: tasks is empty
# Expected log: none.
start_test "the rule"
last=$(($(nproc) - 1))
taskset -p $((1 << last)) $$ >/dev/null
i=0
while [ $i -lt 40 ]; do
	for t in $(kv pid < $D/tasks); do
		cpus=$(grep "pid=$t " $D/tasks | kv node | xargs -I@ cat /sys/devices/system/node/node@/cpulist)
		lo=${cpus%-*}
		hi=${cpus#*-}
		taskset -p $((1 << (i % 2 ? lo : hi))) $t >/dev/null 2>&1
	done
	sleep 0.1
	emit rule cat $D/pgds
	i=$((i + 1))
done
taskset -p $(((1 << (last + 1)) - 1)) $$ >/dev/null
emit rule_tasks cat $D/tasks
check "writing 'stop' to workload succeeds" sh -c "echo stop > $D/workload_ctl"
check "tasks is empty once stopped" test ! -s $D/tasks
check_log "moving and stopping the workers logs nothing" ""

# TEST: replica-only change
# - change int_sqrt in one replica node's copy only (inject retval)
# - the workers see it on that node alone (the host reads workload);
#   the same workers on the master's tables do not
# - rmmod
# Expected log: the unload's.
start_test "replica-only change"
R=$(grep 'role=replica' $D/summary | head -n1 | kv node)
check "inject: int_sqrt returns 42 in node $R's replica" \
	sh -c "echo 'retval node=$R sym=int_sqrt value=42' > $D/inject"
echo start > $D/workload_ctl
sleep 3
emit tasks3 cat $D/tasks
emit workload cat $D/workload
# the same workers on the master's tables do not see the replica change
check "writing 'start master' to workload succeeds" \
	sh -c "echo 'start master' > $D/workload_ctl"
sleep 3
emit tasks_master cat $D/tasks
emit workload_master cat $D/workload
echo stop > $D/workload_ctl
echo "REPLICA-NODE $R"
check "rmmod ktrepl" logged rmmod ktrepl
check_log "the inject's and the unload's log" "$(unload_log)"
check_dmesg_clean
done_testing
