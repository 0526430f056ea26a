# SPDX-License-Identifier: GPL-2.0
# Module loads and unloads on a host that runs ktrepl.ko: the kernel
# loads WANT modules and unloads them again (timed), alone, then with
# the test build loaded (each load then replicated, each unload
# released), ROUNDS times each, interleaved; with the modules loaded
# once more, ktrepl.ko's own unload (its release of every module) is
# timed too.
. /lib.sh
WANT=${WANT:-200}
ROUNDS=${ROUNDS:-2}
# unload_all: those, in reverse order, each timed
unload_all() {
	cs=0
	n=0
	for m in $(sed -n '1!G;h;$p' /tmp/loaded); do
		t0=$(uptime_cs)
		rmmod "$m" 2>/dev/null && n=$((n + 1))
		cs=$((cs + $(uptime_cs) - t0))
	done
	echo "unloaded=$n unload_cs=$cs"
}
i=0
while [ $i -lt "$ROUNDS" ]; do
	echo "@@plain@@ $(load_many $WANT) $(unload_all)"
	insmod /lib/modules/ktrepl-test.ko
	echo "@@ktrepl@@ $(load_many $WANT) $(unload_all)"
	load_many $WANT > /dev/null
	t0=$(uptime_cs)
	rmmod ktrepl
	echo "@@release@@ modules=$(wc -l < /tmp/loaded) rmmod_cs=$(($(uptime_cs) - t0))"
	unload_all > /dev/null
	i=$((i + 1))
done
check_dmesg_clean
done_testing
