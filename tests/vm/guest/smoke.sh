# SPDX-License-Identifier: GPL-2.0
# The smoke suite for a second kernel: load, healthy verify, walk beside
# the kernel's own tables, a module's text replicated, ktrepl-top frames,
# a flipped byte caught and named; then the host reads a vmcore of it.
. /lib.sh
check "insmod ktrepl.ko fault_inject=1" insmod /lib/modules/ktrepl.ko fault_inject=1
emit summary cat $D/summary
check "verify: healthy" ktrepl-dump --verify
for n in $(grep '^node=' $D/summary | kv node); do
	emit "walk$n" ktrepl-dump -j walk --node $n
	emit "pgt$n" cat $D/pgtables/node$n
done
M=$(head -n1 $D/summary | kv master_node)
R=$(grep 'role=replica' $D/summary | head -n1 | kv node)
echo "REPLICA-NODE $R"

# a Debian module loaded from the replica node's CPUs: its text is on
# node R, and the master node gets its own copy
cpu=$(cut -d- -f1 /sys/devices/system/node/node$R/cpulist)
for m in fat vfat; do
	check "insmod $m from node $R's CPU $cpu" \
		taskset -c $cpu insmod /lib/modules/extra/$m.ko
done
mod=$(grep '^module=vfat ' $D/summary)
echo "# $mod"
check "vfat's text is replicated (a module record, size > 0)" \
	test -n "$mod" -a "$(echo "$mod" | kv size)" -gt 0
check "verify with vfat replicated: healthy" ktrepl-dump --verify
start_load
emit top ktrepl-top -j -n 2 -d 1
stop_load

audit_settle
check "inject: flip int_sqrt+0x4 on node $R" \
	sh -c "echo 'flip node=$R sym=int_sqrt off=4' > $D/inject"
emit verify ktrepl-dump -j --verify
ktrepl-dump --verify > /tmp/v
check "verify exits 1 on the flip" test $? = 1
check "and names int_sqrt+0x4 on node $R" \
	grep -q "bytes: node $R .*int_sqrt+0x4" /tmp/v
check_dmesg_clean
done_testing
echo "KTREPL-READY-FOR-DUMP"
sleep 600
