# SPDX-License-Identifier: GPL-2.0
# x86_64 activation=mm: what non-global kernel text costs a process that
# context-switches hard. A pipe between two processes pinned to one CPU
# of a replica node: without ktrepl, with activation=workload (text still
# global, the pair on the master's tables) and with activation=mm (the
# pair bound to the node's set, text non-global). Three rounds each.
. /lib.sh
insmod /lib/modules/ktrepl.ko activation=inactive
R=$(grep 'role=replica' $D/summary | head -n1 | kv node)
rmmod ktrepl
CPU=$(cut -d, -f1 /sys/devices/system/node/node$R/cpulist | cut -d- -f1)
pipe() {
	sleep 2	# after a load or unload, let its deferred work finish
	t0=$(now_ms)
	taskset -c $CPU sh -c 'yes | head -c 16000000 > /dev/null'
	echo "@@pipe@@ mode=$1 ms=$(($(now_ms) - t0)) node=$R cpu=$CPU"
}
pipe warmup	# page cache, the emulator's translations: not counted
i=0
while [ $i -lt 3 ]; do
	pipe plain
	insmod /lib/modules/ktrepl.ko activation=workload
	pipe workload
	rmmod ktrepl
	insmod /lib/modules/ktrepl.ko
	pipe mm
	emit bound cat $D/bind
	rmmod ktrepl
	i=$((i + 1))
done
check_dmesg_clean
done_testing
