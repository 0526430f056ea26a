# SPDX-License-Identifier: GPL-2.0
# ktrepl-top on a topology with a memoryless node: its CPUs run on their
# nearest memory node's replica, and that is what counts as local.
. /lib.sh
check "insmod ktrepl.ko" insmod /lib/modules/ktrepl.ko activation=workload
emit summary cat $D/summary
M=$(head -n1 $D/summary | kv master_node)
MC=$(cut -d, -f1 /sys/devices/system/node/node$M/cpulist | cut -d- -f1)
check "the workload starts" sh -c "echo start > $D/workload_ctl"
sleep 1
emit tasks cat $D/tasks
emit memless taskset -c $MC ktrepl-top -j -n 2 -d 1
echo stop > $D/workload_ctl
check "rmmod ktrepl" rmmod ktrepl
check_dmesg_clean
done_testing
