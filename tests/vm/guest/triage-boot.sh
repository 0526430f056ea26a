# SPDX-License-Identifier: GPL-2.0
# The boot after a panic judges its own dump (issue 41), as
# debian/ktrepl-triage.service does at boot: the disk the capture kernel
# wrote, laid out as kdump-tools lays out /var/crash, and ktrepl-dump
# triage run in the guest, by the first kernel's tools.
. /lib.sh

# TEST: triage at boot
# - load the disk's modules and mount the capture kernel's disk
# - kdump-tools' layout: crash/STAMP/dump.STAMP, a hard link of the dump
# - ktrepl-dump triage --crash-dir --prometheus, as the unit runs it:
#   exit 1, a panic in a diverged range (the host reads the verdict and
#   the metrics)
# - a second run, as the next boot's: exit 1 again, and neither the
#   verdict nor the dump is written
# Expected log: none (no ktrepl.ko in this boot).
start_test "triage at boot"
for m in $(cat /lib/modules/disk/modules.order); do
	insmod /lib/modules/disk/$m
done
check "the dump disk appears" wait_for 10 test -b /dev/vda
check "it mounts" mount -t ext2 /dev/vda /mnt
dump=$(cat /etc/triage-dump)
stamp=202612061200
C=/mnt/crash
mkdir -p $C/$stamp
check "kdump-tools' layout: crash/$stamp/dump.$stamp" \
	ln /mnt/$dump $C/$stamp/dump.$stamp
ktrepl-dump triage --crash-dir $C --prometheus=$C/ktrepl-triage.prom \
	> /tmp/t1.out 2>&1
rc=$?
sed 's/^/# /' /tmp/t1.out | head -n 8
check "triage exits 1: the panic ran diverged text (got $rc)" test $rc = 1
emit verdict cat $C/$stamp/ktrepl-verdict.json
emit prom cat $C/ktrepl-triage.prom
seen() { stat -c '%i %Y %s' $C/$stamp/ktrepl-verdict.json $C/$stamp/dump.$stamp; }
s1=$(seen)
sleep 1
ktrepl-dump triage --crash-dir $C > /tmp/t2.out 2>&1
rc=$?
check "a second run exits 1 again (got $rc)" test $rc = 1
check "and writes neither the verdict nor the dump" \
	test "$(seen)" = "$s1"
umount /mnt
check_log "triage at boot logs nothing" ""
done_testing
