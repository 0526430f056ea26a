# SPDX-License-Identifier: GPL-2.0
# A node onlined after ktrepl.ko loaded (issue 39): it has no replica or
# tables, so it is never given another node's set. x86_64 "2x2+late":
# node 2 has no CPU and no memory at boot; the host hot-adds a DIMM on
# it through QMP (KTREPL-HOTPLUG, then it sends "go"), which onlines it.
#
# TEST: late node
# - insmod (activation=mm); node 2 is offline and not in summary
# - the host adds a DIMM on node 2: the node comes online with memory
# - summary's node record says role=late memory_node=-1; activation and
#   every other node are as before; bind_ctl refuses node 2
# - ktrepl-dump summary (plain and JSON) shows the node as late, and
#   verify is healthy; rmmod
# Expected log: the load's, nothing while the node comes online, the
# refused bind_ctl command, the unload's.
#
# TEST: late node replicated at reload
# - insmod again: node 2, now with memory, gets a replica of its own
#   (role=replica, memory_node=2, replica pages on node 2); verify is
#   healthy; rmmod
# Expected log: the load's and the unload's.
. /lib.sh
# verify_healthy: ktrepl-dump --verify exits 0, its report shown
verify_healthy() {
	ktrepl-dump --verify > /tmp/v 2>&1
	_rc=$?
	sed 's/^/# /' /tmp/v
	check "verify is healthy (exit $_rc)" test $_rc = 0
}
S=$D/summary
K=/lib/modules/ktrepl.ko
node_rec() { grep "^node=$1 " $S; }

start_test "late node"
check "node 2 is offline at boot" test ! -e /sys/devices/system/node/node2
check "insmod" logged insmod $K
check "summary lists two nodes (got $(head -n1 $S | kv nodes))" \
	test "$(head -n1 $S | kv nodes)" = 2
act0=$(head -n1 $S | kv activation)
check "activation=mm (got $act0)" test "$act0" = mm
n1_before=$(node_rec 1)
console_drained
echo "KTREPL-HOTPLUG"
read -r _go
echo "# the host added a DIMM on node 2 ($_go)"
check "node 2 comes online" wait_for 20 test -e /sys/devices/system/node/node2
check "with memory" wait_for 20 sh -c \
	"grep -q 'Node 2 MemTotal: *[1-9]' /sys/devices/system/node/node2/meminfo"
rec=$(node_rec 2)
echo "# $rec"
check "summary lists node 2 as late (got role=$(echo "$rec" | kv role))" \
	test "$(echo "$rec" | kv role)" = late
check "with memory_node=-1 (got $(echo "$rec" | kv memory_node))" \
	test "$(echo "$rec" | kv memory_node)" = -1
check "and the master's root (got $(echo "$rec" | kv root_pa))" \
	test "$(echo "$rec" | kv root_pa)" = "$(head -n1 $S | kv master_root_pa)"
check "summary lists three nodes" test "$(head -n1 $S | kv nodes)" = 3
check "activation is still $act0" \
	test "$(head -n1 $S | kv activation)" = "$act0"
check "node 1's record is unchanged" test "$(node_rec 1)" = "$n1_before"
log_cmd "echo pid=1 node=2 > bind_ctl"
echo "pid=1 node=2" 2>/dev/null > $D/bind_ctl
rc=$?
check "bind_ctl refuses node 2 (rc $rc)" test $rc != 0
check "pid 1 is not bound" sh -c "! grep -q '^pid=1 ' $D/bind"
ktrepl-dump summary > /tmp/sum 2>&1
rc=$?
sed 's/^/# /' /tmp/sum
check "ktrepl-dump summary exits 0 (got $rc)" test $rc = 0
check "and shows node 2 as late" grep -Eq '(^| )2 +-1 +late ' /tmp/sum
ktrepl-dump --json summary > /tmp/sum.json 2>&1
check "ktrepl-dump --json summary says role late for node 2" \
	grep -q '"node": *2, *"memory_node": *-1, *"has_memory": *[a-z]*, *"role": *"late"' /tmp/sum.json
verify_healthy
check "rmmod" logged rmmod ktrepl
check_log "nothing logged while node 2 came online" "$(load_log $K)
% echo pid=1 node=2 > bind_ctl
$(unload_log)"

start_test "late node replicated at reload"
check "insmod" logged insmod $K
rec=$(node_rec 2)
echo "# $rec"
check "node 2 is a replica now (got role=$(echo "$rec" | kv role))" \
	test "$(echo "$rec" | kv role)" = replica
check "of its own (memory_node=$(echo "$rec" | kv memory_node))" \
	test "$(echo "$rec" | kv memory_node)" = 2
set -- $(replicas_on_their_nodes)
n2=$(grep -c '^node=2 ' $D/replicas)
check "every replica extent ($2, $n2 of node 2) lies on its node's memory" \
	test "$1" = 0 -a "$n2" -gt 0
verify_healthy
check "rmmod" logged rmmod ktrepl
check_log "the load's and the unload's" "$(load_log $K)
$(unload_log)"
check_dmesg_clean
done_testing
