# SPDX-License-Identifier: GPL-2.0
# 100 load/unload cycles and an allocation failure at every step leak
# nothing and leave nothing behind.
. /lib.sh
# Free memory including the per-CPU page lists, which MemFree leaves out
# although freed pages (order 9 too) sit there until reused.
memfree() {
	pcp=$(awk '$1 == "count:" { n += $2 } END { print n + 0 }' /proc/zoneinfo)
	echo $(($(awk '/MemFree/ {print $2}' /proc/meminfo) + pcp * 4))
}
drop() { sync; echo 3 > /proc/sys/vm/drop_caches; sleep 1; }
# Free memory moves by an order-9 block or more on its own when the host is
# loaded (seen with the module from before and after a change alike): take
# the lowest of three readings as a baseline and the highest as a result.
# A leak grows with every cycle and still shows after 100 of them.
memfree_settled() {
	best=
	for reading in 1 2 3; do
		drop
		m=$(memfree)
		if [ -z "$best" ] || { [ "$1" = low ] && [ "$m" -lt "$best" ]; } ||
			{ [ "$1" = high ] && [ "$m" -gt "$best" ]; }; then
			best=$m
		fi
	done
	echo "$best"
}

insmod /lib/modules/ktrepl.ko
N=$(head -n1 $D/summary | kv allocations)
rmmod ktrepl
echo "# a load makes $N page allocations"
# Warm up: the first loads split the direct map and grow caches.
i=0
while [ $i -lt 30 ]; do
	insmod /lib/modules/ktrepl.ko
	rmmod ktrepl
	i=$((i + 1))
done
base=$(memfree_settled low)
i=0
fails=0
while [ $i -lt 100 ]; do
	insmod /lib/modules/ktrepl.ko || fails=$((fails + 1))
	rmmod ktrepl || fails=$((fails + 1))
	i=$((i + 1))
done
after=$(memfree_settled high)
echo "# free before $base kB, after 100 cycles $after kB"
check "100 load/unload cycles all succeed" test $fails = 0
check "free memory back to baseline after 100 cycles (within 1 MiB)" \
	test $((base - after)) -lt 1024
check "no debugfs directory left" test ! -e $D
check "every unload freed every page it allocated" all_freed
check "and said so $(dmesg | grep -c 'ktrepl: freed') times" \
	test "$(dmesg | grep -c 'ktrepl: freed')" -ge 131

bad=0
k=1
while [ $k -le "$N" ]; do
	if insmod /lib/modules/ktrepl-test.ko fail_alloc=$k 2>/dev/null; then
		echo "# fail_alloc=$k: load succeeded"
		rmmod ktrepl
		bad=$((bad + 1))
	fi
	if [ -e $D ]; then
		echo "# fail_alloc=$k left $D behind"
		bad=$((bad + 1))
	fi
	k=$((k + 1))
done
check "a failure at each of the $N allocations fails the load cleanly" \
	test $bad = 0 -a "$N" -gt 0
check "the failure is logged with its allocation number" \
	sh -c "dmesg | grep -q 'failing allocation $N as fail_alloc asks'"
check "the load says why it failed" \
	sh -c "dmesg | grep -q 'not loaded: replication setup failed (-12)'"
check "fail_alloc past the last allocation loads" \
	insmod /lib/modules/ktrepl-test.ko fail_alloc=$((N + 1))
rmmod ktrepl
final=$(memfree_settled high)
echo "# free after the failure sweep $final kB"
# the page accounting above checks our own pages exactly
check "free memory back to baseline after the failure sweep (within 1 MiB)" \
	test $((base - final)) -lt 1024
check "every failed load freed every page it had allocated" all_freed
check_dmesg_clean
done_testing
