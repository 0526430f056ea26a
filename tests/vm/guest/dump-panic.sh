# SPDX-License-Identifier: GPL-2.0
# Node R's workload executes a trap planted in node R's replica only:
# the box panics on a node-R CPU, and the dump must show why (t04 and
# demo.py dump the panicked guest). One scenario; its log is checked
# just before the panic step (t04 folds the TAP; demo.py shows only the
# panic line).
. /lib.sh

# TEST: replica trap
# - insmod the test build (fault_inject=1): activation=mm
# - panic_on_oops=1; plant a trap (ud2) at int_sqrt in node R's replica
#   only: only a task on node R's tables can run into it
# - check the log, then start the workload: node R's worker runs
#   int_sqrt from node R's replica and oopses, the box panics
# Expected log (load_log): the load's; the inject command. The panic
# follows the check.
start_test "replica trap"
want=$(load_log /lib/modules/ktrepl-test.ko fault_inject=1)
check "insmod ktrepl-test.ko fault_inject=1" \
	logged insmod /lib/modules/ktrepl-test.ko fault_inject=1
R=$(grep 'role=replica' $D/summary | head -n1 | kv node)
echo "REPLICA-NODE $R"
echo 1 > /proc/sys/kernel/panic_on_oops
log_cmd "echo 'trap node=$R sym=int_sqrt' > $D/inject"
check "inject: trap at int_sqrt on node $R" \
	sh -c "echo 'trap node=$R sym=int_sqrt' > $D/inject"
check_log "the load's log and the inject command" "$want
% echo 'trap node=$R sym=int_sqrt' > $D/inject"
step "start the workload: node $R's worker runs into the trap"
echo "workload starting"
log_cmd "echo start > $D/workload_ctl"
before_panic
echo start > $D/workload_ctl
sleep 30
echo "STILL-ALIVE"
