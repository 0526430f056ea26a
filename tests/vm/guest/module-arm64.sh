# SPDX-License-Identifier: GPL-2.0
# arm64 with activation=inactive: the same engine builds real replicas
# and node tables, which no CPU switches to; patches still reach them.
# Five scenarios, each with the kernel log it must leave (lib.sh:
# start_test, check_log).
. /lib.sh
S=$D/summary

# TEST: inactive load
# - insmod the test build with activation=inactive
# - no CPU runs on a node's tables; the master is the node holding the
#   kernel's code, by sysfs alone
# - every replica extent on its node's memory; each replica node's
#   top-level table on its node, its shared entries the master's, every
#   replicated leaf node-local and non-global
# Expected log: load_log's, which has no activation line: an activation
# asked for as inactive has no reason to log.
want=$(load_log /lib/modules/ktrepl-test.ko fault_inject=1 activation=inactive)
start_test "inactive load"
check "insmod ktrepl.ko activation=inactive" \
	logged insmod /lib/modules/ktrepl-test.ko fault_inject=1 activation=inactive
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
check_log "the load's log" "$want"

if command -v ktrepl-dump > /dev/null; then
	# TEST: patches
	# - verify healthy; a static key flipped on and off, then the
	#   function tracer on and off: each reaches the replicas (the
	#   patch count grows, ktrepl-dump diff finds them identical)
	# - the audit repaired nothing: the hook saw every write
	# Expected log: the tracer commands alone (patches that reach every
	# replica are counted, never logged).
	start_test "patches"
	check "ktrepl-dump --verify: healthy" ktrepl-dump --verify
	p=$(head -n1 $D/patches | kv patches)
	echo 1 > /proc/sys/kernel/sched_schedstats
	echo 0 > /proc/sys/kernel/sched_schedstats
	q=$(head -n1 $D/patches | kv patches)
	check "static key flips are propagated ($p -> $q)" test "$q" -gt "$p"
	check "replicas identical after the flips" ktrepl-dump diff
	mount -t tracefs nodev /sys/kernel/tracing
	p=$(head -n1 $D/patches | kv patches)
	log_cmd "echo function > /sys/kernel/tracing/current_tracer"
	echo function > /sys/kernel/tracing/current_tracer
	q=$(head -n1 $D/patches | kv patches)
	check "ftrace patching reaches the replicas through the hook ($p -> $q)" \
		test "$q" -gt "$p"
	check "replicas identical with the function tracer on" ktrepl-dump diff
	log_cmd "echo nop > /sys/kernel/tracing/current_tracer"
	echo nop > /sys/kernel/tracing/current_tracer
	check "replicas identical with the function tracer off again" \
		ktrepl-dump diff
	check "the audit found nothing the hook missed" \
		test "$(head -n1 $S | kv audit_repairs)" = 0
	check_log "patches reach the replicas without a message" \
		"% echo function > /sys/kernel/tracing/current_tracer
% echo nop > /sys/kernel/tracing/current_tracer"

	# TEST: flip
	# - once an audit pass has run, flip int_sqrt+0x4 in a replica
	#   node's copy: verify exits 1 and names it
	# Expected log: none (a flip logs nothing, and the audit leaves a
	# replica-only change alone).
	start_test "flip"
	R=$(grep 'role=replica' $S | head -n1 | kv node)
	audit_settle
	echo "flip node=$R sym=int_sqrt off=4" > $D/inject
	sleep 2
	ktrepl-dump --verify > /tmp/v
	check "an injected flip is caught (exit 1)" test $? = 1
	check "and named: int_sqrt+0x4 on node $R" \
		grep -q "bytes: node $R .* int_sqrt+0x4 " /tmp/v
	check_log "a flip logs nothing" ""
fi

# TEST: unload
# - rmmod ktrepl
# Expected log: unload_log's; no WARN, BUG or oops in the whole run.
start_test "unload"
check "rmmod ktrepl" logged rmmod ktrepl
check_log "the unload's log" "$(unload_log)"

# TEST: patches during the copy
# - a static key flipped and the function tracer toggled, without
#   pause, while the test build loads LOADS times; the first write that
#   comes while a copy runs, outside stop_machine(), and that no replica
#   takes yet, stalls 1 s in the hook before its master write
#   (unready_patch_delay_ms): it lands after the copy, and the copy's
#   grace period must wait for it, or the replica misses it
# - in at least half of the loads such a write came during the copy
#   (the test build counts its stalls)
# - each load: no copy caught up later, no fail-safe, verify healthy;
#   the audit runs every 100 ms, so that one lands while the copy waits
#   for the stalled write, and must not take the write it waits for for
#   a miss
# Expected log: LOADS times load_log's and unload_log's: no "chunk copies
# caught up" line at activation, and no audit repair.
# 6.12 builds the patching funnel noinstr: the poke probe sees each write,
# which the kernel makes under patch_lock, interrupts off; the grace
# period covers those with no hook of ours in them to stall
if dmesg | grep -q "cannot be hooked: text writes are followed through"; then
	skip "[patches during the copy]" "the poke probe: no hook write to stall"
else
	LOADS=4
	M="/lib/modules/ktrepl-test.ko unready_patch_delay_ms=1000 audit_period_ms=100"
	start_test "patches during the copy"
	grep -q " $TR " /proc/mounts || mount -t tracefs nodev $TR
	echo 0 > $TR/tracing_on
	echo 'vfs_*' > $TR/set_ftrace_filter
	cycle="$(load_log $M)
$(unload_log)"
	want=""
	stalls=0 raced=0 bad=0 i=0
	while :; do echo 1 > /proc/sys/kernel/sched_schedstats
		echo 0 > /proc/sys/kernel/sched_schedstats; done &
	keys=$!
	while :; do echo function > $TR/current_tracer
		echo nop > $TR/current_tracer; done &
	tracer=$!
	while [ $i -lt $LOADS ]; do
		want="$want
$cycle"
		logged insmod $M || break
		n=$(cat /sys/module/ktrepl/parameters/unready_patch_stalls)
		stalls=$((stalls + n))
		[ "$n" -gt 0 ] && raced=$((raced + 1))
		sleep 1
		if command -v ktrepl-dump > /dev/null; then
			ktrepl-dump --verify > /dev/null 2>&1 || bad=$((bad + 1))
		fi
		[ "$(head -n1 $S | kv failsafe)" = 0 ] || bad=$((bad + 1))
		logged rmmod ktrepl || break
		i=$((i + 1))
	done
	kill $keys $tracer
	wait $keys $tracer 2> /dev/null
	echo nop > $TR/current_tracer
	echo 0 > /proc/sys/kernel/sched_schedstats
	echo > $TR/set_ftrace_filter
	echo 1 > $TR/tracing_on
	check "$i loads under the writers" test $i = $LOADS
	echo "@@copyrace@@ loads=$i raced=$raced stalls=$stalls bad=$bad"
	check "a write came during the copy and was stalled past it, in $raced of $i loads" \
		test $raced -ge $((LOADS / 2))
	check "no verify or fail-safe saw a missed write ($bad)" test $bad = 0
	check_log "each load's and unload's log, no catch-up, $LOADS times" "$want"
fi
check_dmesg_clean
done_testing
