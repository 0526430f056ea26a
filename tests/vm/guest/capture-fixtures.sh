# SPDX-License-Identifier: GPL-2.0
# What tests/unit reads instead of a guest: the debugfs files and the
# vmcore descriptor of one real load, taken at the same moment. One
# scenario with the kernel log it must leave (lib.sh: start_test,
# check_log), checked before the host dumps the guest.
. /lib.sh

# TEST: capture
# - insmod with activation=workload and start the workers: the fixtures
#   then have per-node tasks and a workload file with content
# - every debugfs file is printed, tagged for the host
# Expected log: load_log's (workload starts on the control write, which
# logs nothing).
want=$(load_log /lib/modules/ktrepl.ko activation=workload)
start_test "capture"
check "insmod ktrepl.ko" logged insmod /lib/modules/ktrepl.ko activation=workload
check "workload starts" sh -c "echo start > $D/workload_ctl"
sleep 1
for f in abi summary replicas pgds patches tasks workload; do
	emit "file:$f" cat $D/$f
done
for f in $D/pgtables/node*; do
	emit "file:pgtables-${f##*/}" cat "$f"
done
emit summary cat $D/summary
check_log "the load's log" "$want"
check_dmesg_clean
done_testing
# the host dumps memory now and takes the descriptor from the dump
echo KTREPL-READY-FOR-DUMP
sleep 600
