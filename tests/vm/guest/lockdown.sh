# SPDX-License-Identifier: GPL-2.0
# Kernel lockdown raised at run time after ktrepl.ko is loaded (issue 26),
# the way Secure Boot hosts run (Debian: lockdown=integrity).
#
# Steps:
#   1. load the test build; hold the inject file open (debugfs checks
#      lockdown at open, so the held descriptor is the test's only way to
#      damage a replica once lockdown is up);
#   2. integrity: every live command works as without lockdown: summary,
#      diff, walk, verify healthy, ktrepl-top frames; a flipped byte is
#      caught (exit 1) and named; the control files are refused;
#   3. confidentiality: /proc/kcore is refused; each tool exits 2 with a
#      message naming kernel lockdown, never "needs root".
# Expected log (lib.sh: start_test, check_log): none (the flip and the
# flip back log nothing, and the tools read without a message).
. /lib.sh
L=/sys/kernel/security/lockdown
check "insmod ktrepl-test.ko fault_inject=1" \
	insmod /lib/modules/ktrepl-test.ko fault_inject=1
R=$(grep 'role=replica' $D/summary | head -n1 | kv node)
exec 3> $D/inject
mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
check "the kernel has the lockdown LSM ($(cat $L 2>/dev/null))" test -r $L
start_test "integrity"
echo integrity > $L
check "lockdown is integrity now" grep -q '\[integrity\]' $L
check "a control file is refused under lockdown" \
	sh -c "! echo stop > $D/workload_ctl 2>/dev/null"
check "ktrepl-dump summary works" sh -c "ktrepl-dump summary > /tmp/s.out 2>&1"
sed 's/^/# /' /tmp/s.out | head -n 3
check "ktrepl-dump -j summary works" sh -c "ktrepl-dump -j summary > /dev/null"
check "ktrepl-dump diff: identical (exit 0)" ktrepl-dump diff
check "ktrepl-dump walk --node $R --region text works" \
	sh -c "ktrepl-dump walk --node $R --region text | grep -q ."
ktrepl-dump --verify > /tmp/v.out 2>&1
rc=$?
sed 's/^/# /' /tmp/v.out | tail -n 3
check "ktrepl-dump --verify: healthy (exit 0)" test $rc = 0
check "ktrepl-top -b -n 1 gives a frame" \
	sh -c "ktrepl-top -j -n 1 -d 1 > /tmp/t.out 2>&1 && grep -q frame /tmp/t.out"
quiesce_audit
check "inject through the descriptor opened before lockdown" \
	sh -c "echo 'flip node=$R sym=int_sqrt off=4' >&3"
ktrepl-dump --verify > /tmp/v.out 2>&1
rc=$?
sed 's/^/# /' /tmp/v.out | head -n 4
check "verify under lockdown catches the flip (exit 1)" test $rc = 1
check "and names int_sqrt+0x4 on node $R" \
	grep -q "node $R .*int_sqrt+0x4" /tmp/v.out
check "inject: flip it back" sh -c "echo 'flip node=$R sym=int_sqrt off=4' >&3"
exec 3>&-
check_log "the tools read without a message" \
	""

start_test "confidentiality"
echo confidentiality > $L
check "lockdown is confidentiality now" grep -q '\[confidentiality\]' $L
for cmd in "ktrepl-dump --verify" "ktrepl-dump summary" "ktrepl-dump diff" \
	"ktrepl-top -b -n 1 -d 1"; do
	$cmd > /tmp/c.out 2>&1
	rc=$?
	sed 's/^/# /' /tmp/c.out | head -n 2
	check "confidentiality: '$cmd' exits 2 (got $rc)" test $rc = 2
	check "confidentiality: '$cmd' names kernel lockdown, not root" \
		sh -c "grep -q 'lockdown' /tmp/c.out && ! grep -q 'needs root' /tmp/c.out"
done
check_log "refused tools leave no message" ""
check_dmesg_clean
done_testing
