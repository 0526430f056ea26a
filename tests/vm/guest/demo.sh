# SPDX-License-Identifier: GPL-2.0
# What `make demo` shows: a 2-node guest, its replicas, the health check,
# a walk, and an injected divergence being caught.
. /lib.sh
say() { printf '\n### %s\n' "$*"; }
run() { echo "\$ $*"; "$@"; echo "(exit $?)"; }
say "guest NUMA topology"
for n in /sys/devices/system/node/node[0-9]*; do
	echo "${n##*/}: cpus $(cat "$n/cpulist"), $(awk '/MemTotal/ {print $4, $5}' "$n/meminfo")"
done
say "load ktrepl.ko: it builds real per-node replicas and page tables"
run insmod /lib/modules/ktrepl-test.ko fault_inject=1
run head -n 3 $D/summary
run ktrepl-dump summary
say "the fleet health check"
run ktrepl-dump --verify
R=$(grep 'role=replica' $D/summary | head -n1 | kv node)
say "node $R's own page tables over kernel text (first mappings)"
ktrepl-dump walk --node "$R" --region text | head -n 4
say "node $R's tables for int_sqrt, level by level"
run ktrepl-dump walk --node "$R" --va "$(awk '/ int_sqrt$/ {print "0x"$1}' /proc/kallsyms)"
say "per-node kernel threads run on their node's tables"
echo start > $D/workload_ctl
sleep 2
run cat $D/tasks
M=$(head -n1 $D/summary | kv master_node)
MC=$(cut -d, -f1 /sys/devices/system/node/node$M/cpulist | cut -d- -f1)
say "ktrepl-top: where each node's CPUs fetch kernel text from (2 frames)"
run taskset -c $MC ktrepl-top -b -n 2 -d 1 --functions 3
say "the same workers on the master's tables: node $R's fetches go remote"
echo 'start master' > $D/workload_ctl
sleep 1
run taskset -c $MC ktrepl-top -b -n 1 -d 1 --functions 3
echo stop > $D/workload_ctl
say "activation=mm: a process confined to node $R's CPUs runs on node $R's set"
taskset -c "$(cat /sys/devices/system/node/node$R/cpulist)" \
	sh -c 'while :; do read x < /proc/self/stat; done' &
sleep 1
run cat $D/bind
run taskset -c $MC ktrepl-top -b -n 1 -d 1 --functions 3
kill $!
say "a runtime patch (static key) reaches every replica"
echo 1 > /proc/sys/kernel/sched_schedstats
run head -n 1 $D/patches
run ktrepl-dump --verify
say "inject a one-byte divergence into node $R's copy of vfs_read"
echo "flip node=$R sym=vfs_read off=3" > $D/inject
run ktrepl-dump --verify
run ktrepl-dump diff
