# SPDX-License-Identifier: GPL-2.0
# arm64 activation=percpu: every CPU's TTBR1 on its node's root, patches
# coherent under a storm, node tables fresh under module loads, forks and
# vmalloc, CPUs back after hotplug and CPU PM exit, and clean unloads.
# FULL=1 runs the storm, the freshness and the cycles; STORM_S and
# CYCLES size them (the host sets all three). Scenarios, each with its
# kernel log (lib.sh: start_test, check_log).
. /lib.sh
FULL=${FULL:-0}
STORM_S=${STORM_S:-20}
CYCLES=${CYCLES:-10}
S=$D/summary
T=/sys/kernel/tracing

# every online CPU's TTBR1 as the module reads it, against its node's root
cpus_on_their_roots() {
	grep '^cpu=' $D/pgds | awk '{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		n++
		if (f["loaded_root_pa"] != f["expected_root_pa"]) bad++
	} END { exit !(n > 0 && bad == 0) }'
}
# the health check; on failure its report goes to the TAP diagnostics
verify_healthy() {
	ktrepl-dump --verify > /tmp/verify.out 2>&1
	_rc=$?
	[ $_rc = 0 ] || grep -v '^ok\|^#' /tmp/verify.out | tail -n 20 | sed 's/^/# /'
	return $_rc
}
node_of_cpu() {
	for n in /sys/devices/system/node/node[0-9]*; do
		[ -e "$n/cpu$1" ] && echo "${n##*node}" && return
	done
}
mount -t tracefs nodev $T 2>/dev/null
emit kpti sh -c "dmesg | grep -i 'page table isolation' || echo none"

if [ "$FULL" = 1 ]; then
	start_load
	n=$(storm $((STORM_S / 3)))
	stop_load
	echo "@@control@@ rounds=$n seconds=$((STORM_S / 3))"
	check "control storm without ktrepl: $n rounds, kernel log clean" \
		sh -c "! dmesg | grep -Eq 'WARNING:|BUG:|Oops|rcu.*detected.*stall'"
fi

# TEST: load
# - insmod the test build: activation percpu, every CPU's TTBR1 on its
#   node's root, every replica on its node's memory, verify healthy
# - a user workload does not move any CPU off its root
# Expected log: load_log's.
want=$(load_log /lib/modules/ktrepl-test.ko fault_inject=1)
start_test "load"
check "insmod ktrepl-test.ko (default activation)" \
	logged insmod /lib/modules/ktrepl-test.ko fault_inject=1
emit summary cat $S
check "activation is percpu" test "$(head -n1 $S | kv activation)" = percpu
emit pgds cat $D/pgds
check "every CPU's TTBR1 is its node's root" cpus_on_their_roots
set -- $(replicas_on_their_nodes)
check "every replica extent ($2) lies on its node's memory" \
	test "$1" = 0 -a "$2" -gt 0
check "ktrepl-dump --verify: healthy (replicas, every table level, CPU roots)" \
	verify_healthy

start_load
sleep 2
check "under a user workload every CPU stays on its node's root" cpus_on_their_roots
stop_load
check_log "the load's log" "$want"

# TEST: storm (FULL=1)
# - every kind of core-text patching for STORM_S seconds under load, a
#   kprobe armed through it: it fires on every node's CPUs, nothing was
#   missed, the audit repaired nothing, verify is healthy
# Expected log: none.
# TEST: freshness (FULL=1)
# - zram (with what it needs) and dummy loaded, run on every CPU and
#   unloaded three times, then a fork storm: every table level fresh
# Expected log: each module's replication and release.
if [ "$FULL" = 1 ]; then
	start_test "storm"
	# the storm; a kprobe armed through all of it must then fire on the
	# CPUs of every node (its brk reached every replica)
	add_kprobe kthit
	echo 1 > $T/events/kprobes/kthit/enable
	p0=$(head -n1 $S | kv patches)
	start_load
	n=$(storm $STORM_S)
	stop_load
	echo "@@storm@@ rounds=$n seconds=$STORM_S"
	echo > $T/trace
	for c in $(seq 0 $(($(nproc) - 1))); do
		taskset -c $c cat /proc/self/stat > /dev/null
	done
	echo 0 > $T/events/kprobes/kthit/enable
	for nd in $(ls -d /sys/devices/system/node/node[0-9]* | sed 's/.*node//'); do
		hits=0
		for c in $(seq 0 $(($(nproc) - 1))); do
			[ "$(node_of_cpu $c)" = "$nd" ] || continue
			k=$(grep -c "\[00$c\].*kthit" $T/trace)
			hits=$((hits + k))
		done
		echo "@@hits@@ node=$nd hits=$hits"
		check "the storm's kprobe fires on node $nd's CPUs ($hits hits)" \
			test "$hits" -gt 0
	done
	echo '-:kthit' >> $T/kprobe_events
	emit patches head -n1 $D/patches
	p1=$(head -n1 $S | kv patches)
	check "$n storm rounds, $((p1 - p0)) patches, none missed" \
		test "$(head -n1 $S | kv patches_missed)" = 0 -a "$p1" -gt "$p0"
	dmesg | grep 'ktrepl: audit' | sed 's/^/# /'
	check "the audit found nothing the hook missed" \
		test "$(head -n1 $S | kv audit_repairs)" = 0
	check "after the storm: replicas identical, tables fresh, CPUs home" \
		verify_healthy
	check "kernel log clean after the storm" \
		sh -c "! dmesg | grep -Eq 'WARNING:|BUG:|Oops|rcu.*detected.*stall'"
	check_log "the storm's patches log nothing" ""

	start_test "freshness"
	want=

	# freshness: other modules (zram's code runs on every CPU), forks,
	# vmalloc (zram tables, module text, vmap'd stacks)
	# built in on 6.12: no file then
	for m in zsmalloc lzo lzo-rle; do
		[ -f /lib/modules/$m.ko ] || continue
		logged insmod /lib/modules/$m.ko
		want="$want
% insmod /lib/modules/$m.ko
$(module_replicated_log $m)"
	done
	for i in 1 2 3; do
		logged insmod /lib/modules/zram.ko num_devices=1
		echo 64M > /sys/block/zram0/disksize
		for c in $(seq 0 $(($(nproc) - 1))); do
			taskset -c $c dd if=/bin/busybox of=/dev/zram0 bs=64k \
				seek=$((c * 32)) count=16 2>/dev/null &
		done
		wait
		logged rmmod zram
		logged insmod /lib/modules/dummy.ko numdummies=4
		logged rmmod dummy
		want="$want
% insmod /lib/modules/zram.ko num_devices=1
$(module_replicated_log zram)
% rmmod zram
$(module_freed_log zram)
% insmod /lib/modules/dummy.ko numdummies=4
$(module_replicated_log dummy)
% rmmod dummy
$(module_freed_log dummy)"
	done
	if [ -f /lib/modules/zsmalloc.ko ]; then
		logged rmmod zsmalloc
		want="$want
% rmmod zsmalloc
$(module_freed_log zsmalloc)"
	fi
	check "modules loaded, run on every CPU, unloaded: no oops" \
		sh -c "! dmesg | grep -Eq 'WARNING:|BUG:|Oops'"
	i=0
	while [ $i -lt 300 ]; do
		sh -c 'true' &
		i=$((i + 1))
		[ $((i % 50)) = 0 ] && wait
	done
	wait
	check "after a fork storm and vmalloc churn: every table level fresh" \
		verify_healthy
	emit summary2 head -n1 $S
	check_log "each module's replication and release" "$want"
fi

# TEST: hotplug
# - every non-boot CPU offline and online under load: each back on its
#   node's root
# Expected log: none.
start_test "hotplug"
start_load
for c in $(seq 1 $(($(nproc) - 1))); do
	echo 0 > /sys/devices/system/cpu/cpu$c/online
	echo 1 > /sys/devices/system/cpu/cpu$c/online
done
stop_load
emit pgds_hotplug cat $D/pgds
check "after offline and online of every CPU, each is on its node's root" \
	cpus_on_their_roots
check_log "hotplug logs nothing" ""

# TEST: CPU PM exit and a stale entry
# - a CPU reverted to swapper_pg_dir as firmware does at a power-down
#   exit: CPU_PM_EXIT puts it back on its node's root
# - a stale entry in a node's copy of a master table: verify exits 1 and
#   names the node, the level and the VA
# - rmmod: every CPU back on swapper_pg_dir, every page freed
# Expected log: the stale entry's inject line, the unload.
start_test "CPU PM exit and a stale entry"
R=$(grep 'role=replica' $S | head -n1 | kv node)
r0=$(head -n1 $S | kv reinstalls)
check "a CPU of node $R reverted as by a power-down exit" \
	sh -c "echo pm_revert node=$R > $D/inject"
check "CPU_PM_EXIT put it back ($r0 -> $(head -n1 $S | kv reinstalls) reinstalls)" \
	test "$(head -n1 $S | kv reinstalls)" -gt "$r0"
check "every CPU on its node's root again" cpus_on_their_roots

# a stale entry in a node's copy of a master table is caught and named
check "inject stale node=$R" sh -c "echo stale node=$R > $D/inject"
ktrepl-dump --verify > /tmp/v 2>&1
rc=$?
sed 's/^/# /' /tmp/v | grep stale-table
check "stale table entry: verify exits 1" test $rc = 1
check "and names node $R, the level and the VA" \
	grep -Eq "^stale-table: node $R level [0-9] entry [0-9]+ \(va 0x[0-9a-f]+\)" /tmp/v

check "rmmod ktrepl" logged rmmod ktrepl
check "every CPU back on swapper_pg_dir, every page freed" all_freed
check_log "the injects' and the unload's log" "ktrepl: inject: node $R level * entry * (va 0x*) now differs from the master's
$(unload_log)"

# Memory hot-remove would free tables the node copies point at. Find a
# block this kernel can offline without ktrepl; with it, that is refused.
B=
for b in /sys/devices/system/memory/memory[0-9]*; do
	[ "$(cat $b/state)" = online ] || continue
	if echo offline > $b/state 2>/dev/null; then
		echo online > $b/state
		B=$b
		break
	fi
done
# TEST: memory hot-remove (where a block can be offlined)
# - with ktrepl loaded, offlining it is refused by ktrepl's memory
#   notifier; after rmmod it goes offline and back
# Expected log: the load's, the refusal, the unload's.
if [ -n "$B" ]; then
	want=$(load_log /lib/modules/ktrepl.ko)
	start_test "memory hot-remove"
	logged insmod /lib/modules/ktrepl.ko
	check "with ktrepl loaded, offlining ${B##*/} is refused" \
		sh -c "! echo offline > $B/state 2>/dev/null"
	check "by ktrepl's memory notifier (vetoes=$(head -n1 $S | kv vetoes))" \
		test "$(head -n1 $S | kv vetoes)" -gt 0
	logged rmmod ktrepl
	check "after rmmod, ${B##*/} goes offline and back" \
		sh -c "echo offline > $B/state && echo online > $B/state"
	check_log "the refusal is logged" "$want
ktrepl: memory offline refused: every CPU runs on node tables that hot-remove would leave pointing at freed tables (rmmod ktrepl first)
$(unload_log)"
else
	echo "# no memory block can be offlined here, even without ktrepl"
fi

# TEST: cycles (FULL=1)
# - CYCLES load/unload cycles under load, each freeing what it allocated
# Expected log: every cycle's load and unload, the same each time.
if [ "$FULL" = 1 ]; then
	start_test "cycles"
	cycle=$(load_log /lib/modules/ktrepl.ko; unload_log)
	want=
	start_load
	i=0
	while [ $i -lt "$CYCLES" ]; do
		logged insmod /lib/modules/ktrepl.ko || break
		logged rmmod ktrepl || break
		want="$want
$cycle"
		i=$((i + 1))
	done
	stop_load
	check "$i of $CYCLES load/unload cycles under load" test $i = "$CYCLES"
	check "every cycle freed what it allocated" all_freed
	check_log "every cycle's log is the first's" "$want"
fi
check_dmesg_clean
done_testing
