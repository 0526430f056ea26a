# SPDX-License-Identifier: GPL-2.0
# Right after load: replicas exist on their nodes, equal the master,
# node tables are node-local, everything else is shared; then unload.
# Four scenarios, each with the kernel log it must leave (lib.sh:
# start_test, check_log).
. /lib.sh
S=$D/summary

# TEST: load
# - insmod the shipped ktrepl.ko
# - the master is the node holding the kernel's code, by sysfs alone
# - the activation is the arch's default
# - the shipped module has no test code and no run-time parameter
# Expected log (load_log): the modules already loaded replicated
# (qemu_fw_cfg), the load's steps, the activation, ktrepl.ko itself
# replicated; nothing else.
start_test "load"
step "insmod the shipped module"
want=$(load_log /lib/modules/ktrepl.ko)
check "insmod ktrepl.ko" logged insmod /lib/modules/ktrepl.ko
master=$(head -n1 $S | kv master_node)
kpa=$(awk -F'[- :]+' '/Kernel code/ {print $2; exit}' /proc/iomem)
check "master node $master holds the kernel code (sysfs memory blocks)" \
	test "$(pa_node $((0x$kpa)))" = "$master"
check "activation is mm (the x86_64 default)" \
	test "$(head -n1 $S | kv activation)" = mm
step "the shipped module's own checks"
shipped_module_checks
check_log "the load's log" "$want"

# TEST: placement
# - every replica extent lies on its node's memory (sysfs)
# - each replica node's tables: its own top-level table on its node,
#   exactly the replicated entry private, every leaf on its node, every
#   table on the way node-local, no global replica leaf
# - a memoryless node runs on its nearest memory node's tables
# Expected log: none (reading the debugfs files logs nothing).
start_test "placement"

set -- $(replicas_on_their_nodes)
check "every replica extent ($2) lies on its node's memory" \
	test "$1" = 0 -a "$2" -gt 0

for n in $(grep '^node=' $S | kv node); do
	role=$(grep "^node=$n " $S | kv role)
	mem=$(grep "^node=$n " $S | kv memory_node)
	pg=$(grep "^node=$n " $D/pgds)
	check "node $n: no shared top-level entry differs from the master's" \
		test "$(echo "$pg" | kv differing_entries)" = 0
	case $role in
	replica)
		check "node $n: its top-level table is on node $n" \
			test "$(echo "$pg" | kv root_node)" = "$n"
		check "node $n: root page on node $n by sysfs" \
			test "$(pa_node $(($(echo "$pg" | kv root_pa))))" = "$n"
		check "node $n: exactly the replicated top-level entry is private" \
			test "$(echo "$pg" | kv own_entries)" -ge 1
		check "node $n: every replicated leaf maps node-$n memory" \
			sh -c "! grep -v 'pa_node=$n ' $D/pgtables/node$n | grep -q ."
		check "node $n: every table on the way is node-local (shared=0)" \
			sh -c "! grep -q 'shared=1' $D/pgtables/node$n"
		check "node $n: replica leaves are not global" \
			sh -c "! grep -q ',GLB' $D/pgtables/node$n"
		;;
	alias)
		best=-1
		bestd=999
		i=0
		for d in $(cat /sys/devices/system/node/node$n/distance); do
			if grep -q "^node=$i .*has_memory=1" $S && [ $d -lt $bestd ]; then
				best=$i
				bestd=$d
			fi
			i=$((i + 1))
		done
		check "memoryless node $n uses nearest memory node $best" \
			test "$mem" = "$best"
		check "memoryless node $n runs on node $best's tables" \
			test "$(echo "$pg" | kv root_pa)" = \
			"$(grep "^node=$best " $D/pgds | kv root_pa)"
		;;
	esac
done

check_log "placement is read without a message" ""

# TEST: identical
# - ktrepl-dump's full diff finds every replica equal to the master
# - the first page of every extent, read raw from its node and from the
#   master's own mapping of the same address, is equal
# - ktrepl-dump --verify exits 0
# Expected log: none.
start_test "identical"
check "ktrepl-dump diff finds replicas identical to the master" \
	ktrepl-dump diff
spot=0
n_spot=0
while read -r line; do
	node=$(echo "$line" | kv node)
	[ "$node" = "$master" ] && continue
	va=$(echo "$line" | kv va)
	pa=$(echo "$line" | kv pa)
	# the master's PA of the same VA, through the master's own tables
	mpa=$(ktrepl-dump -j walk --node "$master" --va "$va" |
		sed -n 's/.*"va":"[^"]*","size":[0-9]*,"level":"[a-z0-9]*","flags":"[^"]*","present":true,"pa":"\(0x[0-9a-f]*\)".*/\1/p')
	[ -n "$mpa" ] || { echo "# no master mapping for $va"; spot=$((spot + 1)); continue; }
	ktrepl-dump read "$pa" 4096 > /tmp/r
	ktrepl-dump read "$mpa" 4096 | sed "s/^0x[0-9a-f]*//" > /tmp/m
	sed -i "s/^0x[0-9a-f]*//" /tmp/r
	cmp -s /tmp/r /tmp/m || { echo "# $va differs on node $node"; spot=$((spot + 1)); }
	n_spot=$((n_spot + 1))
done < $D/replicas
check "first page of every replica extent ($n_spot) equals the master's (raw reads)" \
	test $spot = 0 -a $n_spot -gt 0
check "ktrepl-dump --verify: healthy (exit 0)" ktrepl-dump --verify
emit summary cat $S
emit verify ktrepl-dump -j --verify
check_log "the checks leave no message" ""

# TEST: unload
# - rmmod ktrepl
# - every page the load allocated is freed
# Expected log: the page count (the modules stay loaded: their replicas
# go with the rest, without a line each); no WARN, BUG or oops in the
# whole run.
start_test "unload"
check "rmmod ktrepl" logged rmmod ktrepl
check "every page allocated is freed" all_freed
check_log "the unload's log" "$(unload_log)"
check_dmesg_clean
done_testing
