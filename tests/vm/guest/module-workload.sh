# SPDX-License-Identifier: GPL-2.0
# The per-node workload runs on its node's tables, and execution (not
# only CR3) proves it: a replica-only change is seen on that node alone.
. /lib.sh
check "insmod ktrepl.ko fault_inject=1 propagate=0" \
	insmod /lib/modules/ktrepl.ko fault_inject=1 propagate=0
check "writing 'start' to workload succeeds" sh -c "echo start > $D/workload"
sleep 3
emit tasks1 cat $D/tasks
sleep 2
emit tasks2 cat $D/tasks
emit pgds cat $D/pgds
emit summary cat $D/summary
check "workload runs without fault: verify healthy" ktrepl-dump --verify
check "writing 'stop' to workload succeeds" sh -c "echo stop > $D/workload"
check "tasks is empty once stopped" test ! -s $D/tasks

# change int_sqrt in one replica node's copy only
R=$(grep 'role=replica' $D/summary | head -n1 | kv node)
check "inject: int_sqrt returns 42 in node $R's replica" \
	sh -c "echo 'retval node=$R sym=int_sqrt value=42' > $D/inject"
echo start > $D/workload
sleep 3
emit tasks3 cat $D/tasks
emit workload cat $D/workload
echo stop > $D/workload
echo "REPLICA-NODE $R"
check "rmmod ktrepl" rmmod ktrepl
check_dmesg_clean
done_testing
