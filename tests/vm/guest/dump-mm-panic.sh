# SPDX-License-Identifier: GPL-2.0
# activation=mm: a process bound to a non-master node's set panics the box.
. /lib.sh
insmod /lib/modules/ktrepl.ko
R=$(grep 'role=replica' $D/summary | head -n1 | kv node)
taskset -c "$(cat /sys/devices/system/node/node$R/cpulist)" \
	sh -c 'sleep 1.5; echo c > /proc/sysrq-trigger' &
echo "BOUND-PANIC $! $R"
sleep 1
grep "^pid=" $D/bind
sleep 30
echo "STILL-ALIVE"
