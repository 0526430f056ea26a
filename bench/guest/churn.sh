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
uptime_cs() { cut -d' ' -f1 /proc/uptime | tr -d .; }
# load_all: the first WANT modules that load (a driver without its
# hardware refuses), each timed to the centisecond, named in /tmp/loaded
load_all() {
	: > /tmp/loaded
	k=0
	cs=0
	while read f && [ $k -lt $WANT ]; do
		t0=$(uptime_cs)
		if insmod "/lib/modules/many/$f" 2>/dev/null; then
			cs=$((cs + $(uptime_cs) - t0))
			k=$((k + 1))
			echo "$f" | sed 's/^[0-9]*-//; s/\.ko$//; s/-/_/g' >> /tmp/loaded
		fi
	done < /lib/modules/many/list
	echo "loaded=$k load_cs=$cs"
}
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
	echo "@@plain@@ $(load_all) $(unload_all)"
	insmod /lib/modules/ktrepl-test.ko
	echo "@@ktrepl@@ $(load_all) $(unload_all)"
	load_all > /dev/null
	t0=$(uptime_cs)
	rmmod ktrepl
	echo "@@release@@ modules=$(wc -l < /tmp/loaded) rmmod_cs=$(($(uptime_cs) - t0))"
	unload_all > /dev/null
	i=$((i + 1))
done
check_dmesg_clean
done_testing
