# SPDX-License-Identifier: GPL-2.0
# Read the first page of kernel code through /proc/kcore with our own
# memory source, print it, then wait for the host to dump memory (t02,
# which folds the TAP). No ktrepl here: the host checks that its vmcore
# holds the same bytes.
. /lib.sh

# TEST: known page
# - the kernel code's physical address from /proc/iomem
# - ktrepl-dump -j read of its first page through /proc/kcore, for the
#   host to compare with the vmcore's
# Expected log: none (ktrepl.ko is not loaded, and reading /proc/kcore
# logs nothing).
start_test "known page"
pa=$(awk -F'[- :]+' '/Kernel code/ {print $2; exit}' /proc/iomem)
check "found the kernel code physical address in /proc/iomem" test -n "$pa"
echo "KNOWN-PA 0x$pa"
if ktrepl-dump -j read "0x$pa" 4096 > /tmp/page.json; then
	ok "ktrepl-dump read the page through /proc/kcore"
else
	not_ok "ktrepl-dump read the page through /proc/kcore"
fi
echo "KNOWN-PAGE $(cat /tmp/page.json)"
check_log "reading the page leaves no message" ""
check_dmesg_clean
done_testing
echo "KTREPL-READY-FOR-DUMP"
# the host dumps memory now and then kills the guest
sleep 600
