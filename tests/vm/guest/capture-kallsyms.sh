# SPDX-License-Identifier: GPL-2.0
# The dump capture-kallsyms.py decodes: the kernel's own /proc/kallsyms
# (its image's symbols) taken in this boot, and a flipped replica byte in
# int_sqrt that the dump's verify must name from the dump's kallsyms. One
# scenario with the kernel log it must leave (lib.sh: start_test,
# check_log), checked before the host dumps the guest.
. /lib.sh

# TEST: capture
# - insmod the test build; once the audit is quiet, flip int_sqrt+4 in a
#   replica node's copy
# - print the image's /proc/kallsyms (packed) and a verify's JSON
# Expected log: load_log's (the injects log nothing).
want="$(load_log /lib/modules/ktrepl-test.ko fault_inject=1)"
start_test "capture"
check "insmod ktrepl-test.ko fault_inject=1" \
	logged insmod /lib/modules/ktrepl-test.ko fault_inject=1
R=$(grep 'role=replica' $D/summary | head -n1 | kv node)
echo "REPLICA-NODE $R"
quiesce_audit
check "inject: flip int_sqrt+4 on node $R" \
	sh -c "echo 'flip node=$R sym=int_sqrt off=4' > $D/inject"
# the image's symbols only (module lines end in [module]); packed, since a
# full table is some 100000 lines on an emulated serial line
grep -v '\]$' /proc/kallsyms > /tmp/kallsyms
check "/proc/kallsyms shows addresses" \
	sh -c "grep ' T _stext\$' /tmp/kallsyms | grep -qv '^0000000000000000'"
echo "KALLSYMS-LINES $(wc -l < /tmp/kallsyms)"
emit kallsyms_gz sh -c 'gzip -c /tmp/kallsyms | base64'
emit verify ktrepl-dump -j --verify
check_log "the load's log" "$want"
done_testing
echo "KTREPL-READY-FOR-DUMP"
sleep 600
