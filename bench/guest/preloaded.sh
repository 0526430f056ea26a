# SPDX-License-Identifier: GPL-2.0
# A load among a server's worth of modules: the kernel loads WANT of
# them (timed: what loading them costs the kernel itself), then the test
# build loads LOADS times with bench=1 and reports its load steps, the
# modules step being the replication of every module loaded before it.
. /lib.sh
WANT=${WANT:-200}
LOADS=${LOADS:-3}
loaded=$(load_many $WANT)
echo "@@preloaded@@ modules=$(echo "$loaded" | kv loaded) centisec=$(echo "$loaded" | kv load_cs)"
i=0
while [ $i -lt $LOADS ]; do
	dmesg -c > /dev/null
	insmod /lib/modules/ktrepl-test.ko bench=1
	echo "@@load@@ $(head -n1 $D/summary | kv modules | sed 's/^/replicated=/') $(dmesg | grep 'load steps' | tail -n1 | sed 's/.*load steps (us)://')"
	rmmod ktrepl
	i=$((i + 1))
done
done_testing
