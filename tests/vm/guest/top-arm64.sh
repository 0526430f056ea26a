# SPDX-License-Identifier: GPL-2.0
# ktrepl-top on arm64: without ktrepl (paging from VMCOREINFO); with
# replication inactive, where everything runs on the master's tables; and
# with activation=percpu, where every CPU runs on its node's. Three
# scenarios, each with the kernel log it must leave (lib.sh: start_test,
# check_log), checked after ktrepl-top's frames, never during them.
. /lib.sh
first_cpu() {
	cut -d, -f1 /sys/devices/system/node/node$1/cpulist | cut -d- -f1
}

# TEST: without ktrepl
# - kernel-heavy load on every CPU: 1 frame, every sample resolved
#   through swapper_pg_dir (the host: the text found on the master node)
# Expected log: none.
start_test "without ktrepl"
c=0
while [ $c -lt $(nproc) ]; do
	taskset -c $c sh -c 'while :; do cat /proc/self/stat >/dev/null; done' &
	c=$((c + 1))
done
emit plain ktrepl-top -j -n 1 -d 1
kill $(jobs -p)
wait 2>/dev/null
check_log "ktrepl-top alone leaves no message" ""

# TEST: replication inactive
# - insmod ktrepl-test.ko activation=inactive (its workers run beside
#   inactive); start the workers: 2 frames on the master node, none on
#   a node's tables; stop them
# - busybox loops on every CPU: 1 frame (the other node fetches the
#   master's text)
# - rmmod
# Expected log: the load's, with no activation line (asked for, inactive
# has no reason to give), and the unload's.
start_test "replication inactive"
mod="/lib/modules/ktrepl-test.ko activation=inactive"
want=$(load_log $mod)
check "insmod ktrepl-test.ko activation=inactive (its workers run beside inactive)" \
	logged insmod $mod
M=$(head -n1 $D/summary | kv master_node)
echo "MASTER-NODE $M"
check "the workload starts" sh -c "echo start > $D/workload_ctl"
sleep 1
emit inactive taskset -c $(first_cpu $M) ktrepl-top -j -n 2 -d 1
echo stop > $D/workload_ctl
start_load
emit inactive_load ktrepl-top -j -n 1 -d 1
stop_load
check "rmmod ktrepl" logged rmmod ktrepl
check_log "the load's log and the unload's" "$want
$(unload_log)"

# TEST: percpu
# - insmod ktrepl.ko: activation percpu (arm64's default)
# - busybox loops on every CPU: 2 frames with the process view (every
#   node fetches its own text; every process on its CPU's node's set),
#   3 with --event cycles (the emulated PMU: the frequency-mode
#   start-up burst is discarded), then ktrepl-top's fidelity
#   (top_fidelity)
# - rmmod
# Expected log (load_log, unload_log): the load's and the unload's,
# nothing between; no WARN, BUG or oops in the whole run.
start_test "percpu"
want=$(load_log /lib/modules/ktrepl.ko)
check "insmod ktrepl.ko (percpu)" logged insmod /lib/modules/ktrepl.ko
check "activation is percpu" \
	test "$(head -n1 $D/summary | kv activation)" = percpu
start_load
emit percpu ktrepl-top -j -n 2 -d 1 --processes
# the emulated PMU's cycles: the frequency-mode start-up burst is discarded
emit fid_cycles ktrepl-top -j -n 3 -d 1 --event cycles
stop_load
top_fidelity
check "rmmod ktrepl" logged rmmod ktrepl
check_log "the load's log and the unload's, nothing between" "$want
$(unload_log)"
check_dmesg_clean
done_testing
