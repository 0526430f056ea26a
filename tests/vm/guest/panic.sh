# SPDX-License-Identifier: GPL-2.0
# Panic on purpose; the host dumps the panicked guest.
. /lib.sh
echo "PANIC-CPU $(cat /proc/sys/kernel/ns_last_pid 2>/dev/null)"
sync
echo c > /proc/sysrq-trigger
