# SPDX-License-Identifier: GPL-2.0
# ktrepl-bench end to end (t16): a real text off/on run, an A/A control
# with a forced slowdown on one node, a plain A/A control, syscalls and
# costs in one --quick run, the refusals (lockdown last), and, by hand,
# that ktrepl.ko really replicates the bench module onto every node.
# BENCH_MAX_TIME bounds the real text run. Four scenarios, each with the
# kernel log it must leave (lib.sh: start_test, check_log).
. /lib.sh
K=/lib/modules/ktrepl.ko
B=/lib/modules/ktrepl_bench_text.ko
cpus_of() { cat /sys/devices/system/node/node$1/cpulist; }
nodes() { ls -d /sys/devices/system/node/node[0-9]* | sed 's/.*node//'; }
last=$(nodes | tail -n1)
echo "SLOW-NODE $last"

# TEST: refusals
# - an unknown benchmark and a missing bench module: exit 2, named
# - with ktrepl.ko loaded by hand, text, syscalls and costs refuse to
#   start (exit 2): they would measure "off" with replication on
# - nothing is left loaded
# Expected log: the hand load's and unload's; a refusal loads nothing,
# so it logs nothing.
want="$(load_log $K)
$(unload_log)"
start_test "refusals"
ktrepl-bench -j bogus > /tmp/r 2>&1
check "an unknown benchmark: refused (exit 2)" \
	sh -c "test $? = 2 && grep -q 'unknown benchmark' /tmp/r"
ktrepl-bench --bench-module /nonexistent.ko --module $K text > /tmp/r 2>&1
check "a missing bench module: exit 2, named" \
	sh -c "test $? = 2 && grep -q '/nonexistent.ko' /tmp/r"
logged insmod $K
ktrepl-bench -j --module $K --bench-module $B text > /tmp/r 2>&1
check "ktrepl.ko already loaded: refused (exit 2)" \
	sh -c "test $? = 2 && grep -q 'ktrepl.ko is loaded' /tmp/r"
for b in syscalls costs; do
	ktrepl-bench -j --module $K --bench-module $B $b > /tmp/r 2>&1
	check "$b: ktrepl.ko already loaded: refused (exit 2)" \
		sh -c "test $? = 2 && grep -q 'ktrepl.ko is loaded' /tmp/r"
done
logged rmmod ktrepl
check "nothing left loaded by the refusals" \
	no_bench_modules_loaded
check_log "the refusals log nothing" "$want"

# TEST: runs
# - text off and on, an A/A control with one node slowed, a plain A/A
#   control, --bound met and not, markdown, syscalls and costs: the host
#   judges each JSON
# - the runs leave nothing loaded
# Expected log: only ktrepl.ko's loads and unloads, as many as the runs'
# time allowed (check_log_among), with the bench module replicated when
# it was loaded first; each load unloaded: no other message.
allowed="$(load_log $K | grep -v '^% ')
$(module_replicated_log ktrepl_bench_text)
$(module_freed_log ktrepl_bench_text)
$(unload_log | grep -v '^% ')"
start_test "runs"

t0=$(now_ms)
emit text ktrepl-bench --quick -j --module $K --bench-module $B \
	--max-time ${BENCH_MAX_TIME:-40} text
echo "TEXT-MS $(($(now_ms) - t0))"
t0=$(now_ms)
emit slow ktrepl-bench --quick -j --control --bench-module $B \
	--bench-param delay_node=$last --bench-param delay_us=100000 \
	--bench-param delay_phase=after --max-time 12 text
echo "SLOW-MS $(($(now_ms) - t0))"
# one A/A run; its false-positive rate is bench/'s to measure (bench.py
# aa), over many
t0=$(now_ms)
emit same ktrepl-bench --quick -j --control --bench-module $B \
	--max-time 8 text
echo "SAME-MS $(($(now_ms) - t0))"
# --bound: 10000% is met by the fewest rounds with an interval (6), 0.001%
# by none in 5 s, which the run then says (time_limited); -p indents
t0=$(now_ms)
emit bound_loose ktrepl-bench --quick -p --control --bench-module $B \
	--bound 10000 --max-time 30 text
emit bound_tight ktrepl-bench --quick -j --control --bench-module $B \
	--bound 0.001 --max-time 5 text
echo "BOUND-MS $(($(now_ms) - t0))"
# --progress: off a terminal too, a line per round on standard error
# (the other runs, without it, write none there: their JSON parses)
ktrepl-bench --quick --progress --markdown --control --bench-module $B \
	--max-time 5 text 2>/tmp/progress | sed "s/^/@@md@@ /"
sed 's/^/# /' /tmp/progress
check "--progress: a line per round on standard error, off a terminal ($(grep -c ': text: round ' /tmp/progress) of them)" \
	grep -Eq '^ktrepl-bench: [0-9]+ s: text: round 1, ' /tmp/progress
t0=$(now_ms)
# --max-time bounds the whole run: syscalls get half, costs the rest
emit sys ktrepl-bench --quick -j --module $K --bench-module $B \
	--max-time ${BENCH_SYS_MAX_TIME:-90} syscalls costs
echo "SYS-MS $(($(now_ms) - t0))"
# a limit too short for 6 rounds cuts syscalls, and the run says so
t0=$(now_ms)
emit cut ktrepl-bench --quick -j --module $K --bench-module $B \
	--max-time 3 syscalls
echo "CUT-MS $(($(now_ms) - t0))"
# the plain costs section once (x86_64: its costs run faster)
if [ "$(uname -m)" = x86_64 ]; then
	t0=$(now_ms)
	emit costs ktrepl-bench --quick --module $K --bench-module $B costs
	echo "COSTS-MS $(($(now_ms) - t0))"
	# and costs' A/A control: without ktrepl.ko in either arm
	emit costs_ctl ktrepl-bench --quick -j --control --bench-module $B costs
fi
check "the runs left nothing loaded" \
	no_bench_modules_loaded
check_log_among "only ktrepl.ko's loads and unloads" "$allowed"
loads=$(test_log | grep -c '^ktrepl: load steps')
unloads=$(test_log | grep -c '^ktrepl: freed ')
check "each of the runs' $loads loads of ktrepl.ko was unloaded ($unloads)" \
	test "$loads" -gt 0 -a "$loads" = "$unloads"

# TEST: the bench module replicated
# - the bench module loaded from node 0's CPUs before ktrepl.ko, as
#   ktrepl-bench loads it: its text has a copy on each node (the host
#   reads the walks)
# Expected log: the bench module's load (it logs nothing ktrepl's),
# ktrepl.ko's load with the bench module replicated, the unloads.
start_test "the bench module replicated"
check "insmod the bench module from node 0's CPUs" \
	logged taskset -c "$(cpus_of 0)" insmod $B
want="% taskset -c $(cpus_of 0) insmod $B
$(load_log $K)"
check "insmod ktrepl.ko (default activation)" logged insmod $K
emit summary grep -E '^(abi|module=ktrepl_bench_text )' $D/summary
for n in $(nodes); do
	emit walk$n ktrepl-dump -j walk --node $n --region module:ktrepl_bench_text
done
logged rmmod ktrepl
logged rmmod ktrepl_bench_text
check_log "the bench module's replication" "$want
$(unload_log)
% rmmod ktrepl_bench_text"
check_dmesg_clean

# TEST: perf
# - Debian's perf record samples every CPU for a second, as bench.py's
#   ktrepl-top comparison runs it (x86_64 guests get linux-perf): a
#   smoke test that the peer works here
# Expected log: none of ktrepl's (perf may lower its own sample rate
# under emulation: that note is the kernel's).
if command -v perf >/dev/null; then
	start_test "perf"
	perf record -a -F 1000 -B -q -o /tmp/perf.data -- sleep 1 \
		2>/tmp/perf.err
	rc=$?
	n=$(perf script -i /tmp/perf.data -F cpu 2>/dev/null | wc -l)
	cpus=$(perf script -i /tmp/perf.data -F cpu 2>/dev/null | sort -u | wc -l)
	sed 's/^/# perf: /' /tmp/perf.err
	echo "@@perf@@ rc=$rc samples=$n cpus=$cpus"
	check "perf record -a -F 1000 for 1 s: exit 0, samples from every CPU ($n samples, $cpus CPUs)" \
		test "$rc" = 0 -a "$n" -gt 100 -a "$cpus" = "$(nproc)"
	check_log "perf logs nothing of ktrepl's" ""
fi

# TEST: lockdown
# - lockdown raised at run time, as Secure Boot hosts run: the kernel
#   then loads only signed modules, and ours are not; ktrepl-bench
#   exits 2 naming lockdown
# Expected log: none of ktrepl's (the kernel's lockdown note is not).
start_test "lockdown"
L=/sys/kernel/security/lockdown
mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
echo integrity > $L 2>/dev/null
if grep -q '\[integrity\]' $L 2>/dev/null; then
	ktrepl-bench --module $K --bench-module $B text > /tmp/r 2>&1
	rc=$?
	sed 's/^/# /' /tmp/r
	check "lockdown refuses the module load: exit 2, lockdown named" \
		sh -c "test $rc = 2 && grep -q 'locked down (integrity)' /tmp/r"
else
	not_ok "the kernel has the lockdown LSM ($(cat $L 2>/dev/null))"
fi
check_log "the refused load logs nothing of ktrepl's" ""
done_testing
