# SPDX-License-Identifier: GPL-2.0
# Issue 39's lifetime bug: after unload, no page ktrepl.ko freed may be
# reachable through any TLB entry of any CPU or PCID, and every leaf over
# a replicated module is global again and maps the loader's page.
#
# x86_64, booted nopti (kernel mappings global), activation=mm. A module
# (the test build's ktrepl_bench_text.ko) is loaded from a CPU of a node
# that does not hold the kernel image, so the master node runs its own
# copies of the module's pages; its code runs from every CPU, through
# every PCID; a fail-safe resumes, a second one gives up; then rmmod.
#
# The host dumps the guest three times through QMP (KTREPL-DUMP NAME,
# then it sends "go"): before ktrepl.ko, while it has given up, and
# after unload; it walks the master's tables in each (t17).
#
# TCG drops its whole TLB on every CR3 write, so a stale entry cannot
# show here: the test build logs the order of the events instead
# ("ktrepl: lifetime seq=N ..."), and the scenario "order" asserts it.
. /lib.sh
B=/sys/kernel/debug/ktrepl_bench_text
S=$D/summary
MOD=ktrepl_bench_text
cpus_of() { cat /sys/devices/system/node/node$1/cpulist; }
fs() { head -n1 $S | kv "$1"; }
# the host dumps the guest, then lets it go on
dump_point() {
	console_drained
	echo "KTREPL-DUMP $1"
	read -r _go
	echo "# dump $1 taken ($_go)"
}
# run_body CPU: the module's body from CPU, in a process confined there
run_body() {
	taskset -c "$1" sh -c "exec 3<>$B/run && echo 'iterations=3 phase=warmup' >&3 && read -r r <&3 && echo \"\$r\"" 2>&1
}
# every CPU runs the module's code, each answering with its node
body_everywhere() {
	be_bad=0
	for be_c in $(seq 0 $(($(nproc) - 1))); do
		be_out=$(run_body $be_c)
		echo "$be_out" | grep -q '^node=' || {
			echo "# cpu $be_c: $be_out"
			be_bad=1
		}
	done
	return $be_bad
}
lifetime() { dmesg | sed -n 's/.*ktrepl: lifetime seq=\([0-9]*\) /\1 /p'; }
last_seq() { lifetime | awk '{ s = $1 } END { print s + 0 }'; }
# first COND FILE: the seq of the first lifetime line matching an awk
# condition
first() { awk "$1 { print \$1; exit }" "$2"; }
# check_order MODULE FILE: in FILE (the lifetime lines of one unload),
# MODULE's leaves back global (as many as were cleared at its load) and
# on the loader's pages, then every PCID of every CPU flushed, then its
# pages freed, with no leaf of it changing after that flush
check_order() {
	co_m="module=$1"
	co_cleared=$(lifetime | awk -v m="$co_m" '$2 == "leaves_global" && $3 == m && $4 == "global=0" { sub("changed=", "", $5); c = $5 } END { print c }')
	check "[$1] at load its leaves lost their global bit (${co_cleared:-none})" test "${co_cleared:-0}" -gt 0
	co_restored=$(first "\$2 == \"leaves_global\" && \$3 == \"$co_m\" && \$4 == \"global=1\" && \$5 == \"changed=$co_cleared\"" "$2")
	co_moved=$(first "\$2 == \"leaves_moved\" && \$3 == \"$co_m\" && \$4 == \"to=loader\"" "$2")
	co_freeing=$(first "\$2 == \"freeing\" && \$3 == \"$co_m\"" "$2")
	echo "# [$1] restored=$co_restored moved=$co_moved freeing=$co_freeing"
	check "[$1] every global bit cleared ($co_cleared) is given back" test -n "$co_restored"
	check "[$1] its leaves move back to the loader's pages" test -n "$co_moved"
	check "[$1] then its replicas are freed" test -n "$co_freeing"
	# the leaf move's own flush, the last change's, not one the bind
	# scan happened to make
	co_flush=$(awk -v a="${co_moved:-0}" -v b="${co_restored:-0}" -v f="${co_freeing:-0}" '
		$2 == "flush_all" && $1 > a && $1 > b && $1 < f &&
		$5 == "by=ktr_module_move_leaves" { print $1; exit }' "$2")
	check "[$1] between its last leaf change and the free: every PCID flushed by the leaf move (seq ${co_flush:-none})" \
		test -n "$co_flush"
	co_late=$(awk -v fl="${co_flush:-0}" -v f="${co_freeing:-0}" -v m="$co_m" '
		$1 > fl && $1 < f && ($2 == "leaves_moved" || $2 == "leaves_global") && $3 == m' "$2")
	check "[$1] no leaf of it changes between that flush and the free" test -z "$co_late"
	check "[$1] every flush reached every online CPU" \
		awk '$2 == "flush_all" { n++; split($3, c, "="); split($4, o, "="); if (c[2] != o[2]) bad++ }
		     END { exit !(n > 0 && !bad) }' "$2"
}

# TEST: setup
# - the node of the kernel image (the master), from /proc/iomem alone
# - the module loaded from a CPU of another node
# Expected log: none of ktrepl's.
start_test "setup"
img_pa=$((0x$(sed -n 's/^ *\([0-9a-f]*\)-.* : Kernel code$/\1/p' /proc/iomem)))
M=$(pa_node $img_pa)
R=
for n in $(ls -d /sys/devices/system/node/node[0-9]* | sed 's/.*node//'); do
	[ "$n" != "$M" ] && [ -n "$(cpus_of $n)" ] && { R=$n; break; }
done
echo "# image at $img_pa on node $M; the module goes on node $R"
check "the image's node and another node with CPUs" test -n "$M" -a "$M" != -1 -a -n "$R"
# the host's first dump proves it: every leaf over the module is global
check "the guest runs without PTI (nopti; meltdown: $(cat /sys/devices/system/cpu/vulnerabilities/meltdown))" \
	sh -c "grep -qw nopti /proc/cmdline && ! grep -q PTI /sys/devices/system/cpu/vulnerabilities/meltdown"
check "insmod $MOD from a CPU of node $R" \
	taskset -c "$(cpus_of $R)" insmod /lib/modules/$MOD.ko
check "its code runs on every CPU before ktrepl.ko" body_everywhere
dump_point before

# TEST: replicated
# - insmod the test build: activation mm, master node M
# - the module is listed, loaded on node R, with master copies
# - its code runs from every CPU, and from a process bound to R's set
# Expected log: ktrepl's load lines (not checked: module-mm.sh does).
start_test "replicated"
check "insmod ktrepl-test.ko fault_inject=1 lifetime_log=1 failsafe_limit=2" \
	insmod /lib/modules/ktrepl-test.ko fault_inject=1 lifetime_log=1 failsafe_limit=2
check "activation is mm" test "$(fs activation)" = mm
check "summary's master node is the image's ($M)" test "$(fs master_node)" = "$M"
rec=$(grep "^module=$MOD " $S)
emit module echo "$rec"
emit master_root echo "$(fs master_root_pa)"
emit paging echo "$(fs paging_levels)"
check "$MOD is replicated, loaded on node $R, with master copies ($rec)" \
	sh -c "[ '$(echo "$rec" | kv orig_node)' = '$R' ] && [ '$(echo "$rec" | kv master_copies)' -gt 0 ]"
taskset -c "$(cpus_of $R)" sh -c 'while :; do read x < /proc/self/stat; done' &
spinner=$!
bound() { grep -q "^pid=$spinner .*node=$R " $D/bind; }
check "a process confined to node $R is bound to its set" wait_for 3 bound
check "the module's code runs on every CPU, replicated" body_everywhere

# TEST: module unload
# - a module loaded from node R while activation is mm, then unloaded
#   with ktrepl.ko staying: its own unload frees its master copies, and
#   only its own flush can stand between its leaves' move and the free
# - loaded again (QMP dumps carry VMCOREINFO through it)
# Expected log: its replication and its freeing.
start_test "module unload"
FW=qemu_fw_cfg
check "rmmod $FW" rmmod $FW
check "insmod $FW from a CPU of node $R" \
	taskset -c "$(cpus_of $R)" insmod /lib/modules/$FW.ko
fw_rec=$(grep "^module=$FW " $S)
check "$FW is replicated with master copies ($fw_rec)" \
	test "$(echo "$fw_rec" | kv master_copies)" -gt 0
since=$(last_seq)
check "rmmod $FW, ktrepl.ko staying" rmmod $FW
lifetime | awk -v s=$since '$1 > s' > /tmp/lifetime-fw
sed 's/^/# lifetime /' /tmp/lifetime-fw
check_order $FW /tmp/lifetime-fw
check "the freed master copies are $FW's" \
	grep -q " freed module=$FW master_copies=$(echo "$fw_rec" | kv master_copies)\$" /tmp/lifetime-fw
check "insmod $FW again" insmod /lib/modules/$FW.ko

# TEST: fail-safe
# - a dropped patch: a fail-safe that resumes, activation mm again
# - the module's code on every CPU again
# - a second dropped patch (failsafe_limit=2): a fail-safe that gives up
# Expected log: module-failsafe.sh's, not checked here.
start_test "fail-safe"
n0=$(fs failsafe)
check "inject 'miss kind=patch'" sh -c "echo 'miss kind=patch' > $D/inject"
echo 1 > /proc/sys/kernel/sched_schedstats
echo 0 > /proc/sys/kernel/sched_schedstats
resumed() { [ "$(fs failsafe)" -gt "$n0" ] && [ "$(fs failsafe_active)" = 0 ] && [ "$(fs activation)" = mm ]; }
check "a fail-safe event, then activation mm again" wait_for 10 resumed
check "the module's code runs on every CPU after the resume" body_everywhere
# failsafe_limit=2: the second event within the window gives up
check "inject 'miss kind=patch' again" sh -c "echo 'miss kind=patch' > $D/inject"
echo 1 > /proc/sys/kernel/sched_schedstats
echo 0 > /proc/sys/kernel/sched_schedstats
gave_up() { [ "$(fs activation)" = inactive ] && [ "$(fs activation_reason)" = failsafe_recurring ]; }
check "the fail-safe gives up: activation inactive" wait_for 10 gave_up
check "the module's code runs on every CPU after the give-up" body_everywhere
kill $spinner
dump_point given_up

# TEST: order
# - rmmod ktrepl
# - the test build's lifetime log: the module's leaves back global and
#   on the loader's pages, then a flush of every PCID on every CPU,
#   then the frees; no leaf of the module moves after that flush
# Expected log: unload_log's (not checked: lifetime lines come between).
start_test "order"
since=$(last_seq)
check "rmmod ktrepl" rmmod ktrepl
lifetime | awk -v s=$since '$1 > s' > /tmp/lifetime
sed 's/^/# lifetime /' /tmp/lifetime
check_order "$MOD" /tmp/lifetime
copies=$(echo "$rec" | kv master_copies)
check "the freed master copies are the module's ($copies)" \
	grep -q " freed module=$MOD master_copies=$copies\$" /tmp/lifetime
last_leaf=$(awk '$2 == "leaves_moved" || $2 == "leaves_global" { s = $1 } END { print s + 0 }' /tmp/lifetime)
core_freed=$(first '$2 == "freed" && $3 == "core"' /tmp/lifetime)
core_flush=$(awk -v a="$last_leaf" -v f="${core_freed:-0}" '$2 == "flush_all" && $5 == "by=ktr_engine_free" && $1 > a && $1 < f { print $1; exit }' /tmp/lifetime)
check "the core's replicas and tables freed after the last leaf change and the unload's own flush of every PCID (${core_flush:-none})" \
	test -n "$core_freed" -a -n "$core_flush"

# TEST: reuse
# - the freed memory reused: 64 MiB of 0xff bytes (an invalid opcode, if run)
#   written on every node
# - the module's code from every CPU: its leaves are the loader's again
# Expected log: none.
start_test "reuse"
for n in $(ls -d /sys/devices/system/node/node[0-9]* | sed 's/.*node//'); do
	[ -n "$(cpus_of $n)" ] || continue
	taskset -c "$(cpus_of $n)" sh -c "tr '\\000' '\\377' < /dev/zero | head -c 67108864 > /tmp/fill$n"
done
filled() {
	for f in /tmp/fill*; do
		[ "$(wc -c < $f)" -eq 67108864 ] || return 1
	done
	[ "$(ls /tmp/fill* | wc -l)" -ge 2 ]
}
check "the memory was filled (64 MiB on each node)" filled
check "the module's code runs on every CPU after unload" body_everywhere
check_dmesg_clean
dump_point after
check "rmmod $MOD" rmmod $MOD
done_testing
