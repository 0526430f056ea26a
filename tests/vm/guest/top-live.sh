# SPDX-License-Identifier: GPL-2.0
# ktrepl-top in batch mode on a real 2-node guest: without ktrepl, with
# the per-node workload on its node's tables and on the master's, and
# with the module unloaded under it. The host checks the figures.
# Five scenarios, each with the kernel log it must leave (lib.sh:
# start_test, check_log). ktrepl-top's frames count samples per second:
# every log check comes after the frames it follows, never inside them.
. /lib.sh
first_cpu() {
	cut -d, -f1 /sys/devices/system/node/node$1/cpulist | cut -d- -f1
}
ncpu=$(nproc)
# wait until a background ktrepl-top has written its first frame to $1
first_frame() {
	i=0
	while [ $i -lt 100 ] && [ ! -s "$1" ]; do
		sleep 0.2
		i=$((i + 1))
	done
}

# TEST: without ktrepl
# - kernel-heavy load on every CPU, one copy of the text: 2 frames
#   (the host: the master node local, the other remote)
# - ktrepl-top -b exits 0 without the module
# - --prometheus: the 2-frame window's metrics on stdout, and into a file
#   (the host: promtool accepts them; the same shares as the frames)
# - its fidelity with every CPU busy (top_fidelity: 5 frames at the
#   default event and rate, a one-page ring that cannot keep up)
# Expected log: none (ktrepl-top logs nothing, and no module is loaded).
start_test "without ktrepl"
c=0
while [ $c -lt $ncpu ]; do
	taskset -c $c sh -c 'while :; do cat /proc/self/stat >/dev/null; done' &
	c=$((c + 1))
done
emit plain ktrepl-top -j -n 2 -d 1
check "ktrepl-top without ktrepl.ko exits 0" ktrepl-top -b -n 1 -d 0.3
# the same window as Prometheus metrics: on stdout, and into a file put
# in place whole after every frame
emit prom ktrepl-top -n 2 -d 1 --prometheus
check "ktrepl-top --prometheus=FILE exits 0" \
	ktrepl-top -n 2 -d 1 --prometheus=/tmp/top.prom
emit prom_file cat /tmp/top.prom
check "--prometheus=FILE leaves no temporary file" \
	sh -c "! ls /tmp/top.prom.* 2>/dev/null"
kill $(jobs -p)
wait 2>/dev/null
top_fidelity
check_log "ktrepl-top alone leaves no message" ""

# TEST: bad input
# - each of these exits 2 and says why: an unknown option, a delay of 0,
#   a rate of 0, an unknown event, cycles without a PMU, a missing or
#   error-reporting kcore, an unknown terminal, -j with --prometheus, a
#   metrics file in a missing directory, a debugfs of another ABI, an
#   unprivileged user (with or without the root check)
# Expected log: none.
start_test "bad input"
top_fails() {
	want=$1
	shift
	"$@" >/tmp/out 2>&1
	rc=$?
	if [ $rc = 2 ] && grep -q -- "$want" /tmp/out; then
		ok "'$*' exits 2 naming '$want'"
	else
		not_ok "'$*' exits 2 naming '$want' (rc=$rc: $(head -c 300 /tmp/out))"
	fi
}
top_fails "unknown option" ktrepl-top --bogus
top_fails "delay is 0.1" ktrepl-top -b -d 0
top_fails "1 to 100000 Hz" ktrepl-top -b --sample-rate 0
top_fails "--functions -1: not a count" ktrepl-top -b --functions -1
top_fails "cpu-clock or cycles" ktrepl-top -b --event instructions
# QEMU's x86 TCG CPUs have no PMU
top_fails "use the cpu-clock event" ktrepl-top -b -n 1 --event cycles
top_fails "/nonexistent: No such file" ktrepl-top -b -n 1 --kcore /nonexistent
top_fails '"error":' ktrepl-top -j -n 1 --kcore /nonexistent
top_fails "TERM=nonexistent" env TERM=nonexistent ktrepl-top -n 1
top_fails "-j or --prometheus, not both" ktrepl-top -j --prometheus
top_fails "/nonexistent/top.prom.*: No such file" \
	ktrepl-top -n 1 -d 0.3 --prometheus=/nonexistent/top.prom
mkdir -p /tmp/badabi
echo 99 > /tmp/badabi/abi
top_fails "ABI version 99" ktrepl-top -b -n 1 --debugfs /tmp/badabi
# the initramfs root is 0700: let an unprivileged user run anything
chmod 755 /
echo "nobody:x:65534:65534::/:/bin/sh" > /etc/passwd
echo "nobody:x:65534:" > /etc/group
top_fails "perf_event_paranoid" su nobody -s /bin/sh -c "ktrepl-top -b -n 1"
top_fails "perf_event_paranoid" su nobody -s /bin/sh -c \
	"KTREPL_NO_ROOT_CHECK=1 ktrepl-top -b -n 1"
check_log "refused runs leave no message" ""

# TEST: the module arrives under ktrepl-top
# - ktrepl-top -j -n 8 in the background; once its first frame is out,
#   insmod ktrepl.ko activation=workload and start the workers: it
#   resolves through the workers' tables without a restart (the host
#   reads its frames)
# - ktrepl-dump with kcore unreadable: a copy of the state it can read,
#   and the real /proc/kcore, which only root may open; a file that is
#   no ELF core
# Expected log (load_log): the background ktrepl-top, the load's (no
# activation line: the workers start on a control write); nothing for
# the workers or the refused dumps.
start_test "the module arrives under ktrepl-top"
# before ktrepl-top starts: load_log reads /proc/modules and kallsyms
loaded=$(load_log /lib/modules/ktrepl.ko activation=workload)
step "ktrepl-top in the background, then the module"
log_cmd "ktrepl-top -j -n 8 -d 0.5 &"
ktrepl-top -j -n 8 -d 0.5 >/tmp/attach.json 2>/tmp/attach.err &
pid=$!
# its first frame is out before the module comes (startup is slow in TCG)
first_frame /tmp/attach.json
check "insmod ktrepl.ko" logged insmod /lib/modules/ktrepl.ko activation=workload
echo start > $D/workload_ctl
wait $pid
check "ktrepl-top that saw the module arrive exits 0" [ $? = 0 ]
echo stop > $D/workload_ctl
emit attach cat /tmp/attach.json
step "ktrepl-dump where kcore cannot be read"
# ktrepl-dump with kcore unreadable: a copy of the state it can read,
# and the real /proc/kcore, which only root may open
mkdir -p /tmp/dbgcopy
for f in abi summary replicas pgds tasks; do cat $D/$f > /tmp/dbgcopy/$f; done
chmod -R a+rX /tmp/dbgcopy
top_fails "/proc/kcore: Permission denied (reading kcore needs root)" \
	su nobody -s /bin/sh -c \
	"KTREPL_NO_ROOT_CHECK=1 ktrepl-dump --debugfs /tmp/dbgcopy verify"
top_fails "/proc/version: not an ELF core file" \
	ktrepl-dump --kcore /proc/version verify
check_log "the load's log, and none for the workers or the dumps" \
	"% ktrepl-top -j -n 8 -d 0.5 &
$loaded"

# TEST: the workload's locality
# - the workers on their nodes' tables: 3 frames, with ktrepl-top itself
#   on the master node, where its own kernel work is local either way,
#   so it does not colour the other nodes' figures; the workers' tasks
#   before and after (sampling only measures)
# - the workers on the master's tables: 2 frames, and 1 frame of at
#   most one hot remote function (--functions 1)
# Expected log: none (moving the workers logs nothing).
start_test "the workload's locality"
M=$(head -n1 $D/summary | kv master_node)
MC=$(first_cpu $M)
echo "MASTER-NODE $M"
check "the workload starts on the nodes' tables" sh -c "echo start > $D/workload_ctl"
sleep 1
emit tasks_before cat $D/tasks
emit workload taskset -c $MC ktrepl-top -j -n 3 -d 1
emit tasks_after cat $D/tasks
check "the workload moves to the master's tables" \
	sh -c "echo 'start master' > $D/workload_ctl"
sleep 1
emit master taskset -c $MC ktrepl-top -j -n 2 -d 1
emit master_f1 taskset -c $MC ktrepl-top -j -n 1 -d 1 --functions 1
emit tasks_master cat $D/tasks
check_log "the workers run and move without a message" ""

# TEST: the module leaves under ktrepl-top
# - the workers on their tables; ktrepl-top -j -n 6 in the background on
#   the master node; once its first frame is out, stop the workers and
#   rmmod: it carries on, and its frames say the module is gone
# Expected log: the background ktrepl-top and the unload's; no WARN,
# BUG or oops in the whole run.
start_test "the module leaves under ktrepl-top"
echo start > $D/workload_ctl
log_cmd "taskset -c $MC ktrepl-top -j -n 6 -d 0.5 &"
taskset -c $MC ktrepl-top -j -n 6 -d 0.5 >/tmp/unload.json 2>/tmp/unload.err &
pid=$!
first_frame /tmp/unload.json
echo stop > $D/workload_ctl
check "rmmod ktrepl while ktrepl-top runs" logged rmmod ktrepl
wait $pid
check "ktrepl-top carries on and exits 0 after the module left" [ $? = 0 ]
emit unload cat /tmp/unload.json
check_log "the unload's log" "% taskset -c $MC ktrepl-top -j -n 6 -d 0.5 &
$(unload_log)"
check_dmesg_clean
done_testing
