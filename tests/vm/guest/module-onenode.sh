# SPDX-License-Identifier: GPL-2.0
# One memory node: the module loads and says there is nothing to do.
#
# TEST: one memory node
# - insmod: activation=none, no replica file, verify exits 2 and says
#   why; rmmod
# Expected log: "one memory node, nothing to replicate", and nothing at
# unload (nothing was allocated).
. /lib.sh
start_test "one memory node"
check "insmod on a 1-node guest" logged insmod /lib/modules/ktrepl.ko
check "summary says activation=none" \
	sh -c "head -n1 $D/summary | grep -q 'activation=none'"
check "dmesg says there is nothing to replicate" \
	sh -c "dmesg | grep -q 'nothing to replicate'"
check "no replica files are published" test ! -e $D/replicas
ktrepl-dump --verify > /tmp/out 2>&1
rc=$?
cat /tmp/out | sed 's/^/# /'
check "ktrepl-dump --verify exits 2 (could not check)" test $rc = 2
check "and says why" grep -q 'nothing is replicated' /tmp/out
check "rmmod" logged rmmod ktrepl
check_log "the log says there is nothing to do, once" "% insmod /lib/modules/ktrepl.ko
ktrepl: one memory node, nothing to replicate
% rmmod ktrepl"
check_dmesg_clean
done_testing
