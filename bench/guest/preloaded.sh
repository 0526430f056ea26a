# SPDX-License-Identifier: GPL-2.0
# A load among a server's worth of modules: the kernel loads WANT of
# them (timed: what loading them costs the kernel itself), then the test
# build loads LOADS times with bench=1 and reports its load steps, the
# modules step being the replication of every module loaded before it.
. /lib.sh
WANT=${WANT:-200}
LOADS=${LOADS:-3}
uptime_cs() { cut -d' ' -f1 /proc/uptime | tr -d .; }
# only the loads that succeeded are timed (a driver without its
# hardware refuses, and is no module the load replicates): each to the
# centisecond, whose rounding averages out over the sum
k=0
cs=0
while read f && [ $k -lt $WANT ]; do
	t0=$(uptime_cs)
	if insmod "/lib/modules/many/$f" 2>/dev/null; then
		cs=$((cs + $(uptime_cs) - t0))
		k=$((k + 1))
	fi
done < /lib/modules/many/list
echo "@@preloaded@@ modules=$k centisec=$cs"
i=0
while [ $i -lt $LOADS ]; do
	dmesg -c > /dev/null
	insmod /lib/modules/ktrepl-test.ko bench=1
	echo "@@load@@ $(head -n1 $D/summary | kv modules | sed 's/^/replicated=/') $(dmesg | grep 'load steps' | tail -n1 | sed 's/.*load steps (us)://')"
	rmmod ktrepl
	i=$((i + 1))
done
done_testing
