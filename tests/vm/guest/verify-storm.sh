# SPDX-License-Identifier: GPL-2.0
# ktrepl-dump --verify while the kernel patches itself: VERIFIES runs
# during a storm (ftrace, static keys, kprobes) of at least STORM_S
# seconds give no false divergence, and a byte flipped during the storm
# is still reported by the next verify. Then the module under stress:
# CYCLES loads and unloads while a storm runs (freed equals allocated,
# kernel log clean). The same storm runs first without ktrepl.ko, as a
# control. The host sets the three sizes. Three scenarios, each with
# the kernel log it must leave (lib.sh: start_test, check_log). The
# storm's rounds and the verifies are counted per second: each log check
# comes after them, one dmesg read, never inside the timed loop.
. /lib.sh
STORM_S=${STORM_S:-60}
VERIFIES=${VERIFIES:-200}
CYCLES=${CYCLES:-50}
S=$D/summary
mount -t tracefs nodev $TR 2>/dev/null

# TEST: control storm
# - 10 s of the storm (function tracer, static keys, kprobes) without
#   ktrepl.ko: its rounds, for the host to compare
# - the kernel log is clean: no WARN, BUG, oops or stall report
# Expected log: none (no module, and the storm logs nothing).
start_test "control storm"
n=$(storm 10)
echo "@@control@@ rounds=$n seconds=10"
check "control storm without ktrepl: $n rounds, kernel log clean" \
	sh -c "! dmesg | grep -Eq 'WARNING:|BUG:|Oops|rcu.*detected.*stall'"
check_log "the storm alone leaves no message" ""

# TEST: verifies during a storm
# - insmod ktrepl-test.ko fault_inject=1; its patch window is published
# - the storm in the background; VERIFIES runs of ktrepl-dump --verify
#   over at least STORM_S s: no false divergence, most healthy; halfway
#   a rodata byte of a replica is flipped (inject), a verify must report
#   it, and it is flipped back
# - the storm stopped: no patch missed its replicas, verify healthy
# - rmmod
# Expected log (load_log, unload_log): the load's; the storm's start
# (the flip and the flip back log nothing, and neither do the storm's
# patches or the verifies); the unload's.
start_test "verifies during a storm"
mod="/lib/modules/ktrepl-test.ko fault_inject=1"
want=$(load_log $mod)

check "insmod ktrepl-test.ko" logged insmod $mod
check "the module publishes its patch window" test -r $D/patch_window
R=$(grep 'role=replica' $S | head -n1 | kv node)
# a rodata byte: no storm patch and no audit repair ever touches it
ro=$(grep '^region=rodata' $S | kv start)
flip_va=$(printf '0x%x' $((ro + 0x1004)))

# stop_storm: end a background storm mid-round and undo what it armed
stop_storm() {
	kill $storm_pid 2>/dev/null
	wait $storm_pid 2>/dev/null
	echo 0 > $TR/events/kprobes/ktstorm/enable 2>/dev/null
	echo '-:ktstorm' >> $TR/kprobe_events 2>/dev/null
	echo nop > $TR/current_tracer
	echo > $TR/set_ftrace_filter
	echo 1 > $TR/tracing_on
	echo 0 > /proc/sys/kernel/sched_schedstats
}

log_cmd "storm 3600 &"
storm 3600 > /dev/null &
storm_pid=$!
sleep 1
p0=$(head -n1 $S | kv patches)
runs=0 healthy=0 diverged=0 unsettled=0 other=0 flip_seen=0 reread=0
t0=$(date +%s)
while [ $runs -lt $VERIFIES ] || [ $(($(date +%s) - t0)) -lt $STORM_S ]; do
	ktrepl-dump -j --verify > /tmp/v.json 2>/tmp/v.err
	rc=$?
	runs=$((runs + 1))
	r=$(grep -o '"ranges_reread":[0-9]*' /tmp/v.json | cut -d: -f2)
	reread=$((reread + ${r:-0}))
	case $rc in
	0) healthy=$((healthy + 1)) ;;
	1) diverged=$((diverged + 1))
	   head -c 600 /tmp/v.json | sed 's/^/# diverged: /'; echo ;;
	2) if grep -q '"unsettled":[1-9]' /tmp/v.json; then
		unsettled=$((unsettled + 1))
	   else
		other=$((other + 1)); sed 's/^/# /' /tmp/v.err
	   fi ;;
	*) other=$((other + 1)) ;;
	esac
	# halfway: a real divergence, made during the storm
	if [ $runs = $((VERIFIES / 2)) ]; then
		echo "flip node=$R va=$flip_va" > $D/inject
		ktrepl-dump --verify > /tmp/flip.out 2>&1
		flip_rc=$?
		echo "flip node=$R va=$flip_va" > $D/inject
		grep -q "^bytes: node $R " /tmp/flip.out && flip_seen=1
		sed 's/^/# flip: /' /tmp/flip.out | head -n 4
	fi
done
t1=$(date +%s)
p1=$(head -n1 $S | kv patches)
stop_storm
echo "@@storm@@ seconds=$((t1 - t0)) patches=$((p1 - p0)) verifies=$runs healthy=$healthy diverged=$diverged unsettled=$unsettled other=$other reread=$reread"
check "$runs verifies during a $((t1 - t0)) s storm ($((p1 - p0)) patches): no false divergence" \
	test $diverged = 0 -a $other = 0 -a $runs -ge $VERIFIES
check "most of them healthy ($healthy of $runs, $unsettled unsettled)" \
	test $healthy -ge $((runs * 9 / 10))
check "the storm patched while they ran ($((p1 - p0)) patches)" \
	test $((p1 - p0)) -gt 100
check "a byte flipped during the storm is reported (exit $flip_rc)" \
	test "$flip_rc" = 1 -a $flip_seen = 1
check "no patch missed its replicas ($(head -n1 $S | kv patches_missed))" \
	test "$(head -n1 $S | kv patches_missed)" = 0
check "verify: healthy once the storm is over" ktrepl-dump --verify
check "rmmod ktrepl" logged rmmod ktrepl
check_log "the load's, the storm's start, the unload's" "$want
% storm 3600 &
$(unload_log)"
check_dmesg_clean

# TEST: load and unload under a storm
# - the storm in the background; CYCLES loads and unloads of ktrepl.ko
#   while it runs, each unload freeing every page its load allocated
# - the storm stopped; no WARN, BUG or oops
# Expected log: the storm's start, then every cycle's log the same: the
# load's (load_log) and the unload's (unload_log), CYCLES times.
start_test "load and unload under a storm"
# before the storm: load_log reads /proc/modules (and kallsyms, once)
cycle="$(load_log /lib/modules/ktrepl.ko)
$(unload_log)"
want="% storm 3600 &"
i=0
while [ $i -lt $CYCLES ]; do
	want="$want
$cycle"
	i=$((i + 1))
done
# load and unload while the storm runs
log_cmd "storm 3600 &"
storm 3600 > /dev/null &
storm_pid=$!
cycles=0 bad=0
while [ $cycles -lt $CYCLES ]; do
	logged insmod /lib/modules/ktrepl.ko || break
	sleep 0.$((cycles % 5))
	logged rmmod ktrepl || break
	freed=$(dmesg | grep 'ktrepl: freed' | tail -n1)
	echo "$freed" | sed 's/.*freed \([0-9]*\) of \([0-9]*\) .*/\1 \2/' |
		awk '{ exit !($1 == $2) }' || bad=$((bad + 1))
	cycles=$((cycles + 1))
done
stop_storm
echo "@@cycles@@ cycles=$cycles leaky=$bad"
check "$cycles load/unload cycles under the storm" test $cycles = $CYCLES
check "every cycle freed what it allocated ($bad did not)" test $bad = 0
check_log "every cycle's log is the first's, $CYCLES times" "$want"
check_dmesg_clean
done_testing
