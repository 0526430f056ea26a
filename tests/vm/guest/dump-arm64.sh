# SPDX-License-Identifier: GPL-2.0
# arm64: a flipped replica byte, live and then from a vmcore that has
# no VMCOREINFO line for ktrepl (found by the descriptor scan; t04 dumps
# the guest). One scenario with the kernel log it must leave (lib.sh:
# start_test, check_log); the host folds its TAP.
. /lib.sh

# TEST: flip
# - insmod the test build (fault_inject=1): activation=percpu
# - stop the audit and wait for patching to calm down (quiesce_audit),
#   so that the flip survives until the dump
# - flip int_sqrt+0x4 in node R's replica
# - ktrepl-dump -j --verify, for the host to compare with the dump's
# Expected log (load_log): the load's; the inject command; stopping the
# audit and verify log nothing.
start_test "flip"
want=$(load_log /lib/modules/ktrepl-test.ko fault_inject=1)
check "insmod ktrepl-test.ko fault_inject=1" \
	logged insmod /lib/modules/ktrepl-test.ko fault_inject=1
R=$(grep 'role=replica' $D/summary | head -n1 | kv node)
quiesce_audit
log_cmd "echo 'flip node=$R sym=int_sqrt off=4' > $D/inject"
check "inject: flip int_sqrt+0x4 on node $R" \
	sh -c "echo 'flip node=$R sym=int_sqrt off=4' > $D/inject"
emit verify ktrepl-dump -j --verify
check_log "the load's log and the inject command" "$want
% echo 'flip node=$R sym=int_sqrt off=4' > $D/inject"
done_testing
echo "KTREPL-READY-FOR-DUMP"
sleep 600
