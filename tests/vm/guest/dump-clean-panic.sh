# SPDX-License-Identifier: GPL-2.0
# A panic that has nothing to do with replication (t04 dumps the
# panicked guest). One scenario; its log is checked just before the
# panic step, and t04 folds the TAP.
. /lib.sh

# TEST: clean panic
# - insmod the shipped module: activation=mm, nothing diverged
# - check the log, then write c to /proc/sysrq-trigger: the box panics
#   on the master's text
# Expected log (load_log): the load's. The panic follows the check.
start_test "clean panic"
want=$(load_log /lib/modules/ktrepl.ko)
check "insmod ktrepl.ko" logged insmod /lib/modules/ktrepl.ko
check_log "the load's log" "$want"
step "panic through sysrq"
sync
log_cmd "echo c > /proc/sysrq-trigger"
before_panic
echo c > /proc/sysrq-trigger
