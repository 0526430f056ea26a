# SPDX-License-Identifier: GPL-2.0
# Panic on purpose; the host dumps the panicked guest (t02). No ktrepl
# here: the dump is crash's own test. One scenario; its log is checked
# just before the panic step, and t02 folds the TAP.
. /lib.sh

# TEST: panic
# - sync, check the log, then write c to /proc/sysrq-trigger: the box
#   panics in sysrq_handle_crash
# Expected log: the sync command alone (ktrepl.ko is not loaded).
start_test "panic"
echo "PANIC-CPU $(cat /proc/sys/kernel/ns_last_pid 2>/dev/null)"
logged sync
check_log "no module message" "% sync"
step "panic through sysrq"
log_cmd "echo c > /proc/sysrq-trigger"
before_panic
echo c > /proc/sysrq-trigger
