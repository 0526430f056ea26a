# SPDX-License-Identifier: GPL-2.0
# activation=mm for a vmcore: one confined process per node, bound, and
# the master node's then pointed at another node's set by fault injection
# (t04 dumps the guest). Two scenarios, each with the kernel log it must
# leave (lib.sh: start_test, check_log); the host folds their TAP.
. /lib.sh

# TEST: bound
# - insmod the test build (fault_inject=1): activation=mm
# - one spinner per node, confined to the node's CPUs (taskset)
# - every spinner is bound within a second; verify is healthy
# Expected log (load_log): the load's, and the spinners' taskset
# commands; binding logs nothing.
start_test "bound"
want=$(load_log /lib/modules/ktrepl-test.ko fault_inject=1)
check "insmod ktrepl-test.ko fault_inject=1" \
	logged insmod /lib/modules/ktrepl-test.ko fault_inject=1
M=$(head -n1 $D/summary | kv master_node)
spin='while :; do read x < /proc/self/stat; done'
spinners=
for n in $(ls -d /sys/devices/system/node/node[0-9]* | sed 's/.*node//'); do
	cpus=$(cat /sys/devices/system/node/node$n/cpulist)
	log_cmd "taskset -c $cpus sh -c '$spin' &"
	spinners="$spinners
% taskset -c $cpus sh -c '$spin' &"
	taskset -c "$cpus" sh -c "$spin" &
	[ $n = $M ] && victim=$!
	[ $n != $M ] && other=$n
done
sleep 1
check "every spinner is bound" test "$(grep -c '^pid=' $D/bind)" -ge 2
check "verify: healthy" ktrepl-dump --verify
check_log "the load's log; binding logs nothing" "$want
$spinners"

# TEST: wrong set
# - inject mm: the master node's spinner's mm is pointed at another
#   node's set, for verify on the dump to find (mm-entry)
# - the victim and the bind file, for the host
# Expected log: the inject command.
start_test "wrong set"
log_cmd "echo 'mm pid=$victim node=$other' > $D/inject"
check "inject mm into the master node's spinner" \
	sh -c "echo 'mm pid=$victim node=$other' > $D/inject"
echo "VICTIM $victim $other"
emit bind cat $D/bind
check_log "the inject logs nothing" \
	"% echo 'mm pid=$victim node=$other' > $D/inject"
echo KTREPL-READY-FOR-DUMP
sleep 600
