# SPDX-License-Identifier: GPL-2.0
# ktrepl-top in batch mode on a real 2-node guest: without ktrepl, with
# the per-node workload on its node's tables and on the master's, and
# with the module unloaded under it. The host checks the figures.
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

# without ktrepl: kernel-heavy load on every CPU, one copy of the text
c=0
while [ $c -lt $ncpu ]; do
	taskset -c $c sh -c 'while :; do cat /proc/self/stat >/dev/null; done' &
	c=$((c + 1))
done
emit plain ktrepl-top -j -n 2 -d 1
check "ktrepl-top without ktrepl.ko exits 0" ktrepl-top -b -n 1 -d 0.3
kill $(jobs -p)
wait 2>/dev/null
top_fidelity

# bad input: each exits 2 and says why
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
top_fails "cpu-clock or cycles" ktrepl-top -b --event instructions
# QEMU's x86 TCG CPUs have no PMU
top_fails "use the cpu-clock event" ktrepl-top -b -n 1 --event cycles
top_fails "/nonexistent: No such file" ktrepl-top -b -n 1 --kcore /nonexistent
top_fails '"error":' ktrepl-top -j -n 1 --kcore /nonexistent
top_fails "TERM=nonexistent" env TERM=nonexistent ktrepl-top -n 1
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

# ktrepl.ko arrives while ktrepl-top runs: it starts resolving through
# the workers' tables without a restart
ktrepl-top -j -n 8 -d 0.5 >/tmp/attach.json 2>/tmp/attach.err &
pid=$!
# its first frame is out before the module comes (startup is slow in TCG)
first_frame /tmp/attach.json
check "insmod ktrepl.ko" insmod /lib/modules/ktrepl.ko activation=workload
echo start > $D/workload_ctl
wait $pid
check "ktrepl-top that saw the module arrive exits 0" [ $? = 0 ]
echo stop > $D/workload_ctl
emit attach cat /tmp/attach.json
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
M=$(head -n1 $D/summary | kv master_node)
MC=$(first_cpu $M)
echo "MASTER-NODE $M"
# ktrepl-top itself runs on the master node, where its own kernel work
# is local either way, so it does not colour the other nodes' figures
check "the workload starts on the nodes' tables" sh -c "echo start > $D/workload_ctl"
sleep 1
emit tasks_before cat $D/tasks
emit workload taskset -c $MC ktrepl-top -j -n 3 -d 1
emit tasks_after cat $D/tasks
check "the workload moves to the master's tables" \
	sh -c "echo 'start master' > $D/workload_ctl"
sleep 1
emit master taskset -c $MC ktrepl-top -j -n 2 -d 1
emit tasks_master cat $D/tasks

# the module goes away under a running ktrepl-top
echo start > $D/workload_ctl
taskset -c $MC ktrepl-top -j -n 6 -d 0.5 >/tmp/unload.json 2>/tmp/unload.err &
pid=$!
first_frame /tmp/unload.json
echo stop > $D/workload_ctl
check "rmmod ktrepl while ktrepl-top runs" rmmod ktrepl
wait $pid
check "ktrepl-top carries on and exits 0 after the module left" [ $? = 0 ]
emit unload cat /tmp/unload.json
check_dmesg_clean
done_testing
