# SPDX-License-Identifier: GPL-2.0
# verify's cost during a patch storm (re-reads of ranges caught mid-patch
# included) against verify at rest, in the same guest: 10 runs each.
. /lib.sh
mount -t tracefs nodev $TR 2>/dev/null
insmod /lib/modules/ktrepl.ko
run_verifies() {
	for i in 1 2 3 4 5 6 7 8 9 10; do
		t0=$(now_ms)
		ktrepl-dump -j --verify > /tmp/v.json 2>&1
		rc=$?
		t1=$(now_ms)
		r=$(grep -o '"ranges_reread":[0-9]*' /tmp/v.json | cut -d: -f2)
		echo "@@verify@@ mode=$1 ms=$((t1 - t0)) rc=$rc reread=${r:-0}"
	done
}
run_verifies rest
storm 3600 > /dev/null &
sp=$!
sleep 2
p0=$(head -n1 $D/summary | kv patches)
run_verifies storm
p1=$(head -n1 $D/summary | kv patches)
kill $sp
wait 2>/dev/null
echo "@@patches@@ during=$((p1 - p0))"
rmmod ktrepl
echo nop > $TR/current_tracer
done_testing
