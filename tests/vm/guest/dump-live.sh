# SPDX-License-Identifier: GPL-2.0
# ktrepl-dump live: walk agrees with the kernel, injected divergence is
# caught and named; then the host compares a vmcore of the same state
# (t04). Three scenarios, each with the kernel log it must leave (lib.sh:
# start_test, check_log); the host folds their TAP.
. /lib.sh

# TEST: not loaded
# - ktrepl-dump --verify before insmod: exit 2, saying the module is not
#   loaded
# Expected log: none (the module is not loaded).
start_test "not loaded"
ktrepl-dump --verify > /tmp/o 2>&1
rc=$?
check "before insmod: verify exits 2" test $rc = 2
check "and says the module is not loaded" grep -q 'is ktrepl.ko loaded' /tmp/o
check_log "a verify without the module leaves no message" ""

# TEST: load and walk
# - insmod the test build (fault_inject=1)
# - ktrepl-dump --verify: healthy
# - each node's walk and the kernel's pgtables/nodeN, and the summary,
#   for the host to compare
# - the replica node and the edges of text and rodata, for the host
# Expected log (load_log): the load's; verify, walks and reads log
# nothing.
start_test "load and walk"
want=$(load_log /lib/modules/ktrepl-test.ko fault_inject=1)
check "insmod ktrepl-test.ko fault_inject=1" \
	logged insmod /lib/modules/ktrepl-test.ko fault_inject=1
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
check_log "the load's log, and none for the reads" "$want"

# TEST: flips
# - flip five bytes of node R's replica: the first and last byte of text
#   and of rodata, and vfs_read+0x3
# - ktrepl-dump --verify exits 1; its JSON, plain and TAP reports and
#   node R's walk, for the host (which then dumps the guest)
# Expected log: each inject command; the flips themselves log nothing,
# nor does verify.
start_test "flips"
for spec in "sym=_stext" "sym=_etext off=-1" "sym=__start_rodata" \
	"sym=__end_rodata off=-1" "sym=vfs_read off=3"; do
	log_cmd "echo 'flip node=$R $spec' > $D/inject"
	check "inject: flip $spec on node $R" \
		sh -c "echo 'flip node=$R $spec' > $D/inject"
done
emit verify ktrepl-dump -j --verify
ktrepl-dump --verify > /tmp/v
check "verify exits 1 on divergence" test $? = 1
emit verify_text cat /tmp/v
emit tap ktrepl-dump --verify --tap
emit live_walk ktrepl-dump -j walk --node $R
I="% echo 'flip node=$R"
check_log "the flips log nothing" \
	"$I sym=_stext' > $D/inject
$I sym=_etext off=-1' > $D/inject
$I sym=__start_rodata' > $D/inject
$I sym=__end_rodata off=-1' > $D/inject
$I sym=vfs_read off=3' > $D/inject"
done_testing
echo "KTREPL-READY-FOR-DUMP"
sleep 600
