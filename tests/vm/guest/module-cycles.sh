# SPDX-License-Identifier: GPL-2.0
# 100 load/unload cycles and an allocation failure at every step leak
# nothing and leave nothing behind, the copies' one-page fallback works,
# scan_period_ms is obeyed, a table mirror that cannot hook fails the
# load, and the tables a failed module map linked stay mirrored. Six
# scenarios, each with the kernel log it must leave
# (lib.sh: start_test, check_log).
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

# TEST: cycles
# - one load, to count its page allocations
# - 30 warm-up cycles: the first loads split the direct map, grow caches
# - the baseline of free memory, then 100 load/unload cycles
# - free memory is back at the baseline, no debugfs directory is left,
#   and every unload freed every page its load allocated
# Expected log: every load and unload says the same (load_log,
# unload_log), 131 times over.
start_test "cycles"
cycle=$(load_log /lib/modules/ktrepl.ko; unload_log)
want=$cycle
logged insmod /lib/modules/ktrepl.ko
N=$(head -n1 $D/summary | kv allocations)
logged rmmod ktrepl
echo "# a load makes $N page allocations"
step "warm up"
i=0
while [ $i -lt 30 ]; do
	logged insmod /lib/modules/ktrepl.ko
	logged rmmod ktrepl
	want="$want
$cycle"
	i=$((i + 1))
done
base=$(memfree_settled low)
step "cycles"
i=0
fails=0
while [ $i -lt 100 ]; do
	logged insmod /lib/modules/ktrepl.ko || fails=$((fails + 1))
	logged rmmod ktrepl || fails=$((fails + 1))
	want="$want
$cycle"
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
check_log "every cycle's log is the first's" "$want"

# TEST: allocation failures
# - for each of the load's N page allocations, a test build made to
#   fail it: the load fails, and leaves no debugfs directory
# - a load told to fail an allocation past the last one succeeds; the
#   allocation it fails is then the first of ktrepl.ko's own
#   replication, which is left out and logged as such
# - free memory is back at the baseline, and every failed load freed
#   every page it had allocated
# Expected log: for each allocation k, the failure injected, whatever
# the failing step says, and the load's refusal (busybox insmod tries a
# failed load a second time, through init_module: the same again). Then
# the load that succeeds, its own replication's failure, the unload.
start_test "allocation failures"
want=
bad=0
k=1
while [ $k -le "$N" ]; do
	if logged insmod /lib/modules/ktrepl-test.ko fail_alloc=$k 2>/dev/null; then
		echo "# fail_alloc=$k: load succeeded"
		rmmod ktrepl
		bad=$((bad + 1))
	fi
	if [ -e $D ]; then
		echo "# fail_alloc=$k left $D behind"
		bad=$((bad + 1))
	fi
	want="$want
% insmod /lib/modules/ktrepl-test.ko fail_alloc=$k
ktrepl: failing allocation $k as fail_alloc asks
...
ktrepl: not loaded: replication setup failed (-12); see the messages above
..."
	k=$((k + 1))
done
check "a failure at each of the $N allocations fails the load cleanly" \
	test $bad = 0 -a "$N" -gt 0
check "the failure is logged with its allocation number" \
	sh -c "dmesg | grep -q 'failing allocation $N as fail_alloc asks'"
check "the load says why it failed" \
	sh -c "dmesg | grep -q 'not loaded: replication setup failed (-12)'"
# past the load's own allocations: ktrepl.ko's own replication, once it
# is live (x86_64), is the first to fail, and says so
want="$want
$(load_log /lib/modules/ktrepl-test.ko fail_alloc=$((N + 1)) | sed '$d')
ktrepl: failing allocation $((N + 1)) as fail_alloc asks
ktrepl: no memory on node * for the replica of *[ktrepl] (* KiB)
ktrepl: module ktrepl not replicated: -12
$(unload_log)"
check "fail_alloc past the last allocation loads" \
	logged insmod /lib/modules/ktrepl-test.ko fail_alloc=$((N + 1))
logged rmmod ktrepl
final=$(memfree_settled high)
echo "# free after the failure sweep $final kB"
# the page accounting above checks our own pages exactly
check "free memory back to baseline after the failure sweep (within 1 MiB)" \
	test $((base - final)) -lt 1024
check "every failed load freed every page it had allocated" all_freed
check_log "each failure's log, then the load's" "$want"

# TEST: single pages
# - the test build with no_page_runs=1: each single-page copy takes a
#   page of its own, as where a node has no block free (build.c's
#   take_run() falls back); a load then makes more page allocations than
#   the N of a load whose copies come from one block per node
# - the load's log is the usual one, verify finds every replica healthy
# - a failure injected at its last allocation fails that load cleanly
# - every unload freed every page its load allocated
# Expected log: the load and unload, then the failure and its refusal
start_test "single pages"
want="$(load_log /lib/modules/ktrepl-test.ko no_page_runs=1; unload_log)"
check "insmod ktrepl-test.ko no_page_runs=1" \
	logged insmod /lib/modules/ktrepl-test.ko no_page_runs=1
M=$(head -n1 $D/summary | kv allocations)
check "a copy a page: more allocations than with runs (got $M, want > $N)" \
	test "${M:-0}" -gt "$N"
check "verify: every replica healthy" ktrepl-dump --verify
logged rmmod ktrepl
log_cmd insmod /lib/modules/ktrepl-test.ko no_page_runs=1 fail_alloc=$M
check "fail_alloc=$M, its last allocation, fails the load cleanly" \
	sh -c "! insmod /lib/modules/ktrepl-test.ko no_page_runs=1 fail_alloc=$M 2>/dev/null && test ! -e $D"
want="$want
% insmod /lib/modules/ktrepl-test.ko no_page_runs=1 fail_alloc=$M
ktrepl: failing allocation $M as fail_alloc asks
...
ktrepl: not loaded: replication setup failed (-12); see the messages above
..."
check "every unload and failed load freed every page it allocated" all_freed
check_log "the load's and the failure's" "$want"

# TEST: scan period
# - insmod scan_period_ms=600000: the load's own scan, then none for ten
#   minutes (no fork or exec of a confined process asks for one)
# - a running process confined afterwards (taskset -p: no fork, no exec)
#   is not bound 3 s later: only a scan would bind it
# - auto=1 on bind_ctl asks for a scan now: it is bound
# - reloaded with the default (250 ms): the same confinement binds it
#   within 3 s, with no help
# Expected log: the two loads' and unloads'.
start_test "scan period"
bound() { grep -q "^pid=$1 " $D/bind; }
taskset -c 0 sleep 600 &
X=$!
check "insmod scan_period_ms=600000" \
	logged insmod /lib/modules/ktrepl.ko scan_period_ms=600000
# the load's own scan has run once a process confined before it is bound
check "the load's scan binds a process confined before it" wait_for 5 bound $X
check "the parameter reads 600000" \
	test "$(cat /sys/module/ktrepl/parameters/scan_period_ms)" = 600000
sleep 600 &
P=$!
sleep 1
check "an unconfined process is not bound" sh -c "! grep -q '^pid=$P ' $D/bind"
taskset -p -c 0 $P > /dev/null
sleep 3
if bound $P; then
	not_ok "confined by taskset -p, it is not bound 3 s later (the next scan is 10 min away)"
	grep "^pid=$P " $D/bind | sed 's/^/# got: /'
else
	ok "confined by taskset -p, it is not bound 3 s later (the next scan is 10 min away)"
fi
echo auto=1 > $D/bind_ctl
check "auto=1 asks for a scan, which binds it" wait_for 3 bound $P
check "rmmod" logged rmmod ktrepl
sleep 600 &
Q=$!
check "insmod with the default period" logged insmod /lib/modules/ktrepl.ko
check "the parameter reads 250" \
	test "$(cat /sys/module/ktrepl/parameters/scan_period_ms)" = 250
sleep 1
taskset -p -c 0 $Q > /dev/null
check "confined by taskset -p, a scan of the default period binds it within 3 s" \
	wait_for 3 bound $Q
check "rmmod" logged rmmod ktrepl
kill $P $Q $X 2> /dev/null
check_log "the loads' and unloads'" "$(load_log /lib/modules/ktrepl.ko scan_period_ms=600000; unload_log; load_log /lib/modules/ktrepl.ko; unload_log)"

# TEST: a table mirror that cannot hook (x86_64)
# - insmod ktrepl-test.ko fail_mirror_hook=1, with modules=1 and with
#   modules=0: the last table-mirror kretprobe cannot be registered. On
#   x86_64 the mirror keeps the image's own tables in step with CPA's
#   alias changes too, so the load fails either way (off, not wrong),
#   says why, unregisters the probes it had registered, and leaves no
#   debugfs directory and no page behind
# Expected log: each load's refusal, twice (busybox insmod tries a
# failed load a second time, through init_module).
start_test "a table mirror that cannot hook"
if [ "$(uname -m)" != x86_64 ]; then
	skip "a table mirror that cannot hook" "x86_64 only: elsewhere only modules are lost"
else
	KP=/sys/kernel/debug/kprobes/list
	kp_before=$(cat $KP)
	want=
	for mods in 1 0; do
		args="fail_mirror_hook=1 modules=$mods"
		if logged insmod /lib/modules/ktrepl-test.ko $args 2>/dev/null; then
			not_ok "insmod $args fails"
			logged rmmod ktrepl
		else
			ok "insmod $args fails"
		fi
		check "modules=$mods: no debugfs directory is left" test ! -e $D
		check "modules=$mods: no kprobe is left registered" \
			test "$(cat $KP)" = "$kp_before"
		fail="ktrepl: cannot hook * to keep the node tables fresh: -16
ktrepl: the image's tables cannot follow its protection changes: not replicating
ktrepl: freed * of * pages allocated (and 0 table pages donated to the kernel at load)
ktrepl: not loaded: replication setup failed (-16); see the messages above"
		want="$want
% insmod /lib/modules/ktrepl-test.ko $args
$fail
$fail"
	done
	check "every failed load freed every page it allocated" all_freed
	check_log "each refusal, said twice" "$want"
fi

# TEST: a failed map's tables (x86_64: ktrepl.ko replicates itself)
# - qemu_fw_cfg unloaded: no module is loaded, so ktrepl.ko's own
#   replication, once it is live, is the first map of module text
# - insmod ktrepl-test.ko fail_table_level=L, L the leaf tables' level:
#   that map links node R's own PMD table over ktrepl.ko and then cannot
#   have its leaf table (R's walk: its own PMD table, the master's leaf
#   table), and no later map gets one either, so none heals R's tables
# - libcrc32c, xfs, irqbypass and kvm (2.4 MiB) load: the master's PMD
#   table gains entries past ktrepl.ko's (else SKIP: nothing to mirror)
# - node R's PMD table has every one of them: the mirror watches the
#   table the failed map left linked; verify is healthy
# Expected log: the load's, with ktrepl.ko's map failing at its leaf
# table; each module's map failing the same; the unload.
X=/lib/modules/extra
# walk_table NODE VA LEVEL: the table at LEVEL (pmd, pte) on VA's walk
walk_table() {
	ktrepl-dump walk --node "$1" --va "$2" |
		awk -v l="$3" '$1 == l && $2 == "table" { print $3 }'
}
# slots NODE VA: the leaf table of each of the 8 2 MiB slots from VA's
slots() {
	_s=$(($2 & ~0x1fffff))
	for _i in 0 1 2 3 4 5 6 7; do
		echo "$(printf '0x%x' $((_s + _i * 0x200000)))=$(walk_table $1 $(printf '0x%x' $((_s + _i * 0x200000))) pte)"
	done
}
start_test "a failed map's tables"
BIG="libcrc32c xfs irqbypass kvm"
missing=
for m in $BIG; do [ -e $X/$m.ko ] || missing="$missing $m"; done
if [ "$(uname -m)" != x86_64 ] || [ -n "$missing" ]; then
	skip "a failed map's tables" "x86_64 with$missing in $X only"
else
	rmmod qemu_fw_cfg 2>/dev/null
	check "no module is loaded" test "$(wc -l < /proc/modules)" = 0
	# the leaf tables' level: 3 of 0-3, 4 where LA57 gives five levels
	L=3
	grep -qw la57 /proc/cpuinfo && L=4
	fails="ktrepl: failing a level-$L table as fail_table_level asks
ktrepl: no memory on node * for a level-$L table"
	want="$(load_log /lib/modules/ktrepl-test.ko fail_table_level=$L | sed '$d')
$fails
ktrepl: module ktrepl not replicated: -12"
	check "insmod ktrepl-test.ko fail_table_level=$L" \
		logged insmod /lib/modules/ktrepl-test.ko fail_table_level=$L
	R=$(grep 'role=replica' $D/summary | head -n1 | kv node)
	M=$(head -n1 $D/summary | kv master_node)
	check "the leaf tables' level is $L (paging_levels $(head -n1 $D/summary | kv paging_levels))" \
		test $((L + 1)) = "$(head -n1 $D/summary | kv paging_levels)"
	va=0x$(awk '$4 == "[ktrepl]" { print $1; exit }' /proc/kallsyms)
	rpmd=$(walk_table $R $va pmd)
	check "node $R owns the PMD table over ktrepl.ko (got $rpmd, the master's $(walk_table $M $va pmd)) and shares its leaf table" \
		test "$rpmd" != "$(walk_table $M $va pmd)" -a \
			"$(walk_table $R $va pte)" = "$(walk_table $M $va pte)"
	before=$(slots $M $va)
	for m in $BIG; do
		want="$want
% insmod $X/$m.ko
$fails
ktrepl: module $m not replicated: -12"
		check "insmod $m" logged insmod $X/$m.ko
	done
	after=$(slots $M $va)
	echo "$before" | sed 's/^/# the master before: /'
	echo "$after" | sed 's/^/# the master after:  /'
	new=$(echo "$after" | grep -v '=$' | grep -vxF "$before" | sed 's/=.*//')
	if [ -z "$new" ]; then
		skip "node $R's PMD table maps the slots the modules added" "the master gained no slot past ktrepl.ko's"
	else
		bad=
		for sl in $new; do
			[ "$(walk_table $R $sl pte)" = "$(walk_table $M $sl pte)" ] ||
				bad="$bad $sl (got '$(walk_table $R $sl pte)', want '$(walk_table $M $sl pte)')"
		done
		check "node $R's PMD table maps the $(echo $new | wc -w) slots the modules added as the master's does${bad:+:$bad}" \
			test -z "$bad"
	fi
	check "verify: healthy" ktrepl-dump --verify
	check "rmmod" logged rmmod ktrepl
	want="$want
$(unload_log)"
	check "every page allocated was freed" all_freed
	check_log "the failed maps, then the unload" "$want"
fi

check_dmesg_clean
done_testing
