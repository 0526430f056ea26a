# SPDX-License-Identifier: GPL-2.0
# x86_64 activation=mm: processes confined to one node's CPUs run on that
# node's set within a second, and leave it when they leave the node; the
# binding follows fork and exec; the bind file binds by hand; verify
# checks every bound mm; ktrepl-top sees their fetches local; and unload
# puts every mm back while they run. Scenarios, each with its kernel log
# (lib.sh: start_test, check_log): binding by itself logs nothing.
. /lib.sh
cpus_of() { cat /sys/devices/system/node/node$1/cpulist; }
nodes=$(ls -d /sys/devices/system/node/node[0-9]* | sed 's/.*node//')
all=0-$(($(nproc) - 1))
bound_line() { grep "^pid=$1 " $D/bind; }
bound_node() { bound_line "$1" | kv node; }
# shell builtins only: all its kernel work is in its own mm, no fork
spin='while :; do read x < /proc/self/stat; done'

# TEST: load
# - insmod the test build with the default activation: mm
# - the bind reader and control are there, with their modes
# Expected log: load_log's.
want=$(load_log /lib/modules/ktrepl-test.ko fault_inject=1)
start_test "load"
check "insmod ktrepl.ko (default activation)" \
	logged insmod /lib/modules/ktrepl-test.ko fault_inject=1
check "activation is mm" test "$(head -n1 $D/summary | kv activation)" = mm
check "the bind reader is there, root only, read-only (0400)" \
	test "$(stat -c %a $D/bind)" = 400
check "the bind control is write-only (0200)" \
	test "$(stat -c %a $D/bind_ctl)" = 200
M=$(head -n1 $D/summary | kv master_node)
echo "MASTER-NODE $M"
emit paging echo "$(head -n1 $D/summary | kv paging_levels)"
emit pti sh -c "dmesg | grep -i 'page tables isolation' || echo none"
check_log "the load's log" "$want"

# TEST: confined processes
# - one spinner confined to each node: bound to its node's set (a
#   memoryless node's: its memory node's) within a second
# - verify is healthy with them bound; ktrepl-top sees their fetches
#   (the host judges them)
# - fork-heavy spinners: their short-lived children bound through the
#   fork and exec probes, and listed in bind_history once gone
# - a process allowed on every node stays on the master
# Expected log: none.
start_test "confined processes"
for n in $nodes; do
	[ -n "$(cpus_of $n)" ] || continue
	taskset -c "$(cpus_of $n)" sh -c "$spin" &
	eval pid_$n=$!
done
for n in $nodes; do
	eval p=\$pid_$n
	[ -n "$p" ] || continue
	node_is() { test "$(bound_node $1)" = "$2"; }
	# a memoryless node's processes use its memory node's set
	want=$(grep "^node=$n " $D/summary | kv memory_node)
	check "a process confined to node $n is bound to node $want's set within 1 s" \
		wait_for 1 node_is $p $want
done
emit bind cat $D/bind
check "summary counts the binds" \
	test "$(head -n1 $D/summary | kv binds)" -ge 2
check "ktrepl-dump --verify: healthy with bound processes" \
	ktrepl-dump --verify
# only the bound spinners busy: their fetches, node by node
# ktrepl-top itself on the master node, bound there
emit top taskset -c "$(cpus_of $M)" ktrepl-top -j -n 2 -d 1
# fork-heavy: most kernel work in children that live a few ms, pointed
# at their set by the fork and exec probes and resolved through
# bind_history once they are gone
for n in $nodes; do
	taskset -c "$(cpus_of $n)" sh -c \
		'while :; do cat /proc/self/stat >/dev/null; done' &
	eval fork_$n=$!
done
sleep 0.5
emit top_fork taskset -c "$(cpus_of $M)" ktrepl-top -j -n 2 -d 1
check "bind_history lists bindings that ended (the forked children)" \
	test "$(grep -c '^pid=' $D/bind_history)" -gt 10
for n in $nodes; do
	eval kill \$fork_$n
done
taskset -c $all sh -c "$spin" &
free_pid=$!
sleep 0.6
check "a process allowed on every node stays on the master" \
	sh -c "! grep -q '^pid=$free_pid ' $D/bind"
check_log "binding logs nothing" ""

# TEST: leave and return, fork and exec
# - widened to every CPU, a process is unbound within 1 s; confined
#   again, bound again
# - after exec, the new mm is bound within 1 s
# - a child forked by a bound process is bound within 1 s, by the fork
#   probe: before its first step
# Expected log: none.
start_test "leave and return, fork and exec"
first=$(echo $nodes | cut -d' ' -f1)
eval p=\$pid_$first
taskset -p -c $all $p >/dev/null
check "widened to every CPU, it is unbound within 1 s" \
	wait_for 1 sh -c "! grep -q '^pid=$p ' $D/bind"
taskset -p -c "$(cpus_of $first)" $p >/dev/null
check "confined again, it is bound again within 1 s" \
	wait_for 1 bound_line $p

# fork and exec
last=$(echo $nodes | tr ' ' '\n' | tail -n1)
# The exec waits on a gate (a FIFO it holds open both ways, as the fork
# test's parent below), which the test opens once it has read the first
# mm's binding: with a sleep instead, a slow guest (LA57 under TCG, CI)
# read that binding after the exec, took the new mm for the old one and
# waited for a change that had already come.
rm -f /tmp/exec_gate
mkfifo /tmp/exec_gate
taskset -c "$(cpus_of $last)" sh -c "exec 3<>/tmp/exec_gate; read x <&3;
	exec sh -c '$spin'" &
ex=$!
check "a confined process is bound" wait_for 1 bound_line $ex
pgd_of() { bound_line $1 | kv mm_pgd_pa; }
pgd1=$(pgd_of $ex)
new_mm_bound() { _p=$(pgd_of $ex); [ -n "$_p" ] && [ "$_p" != "$pgd1" ]; }
echo go > /tmp/exec_gate
check "after exec, its new mm is bound within 1 s" wait_for 1 new_mm_bound
# The parent waits on a FIFO it holds open both ways (a shell builtin),
# not in sleep: sleep is a child of its own, which the search below once
# found instead, and which had exited before the scan could list it (the
# one failure of this check, on a busy host). The test opens the gate
# once the parent is bound. Its one child is a subshell, forked and never
# exec'd, whose first step is a line in the kernel log: bound by the fork
# probe, its binding's since_ns (local_clock(), as the log's stamps) is
# before that line; bound by the scan alone, it would almost always be
# after.
rm -f /tmp/fork_gate
mkfifo /tmp/fork_gate
taskset -c "$(cpus_of $last)" sh -c "exec 3<>/tmp/fork_gate; read x <&3;
	(echo '<5>fork-gate: the child runs' > /dev/kmsg; $spin) & wait" &
par=$!
check "the parent is bound before it forks" wait_for 1 bound_line $par
echo go > /tmp/fork_gate
child=
find_child() {
	child=$(grep -l "^PPid:.$par\$" /proc/[0-9]*/status 2>/dev/null |
		head -n1 | cut -d/ -f3)
	[ -n "$child" ]
}
check "the bound process forked a child" wait_for 10 find_child
check "a child forked by a bound process is bound within 1 s" \
	wait_for 1 bound_line "$child"
# the log's stamp in us: "[   12.345678] fork-gate: ..."
ran_us=$(dmesg | sed -n 's/^\[ *\([0-9]*\)\.\([0-9]*\)\] fork-gate: the child runs$/\1\2/p' |
	tail -n1)
since_ns=$(bound_line "$child" | kv since_ns)
if [ -n "$ran_us" ] && [ -n "$since_ns" ] &&
	[ $((since_ns / 1000)) -le $((ran_us)) ]; then
	ok "the child was bound at the fork (since ${since_ns} ns, first step at ${ran_us} us)"
else
	not_ok "the child was bound at the fork"
	echo "# got: since_ns=${since_ns:-none}, first step at ${ran_us:-none} us"
	echo "# want: since_ns/1000 <= the first step's stamp (the fork probe, not a scan)"
fi
check_log "unbinding and binding log nothing" ""

# TEST: by hand
# - bind_ctl's pid=P node=N binds an unconfined process, which outlives
#   the scan; node=-1 unbinds it
# - bad commands are refused and bind nothing: an unknown node or pid,
#   trailing junk, a node past 32 bits, a repeated key, a writer
#   without CAP_SYS_ADMIN
# - auto=0 stops binding new processes; auto=1 starts again
# Expected log: none (a refusal is the writer's error, not a message).
start_test "by hand"
echo "pid=$free_pid node=$last" > $D/bind_ctl
check "pid=P node=N binds an unconfined process by hand" \
	sh -c "grep '^pid=$free_pid ' $D/bind | grep -q 'how=manual'"
sleep 0.5
check "a manual binding outlives the scan" bound_line $free_pid
echo "pid=$free_pid node=-1" > $D/bind_ctl
check "node=-1 unbinds it" sh -c "! grep -q '^pid=$free_pid ' $D/bind"
check "a bad bind command is refused" \
	sh -c "! echo 'pid=1 node=99' > $D/bind_ctl 2>/dev/null"
check "a pid that does not exist is refused" \
	sh -c "! echo 'pid=999999 node=0' > $D/bind_ctl 2>/dev/null"
check "trailing junk is refused" \
	sh -c "! echo 'pid=$free_pid node=$last x' > $D/bind_ctl 2>/dev/null"
check "node=4294967297 is refused, not wrapped to 1" \
	sh -c "! echo 'pid=$free_pid node=4294967297' > $D/bind_ctl 2>/dev/null"
check "a repeated key is refused" \
	sh -c "! echo 'pid=$free_pid pid=$free_pid node=$last' > $D/bind_ctl 2>/dev/null"
check "none of those bound it" sh -c "! grep -q '^pid=$free_pid ' $D/bind"
if have_user_namespaces; then
	unshare -Ur sh -c "echo 'pid=$free_pid node=$last' > $D/bind_ctl" 2>/tmp/nocap.err
	check "a bind without CAP_SYS_ADMIN is refused (EPERM), and binds nothing" \
		sh -c "grep -q 'not permitted' /tmp/nocap.err && ! grep -q '^pid=$free_pid ' $D/bind"
else
	# the debug kernel (defconfig) has no user namespaces
	skip "a bind without CAP_SYS_ADMIN is refused (EPERM), and binds nothing" \
		"no user namespaces in this kernel (unshare -Ur)"
fi
echo auto=0 > $D/bind_ctl
taskset -c "$(cpus_of $first)" sh -c "$spin" &
late=$!
sleep 0.6
check "with auto=0 a newly confined process is not bound" \
	sh -c "! grep -q '^pid=$late ' $D/bind"
echo auto=1 > $D/bind_ctl
check "auto=1 binds it within 1 s" wait_for 1 bound_line $late
check_log "the bind control logs nothing" ""

# TEST: the process view
# - on a replica node R: a process confined to R (bound), one that runs
#   on R and the master node (the master's tables), and one confined to
#   R but unbound by hand (node=-1): ktrepl-top --processes, run on the
#   master node, shows each (the host judges: the first on R's set and
#   local, the second on the master's with its R samples remote, the
#   third marked to bind); plain batch output has the table
# Expected log: none.
start_test "the process view"
# a replica node with CPUs: its own memory, so its own set
own_set() { test "$(grep "^node=$1 " $D/summary | kv memory_node)" = "$1"; }
R=$(for n in $nodes; do [ $n != $M ] && [ -n "$(cpus_of $n)" ] && own_set $n &&
	echo $n; done | head -n1)
taskset -c "$(cpus_of $R)" sh -c "$spin" &
pv_conf=$!
# The scheduler may keep an unconfined spinner on one node a whole
# frame, and a separate mover process can be starved for one: a 1 s frame
# under pti=on once saw this process on R only (CI, 2026-12-08). So it
# moves itself between R and the master node every 0.2 s of uptime. It
# starts unconfined and holds still until automatic binding has been
# told to leave it alone (node=-1): it runs on both nodes, always on the
# master's tables.
wide_spin='while [ ! -e /tmp/pv_go ]; do read x < /proc/self/stat; done
h=0
next=0
while :; do
	read up x < /proc/uptime
	now=${up%.*}${up#*.}
	if [ $now -ge $next ]; then
		h=$((1 - h))
		next=$((now + 20))
		if [ $h = 1 ]; then c=$1; else c=$2; fi
		taskset -p -c "$c" $$ >/dev/null
	fi
	read x < /proc/self/stat
done'
rm -f /tmp/pv_go
taskset -c $all sh -c "$wide_spin" wide "$(cpus_of $R)" "$(cpus_of $M)" &
pv_wide=$!
echo "pid=$pv_wide node=-1" > $D/bind_ctl
touch /tmp/pv_go
taskset -c "$(cpus_of $R)" sh -c "$spin" &
pv_hand=$!
check "the confined process is bound" wait_for 1 bound_line $pv_conf
check "the one to unbind is bound first" wait_for 1 bound_line $pv_hand
echo "pid=$pv_hand node=-1" > $D/bind_ctl
check "node=-1 unbinds it, and the scan leaves it so" \
	sh -c "sleep 0.6; ! grep -q '^pid=$pv_hand ' $D/bind"
emit pv echo "conf=$pv_conf wide=$pv_wide hand=$pv_hand node=$R"
PV_FRAMES=${PV_FRAMES:-4}
emit procs taskset -c "$(cpus_of $M)" ktrepl-top -j -n $PV_FRAMES -d 1 --processes=50
emit procs_plain taskset -c "$(cpus_of $M)" ktrepl-top -b -n 1 -d 1 --processes
kill $pv_conf $pv_wide $pv_hand
check_log "the process view logs nothing" ""

# TEST: a bound mm on another node's set
# - inject mm: a bound mm's entry pointed at another node's set is a
#   violation verify names, with the pid (the master's entry is not: a
#   process that exits meanwhile is put back there)
# Expected log: none (the load tainted the kernel already).
start_test "a bound mm on another node's set"
eval victim=\$pid_$M
other=$(for n in $nodes; do [ $n != $M ] && echo $n; done | head -n1)
echo "mm pid=$victim node=$other" > $D/inject
ktrepl-dump --verify > /tmp/v 2>&1
rc=$?
check "inject mm: verify exits 1" test $rc = 1
check "and names the check and the pid" grep -q "mm-entry: pid $victim " /tmp/v
grep mm-entry /tmp/v | head -n2 | sed 's/^/# /'
check_log "the inject's log" ""

# TEST: unload while bound
# - rmmod with every spinner running and forking: every page freed, and
#   the bound processes run on
# - 5 load/unload cycles while confined processes fork, exec and exit on
#   every node: no mm may keep an entry into a freed set
# Expected log: the unload's, then each cycle's load and unload.
start_test "unload while bound"
want=$(unload_log)
cycle=$(load_log /lib/modules/ktrepl.ko; unload_log)
taskset -c "$(cpus_of $first)" sh -c 'while :; do /bin/true; done' &
sleep 0.3
check "rmmod ktrepl with bound processes running" logged rmmod ktrepl
check "every page freed" all_freed
check "the bound processes run on after the unload" kill -0 $victim
stop_load

# load and unload while confined processes fork, exec and exit on every
# node: no mm may keep an entry into a freed set
for n in $nodes; do
	taskset -c "$(cpus_of $n)" sh -c 'while :; do /bin/true; done' &
done
fails=0
i=0
while [ $i -lt 5 ]; do
	logged insmod /lib/modules/ktrepl.ko || fails=$((fails + 1))
	sleep 0.4
	logged rmmod ktrepl || fails=$((fails + 1))
	want="$want
$cycle"
	i=$((i + 1))
done
check "5 load/unload cycles under fork and exec churn on every node" \
	test $fails = 0
check "every cycle freed what it allocated" all_freed
check_log "each unload's and load's log" "$want"
stop_load

# TEST: many
# - 600 processes confined to one node: more than the descriptor's 256
#   slots and the 512 the bind file used to stop at
# - the bind file lists every one of them
start_test "many"
many=600
check "[many] insmod ktrepl.ko" insmod /lib/modules/ktrepl.ko
i=0
while [ $i -lt $many ]; do
	taskset -c "$(cpus_of $last)" sleep 600 &
	i=$((i + 1))
done
listed_all() { [ "$(grep -c '^pid=' $D/bind)" -ge $many ]; }
wait_for 30 listed_all
check "[many] bind lists all $many confined processes (got $(grep -c '^pid=' $D/bind))" \
	listed_all
stop_load
check "[many] rmmod ktrepl" rmmod ktrepl
check_dmesg_clean
done_testing
