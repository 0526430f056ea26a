# SPDX-License-Identifier: GPL-2.0
# Report the NUMA topology the guest sees (TOPO lines, which the host
# compares with the one it asked for) and load the module.
. /lib.sh
for n in /sys/devices/system/node/node[0-9]*; do
	nid=${n##*node}
	kb=$(awk '/MemTotal/ {print $4}' "$n/meminfo")
	echo "TOPO node=$nid cpus=$(cat "$n/cpulist") memtotal_kb=$kb"
done

# TEST: load and unload
# - insmod the shipped ktrepl.ko: its debugfs directory appears, abi
#   reads 1
# - rmmod: the directory is gone
# Expected log: load_log's (the modules already loaded replicated, the
# load's steps, the arch's default activation), then unload_log's page
# count; no WARN, BUG or oops.
want=$(load_log /lib/modules/ktrepl.ko)
start_test "load and unload"
check "insmod ktrepl.ko" logged insmod /lib/modules/ktrepl.ko
check "debugfs directory /sys/kernel/debug/ktrepl exists" \
	test -d /sys/kernel/debug/ktrepl
check "abi file reads 1" test "$(cat /sys/kernel/debug/ktrepl/abi)" = 1
check "rmmod ktrepl" logged rmmod ktrepl
check "debugfs directory gone after rmmod" \
	test ! -e /sys/kernel/debug/ktrepl
check_log "the load's and the unload's log" "$want
$(unload_log)"
check_dmesg_clean
done_testing
