# SPDX-License-Identifier: GPL-2.0
# Runtime text patching reaches every replica, and with propagation off
# the replicas differ exactly where the kernel patched itself. One
# scenario per kind of patch (lib.sh: start_test, check_log); a patch
# that reaches every replica is counted, not logged.
. /lib.sh
want=$(load_log /lib/modules/ktrepl-test.ko)
start_test "load"
check "insmod ktrepl-test.ko (propagate is switched off below)" \
	logged insmod /lib/modules/ktrepl-test.ko
check_log "the load's log" "$want"
mount -t tracefs nodev /sys/kernel/tracing
T=/sys/kernel/tracing
identical() { ktrepl-dump diff > /tmp/diff.txt; }

# TEST: function tracer
# - the function tracer on, then off: the replicas stay identical, and
#   the patch counter grows
# Expected log: none.
start_test "function tracer"
p=$(patches)
echo function > $T/current_tracer
check "function tracer on: replicas stay identical" identical
q=$(patches)
check "function tracer on: patch counter grew ($p -> $q)" test "$q" -gt "$p"
echo nop > $T/current_tracer
check "function tracer off: replicas stay identical" identical
check_log "patching logs nothing" ""

# TEST: kprobe
# - a kprobe event armed, fired, removed: the replicas stay identical,
#   and the patch counter grows
# Expected log: none.
start_test "kprobe"
p=$(patches)
echo 'p:ktrepl_kp do_sys_openat2' > $T/kprobe_events
echo 1 > $T/events/kprobes/ktrepl_kp/enable
cat /proc/self/status > /dev/null
check "kprobe armed: replicas stay identical" identical
echo 0 > $T/events/kprobes/ktrepl_kp/enable
echo '-:ktrepl_kp' >> $T/kprobe_events
check "kprobe removed: replicas stay identical" identical
q=$(patches)
check "kprobe: patch counter grew ($p -> $q)" test "$q" -gt "$p"
check_log "patching logs nothing" ""

# TEST: static key
# - a static key on, then off: the replicas stay identical, the patch
#   counter grows, and no patch was missed
# Expected log: none.
start_test "static key"
p=$(patches)
echo 1 > /proc/sys/kernel/sched_schedstats
check "static key on: replicas stay identical" identical
echo 0 > /proc/sys/kernel/sched_schedstats
check "static key off: replicas stay identical" identical
q=$(patches)
check "static key: patch counter grew ($p -> $q)" test "$q" -gt "$p"
check "nothing was missed while propagating" \
	test "$(head -n1 $D/patches | kv missed)" = 0
check_log "patching logs nothing" ""

# TEST: propagation off
# - reload with activation=inactive: a fail-safe then has nothing to
#   pause, so the only patches are this scenario's own (x86 mm's pause
#   switches tracepoints off, patches that propagate=0 would drop too)
# - the test build's propagate=0: the same actions leave the replicas
#   behind, and the host reads where (jl_diff, jl_patches)
# - the first patch it drops trips the fail-safe, which waits with the
#   replicas left stale
# - the function tracer: over 1000 ftrace sites differ, each at a
#   function's entry, named; after it is off again none differs
# - propagate=1: the fail-safe recopies the replicas and resumes
# - rmmod
# Expected log: the unload's and the load's; the fail-safe's trip and
# wait; its resume; the unload's.
start_test "propagation off"
mod="/lib/modules/ktrepl-test.ko activation=inactive"
check "rmmod ktrepl" logged rmmod ktrepl
want_load=$(load_log $mod)
check "insmod ktrepl-test.ko activation=inactive" logged insmod $mod
echo 0 > /sys/module/ktrepl/parameters/propagate
echo 1 > /proc/sys/kernel/sched_schedstats
emit jl_diff ktrepl-dump -j diff
emit jl_patches cat $D/patches
echo 0 > /proc/sys/kernel/sched_schedstats
check "static key back off: replicas identical again" identical
echo function > $T/current_tracer
ktrepl-dump diff > /tmp/ft.txt
ranges=$(grep -c '^node ' /tmp/ft.txt)
ftrace=$(grep -c '\[ftrace\]$' /tmp/ft.txt)
echo "# function tracer, no propagation: $ranges ranges, $ftrace ftrace sites"
grep '^node ' /tmp/ft.txt | grep -v '\[ftrace\]$' | sed 's/^/# other: /' | head -20
check "function tracer without propagation: over 1000 ftrace sites differ" \
	test "$ftrace" -gt 1000
# at +0x4 after an ENDBR64, where the kernel has IBT (6.12)
grep '\[ftrace\]$' /tmp/ft.txt | grep -Ev '\+0x[04] ' | head -5 | sed 's/^/# not at entry: /'
check "every ftrace range is at a function's entry" \
	sh -c "! grep '\[ftrace\]$' /tmp/ft.txt | grep -Eqv '\+0x[04] '"
check "ftrace ranges name their functions (e.g. vfs_read)" \
	grep -Eq ' vfs_read\+0x[04] .*\[ftrace\]$' /tmp/ft.txt
echo nop > $T/current_tracer
ktrepl-dump diff > /tmp/ft.txt
check "function tracer off: no ftrace site differs any more" \
	sh -c "! grep -q '\[ftrace\]$' /tmp/ft.txt"
echo 1 > /sys/module/ktrepl/parameters/propagate
resumed() { [ "$(head -n1 $D/summary | kv failsafe_active)" = 0 ]; }
check "propagate=1: the fail-safe resumes" wait_for 10 resumed
check "rmmod ktrepl" logged rmmod ktrepl
check_log "the reload, the dropped patches' fail-safe, then the unload" "$(unload_log)
$want_load
ktrepl: fail-safe (patch_missed): a write may have missed the replicas; every CPU and process is back on the master's tables
ktrepl: fail-safe (patch_missed): propagate=0 leaves patches out of the replicas: activation stays paused until propagate=1
ktrepl: fail-safe (patch_missed): propagation is on again; checking the replicas
ktrepl: fail-safe: * replica page(s) recopied from the master, 0 still differ
ktrepl: fail-safe: * rebuilt from the master's, 0 still differ
ktrepl: fail-safe (patch_missed): every replica equals the master again; activation resumed
$(unload_log)"
check_dmesg_clean
done_testing
