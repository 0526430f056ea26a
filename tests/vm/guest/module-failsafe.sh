# SPDX-License-Identifier: GPL-2.0
# Fail-safe (issue 26): every kind of missed write the engine can see
# takes every CPU (percpu) or bound process (mm) off the node tables,
# recopies the replicas, checks them, and only then resumes activation.
#
# One scenario per kind of miss, each forced through the test build's
# "miss" inject (lib.sh: start_test, check_log):
#   patch  - the hook drops the next patch (a static key flip);
#   probe  - the patch probe counts a call it could not handle;
#   audit  - a replica page differs where the master changed;
#   mirror - a module-area table update is missed: not checkable in the
#            kernel, so replication stays off.
#
# DUMP=1: end with the module still in fail-safe, for the host to dump
# the guest and read the fail-safe from the vmcore's descriptor.
. /lib.sh
DUMP=${DUMP:-0}
S=$D/summary
check "insmod ktrepl-test.ko fault_inject=1" \
	insmod /lib/modules/ktrepl-test.ko fault_inject=1
act=$(head -n1 $S | kv activation)
R=$(grep 'role=replica' $S | head -n1 | kv node)
echo "# activation=$act, replica node $R"
fs() { head -n1 $S | kv "$1"; }
# event_after N0 REASON: more than N0 events, the last for REASON
event_after() { [ "$(fs failsafe)" -gt "$1" ] && [ "$(fs failsafe_reason)" = "$2" ]; }
ended() { [ "$(fs failsafe_active)" = 0 ]; }
stays_off() {
	[ "$(fs activation)" = inactive ] && [ "$(fs failsafe_active)" = 1 ] &&
		[ "$(fs activation_reason)" = failsafe_tables_unverified ]
}
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
if [ "$act" = mm ]; then
	taskset -c "$(cat /sys/devices/system/node/node$R/cpulist)" \
		sh -c 'while :; do read x < /proc/self/stat; done' &
	spinner=$!
fi
check "activation $act is in force before any miss" wait_for 3 on_node_tables
cold=$(awk '$3 ~ /^__(x64|arm64)_sys_kexec_load$/ {print $3; exit}' /proc/kallsyms)
cold=${cold:-int_sqrt}
check "verify: healthy before" ktrepl-dump --verify

# TEST: patch, probe, audit (one scenario each)
# - inject the miss
# - a fail-safe event is counted with its reason, and it ends
# - activation is in force again
# - the first verify after it reports the event (exit 1), the next is
#   healthy
# Expected log: the first inject taints the kernel; the audit's repair
# where the audit found the miss; then the fail-safe's three steps:
#	fail-safe (REASON): a write may have missed the replicas; every CPU
#	  and process is back on the master's tables
#	fail-safe: N replica page(s) recopied from the master, 0 still differ
#	fail-safe (REASON): every replica equals the master again;
#	  activation resumed
taint="ktrepl: fault injection: tainting the kernel (TAINT_TEST)"
failsafe_log() {
	echo "ktrepl: fail-safe ($1): a write may have missed the replicas; every CPU and process is back on the master's tables"
	echo "ktrepl: fail-safe: * replica page(s) recopied from the master, 0 still differ"
	[ -n "$2" ] && echo "ktrepl: fail-safe ($1): $2"
	return 0
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
	patch) first=$taint ;;
	audit) first="ktrepl: audit: a write at $cold+0x* reached the master but not * replica(s); repaired" ;;
	*) first= ;;
	esac
	want="$first
$(failsafe_log $reason "every replica equals the master again; activation resumed")"
	if ! echo "$cmd" > $D/inject 2>/dev/null; then
		# arm64's ftrace hook has no probe to miss a call: ftrace's own
		# recursion guard is the only one, and it has no counter
		if [ $kind = probe ] && [ "$act" = percpu ]; then
			skip "[$kind]" "the patch hook is an ftrace_ops here: no probe to miss"
			continue
		fi
		not_ok "[$kind] inject '$cmd'"
		continue
	fi
	ok "[$kind] inject '$cmd'"
	# the dropped patch: a static key flip the hook sees
	[ $kind = patch ] && { echo 1 > /proc/sys/kernel/sched_schedstats
		echo 0 > /proc/sys/kernel/sched_schedstats; }
	check "[$kind] a fail-safe event is counted, reason $reason" \
		wait_for 10 event_after $n0 $reason
	check "[$kind] and it ended: failsafe_active=0" wait_for 10 ended
	dmesg | grep 'ktrepl: \(audit\|fail-safe\)' | tail -n 4 | sed 's/^/# /'
	check "[$kind] the log says everyone went back to the master first" \
		sh -c "dmesg | grep -q 'fail-safe ($reason): .*back on the master'"
	check "[$kind] the log says the replicas were checked before resuming" \
		sh -c "dmesg | grep -q 'fail-safe ($reason): every replica equals the master again; activation resumed'"
	check "[$kind] activation $act is in force again" wait_for 5 on_node_tables
	ktrepl-dump --verify > /tmp/fs.out 2>&1
	rc=$?
	sed 's/^/# /' /tmp/fs.out | head -n 6
	check "[$kind] the first verify after it reports the fail-safe (exit 1)" \
		sh -c "[ $rc = 1 ] && grep -q 'failsafe' /tmp/fs.out"
	check "[$kind] the next verify is healthy: every replica equals the master" \
		ktrepl-dump --verify
	check_log "the fail-safe's log" "$want"
done

# TEST: mirror
# - inject a missed module-area table update
# - a fail-safe event is counted, and replication stays off: nothing
#   runs on the node tables
# - verify reports the host in fail-safe (exit 1), every time
# Expected log: the first two of the fail-safe's steps, then
#	fail-safe (mirror_missed): replication stays off:
#	  failsafe_tables_unverified
start_test "mirror"
n0=$(fs failsafe)
check "[mirror] inject 'miss kind=mirror'" \
	sh -c "echo 'miss kind=mirror' > $D/inject"
check "[mirror] a fail-safe event is counted, reason mirror_missed" \
	wait_for 10 event_after $n0 mirror_missed
check "[mirror] replication stays off: activation=inactive, failsafe_active=1" \
	wait_for 10 stays_off
# every CPU on the master's root (percpu), no process bound (mm)
all_on_master() {
	if [ "$act" = percpu ]; then
		_m=$(head -n1 $S | kv master_root_pa)
		! grep '^cpu=' $D/pgds | grep -qv "loaded_root_pa=$_m "
	else
		! grep -q '^pid=' $D/bind
	fi
}
check "[mirror] nothing runs on the node tables" wait_for 5 all_on_master
ktrepl-dump --verify > /tmp/fs.out 2>&1
rc=$?
check "[mirror] verify reports the host in fail-safe (exit 1), every time" \
	sh -c "[ $rc = 1 ] && grep -q 'failsafe' /tmp/fs.out && ! ktrepl-dump --verify >/dev/null 2>&1"
check_log "the fail-safe's log" \
	"$(failsafe_log mirror_missed "replication stays off: failsafe_tables_unverified")"
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
