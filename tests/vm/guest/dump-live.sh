# SPDX-License-Identifier: GPL-2.0
# ktrepl-dump live: walk agrees with the kernel, injected divergence is
# caught and named; then the host compares a vmcore of the same state.
. /lib.sh
ktrepl-dump --verify > /tmp/o 2>&1
rc=$?
check "before insmod: verify exits 2" test $rc = 2
check "and says the module is not loaded" grep -q 'is ktrepl.ko loaded' /tmp/o
check "insmod ktrepl-test.ko fault_inject=1" insmod /lib/modules/ktrepl-test.ko fault_inject=1
check "verify: healthy" ktrepl-dump --verify
for n in $(grep '^node=' $D/summary | kv node); do
	emit "walk$n" ktrepl-dump -j walk --node $n
	emit "pgt$n" cat $D/pgtables/node$n
done
emit summary cat $D/summary
R=$(grep 'role=replica' $D/summary | head -n1 | kv node)
echo "REPLICA-NODE $R"
# first and last byte of text and rodata
ts=$(grep '^region=text' $D/summary | kv start)
te=$(grep '^region=text' $D/summary | kv end)
rs=$(grep '^region=rodata' $D/summary | kv start)
re=$(grep '^region=rodata' $D/summary | kv end)
echo "EDGES $ts $te $rs $re"
for spec in "sym=_stext" "sym=_etext off=-1" "sym=__start_rodata" \
	"sym=__end_rodata off=-1" "sym=vfs_read off=3"; do
	check "inject: flip $spec on node $R" \
		sh -c "echo 'flip node=$R $spec' > $D/inject"
done
emit verify ktrepl-dump -j --verify
ktrepl-dump --verify > /tmp/v
check "verify exits 1 on divergence" test $? = 1
emit verify_text cat /tmp/v
emit tap ktrepl-dump --verify --tap
emit live_walk ktrepl-dump -j walk --node $R
done_testing
echo "KTREPL-READY-FOR-DUMP"
sleep 600
