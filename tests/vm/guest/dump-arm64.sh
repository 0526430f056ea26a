# SPDX-License-Identifier: GPL-2.0
# arm64: a flipped replica byte, live and then from a vmcore that has
# no VMCOREINFO line for ktrepl (found by the descriptor scan).
. /lib.sh
insmod /lib/modules/ktrepl-test.ko fault_inject=1
R=$(grep 'role=replica' $D/summary | head -n1 | kv node)
quiesce_audit
echo "flip node=$R sym=int_sqrt off=4" > $D/inject
emit verify ktrepl-dump -j --verify
done_testing
echo "KTREPL-READY-FOR-DUMP"
sleep 600
