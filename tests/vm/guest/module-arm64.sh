# SPDX-License-Identifier: GPL-2.0
# arm64 with activation=inactive: the same engine builds real replicas
# and node tables, which no CPU switches to; patches still reach them.
. /lib.sh
check "insmod ktrepl.ko activation=inactive" \
	insmod /lib/modules/ktrepl-test.ko fault_inject=1 activation=inactive
S=$D/summary
check "activation is inactive, as asked" test "$(head -n1 $S | kv activation)" = inactive
check "no CPU runs on a node's tables" sh -c "! grep '^cpu=' $D/pgds | grep -q loaded_set=node"
master=$(head -n1 $S | kv master_node)
kpa=$(awk -F'[- :]+' '/Kernel code/ {print $2; exit}' /proc/iomem)
check "master node $master holds the kernel code (sysfs memory blocks)" \
	test "$(pa_node $((0x$kpa)))" = "$master"
set -- $(replicas_on_their_nodes)
check "every replica extent ($2) lies on its node's memory" \
	test "$1" = 0 -a "$2" -gt 0
for n in $(grep 'role=replica' $S | kv node); do
	pg=$(grep "^node=$n " $D/pgds)
	check "node $n: top-level table on node $n" \
		test "$(pa_node $(($(echo "$pg" | kv root_pa))))" = "$n"
	check "node $n: no shared top-level entry differs" \
		test "$(echo "$pg" | kv differing_entries)" = 0
	check "node $n: every replicated leaf maps node-$n memory, non-global" \
		sh -c "! grep -v 'pa_node=$n .*,NG shared=0' $D/pgtables/node$n | grep -q ."
done
if command -v ktrepl-dump > /dev/null; then
	check "ktrepl-dump --verify: healthy" ktrepl-dump --verify
	p=$(head -n1 $D/patches | kv patches)
	echo 1 > /proc/sys/kernel/sched_schedstats
	echo 0 > /proc/sys/kernel/sched_schedstats
	q=$(head -n1 $D/patches | kv patches)
	check "static key flips are propagated ($p -> $q)" test "$q" -gt "$p"
	check "replicas identical after the flips" ktrepl-dump diff
	mount -t tracefs nodev /sys/kernel/tracing
	p=$(head -n1 $D/patches | kv patches)
	echo function > /sys/kernel/tracing/current_tracer
	q=$(head -n1 $D/patches | kv patches)
	check "ftrace patching reaches the replicas through the hook ($p -> $q)" \
		test "$q" -gt "$p"
	check "replicas identical with the function tracer on" ktrepl-dump diff
	echo nop > /sys/kernel/tracing/current_tracer
	check "replicas identical with the function tracer off again" \
		ktrepl-dump diff
	check "the audit found nothing the hook missed" \
		test "$(head -n1 $S | kv audit_repairs)" = 0
	R=$(grep 'role=replica' $S | head -n1 | kv node)
	audit_settle
	echo "flip node=$R sym=int_sqrt off=4" > $D/inject
	sleep 2
	ktrepl-dump --verify > /tmp/v
	check "an injected flip is caught (exit 1)" test $? = 1
	check "and named: int_sqrt+0x4 on node $R" \
		grep -q "bytes: node $R .* int_sqrt+0x4 " /tmp/v
fi
check "rmmod ktrepl" rmmod ktrepl
check_dmesg_clean
done_testing
