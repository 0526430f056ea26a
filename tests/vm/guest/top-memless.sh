# SPDX-License-Identifier: GPL-2.0
# ktrepl-top on a topology with a memoryless node: its CPUs run on their
# nearest memory node's replica, and that is what counts as local.
#
# TEST: memoryless node
# - insmod ktrepl.ko activation=workload (the host reads summary: which
#   node has no memory, and its memory node)
# - start the workers; 2 frames of ktrepl-top on the master node (the
#   host: the memoryless node's CPUs fetch from their memory node)
# - stop the workers; rmmod
# Expected log (load_log, unload_log): the load's (no activation line:
# the workers start on a control write) and the unload's, nothing
# between; checked after the frames, not during them.
. /lib.sh
start_test "memoryless node"
want=$(load_log /lib/modules/ktrepl.ko activation=workload)
check "insmod ktrepl.ko" logged insmod /lib/modules/ktrepl.ko activation=workload
emit summary cat $D/summary
M=$(head -n1 $D/summary | kv master_node)
MC=$(cut -d, -f1 /sys/devices/system/node/node$M/cpulist | cut -d- -f1)
check "the workload starts" sh -c "echo start > $D/workload_ctl"
sleep 1
emit tasks cat $D/tasks
emit memless taskset -c $MC ktrepl-top -j -n 2 -d 1
echo stop > $D/workload_ctl
check "rmmod ktrepl" logged rmmod ktrepl
check_log "the load's log and the unload's, nothing between" "$want
$(unload_log)"
check_dmesg_clean
done_testing
