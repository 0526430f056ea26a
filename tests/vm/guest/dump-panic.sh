# SPDX-License-Identifier: GPL-2.0
# Node R's workload executes a trap planted in node R's replica only:
# the box panics on a node-R CPU, and the dump must show why.
. /lib.sh
insmod /lib/modules/ktrepl-test.ko fault_inject=1
R=$(grep 'role=replica' $D/summary | head -n1 | kv node)
echo "REPLICA-NODE $R"
echo 1 > /proc/sys/kernel/panic_on_oops
echo "trap node=$R sym=int_sqrt" > $D/inject
echo "workload starting"
echo start > $D/workload_ctl
sleep 30
echo "STILL-ALIVE"
