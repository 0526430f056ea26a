# SPDX-License-Identifier: GPL-2.0
# arm64: ftrace enable plus disable (every core function's call site
# patched twice) without ktrepl, then with every CPU on its node's
# replica; alternately, three times each. The ring buffer is off, so
# the time is the patching's.
. /lib.sh
T=/sys/kernel/tracing
mount -t tracefs nodev $T
echo 0 > $T/tracing_on
toggle() {
	t0=$(now_ms)
	echo function > $T/current_tracer
	echo nop > $T/current_tracer
	echo "@@toggle@@ mode=$1 ns=$((($(now_ms) - t0) * 1000000))"
}
i=0
while [ $i -lt 3 ]; do
	toggle plain
	insmod /lib/modules/ktrepl.ko
	emit summary head -n1 $D/summary
	toggle percpu
	rmmod ktrepl
	i=$((i + 1))
done
check_dmesg_clean
done_testing
