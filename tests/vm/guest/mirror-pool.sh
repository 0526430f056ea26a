# SPDX-License-Identifier: GPL-2.0
# The module-area table mirror (issue 39): no storm can exhaust its
# kretprobes' instances, and it still sees every mapping near the image
# that is not a module's.
#
# The mirror's probes sit on the page-table writes of the vmalloc area,
# and a call whose range lies outside the hull around the image (every
# fork's stack) gives its instance back in the entry handler, with
# preemption off: at most one per CPU at a time. The test build's
# mirror_pool=2 leaves fewer instances than the guest has CPUs. The
# design before (a kretprobe on __vmalloc_node_range, holding an
# instance across every allocation) missed 12 and 22 calls in this same
# storm at that size, and each miss ends replication (mirror_missed).
#
# TEST: fork storm
# - insmod ktrepl-test.ko mirror_pool=2 fault_inject=1 (the image alias
#   test's inject)
# - 4 shells fork 50 children at a time for STORM seconds, then again
#   with the cgroup's limit at half the first storm's peak (reclaim and
#   OOM kills); beside each storm, seccomp_storm on a replica node's
#   CPUs forks children that install 8 seccomp filters each (JIT images
#   in the module area, which any user can make) and run syscalls
#   through them, on that node's tables (x86_64: bound to its set)
# - no mirror call was missed, no fail-safe, activation unchanged, and
#   no seccomp child faulted. The JIT's images share one bpf_prog_pack,
#   which in these guests lands in a table no node owns (table_mirrors
#   does not move): the loop is load and a fault canary here, and the
#   trampoline scenario below is what proves the mirror
# Expected log: the load's, then nothing (the OOM reports are the
#   kernel's, not ktrepl's)
#
# TEST: trampoline (x86_64: ftrace's trampolines are module-area code)
# - a process bound to a replica node reads in a loop; the function
#   tracer, filtered to vfs_read, gets a trampoline in the module area,
#   next to the replicated modules
# - where its page entry is in a table the node owns (its walk's leaf
#   table is not the master's; else SKIP: nothing to mirror), the
#   mirror copied its mapping there; the bound process ran through it,
#   verify finds no stale table
# Expected log: nothing
#
# TEST: image alias (x86_64: CPA rewrites the image's own mapping of a
# page whose direct-map mapping changes, where the image keeps it mapped)
# - a page of the image's writable data that the master maps with a
#   2 MiB leaf, and node R the same (else SKIP: nothing to split); R's
#   table over it is its own
# - set_memory_uc() on its direct-map alias (inject cpa kind=uc), as a
#   driver's on a page of freed init memory: the master's mapping of it
#   is split to 4 KiB, and node R's walk must reach the same entry
# - set_memory_wb() puts it back: the same again (R now shares the
#   master's new leaf table: only the first change can show a miss)
# Expected log: nothing
#
# TEST: image alias, modules=0 (x86_64): the same on another data page
# with module replication off: the mirror still serves the image's
# own tables; and the first change is made as a module's copies are
# protected, with the mirror deferred and run once over what it noted
# - insmod ktrepl-test.ko modules=0 fault_inject=1; as above, with
#   inject cpa kind=uc_deferred first
# Expected log: the load's, then nothing
. /lib.sh
STORM=${STORM:-10}
S=$D/summary
TR=/sys/kernel/tracing
summary_kv() { head -n1 $S | kv "$1"; }
# ftrace's trampolines, by address (kallsyms: [__builtin__ftrace])
trampolines() { awk '$3 == "ftrace_trampoline" { print $1 }' /proc/kallsyms; }
# leaf_table NODE ADDR: the table holding ADDR's last entry in NODE's walk
leaf_table() {
	ktrepl-dump walk --node "$1" --va "0x$2" |
		awk '$2 == "table" { t = $3 } END { sub(/^0x/, "", t); print t }'
}
cpus_of() { cat /sys/devices/system/node/node$1/cpulist; }
# mapping_of NODE ADDR: NODE's walk's mapping of ADDR, squeezed:
# node N FIRST-END SIZE LEVEL FLAGS pa PA node PA_NODE
mapping_of() {
	ktrepl-dump walk --node "$1" --va "0x$2" | awk '$1 == "node"' | tr -s ' '
}

start_test "fork storm"
want=$(load_log /lib/modules/ktrepl-test.ko mirror_pool=2 fault_inject=1)
check "insmod ktrepl-test.ko mirror_pool=2 fault_inject=1" \
	logged insmod /lib/modules/ktrepl-test.ko mirror_pool=2 fault_inject=1
act=$(summary_kv activation)
R=$(grep 'role=replica' $S | head -n1 | kv node)
cpus=$(nproc)
check "the pool is smaller than the guest's CPUs (got 2, want < $cpus)" \
	test "$cpus" -gt 2
mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null
# each OOM kill reports; without the task list, the log keeps our lines
echo 0 > /proc/sys/vm/oom_dump_tasks
echo +memory > /sys/fs/cgroup/cgroup.subtree_control
mkdir -p /sys/fs/cgroup/storm
# storm LIMIT: 4 shells, out of the OOM killer's reach, fork 50
# short-lived children at a time inside the cgroup for STORM seconds
# seccomp_rc, seccomp_out: the JIT loop's that ran beside it
storm() {
	echo "$1" > /sys/fs/cgroup/storm/memory.max
	taskset -c "$(cpus_of $R)" seccomp_storm "$STORM" 8 > /tmp/seccomp.out 2>&1 &
	_jit=$!
	# x86_64: the loop is bound to node R's set (percpu: every CPU is)
	[ "$act" = mm ] && ! wait_for 5 grep -q "^pid=$_jit .*node=$R " $D/bind &&
		seccomp_unbound=1
	for _w in 1 2 3 4; do
		sh -c 'echo -1000 > /proc/self/oom_score_adj
			echo $$ > /sys/fs/cgroup/storm/cgroup.procs
			end=$(($(date +%s) + '"$STORM"'))
			while [ $(date +%s) -lt $end ]; do
				i=0
				while [ $i -lt 50 ]; do
					(echo 0 > /proc/self/oom_score_adj; sleep 1) &
					i=$((i + 1))
				done
				wait
			done' 2>/dev/null &
	done
	wait $_jit
	seccomp_rc=$?
	seccomp_out=$(cat /tmp/seccomp.out)
	wait
}
seccomp_unbound=0
m0=$(summary_kv table_mirrors)
storm max
check "the seccomp JIT loop ran on node $R's tables" test "$seccomp_unbound" = 0
echo "# table_mirrors during the first storm: $m0 -> $(summary_kv table_mirrors)"
check "a ${STORM} s fork storm missed no mirror call (got $(summary_kv mirror_missed), want 0)" \
	test "$(summary_kv mirror_missed)" = 0
check "the seccomp JIT loop on node $R beside it: no child faulted (rc $seccomp_rc: $seccomp_out)" \
	sh -c "[ $seccomp_rc = 0 ] && echo '$seccomp_out' | grep -q '^rounds=[1-9]'"
# half what the first storm peaked at: at the limit on any arch
peak=$(cat /sys/fs/cgroup/storm/memory.peak)
storm $((peak / 2))
emit memcg cat /sys/fs/cgroup/storm/memory.events
check "the second storm ran at the cgroup's limit (max events: got $(grep '^max ' /sys/fs/cgroup/storm/memory.events), want > 0)" \
	test "$(awk '$1 == "max" { print $2 }' /sys/fs/cgroup/storm/memory.events)" -gt 0
check "and missed no mirror call either (got $(summary_kv mirror_missed), want 0)" \
	test "$(summary_kv mirror_missed)" = 0
check "the seccomp JIT loop beside it: no child faulted (rc $seccomp_rc: $seccomp_out)" \
	sh -c "[ $seccomp_rc = 0 ] && echo '$seccomp_out' | grep -q '^rounds=[1-9]'"
check "no fail-safe event (got $(summary_kv failsafe)), activation still $act (got $(summary_kv activation))" \
	test "$(summary_kv failsafe)" = 0 -a "$(summary_kv activation)" = "$act"
check_log "the load's log, then nothing" "$want"

if [ "$(uname -m)" = x86_64 ]; then
	start_test "trampoline"
	mount -t tracefs nodev $TR 2>/dev/null
	taskset -c "$(cpus_of $R)" sh -c \
		'while :; do read x < /proc/self/stat; done' &
	reader=$!
	check "a reader bound to replica node $R runs on its tables" \
		wait_for 5 grep -q "^pid=$reader .*node=$R " $D/bind
	t0=$(summary_kv table_mirrors)
	trampolines > /tmp/tramp.before
	echo vfs_read > $TR/set_ftrace_filter
	check "the function tracer, filtered to vfs_read, starts" \
		sh -c "echo function > $TR/current_tracer"
	sleep 1
	t1=$(summary_kv table_mirrors)
	tramp=$(trampolines | grep -vxF -f /tmp/tramp.before | head -n1)
	M=$(grep 'role=master' $S | head -n1 | kv node)
	# the premise: the trampoline's page entry sits in a table of node
	# R's own. Module KASLR may leave it in a table R shares with the
	# master, and the master's write is then R's: nothing to mirror.
	leaf_m=$(leaf_table $M "$tramp")
	leaf_r=$(leaf_table $R "$tramp")
	echo "# trampoline 0x$tramp: leaf table 0x$leaf_m on master node $M, 0x$leaf_r on node $R"
	if [ -z "$tramp" ] || [ -z "$leaf_m" ]; then
		not_ok "the function tracer's trampoline is in kallsyms and mapped (got '$tramp', leaf '$leaf_m')"
	elif [ "$leaf_m" = "$leaf_r" ]; then
		skip "its trampoline's mapping was mirrored into a node's tables" \
			"its page entry is in a table node $R shares with the master (0x$leaf_m)"
	else
		check "its trampoline's mapping was mirrored into node $R's own table (table_mirrors $t0 -> $t1)" \
			test "$t1" -gt "$t0"
	fi
	check "the bound reader ran through it and lives" kill -0 $reader
	check "verify: healthy, no stale table" ktrepl-dump --verify
	echo nop > $TR/current_tracer
	echo > $TR/set_ftrace_filter
	kill $reader
	check_log "nothing logged" ""
fi
# image_alias KIND: the image alias test on the loaded ktrepl.ko, its
# first change set_memory_uc() made directly (uc) or as a module's
# copies are protected (uc_deferred: the mirror deferred, run once)
image_alias() {
	M=$(grep 'role=master' $S | head -n1 | kv node)
	R=$(grep 'role=replica' $S | head -n1 | kv node)
	# one symbol per MiB of the image's writable data (_sdata to
	# _edata: what the inject accepts), as candidates
	_lo=$(awk '$3 == "_sdata" { print $1 }' /proc/kallsyms)
	_hi=$(awk '$3 == "_edata" { print $1 }' /proc/kallsyms)
	_cands=$(awk -v lo="$_lo" -v hi="$_hi" '$1 "" >= lo "" && $1 "" < hi "" &&
		!seen[substr($1, 1, 11)]++ { print $1 }' /proc/kallsyms | head -n 64)
	# not replicated: node R maps the master's page, with a 2 MiB leaf
	# (a page an earlier run split is 4 KiB now: the next one is taken)
	va=
	for _c in $_cands; do
		_m=$(mapping_of $M $_c | cut -d' ' -f3-8)
		_r=$(mapping_of $R $_c | cut -d' ' -f3-8)
		if [ "$(echo "$_m" | awk '{ print $2 }')" = 2048K ] &&
			[ "$_r" = "$_m" ] && ! echo "$_m" | grep -q RO; then
			va=$_c
			break
		fi
	done
	echo "# a writable data page the master maps with a 2 MiB leaf, node $R the same: ${va:-none} (of $(echo $_cands | wc -w) tried)"
	if [ -z "$va" ]; then
		skip "a protection change on an image page's direct-map alias reaches node $R's tables" \
			"no data page of the image is mapped with a 2 MiB leaf"
		return
	fi
	echo "# before: $(mapping_of $R $va)"
	check "node $R's table over it is its own (got 0x$(leaf_table $R $va), the master's 0x$(leaf_table $M $va))" \
		test "$(leaf_table $R $va)" != "$(leaf_table $M $va)"
	# the first change splits the 2 MiB leaf and can show a missed
	# mirror; R then shares the master's new table, so the second (wb,
	# which puts the page back) is a check of nothing new
	for _kind in $1 wb; do
		_what="set_memory_${_kind%_deferred}() on its direct-map alias"
		[ "$_kind" = "${_kind%_deferred}" ] || _what="$_what, the mirror deferred"
		check "inject cpa kind=$_kind va=0x$va: $_what" \
			sh -c "echo 'cpa kind=$_kind va=0x$va' > $D/inject"
		_m=$(mapping_of $M $va | cut -d' ' -f3-8)
		_r=$(mapping_of $R $va | cut -d' ' -f3-8)
		echo "# master: $_m"
		check "the master's image mapping of it is split to 4 KiB (got $(echo "$_m" | awk '{ print $2 }'))" \
			test "$(echo "$_m" | awk '{ print $2 }')" = 4K
		check "node $R's walk reaches the master's entry (got '$_r', want '$_m')" \
			test "$_r" = "$_m"
		check "verify: healthy, no stale table" ktrepl-dump --verify
	done
}

if [ "$(uname -m)" = x86_64 ]; then
	start_test "image alias"
	image_alias uc
	check_log "nothing logged" ""
fi
check "rmmod ktrepl" rmmod ktrepl
if [ "$(uname -m)" = x86_64 ]; then
	start_test "image alias, modules=0"
	want=$(load_log /lib/modules/ktrepl-test.ko modules=0 fault_inject=1 | grep -v " replicated: ")
	check "insmod ktrepl-test.ko modules=0 fault_inject=1" \
		logged insmod /lib/modules/ktrepl-test.ko modules=0 fault_inject=1
	image_alias uc_deferred
	check_log "the load's log, then nothing" "$want"
	check "rmmod ktrepl (modules=0)" rmmod ktrepl
fi
dmesg | grep -Eq 'WARNING:|BUG:|Oops|general protection' &&
	dmesg | grep -EA20 'WARNING:|BUG:|Oops|general protection' | sed 's/^/# /'
check "kernel log is free of WARN/BUG/oops (the OOM reports aside)" \
	sh -c "! dmesg | grep -Eq 'WARNING:|BUG:|Oops|general protection'"
done_testing
