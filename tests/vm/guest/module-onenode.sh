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

# TEST: untested series
# - the test build's untested_series=1 stands for a kernel series the
#   tests do not cover (KTR_COMPAT_TESTED_SERIES): insmod is refused,
#   the log says which series are tested and how to load anyway, and
#   nothing is tainted
# - with allow_untested=1 it loads, says so, and taints (TAINT_USER,
#   bit 6); rmmod
# Expected log: the refusal (twice: busybox's insmod tries both calls);
# then the warning, the load's, the unload.
start_test "untested series"
U=/lib/modules/ktrepl-test.ko
tainted() { echo $(($(cat /proc/sys/kernel/tainted) >> 6 & 1)); }
check "not tainted by a user yet (got $(tainted))" test "$(tainted)" = 0
log_cmd "insmod $U untested_series=1"
insmod $U untested_series=1 2> /tmp/err
rc=$?
sed 's/^/# /' /tmp/err
check "insmod untested_series=1 is refused (rc $rc)" test $rc != 0
check "and nothing is loaded" sh -c "! grep -q '^ktrepl ' /proc/modules"
check "the refusal taints nothing (got $(tainted))" test "$(tainted)" = 0
check "insmod untested_series=1 allow_untested=1 loads" \
	logged insmod $U untested_series=1 allow_untested=1
check "and taints the kernel: TAINT_USER (got $(tainted))" \
	test "$(tainted)" = 1
check "summary says activation=none" \
	sh -c "head -n1 $D/summary | grep -q 'activation=none'"
check "rmmod" logged rmmod ktrepl
# busybox insmod tries finit_module, then init_module when that fails:
# the module's init runs, and refuses, twice
refused="ktrepl: not loaded: kernel $(uname -r) is not a series ktrepl was tested on (6.1, 6.12); allow_untested=1 loads it anyway and taints the kernel"
check_log "refused, then loaded with the taint named" "% insmod $U untested_series=1
$refused
$refused
% insmod $U untested_series=1 allow_untested=1
ktrepl: allow_untested=1: loading on untested kernel $(uname -r); tainting the kernel (TAINT_USER)
ktrepl: one memory node, nothing to replicate
% rmmod ktrepl"
check_dmesg_clean
done_testing
