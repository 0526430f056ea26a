# SPDX-License-Identifier: GPL-2.0
# ktrepl-top on arm64: without ktrepl (paging from VMCOREINFO); with
# replication inactive, where everything runs on the master's tables; and
# with activation=percpu, where every CPU runs on its node's.
. /lib.sh
first_cpu() {
	cut -d, -f1 /sys/devices/system/node/node$1/cpulist | cut -d- -f1
}
c=0
while [ $c -lt $(nproc) ]; do
	taskset -c $c sh -c 'while :; do cat /proc/self/stat >/dev/null; done' &
	c=$((c + 1))
done
emit plain ktrepl-top -j -n 1 -d 1
kill $(jobs -p)
wait 2>/dev/null
check "insmod ktrepl-test.ko activation=inactive (its workers run beside inactive)" \
	insmod /lib/modules/ktrepl-test.ko activation=inactive
M=$(head -n1 $D/summary | kv master_node)
echo "MASTER-NODE $M"
check "the workload starts" sh -c "echo start > $D/workload_ctl"
sleep 1
emit inactive taskset -c $(first_cpu $M) ktrepl-top -j -n 2 -d 1
echo stop > $D/workload_ctl
start_load
emit inactive_load ktrepl-top -j -n 1 -d 1
stop_load
check "rmmod ktrepl" rmmod ktrepl
check "insmod ktrepl.ko (percpu)" insmod /lib/modules/ktrepl.ko
check "activation is percpu" \
	test "$(head -n1 $D/summary | kv activation)" = percpu
start_load
emit percpu ktrepl-top -j -n 2 -d 1
# the emulated PMU's cycles: the frequency-mode start-up burst is discarded
emit fid_cycles ktrepl-top -j -n 3 -d 1 --event cycles
stop_load
top_fidelity
check "rmmod ktrepl" rmmod ktrepl
check_dmesg_clean
done_testing
