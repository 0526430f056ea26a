# SPDX-License-Identifier: GPL-2.0
# Nine loads with bench=1: load time against a plain memcpy and memset,
# step by step.
. /lib.sh
# init_on_alloc: whether the allocator zeroes what the load allocates
emit autoinit sh -c "dmesg | grep -o 'heap alloc:[a-z]*' | tail -n1"
i=0
while [ $i -lt 9 ]; do
	# this load's line only: a load that logs none leaves no stale one
	dmesg -c >/dev/null
	insmod /lib/modules/ktrepl-test.ko bench=1
	emit load head -n1 $D/summary
	emit nodes grep '^node=' $D/summary
	emit steps sh -c "dmesg | grep 'load steps' | tail -n1 | sed 's/.*load steps (us)://'"
	rmmod ktrepl
	i=$((i + 1))
done
done_testing
