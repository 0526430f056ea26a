# SPDX-License-Identifier: GPL-2.0
# Report the NUMA topology the guest sees and load the module.
. /lib.sh
for n in /sys/devices/system/node/node[0-9]*; do
	nid=${n##*node}
	kb=$(awk '/MemTotal/ {print $4}' "$n/meminfo")
	echo "TOPO node=$nid cpus=$(cat "$n/cpulist") memtotal_kb=$kb"
done
check "insmod ktrepl.ko" insmod /lib/modules/ktrepl.ko
check "debugfs directory /sys/kernel/debug/ktrepl exists" \
	test -d /sys/kernel/debug/ktrepl
check "abi file reads 1" test "$(cat /sys/kernel/debug/ktrepl/abi)" = 1
check "rmmod ktrepl" rmmod ktrepl
check "debugfs directory gone after rmmod" \
	test ! -e /sys/kernel/debug/ktrepl
check_dmesg_clean
done_testing
