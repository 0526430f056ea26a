# SPDX-License-Identifier: GPL-2.0
# activation=mm for a vmcore: one confined process per node, bound, and
# the master node's then pointed at another node's set by fault injection.
. /lib.sh
check "insmod ktrepl-test.ko fault_inject=1" insmod /lib/modules/ktrepl-test.ko fault_inject=1
M=$(head -n1 $D/summary | kv master_node)
for n in $(ls -d /sys/devices/system/node/node[0-9]* | sed 's/.*node//'); do
	taskset -c "$(cat /sys/devices/system/node/node$n/cpulist)" \
		sh -c 'while :; do read x < /proc/self/stat; done' &
	[ $n = $M ] && victim=$!
	[ $n != $M ] && other=$n
done
sleep 1
check "every spinner is bound" test "$(grep -c '^pid=' $D/bind)" -ge 2
check "verify: healthy" ktrepl-dump --verify
check "inject mm into the master node's spinner" \
	sh -c "echo 'mm pid=$victim node=$other' > $D/inject"
echo "VICTIM $victim $other"
emit bind cat $D/bind
echo KTREPL-READY-FOR-DUMP
sleep 600
