# SPDX-License-Identifier: GPL-2.0
# No silent cap on bound processes (issue 39): 650 processes confined to
# a replica node, more than the live file ever capped (512) and than the
# vmcore descriptor's slots (256).
#
# TEST: many bound
# - insmod (activation=mm); start N processes confined to node R's CPUs
# - bind lists every one of them, each on node R's set
# - the host dumps the guest (KTREPL-DUMP, then "go"): the descriptor
#   lists 256 and counts the rest as omitted (t19 reads it)
# - the processes exit: bind lists none of them, unbinds counted
# Expected log: the load's, then nothing until the unload's.
. /lib.sh
S=$D/summary
N=${N:-650}
K=/lib/modules/ktrepl.ko
start_test "many bound"
check "insmod" logged insmod $K
R=$(grep 'role=replica' $S | head -n1 | kv node)
cpus=$(cat /sys/devices/system/node/node$R/cpulist)
echo "# $N processes on node $R's CPUs ($cpus)"
i=0
while [ $i -lt $N ]; do
	taskset -c "$cpus" sleep 100000 &
	i=$((i + 1))
done
ours() { grep -c "^pid=[0-9]* comm=sleep .*node=$R " $D/bind; }
wait_for 60 sh -c "[ \$(grep -c '^pid=[0-9]* comm=sleep .*node=$R ' $D/bind) = $N ]"
got=$(ours)
check "bind lists all $N sleepers on node $R's set (got $got)" test "$got" = $N
console_drained
echo "KTREPL-DUMP many"
read -r _go
echo "# dump taken ($_go)"
b0=$(head -n1 $S | kv unbinds)
killall sleep
wait
check "after they exit, bind lists none of them" \
	wait_for 30 sh -c "[ \$(grep -c '^pid=[0-9]* comm=sleep ' $D/bind) = 0 ]"
check "and unbinds counted them ($b0 -> $(head -n1 $S | kv unbinds))" \
	test "$(head -n1 $S | kv unbinds)" -ge $((b0 + N))
check "rmmod" logged rmmod ktrepl
check_log "the load's and the unload's" "$(load_log $K)
$(unload_log)"
check_dmesg_clean
done_testing
