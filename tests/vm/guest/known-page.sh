# SPDX-License-Identifier: GPL-2.0
# Read the first page of kernel code through /proc/kcore with our own
# memory source, print it, then wait for the host to dump memory.
. /lib.sh
pa=$(awk -F'[- :]+' '/Kernel code/ {print $2; exit}' /proc/iomem)
check "found the kernel code physical address in /proc/iomem" test -n "$pa"
echo "KNOWN-PA 0x$pa"
if ktrepl-dump -j read "0x$pa" 4096 > /tmp/page.json; then
	ok "ktrepl-dump read the page through /proc/kcore"
else
	not_ok "ktrepl-dump read the page through /proc/kcore"
fi
echo "KNOWN-PAGE $(cat /tmp/page.json)"
check_dmesg_clean
done_testing
echo "KTREPL-READY-FOR-DUMP"
# the host dumps memory now and then kills the guest
sleep 600
