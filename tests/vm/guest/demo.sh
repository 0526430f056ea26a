# SPDX-License-Identifier: GPL-2.0
echo "### guest NUMA topology"
for n in /sys/devices/system/node/node[0-9]*; do
	echo "${n##*/}: cpus $(cat "$n/cpulist"), $(awk '/MemTotal/ {print $4, $5}' "$n/meminfo")"
done
echo "### insmod ktrepl.ko"
insmod /lib/modules/ktrepl.ko || exit 1
for f in /sys/kernel/debug/ktrepl/*; do
	[ -f "$f" ] || continue
	echo "### $f"
	head -n 40 "$f"
done
