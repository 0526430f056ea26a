# SPDX-License-Identifier: GPL-2.0
# ktrepl-top on arm64: without ktrepl (paging from VMCOREINFO), and with
# replication inactive, where the workers run on the master's tables.
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
check "insmod ktrepl.ko" insmod /lib/modules/ktrepl.ko
M=$(head -n1 $D/summary | kv master_node)
echo "MASTER-NODE $M"
check "the workload starts" sh -c "echo start > $D/workload"
sleep 1
emit inactive taskset -c $(first_cpu $M) ktrepl-top -j -n 2 -d 1
echo stop > $D/workload
check "rmmod ktrepl" rmmod ktrepl
check_dmesg_clean
done_testing
