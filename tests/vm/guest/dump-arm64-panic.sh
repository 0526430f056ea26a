# SPDX-License-Identifier: GPL-2.0
# arm64 percpu: panic on a CPU of a non-master node. The dump carries no
# TTBR1, so each CPU's root comes from the descriptor's record.
. /lib.sh
insmod /lib/modules/ktrepl.ko
emit summary head -n1 $D/summary
emit pgds grep '^cpu=' $D/pgds
R=$(grep 'role=replica' $D/summary | head -n1 | kv node)
C=$(cut -d, -f1 /sys/devices/system/node/node$R/cpulist | cut -d- -f1)
echo "PANIC-CPU $C NODE $R"
echo 1 > /proc/sys/kernel/sysrq
taskset -c $C sh -c 'echo c > /proc/sysrq-trigger'
sleep 30
echo "STILL-ALIVE"
