# SPDX-License-Identifier: GPL-2.0
# ktrepl-top's cost: its own CPU time, and the workload's rate with and
# without sampling (1 s refresh, 1 kHz per CPU); busybox top at the same
# refresh is the peer for CPU time.
. /lib.sh
insmod /lib/modules/ktrepl.ko activation=workload
echo start > $D/workload_ctl
M=$(head -n1 $D/summary | kv master_node)
MC=$(cut -d, -f1 /sys/devices/system/node/node$M/cpulist | cut -d- -f1)
taskset -p $((1 << MC)) $$ >/dev/null
sleep 1
iters() {
	s=0
	for i in $(kv iterations < $D/tasks); do s=$((s + i)); done
	echo $s
}
uptime_cs() {
	cut -d' ' -f1 /proc/uptime | tr -d .
}
# the task's time on a CPU in ns (schedstat: the scheduler's own clock),
# not utime+stime, which charge a whole 10 ms tick to whatever runs when
# it fires: a tool that wakes briefly once a second got 0 or 2 of them
cpu_ns() {
	set -- $(cat /proc/$1/schedstat)
	echo $1
}
# measure 5 s: the workload's iterations and, if given, a process's CPU
# time
window() {
	i0=$(iters)
	t0=$(uptime_cs)
	c0=0
	[ -n "$1" ] && c0=$(cpu_ns $1)
	sleep 5
	i1=$(iters)
	t1=$(uptime_cs)
	c1=0
	[ -n "$1" ] && c1=$(cpu_ns $1)
	echo "iterations=$((i1 - i0)) centisec=$((t1 - t0)) cpu_ns=$((c1 - c0))"
}
# steady state only: startup (reading kallsyms) is not the cost per second
started() {
	i=0
	while [ $i -lt 100 ] && ! grep -q "$2" $1 2>/dev/null; do
		sleep 0.2
		i=$((i + 1))
	done
}
round=0
while [ $round -lt 3 ]; do
	emit base window
	taskset -c $MC ktrepl-top -b -d 1 -n 30 >/tmp/top.out &
	pid=$!
	started /tmp/top.out "frame 2"
	emit sampled window $pid
	kill $pid
	wait $pid
	taskset -c $MC top -b -d 1 -n 30 >/tmp/peer.out &
	pid=$!
	sleep 2
	emit peer window $pid
	kill $pid
	wait $pid
	round=$((round + 1))
done
echo stop > $D/workload_ctl
rmmod ktrepl
done_testing
