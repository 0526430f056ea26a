# SPDX-License-Identifier: GPL-2.0
# Issue 16: the unfiltered function tracer (about 35k sites) enabled and
# disabled ROUNDS times while the workers run on their node's tables.
# MODE=control runs the same storm without ktrepl.ko, so that what the
# emulator does on its own is seen beside what the module adds.
#
# TEST: storm
# - insmod ktrepl.ko activation=workload, and start the workers
# - the storm: ROUNDS rounds of the function tracer on and off
# - the replicas equal the master, verify is healthy, the workers stop
# - rmmod
# Expected log: the load's and the unload's, nothing in between (every
# one of the storm's patches reaches the replicas without a message).
. /lib.sh
T=/sys/kernel/tracing
MODE=${MODE:-module}
ROUNDS=${ROUNDS:-5}
mount -t tracefs nodev $T 2>/dev/null
now() { cut -d. -f1 /proc/uptime; }
start_test "storm"
if [ "$MODE" = module ]; then
	want=$(load_log /lib/modules/ktrepl.ko activation=workload)
	check "insmod ktrepl.ko" logged insmod /lib/modules/ktrepl.ko activation=workload
	check "workers start on node tables" sh -c "echo start > $D/workload_ctl"
	sleep 1
	emit before cat $D/tasks
fi
t0=$(now)
i=1
refused=0
while [ $i -le "$ROUNDS" ]; do
	echo function > $T/current_tracer || refused=$((refused + 1))
	echo nop > $T/current_tracer || refused=$((refused + 1))
	echo "@@round@@ round=$i seconds=$(($(now) - t0))"
	i=$((i + 1))
done
# each switch took (ftrace refuses one it cannot patch, say after a
# failed patch) and the tracer is off again
check "$ROUNDS rounds of the unfiltered function tracer on and off, every switch taken ($refused refused)" \
	test "$refused" = 0 -a "$(cat $T/current_tracer)" = nop
# stalls are the host's to judge, from the console, against the
# control's (t09-storm.py): a run that stalls for good never gets here
if [ "$MODE" = module ]; then
	emit after cat $D/tasks
	emit patches head -n1 $D/patches
	emit kprobe grep __text_poke /sys/kernel/debug/kprobes/list
	check "replicas identical to the master (diff exits 0)" ktrepl-dump diff
	check "verify: healthy" ktrepl-dump --verify
	check "workers stop" sh -c "echo stop > $D/workload_ctl"
	check "rmmod ktrepl" logged rmmod ktrepl
	check_log "the load's log, the unload's, nothing between" "$want
$(unload_log)"
fi
# a stall report carries "BUG: soft lockup" and a call trace: judged above,
# by the host; any other WARN, BUG or oops fails here
if dmesg | grep -E 'WARNING:|BUG:|Oops|general protection' | grep -Evq 'soft lockup'; then
	dmesg | grep -EA20 'WARNING:|BUG:|Oops|general protection' | sed 's/^/# /'
	not_ok "kernel log is free of WARN/BUG/oops (stall reports aside)"
else
	ok "kernel log is free of WARN/BUG/oops (stall reports aside)"
fi
done_testing
