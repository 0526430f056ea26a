# SPDX-License-Identifier: GPL-2.0
# What tests/unit reads instead of a guest: the debugfs files and the
# vmcore descriptor of one real load, taken at the same moment.
. /lib.sh
check "insmod ktrepl.ko" insmod /lib/modules/ktrepl.ko activation=workload
check "workload starts" sh -c "echo start > $D/workload_ctl"
sleep 1
for f in abi summary replicas pgds patches tasks workload; do
	emit "file:$f" cat $D/$f
done
for f in $D/pgtables/node*; do
	emit "file:pgtables-${f##*/}" cat "$f"
done
emit summary cat $D/summary
check_dmesg_clean
done_testing
# the host dumps memory now and takes the descriptor from the dump
echo KTREPL-READY-FOR-DUMP
sleep 600
