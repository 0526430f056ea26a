# SPDX-License-Identifier: GPL-2.0
# The record kinds the main capture cannot hold (capture-fixtures.py
# --mods): module extents in replicas, and patch records in patches, of
# one real load. One scenario with the kernel log it must leave.
. /lib.sh
B=/lib/modules/ktrepl_bench_text.ko
K=/sys/kernel/debug/ktrepl_bench_text/static_key

# TEST: capture modules and patches
# - insmod ktrepl.ko, then the bench module (replicated: module extents)
# - flip its static key twice: text patches of a replicated module, each
#   a seq= record naming the module
# - replicas and patches printed, tagged for the host
# Expected log: the load's, the bench module's replication line.
want=$(load_log /lib/modules/ktrepl.ko)
start_test "capture modules and patches"
check "insmod ktrepl.ko" logged insmod /lib/modules/ktrepl.ko
check "insmod the bench module" logged insmod $B
check "flip its static key" sh -c "echo 1 > $K"
check "and back" sh -c "echo 0 > $K"
check "replicas lists module extents" grep -q 'region=module' $D/replicas
check "patches lists patch records" grep -q '^seq=' $D/patches
for f in replicas patches; do
	emit "file:$f" cat $D/$f
done
check_log "the loads' log" "$want
% insmod $B
$(module_replicated_log ktrepl_bench_text)"
check_dmesg_clean
done_testing
