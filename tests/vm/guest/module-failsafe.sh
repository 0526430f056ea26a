# SPDX-License-Identifier: GPL-2.0
# Fail-safe (issue 26): every kind of missed write the engine can see
# takes every CPU (percpu) or bound process (mm) off the node tables,
# recopies the replicas, checks them, and only then resumes activation.
#
# One scenario per kind of miss, each forced through the test build's
# "miss" inject (lib.sh: start_test, check_log):
#   patch  - the hook drops the next patch (a static key flip);
#   probe  - the patch probe counts a call it could not handle (x86,
#            arm64 6.12's poke kprobe), or arm64's ftrace hook takes the
#            next patch as a miss, as its recursion guard would;
#   audit  - a replica page differs where the master changed;
#   mirror - a module-area table update is missed (and a node's table
#            entry made stale): the entry is rebuilt from the master's;
#   veto   - (percpu) a copied table's free that the veto probe could not
#            handle: the node tables are checked against the master's
#            and the copied pages' pre-population, and resume;
#   table lost - (percpu) such a free that did happen: a copied page
#            lost its pre-populated table, and replication stays off;
# and two without the inject, as an admin makes them:
#   kprobes, ftrace - the kernel's switch that silences the probes is
#            turned off: activation waits, paused, until it is on again;
#   propagate - the test build's propagate=0 drops every patch: each
#            trips, and activation waits, paused, with the replicas left
#            stale for the tools, until propagate=1;
#   recurring - a reload with failsafe_limit=2: an audit that finds a
#            miss while its fail-safe runs adds no event, and the second
#            event in the window leaves replication off;
# and one on what a fail-safe must keep:
#   bindings - (mm) the bindings made by hand, and the exclusions, hold
#            across a pause and its resume.
#
# Every fail-safe also checks every node table entry against what a
# fresh build would make of the master's: 0 rebuilt, but where a
# scenario made one stale.
#
# DUMP=1: end with the module still in fail-safe (recurring's give-up),
# for the host to dump the guest and read the fail-safe from the
# vmcore's descriptor.
. /lib.sh
DUMP=${DUMP:-0}
S=$D/summary
# failsafe_limit: room for every scenario's event before "recurring"
check "insmod ktrepl-test.ko fault_inject=1 failsafe_limit=20" \
	insmod /lib/modules/ktrepl-test.ko fault_inject=1 failsafe_limit=20
act=$(head -n1 $S | kv activation)
R=$(grep 'role=replica' $S | head -n1 | kv node)
echo "# activation=$act, replica node $R"
fs() { head -n1 $S | kv "$1"; }
# event_after N0 REASON: more than N0 events, the last for REASON
event_after() { [ "$(fs failsafe)" -gt "$1" ] && [ "$(fs failsafe_reason)" = "$2" ]; }
ended() { [ "$(fs failsafe_active)" = 0 ]; }
# activation in force: percpu every CPU on its node's root; mm the
# replica node's spinner bound to its set
on_node_tables() {
	if [ "$act" = percpu ]; then
		grep '^cpu=' $D/pgds | awk '{
			for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
			n++
			if (f["loaded_root_pa"] != f["expected_root_pa"]) bad++
		} END { exit !(n > 0 && bad == 0) }'
	else
		grep -q "^pid=$spinner .*node=$R " $D/bind
	fi
}
# every CPU on the master's root (percpu), no process bound (mm)
all_on_master() {
	if [ "$act" = percpu ]; then
		_m=$(head -n1 $S | kv master_root_pa)
		! grep '^cpu=' $D/pgds | grep -qv "loaded_root_pa=$_m "
	else
		! grep -q '^pid=' $D/bind
	fi
}
if [ "$act" = mm ]; then
	taskset -c "$(cat /sys/devices/system/node/node$R/cpulist)" \
		sh -c 'while :; do read x < /proc/self/stat; done' &
	spinner=$!
fi
check "activation $act is in force before any miss" wait_for 3 on_node_tables
cold=$(awk '$3 ~ /^__(x64|arm64)_sys_kexec_load$/ {print $3; exit}' /proc/kallsyms)
cold=${cold:-int_sqrt}
check "verify: healthy before" ktrepl-dump --verify
# verified_after_resume TAG: the first verify after a fail-safe that
# resumed reports it (exit 1), the next one is healthy
verified_after_resume() {
	ktrepl-dump --verify > /tmp/fs.out 2>&1
	_rc=$?
	sed 's/^/# /' /tmp/fs.out | head -n 6
	check "[$1] the first verify after it reports the fail-safe (exit 1)" \
		sh -c "[ $_rc = 1 ] && grep -q 'failsafe' /tmp/fs.out"
	check "[$1] the next verify is healthy: every replica equals the master" \
		ktrepl-dump --verify
}

# TEST: patch, probe, audit (one scenario each)
# - inject the miss
# - a fail-safe event is counted with its reason, and it ends
# - activation is in force again
# - the first verify after it reports the event (exit 1), the next is
#   healthy
# Expected log: the audit's line where it found the miss (audit; patch
# too when a pass lands before the fail-safe's first step: the dropped
# patch reached the master); then the fail-safe's three steps:
#	fail-safe (REASON): a write may have missed the replicas; every CPU
#	  and process is back on the master's tables
#	fail-safe: N replica page(s) recopied from the master, 0 still differ
#	fail-safe: 0 node table entries rebuilt from the master's, 0 still
#	  differ
#	fail-safe (REASON): every replica equals the master again;
#	  activation resumed
# failsafe_log REASON [LAST [TABLE_ENTRIES]]: LAST the event's last line,
# TABLE_ENTRIES those rebuilt (a pattern: "0 node table entries" unless
# given)
failsafe_log() {
	echo "ktrepl: fail-safe ($1): a write may have missed the replicas; every CPU and process is back on the master's tables"
	echo "ktrepl: fail-safe: * replica page(s) recopied from the master, 0 still differ"
	echo "ktrepl: fail-safe: ${3:-0 node table entries} rebuilt from the master's, 0 still differ"
	[ -n "$2" ] && echo "ktrepl: fail-safe ($1): $2"
	return 0
}
# a static key flipped on and off: a text patch the hook sees (or, with
# the probes disarmed, one that reaches the master only)
flip_key() {
	echo 1 > /proc/sys/kernel/sched_schedstats
	echo 0 > /proc/sys/kernel/sched_schedstats
}
# the hook drops the next patch, and a flip gives it one to drop
miss_patch() {
	echo "miss kind=patch" > $D/inject
	flip_key
}
for kind in patch probe audit; do
	start_test "$kind"
	n0=$(fs failsafe)
	case $kind in
	patch) reason=patch_missed; cmd="miss kind=patch" ;;
	probe) reason=probe_missed; cmd="miss kind=probe" ;;
	audit) reason=audit_repair; cmd="miss kind=audit sym=$cold off=4" ;;
	esac
	case $kind in
	audit) first="ktrepl: audit: a write at $cold+0x* reached the master but not * replica(s); the fail-safe repairs them" ;;
	*) first= ;;
	esac
	if ! echo "$cmd" > $D/inject 2>/dev/null; then
		not_ok "[$kind] inject '$cmd'"
		continue
	fi
	ok "[$kind] inject '$cmd'"
	# the dropped patch (arm64's hook: the missed one): a static key
	# flip the hook sees
	case $kind in patch | probe) flip_key ;; esac
	check "[$kind] a fail-safe event is counted, reason $reason" \
		wait_for 10 event_after $n0 $reason
	check "[$kind] and it ended: failsafe_active=0" wait_for 10 ended
	dmesg | grep 'ktrepl: \(audit\|fail-safe\)' | tail -n 4 | sed 's/^/# /'
	check "[$kind] the log says everyone went back to the master first" \
		sh -c "dmesg | grep -q 'fail-safe ($reason): .*back on the master'"
	check "[$kind] the log says the replicas were checked before resuming" \
		sh -c "dmesg | grep -q 'fail-safe ($reason): every replica equals the master again; activation resumed'"
	check "[$kind] activation $act is in force again" wait_for 5 on_node_tables
	verified_after_resume "$kind"
	# the dropped patch reaches the master: an audit pass that lands
	# between the trip and the fail-safe's first step finds it first
	# (one line, the key's site; seen on arm64 6.12 in CI)
	[ $kind = patch ] && test_log | grep -q '^ktrepl: audit:' &&
		first="ktrepl: audit: a write at * reached the master but not 1 replica(s); the fail-safe repairs them"
	check_log "the fail-safe's log" "$first
$(failsafe_log $reason "every replica equals the master again; activation resumed")"
done

# TEST: kprobes, ftrace (one scenario each, where the kernel allows it)
# - turn the switch off: debugfs kprobes/enabled, kernel.ftrace_enabled
# - a fail-safe event, reason probes_disarmed; activation stays paused:
#   nothing runs on the node tables, and failsafe_active=1
# - a static key flipped meanwhile reaches the master only (no hook
#   runs), and no further event is counted while the switch is off
# - turn it on: the replicas are recopied (not before: the disarm may
#   still be rewriting kprobe sites, past the replicas), activation
#   resumes, and the next verify is healthy
# Expected log:
#	% echo 0 > SWITCH
#	(audit lines, where a pass under way saw the disarm's own writes)
#	fail-safe (probes_disarmed): a write may have missed the replicas;
#	  every CPU and process is back on the master's tables
#	fail-safe (probes_disarmed): WHAT is disarmed: activation stays
#	  paused until it is armed again
#	% echo 1 > SWITCH
#	fail-safe (probes_disarmed): the probes are armed again; checking
#	  the replicas
#	fail-safe: M replica page(s) recopied from the master, 0 still differ
#	fail-safe: L node table entries rebuilt from the master's, ...
#	fail-safe (probes_disarmed): every replica equals the master again;
#	  activation resumed
mount -t debugfs none /sys/kernel/debug 2>/dev/null
waiting_paused() { [ "$(fs failsafe_active)" = 1 ] && all_on_master; }
# events_are N ACTIVE: N events since load, failsafe_active=ACTIVE
events_are() { [ "$(fs failsafe)" = "$1" ] && [ "$(fs failsafe_active)" = "$2" ]; }
for kind in kprobes ftrace; do
	case $kind in
	kprobes) sw=/sys/kernel/debug/kprobes/enabled ;;
	ftrace) sw=/proc/sys/kernel/ftrace_enabled ;;
	esac
	start_test "$kind"
	n0=$(fs failsafe)
	if ! logged sh -c "echo 0 > $sw" 2>/tmp/sw.err; then
		# arm64 6.1: the patch hook's ftrace_ops is permanent
		if [ $kind = ftrace ] && grep -q busy /tmp/sw.err; then
			ok "[$kind] the kernel refuses to turn ftrace off under the hook's permanent ftrace_ops ($(cat /tmp/sw.err))"
			sleep 3
			check "[$kind] and no fail-safe event is counted" \
				events_are $n0 0
			continue
		fi
		not_ok "[$kind] echo 0 > $sw: $(cat /tmp/sw.err)"
		continue
	fi
	check "[$kind] a fail-safe event is counted, reason probes_disarmed" \
		wait_for 10 event_after $n0 probes_disarmed
	check "[$kind] activation waits, paused: failsafe_active=1, nothing on the node tables" \
		wait_for 10 waiting_paused
	# a write no hook sees while the switch is off
	flip_key
	sleep 5
	check "[$kind] no further event while the switch is off (audits ran: $(fs audits))" \
		events_are $((n0 + 1)) 1
	check "[$kind] still nothing on the node tables" all_on_master
	check "[$kind] turn it on again" logged sh -c "echo 1 > $sw"
	check "[$kind] the fail-safe ends: failsafe_active=0" wait_for 10 ended
	check "[$kind] activation $act is in force again" wait_for 5 on_node_tables
	check "[$kind] still one event for the whole disarm" \
		events_are $((n0 + 1)) 0
	verified_after_resume "$kind"
	# an audit pass under way as the switch turns may see the disarm's
	# own writes first: its lines, and its reason on the first line
	check_log "the fail-safe's log" "% sh -c echo 0 > $sw
...
ktrepl: fail-safe (*): a write may have missed the replicas; every CPU and process is back on the master's tables
ktrepl: fail-safe (probes_disarmed): $kind is disarmed: activation stays paused until it is armed again
% sh -c echo 1 > $sw
ktrepl: fail-safe (probes_disarmed): the probes are armed again; checking the replicas
ktrepl: fail-safe: * replica page(s) recopied from the master, 0 still differ
ktrepl: fail-safe: * rebuilt from the master's, 0 still differ
ktrepl: fail-safe (probes_disarmed): every replica equals the master again; activation resumed"
done

# TEST: propagate (the test build's propagate=0)
# - propagate=0, then a static key flipped on: the hook drops the patch,
#   counts it missed and trips: a fail-safe event, reason patch_missed;
#   activation waits, paused, nothing on the node tables
# - the replicas stay stale, for the tools to find: the diff lists the
#   key's sites
# - the key flipped off and on again: dropped too, and no further event
# - propagate=1: the replicas are recopied, activation resumes, and the
#   next verify is healthy
# Expected log:
#	% echo 0 > propagate, and the key flipped on
#	fail-safe (patch_missed): a write may have missed the replicas;
#	  every CPU and process is back on the master's tables
#	fail-safe (patch_missed): propagate=0 leaves patches out of the
#	  replicas: activation stays paused until propagate=1
#	% echo 1 > propagate
#	fail-safe (patch_missed): propagation is on again; checking the
#	  replicas
#	fail-safe: M replica page(s) recopied from the master, 0 still differ
#	fail-safe: L node table entries rebuilt from the master's, ...
#	fail-safe (patch_missed): every replica equals the master again;
#	  activation resumed
start_test "propagate"
P=/sys/module/ktrepl/parameters/propagate
n0=$(fs failsafe)
m0=$(head -n1 $D/patches | kv missed)
check "[propagate] propagate=0, and a static key flipped on" \
	logged sh -c "echo 0 > $P; echo 1 > /proc/sys/kernel/sched_schedstats"
check "[propagate] the dropped patch trips: a fail-safe event, reason patch_missed" \
	wait_for 10 event_after $n0 patch_missed
check "[propagate] activation waits, paused: failsafe_active=1, nothing on the node tables" \
	wait_for 10 waiting_paused
ktrepl-dump diff > /tmp/pd.txt 2>&1
rc=$?
sed 's/^/# /' /tmp/pd.txt | head -n 4
check "[propagate] the replicas stay stale for the tools: diff exits 1 and lists ranges" \
	sh -c "[ $rc = 1 ] && grep -Eq '^[1-9][0-9]* differing range' /tmp/pd.txt"
check "[propagate] each dropped patch is counted missed ($m0 -> $(head -n1 $D/patches | kv missed))" \
	sh -c "[ $(head -n1 $D/patches | kv missed) -gt $m0 ]"
echo 0 > /proc/sys/kernel/sched_schedstats
echo 1 > /proc/sys/kernel/sched_schedstats
sleep 3
check "[propagate] more drops while it waits add no event" \
	events_are $((n0 + 1)) 1
check "[propagate] still nothing on the node tables" all_on_master
check "[propagate] propagate=1" logged sh -c "echo 1 > $P"
check "[propagate] the fail-safe ends: failsafe_active=0" wait_for 10 ended
check "[propagate] activation $act is in force again" \
	wait_for 5 on_node_tables
check "[propagate] still one event" events_are $((n0 + 1)) 0
verified_after_resume propagate
echo 0 > /proc/sys/kernel/sched_schedstats
check_log "the fail-safe's log" "% sh -c echo 0 > $P; echo 1 > /proc/sys/kernel/sched_schedstats
ktrepl: fail-safe (patch_missed): a write may have missed the replicas; every CPU and process is back on the master's tables
ktrepl: fail-safe (patch_missed): propagate=0 leaves patches out of the replicas: activation stays paused until propagate=1
% sh -c echo 1 > $P
ktrepl: fail-safe (patch_missed): propagation is on again; checking the replicas
ktrepl: fail-safe: * replica page(s) recopied from the master, 0 still differ
ktrepl: fail-safe: * rebuilt from the master's, 0 still differ
ktrepl: fail-safe (patch_missed): every replica equals the master again; activation resumed"

# TEST: bindings (mm)
# - bind an unconfined process to the replica node by hand, and unbind
#   the confined spinner by hand (excluded from the automatic binding)
# - a missed patch: the fail-safe pauses (every mm back on the master)
#   and resumes
# - after the resume the hand-made binding is back (how=manual, on the
#   replica node's set), and the excluded spinner is still not bound
# Expected log: the fail-safe's three steps (patch_missed)
start_test "bindings"
if [ "$act" != mm ]; then
	skip "[bindings]" "activation $act binds no process: every CPU is on its node's tables"
else
	sh -c 'while :; do sleep 1; done' &
	free=$!
	bound_by_hand() { grep "^pid=$free " $D/bind | grep -q "node=$R .*how=manual"; }
	spinner_unbound() { ! grep -q "^pid=$spinner " $D/bind; }
	echo "pid=$free node=$R" > $D/bind_ctl
	check "[bindings] pid $free bound to node $R by hand" wait_for 3 bound_by_hand
	echo "pid=$spinner node=-1" > $D/bind_ctl
	check "[bindings] the confined spinner unbound by hand" wait_for 3 spinner_unbound
	n0=$(fs failsafe)
	miss_patch
	check "[bindings] a fail-safe event is counted, reason patch_missed" \
		wait_for 10 event_after $n0 patch_missed
	check "[bindings] and it ended: failsafe_active=0" wait_for 10 ended
	check "[bindings] the binding made by hand is back after the resume" \
		wait_for 5 bound_by_hand
	# two scans at least (scan_period_ms=250): the spinner is confined
	sleep 1
	check "[bindings] the spinner stays unbound: the exclusion survived" \
		spinner_unbound
	check_log "the fail-safe's log" \
		"$(failsafe_log patch_missed "every replica equals the master again; activation resumed")"
	kill $free
	echo "pid=$spinner node=$R" > $D/bind_ctl
	check "[bindings] the spinner bound again (by hand)" wait_for 3 on_node_tables
fi

# TEST: mirror
# - make one entry of a node-R-owned table differ from the master's, as
#   a missed table update would (inject stale): verify names it
# - inject a missed module-area table update (miss kind=mirror)
# - a fail-safe event is counted, reason mirror_missed; the stale entry
#   is rebuilt from the master's, and activation is in force again
# - the first verify after it reports the event (exit 1), the next is
#   healthy: no stale entry is left
# Expected log: the stale entry's inject line, then the fail-safe's
# steps with "1 node table entry rebuilt from the master's"
start_test "mirror"
n0=$(fs failsafe)
check "[mirror] inject 'stale node=$R'" sh -c "echo stale node=$R > $D/inject"
ktrepl-dump --verify > /tmp/fs.out 2>&1
rc=$?
grep stale-table /tmp/fs.out | sed 's/^/# /'
check "[mirror] verify names the stale entry (exit $rc)" \
	sh -c "[ $rc = 1 ] && grep -Eq '^stale-table: node $R ' /tmp/fs.out"
check "[mirror] inject 'miss kind=mirror'" \
	sh -c "echo 'miss kind=mirror' > $D/inject"
check "[mirror] a fail-safe event is counted, reason mirror_missed" \
	wait_for 10 event_after $n0 mirror_missed
check "[mirror] and it ended: failsafe_active=0" wait_for 10 ended
check "[mirror] activation $act is in force again" wait_for 5 on_node_tables
verified_after_resume mirror
check_log "the fail-safe's log" \
	"ktrepl: inject: node $R level * entry * (va 0x*) now differs from the master's
$(failsafe_log mirror_missed "every replica equals the master again; activation resumed" "1 node table entry")"
[ -n "${spinner:-}" ] && kill $spinner
spinner=
check "rmmod ktrepl" rmmod ktrepl

# TEST: veto (percpu)
# - reload; inject a copied table's free that the veto probe could not
#   handle (its nmissed, as a nested kprobe would raise it)
# - a fail-safe event is counted, reason veto_missed; the node tables
#   equal a fresh build's and every copied page is still pre-populated,
#   so activation is in force again, and verify is healthy after
# Expected log: the load's lines, then the fail-safe's steps
start_test "veto"
if [ "$act" != percpu ]; then
	skip "[veto]" "activation $act copies no table page: no veto probe"
else
	check "[veto] insmod ktrepl-test.ko fault_inject=1" \
		insmod /lib/modules/ktrepl-test.ko fault_inject=1
	check "[veto] activation $act is in force" wait_for 5 on_node_tables
	n0=$(fs failsafe)
	check "[veto] inject 'miss kind=veto'" \
		sh -c "echo 'miss kind=veto' > $D/inject"
	check "[veto] a fail-safe event is counted, reason veto_missed" \
		wait_for 10 event_after $n0 veto_missed
	check "[veto] and it ended: failsafe_active=0" wait_for 10 ended
	check "[veto] activation $act is in force again" \
		wait_for 5 on_node_tables
	verified_after_resume veto
	check_log "the fail-safe's log" "...
$(failsafe_log veto_missed "every replica equals the master again; activation resumed")"
fi

# TEST: table lost (percpu)
# - in the same load: a veto miss whose free did happen ('miss
#   kind=table_lost'): the master's entry over a pre-populated table of a
#   copied page is empty now
# - a fail-safe event, reason veto_missed; the node's entry is rebuilt
#   from the master's (1), but a copied page without its table cannot
#   stay fresh (ktr_fresh_intact()): replication stays off,
#   failsafe_tables_unverified, every CPU on the master's tables
# - rmmod
# Expected log: the inject's line, then the fail-safe's steps and its
# give-up
start_test "table lost"
if [ "$act" != percpu ]; then
	skip "[table lost]" "activation $act copies no table page"
else
	n0=$(fs failsafe)
	check "[table lost] inject 'miss kind=table_lost'" \
		sh -c "echo 'miss kind=table_lost' > $D/inject"
	check "[table lost] a fail-safe event is counted, reason veto_missed" \
		wait_for 10 event_after $n0 veto_missed
	tables_lost() {
		[ "$(fs activation)" = inactive ] &&
			[ "$(fs activation_reason)" = failsafe_tables_unverified ]
	}
	check "[table lost] replication stays off: activation_reason=failsafe_tables_unverified" \
		wait_for 10 tables_lost
	check "[table lost] nothing runs on the node tables" all_on_master
	check_log "the fail-safe's log" "...
ktrepl: inject: the master's level-* table page lost its table at entry *, as after a missed veto
ktrepl: fail-safe (veto_missed): a write may have missed the replicas; every CPU and process is back on the master's tables
ktrepl: fail-safe: * replica page(s) recopied from the master, 0 still differ
ktrepl: fail-safe: 1 node table entry rebuilt from the master's, 0 still differ
ktrepl: fail-safe: a copied table page lost a pre-populated table: a node's copy can no longer stay fresh
ktrepl: fail-safe (veto_missed): replication stays off: failsafe_tables_unverified"
fi
[ "$act" = percpu ] && check "rmmod ktrepl" rmmod ktrepl

# TEST: recurring
# - reload with failsafe_limit=2, audit_in_failsafe=1 (an audit pass
#   runs inside each fail-safe, after the pause and before the repair,
#   where the periodic audit may land) and audit_period_ms=0 (no other
#   audit runs)
# - a replica page made to differ where the master changed ('miss
#   kind=audit'), which no pass finds by itself (audit_period_ms=0)
# - a missed table update trips the fail-safe; the audit in its window
#   finds the stale page and trips too, and the repair recopies the page
#   and absorbs that trip: one event, and activation resumes
# - a missed patch is the 2nd event in the window, and replication stays
#   off
# Expected log:
#	the first event (mirror_missed), the audit's lines (one per page,
#	rate-limited) before the recopy, and the resume; then the second's first step and
#	fail-safe (patch_missed): replication stays off: failsafe_recurring
start_test "recurring"
check "[recurring] insmod ktrepl-test.ko fault_inject=1 failsafe_limit=2 audit_in_failsafe=1 audit_period_ms=0" \
	insmod /lib/modules/ktrepl-test.ko fault_inject=1 failsafe_limit=2 \
	audit_in_failsafe=1 audit_period_ms=0
if [ "$act" = mm ]; then
	taskset -c "$(cat /sys/devices/system/node/node$R/cpulist)" \
		sh -c 'while :; do read x < /proc/self/stat; done' &
	spinner=$!
fi
check "[recurring] activation $act is in force" wait_for 5 on_node_tables
n0=$(fs failsafe)
a0=$(fs audit_repairs)
check "[recurring] inject 'miss kind=audit', found by no pass yet" \
	sh -c "echo 'miss kind=audit sym=$cold off=4' > $D/inject"
check "[recurring] inject 'miss kind=mirror'" \
	sh -c "echo 'miss kind=mirror' > $D/inject"
check "[recurring] miss 1: a fail-safe event is counted" \
	wait_for 10 event_after $n0 mirror_missed
check "[recurring] and it resumed: failsafe_active=0" wait_for 10 ended
# a second event would follow the first at once (its trip queued the work)
sleep 1
check "[recurring] the audit in the window found the stale page (audit_repairs $a0 -> $(fs audit_repairs))" \
	sh -c "[ $(fs audit_repairs) -gt $a0 ]"
check "[recurring] its trip was the event under repair: failsafe=$(fs failsafe), want $((n0 + 1)), resumed" \
	events_are $((n0 + 1)) 0
miss_patch
check "[recurring] miss 2: a fail-safe event is counted" \
	wait_for 10 event_after $((n0 + 1)) patch_missed
recurred() {
	[ "$(fs activation)" = inactive ] && [ "$(fs failsafe_active)" = 1 ] &&
		[ "$(fs activation_reason)" = failsafe_recurring ]
}
check "[recurring] the second leaves replication off: activation_reason=failsafe_recurring" \
	wait_for 10 recurred
check "[recurring] nothing runs on the node tables" wait_for 5 all_on_master
check_log "the fail-safe's log" "...
ktrepl: fail-safe (mirror_missed): a write may have missed the replicas; every CPU and process is back on the master's tables
ktrepl: audit: a write at * reached the master but not * replica(s); the fail-safe repairs them
...
ktrepl: fail-safe: * replica page(s) recopied from the master, 0 still differ
ktrepl: fail-safe: 0 node table entries rebuilt from the master's, 0 still differ
ktrepl: fail-safe (mirror_missed): every replica equals the master again; activation resumed
ktrepl: fail-safe (patch_missed): a write may have missed the replicas; every CPU and process is back on the master's tables
ktrepl: fail-safe (patch_missed): replication stays off: failsafe_recurring
..."
ktrepl-dump --verify > /tmp/fs.out 2>&1
rc=$?
check "[recurring] verify reports the host in fail-safe (exit 1), every time" \
	sh -c "[ $rc = 1 ] && grep -q 'failsafe' /tmp/fs.out && ! ktrepl-dump --verify >/dev/null 2>&1"
[ -n "${spinner:-}" ] && kill $spinner
if [ "$DUMP" = 1 ]; then
	check_dmesg_clean
	done_testing
	echo "KTREPL-READY-FOR-DUMP"
	sleep 600
fi
check "rmmod ktrepl" rmmod ktrepl
check_dmesg_clean
done_testing
