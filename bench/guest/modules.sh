# SPDX-License-Identifier: GPL-2.0
# What module replication costs a module load: fat and vfat loaded and
# unloaded 10 times without ktrepl, with ktrepl.ko modules=0, and with
# modules=1 (copies on every node, the table mirror following every
# vmalloc). Three rounds each, from the master node's CPUs.
. /lib.sh
X=/lib/modules/extra
insmod /lib/modules/ktrepl.ko activation=inactive
M=$(head -n1 $D/summary | kv master_node)
rmmod ktrepl
ON="taskset -c $(cat /sys/devices/system/node/node$M/cpulist)"
cycle() {
	sleep 1
	t0=$(now_ms)
	i=0
	while [ $i -lt 10 ]; do
		$ON insmod $X/fat.ko && $ON insmod $X/vfat.ko
		rmmod vfat && rmmod fat
		i=$((i + 1))
	done
	echo "@@cycle@@ mode=$1 ms=$(($(now_ms) - t0))"
}
cycle warmup
r=0
while [ $r -lt 3 ]; do
	cycle plain
	insmod /lib/modules/ktrepl.ko modules=0
	cycle modules0
	rmmod ktrepl
	insmod /lib/modules/ktrepl.ko
	cycle modules1
	emit summary head -n1 $D/summary
	rmmod ktrepl
	r=$((r + 1))
done
check_dmesg_clean
done_testing
