# SPDX-License-Identifier: GPL-2.0
# Module replication: a module loaded before ktrepl.ko (brd) and ones
# loaded after (fat, vfat, nls) get node-local copies on every replica
# node; file I/O on a vfat ramdisk runs on them; patches to module text
# (ftrace filtered to a module, kprobes) reach every copy, and with
# propagate=0 the diff lists exactly those sites; a flipped module byte
# is named func+off [module]; unload and reload under I/O, RELOADS times,
# frees every page. Activation as the arch defaults it (arm64 percpu,
# x86_64 mm), or KTREPL_ARGS. Scenarios, each with its kernel log (lib.sh:
# start_test, check_log): each module's replication and release is one
# line.
. /lib.sh
RELOADS=${RELOADS:-20}
# ktrepl-top frames of 3 s under file I/O, judged summed by the host
TOP_FRAMES=${TOP_FRAMES:-4}
X=/lib/modules/extra
cpus_of() { cat /sys/devices/system/node/node$1/cpulist; }
mods_loaded() { grep -c "^module=" $D/summary; }
listed() { grep -q "^module=$1 " $D/summary; }
FS_MODS="fat vfat nls_cp437 nls_iso8859-1 nls_utf8 nls_ascii"
# load_fs CPUS: a module's own pages land on the node that loads it
load_fs() {
	for m in $FS_MODS; do
		[ -e $X/$m.ko ] || continue
		logged taskset -c $1 insmod $X/$m.ko || return 1
	done
}
# a module a file system has just let go of can still be busy for a
# moment (busybox rmmod does not wait): the log says the rmmod once
unload_fs() {
	for m in nls_ascii nls_utf8 nls_iso8859_1 nls_cp437 vfat fat; do
		grep -q "^$m " /proc/modules || continue
		log_cmd rmmod $m
		wait_for 5 rmmod $m 2>/dev/null
	done
	true
}
# the log of load_fs CPUS and unload_fs under ktrepl.ko: one line each
load_fs_log() {
	for m in $FS_MODS; do
		[ -e $X/$m.ko ] || continue
		echo "% taskset -c $1 insmod $X/$m.ko"
		module_replicated_log $m
	done
}
unload_fs_log() {
	for m in nls_ascii nls_utf8 nls_iso8859_1 nls_cp437 vfat fat; do
		[ -e $X/$(echo $m | sed 's/8859_1/8859-1/').ko ] || continue
		echo "% rmmod $m"
		module_freed_log $m
	done
}
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
TR=/sys/kernel/tracing

# TEST: replicated modules
# - brd loads before ktrepl.ko, fat, vfat and nls after it, from a
#   replica node's CPUs: all are replicated, and their copies lie on
#   their nodes' memory; the master runs copies of the pages that lie
#   on the replica node
# - verify, diff and walk see the modules' copies; file I/O on a vfat
#   ramdisk runs on them (ktrepl-top, judged by the host)
# Expected log: the load's (brd among the modules already loaded), one
# line per module loaded after it.
check "brd loads before ktrepl.ko" insmod $X/brd.ko rd_nr=1 rd_size=16384
# arm64's ktrepl.ko does not replicate itself, and a module's pages lie
# where insmod ran: load it from the node holding the kernel's text, so
# its own code (the audit) is local to the master node and not counted
# against the master's module-text locality below
kpa=$(awk -F'[- :]+' '/Kernel code/ {print $2; exit}' /proc/iomem)
knode=$(pa_node $((0x$kpa)))
kcpu=$(cut -d- -f1 /sys/devices/system/node/node$knode/cpulist 2>/dev/null)
want=$(load_log /lib/modules/ktrepl-test.ko fault_inject=1 $KTREPL_ARGS)
start_test "replicated modules"
log_cmd insmod /lib/modules/ktrepl-test.ko fault_inject=1 $KTREPL_ARGS
check "insmod ktrepl-test.ko (from node $knode's CPU ${kcpu:-any})" \
	taskset -c ${kcpu:-0-$(($(nproc) - 1))} insmod /lib/modules/ktrepl-test.ko \
	fault_inject=1 $KTREPL_ARGS
M=$(head -n1 $D/summary | kv master_node)
R=$(grep 'role=replica' $D/summary | head -n1 | kv node)
want="$want
$(load_fs_log "$(cpus_of $R)")"
emit roles sh -c "grep '^node=' $D/summary | cut -d' ' -f1-4"
check "a module loaded before ktrepl.ko is replicated" listed brd
# from a replica node: the master node then runs copies of their pages
check "fat, vfat and nls load after ktrepl.ko, from node $R's CPUs" \
	load_fs "$(cpus_of $R)"
check "modules loaded after ktrepl.ko are replicated" \
	sh -c "grep -q '^module=fat ' $D/summary && grep -q '^module=vfat ' $D/summary"
check "summary counts modules and module bytes" \
	test "$(head -n1 $D/summary | kv modules)" -ge 3 -a \
	"$(head -n1 $D/summary | kv module_bytes)" -gt 0
emit modules grep "^module=" $D/summary
vfat_rec=$(grep '^module=vfat ' $D/summary)
check "vfat's own pages are on node $R, the master runs copies of them" \
	test "$(echo "$vfat_rec" | kv orig_node)" = $R -a \
	"$(echo "$vfat_rec" | kv master_copies)" -gt 0
# walk: the master's leaves over vfat, on the master's memory
ktrepl-dump -j walk --region module:vfat --node $M > /tmp/w.out 2>&1
check "walk --node $M: every master leaf over vfat is on node $M's memory" \
	test $? = 0 -a "$(grep -o '"pa_node":[-0-9]*' /tmp/w.out | sort -u)" = "\"pa_node\":$M"

# every replica node's module extents on its own memory, by sysfs
bad=0
for n in $(grep 'role=replica' $D/summary | kv node); do
	for pa in $(grep "^node=$n region=module .*module=fat$" $D/replicas | kv pa); do
		[ "$(pa_node $((pa)))" = "$n" ] || bad=$((bad + 1))
	done
done
check "fat's copies lie on their nodes' memory ($bad elsewhere)" test $bad = 0
check "replicas lists fat per replica node" \
	test "$(grep -c "region=module .*module=fat$" $D/replicas)" -gt 0

check "verify: healthy with modules replicated" ktrepl-dump --verify
check "diff --region module:vfat: identical" \
	ktrepl-dump diff --region module:vfat
# walk: node R's leaves over vfat, on node R's memory
ktrepl-dump -j walk --region module:vfat --node $R > /tmp/w.out 2>&1
check "walk --region module:vfat --node $R lists vfat's leaves" \
	test $? = 0 -a "$(grep -o '"region":"module:vfat"' /tmp/w.out | wc -l)" -gt 0
check "and every one is on node $R's memory" \
	test "$(grep -o '"pa_node":[-0-9]*' /tmp/w.out | sort -u)" = "\"pa_node\":$R"
head -c 400 /tmp/w.out | sed 's/^/# /'; echo
ktrepl-dump diff --region module:nosuch >/dev/null 2>&1
check "diff --region module:nosuch is refused (exit 2)" test $? = 2

# file I/O pinned to each node, on the module's copies
mkdosfs /dev/ram0 >/dev/null 2>&1
mkdir -p /mnt/f
check "a vfat ramdisk mounts" mount -t vfat /dev/ram0 /mnt/f ||
	dmesg | tail -n 5 | sed 's/^/# /'
cat > /tmp/io.sh <<'IO'
i=0
while [ $i -lt $2 ]; do
	dd if=/dev/zero of=/mnt/f/n$1 bs=4k count=16 2>/dev/null
	cat /mnt/f/n$1 > /dev/null
	rm -f /mnt/f/n$1
	i=$((i + 1))
done
IO
io() { sh /tmp/io.sh "$@"; }
# top_under_io TAG: ktrepl-top frames while each node's CPUs do file I/O
top_under_io() {
	rm -f /tmp/io.pids
	for n in $(ls -d /sys/devices/system/node/node[0-9]* | sed 's/.*node//'); do
		[ -n "$(cpus_of $n)" ] || continue
		taskset -c "$(cpus_of $n)" sh /tmp/io.sh $n 1000000 &
		echo $! >> /tmp/io.pids
	done
	sleep 1
	emit $1 taskset -c "$(cpus_of $M)" ktrepl-top -b -j -n ${2:-2} -d 3
	kill $(cat /tmp/io.pids) 2>/dev/null
	wait 2>/dev/null
}
top_under_io top $TOP_FRAMES
check_log "one line per module replicated" "$want"

# TEST: module patches
# - ftrace filtered to vfat and a kprobe on vfat_lookup reach every copy,
#   named in the patch log with the module; verify is healthy after
# - with propagate=0 the kprobe is left out of the copies: the diff
#   lists exactly its site, and the dropped patch trips the fail-safe,
#   which waits; identical again once it is gone, and propagate=1
#   resumes
# - a flipped byte of a module copy: verify exits 1 and names it
# Expected log: the fail-safe's trip, wait and resume.
start_test "module patches"
p0=$(head -n1 $D/summary | kv patches)
echo ':mod:vfat' > $TR/set_ftrace_filter
echo function > $TR/current_tracer
io x 20
echo nop > $TR/current_tracer
echo > $TR/set_ftrace_filter
echo 'p:ktr_mod vfat_lookup' > $TR/kprobe_events
echo 1 > $TR/events/kprobes/ktr_mod/enable
ls /mnt/f > /dev/null
echo 0 > $TR/events/kprobes/ktr_mod/enable
echo '-:ktr_mod' >> $TR/kprobe_events
p1=$(head -n1 $D/summary | kv patches)
check "the patch log names vfat's sites with the module" \
	grep -q 'sym=vfat_lookup.*\[vfat\]' $D/patches
check "ftrace and a kprobe on vfat were propagated ($p0 -> $p1)" \
	test "$p1" -gt "$p0"
check "verify: copies equal the master after module patches" \
	ktrepl-dump --verify
# stop the audit first (for good): a pass over a page patched meanwhile
# would recopy the flip below away before verify looks (lib.sh)
quiesce_audit
echo 0 > /sys/module/ktrepl/parameters/propagate
echo 'p:ktr_mod vfat_lookup' > $TR/kprobe_events
echo 1 > $TR/events/kprobes/ktr_mod/enable
emit nopropagate ktrepl-dump diff --region module:vfat
ktrepl-dump diff --region module:vfat > /tmp/d.out 2>&1
check "propagate=0: the diff lists exactly the kprobe site in vfat" \
	sh -c "grep -q '^1 differing range' /tmp/d.out && grep -Eq 'vfat_lookup\+0x[04] \[vfat\]' /tmp/d.out"
echo 0 > $TR/events/kprobes/ktr_mod/enable
echo '-:ktr_mod' >> $TR/kprobe_events
echo 1 > /sys/module/ktrepl/parameters/propagate
check "identical again once the kprobe is gone" \
	ktrepl-dump diff --region module:vfat
resumed() { [ "$(head -n1 $D/summary | kv failsafe_active)" = 0 ]; }
check "propagate=1: the fail-safe the dropped patch tripped resumes" \
	wait_for 10 resumed

# a flipped byte of a module copy
audit_settle
echo "flip node=$R sym=vfat_lookup off=4" > $D/inject
ktrepl-dump --verify > /tmp/v.out 2>&1
rc=$?
sed 's/^/# /' /tmp/v.out | head -n 8
check "verify exits 1 on a flipped module byte" test $rc = 1
check "verify names vfat_lookup+0x4 [vfat]" \
	grep -q 'vfat_lookup+0x4.*\[vfat\]' /tmp/v.out
echo "flip node=$R sym=vfat_lookup off=4" > $D/inject
check "verify: healthy once flipped back" ktrepl-dump --verify
check_log "the dropped patch's fail-safe" "ktrepl: fail-safe (patch_missed): a write may have missed the replicas; every CPU and process is back on the master's tables
ktrepl: fail-safe (patch_missed): propagate=0 leaves patches out of the replicas: activation stays paused until propagate=1
ktrepl: fail-safe (patch_missed): propagation is on again; checking the replicas
ktrepl: fail-safe: * replica page(s) recopied from the master, 0 still differ
ktrepl: fail-safe: * rebuilt from the master's, 0 still differ
ktrepl: fail-safe (patch_missed): every replica equals the master again; activation resumed"

# TEST: unload and reload
# - RELOADS unload/reload cycles of fat, vfat and nls while a reader keeps
#   brd busy: replicated each time; verify is healthy after
# - a kprobe armed in the master's copy survives ktrepl.ko's unload: the
#   module's own pages carry it, and vfat works on them
# Expected log: each unload's and load's lines, then ktrepl.ko's unload.
start_test "unload and reload"
cycle="$(unload_fs_log)
$(load_fs_log "$(cpus_of $R)")"
want=
umount /mnt/f
# the cycles while a reader keeps brd (a replicated module) busy
sh -c 'while :; do dd if=/dev/ram0 of=/dev/null bs=64k count=64 2>/dev/null; done' &
rd=$!
cycles=0
while [ $cycles -lt $RELOADS ]; do
	unload_fs
	listed fat && break
	load_fs "$(cpus_of $R)"
	listed vfat || break
	want="$want
$cycle"
	cycles=$((cycles + 1))
done
kill $rd
wait 2>/dev/null
check "$RELOADS unload/reload cycles, replicated each time ($cycles)" \
	test $cycles = $RELOADS
check "verify: healthy after the cycles" ktrepl-dump --verify
unload_fs
check "unloaded modules leave the summary" \
	sh -c "! grep -q '^module=fat ' $D/summary"
# a patch the kernel made in the master's copy survives ktrepl.ko: the
# bytes go back into the module's own pages when the leaves do
load_fs "$(cpus_of $R)"
want="$want
$cycle
$(unload_log)"
mount -t vfat /dev/ram0 /mnt/f
echo 'p:ktr_keep vfat_lookup' > $TR/kprobe_events
echo 1 > $TR/events/kprobes/ktr_keep/enable
emit mirror sh -c "head -n1 $D/summary | tr ' ' '\n' | grep -E 'mirror|modules'"
check "no mirror hook was missed" \
	test "$(head -n1 $D/summary | kv mirror_missed)" = 0
check_dmesg_clean
check "rmmod ktrepl" logged rmmod ktrepl
check_log "each module's release and replication, then the unload" "$want"
freed=$(dmesg | grep 'ktrepl: freed' | tail -n1)
echo "# $freed"
check "freed equals allocated" \
	sh -c "echo '$freed' | sed 's/.*freed \([0-9]*\) of \([0-9]*\) .*/\1 \2/' | awk '{ exit !(\$1 == \$2) }'"
check "brd still works after ktrepl.ko is gone" \
	dd if=/dev/ram0 of=/dev/null bs=64k count=4
hits() { awk '$1 == "ktr_keep" { print $2 }' $TR/kprobe_profile; }
h0=$(hits)
ls /mnt/f/nosuch > /dev/null 2>&1
h1=$(hits)
check "vfat's own pages carry the kprobe armed in the master's copy ($h0 -> $h1 hits)" \
	test "$h1" -gt "$h0"
echo 0 > $TR/events/kprobes/ktr_keep/enable
echo '-:ktr_keep' >> $TR/kprobe_events
check "vfat still works on its own pages" \
	sh -c "echo kept > /mnt/f/k && grep -q kept /mnt/f/k"
umount /mnt/f
unload_fs

# TEST: modules=0
# - module text stays on the module's own pages everywhere,
#   here the master's: brd too, loaded at first from any CPU, and
#   ktrepl.ko itself, whose handlers run under the I/O (loaded from a
#   replica node's CPU, a quarter of node 1's module fetches were local)
# - nothing listed, no module copies; file I/O on a vfat ramdisk
#   (ktrepl-top, judged by the host)
# Expected log: the file system's loads, then ktrepl.ko's load without a
# module line.
start_test "modules=0"
rmmod brd
taskset -c "$(cpus_of $M)" insmod $X/brd.ko rd_nr=1 rd_size=16384
mkdosfs /dev/ram0 >/dev/null 2>&1
load_fs "$(cpus_of $M)"
want="$(load_fs_log "$(cpus_of $M)" | grep '^% ')
$(load_log /lib/modules/ktrepl.ko modules=0 | grep -v ' replicated: ')"
log_cmd insmod /lib/modules/ktrepl.ko modules=0
check "insmod ktrepl.ko modules=0 (from the master node's CPUs)" \
	taskset -c "$(cpus_of $M)" insmod /lib/modules/ktrepl.ko modules=0
check "modules=0: nothing listed, no module copies" \
	test "$(head -n1 $D/summary | kv modules)" = 0 -a \
	"$(grep -c region=module $D/replicas)" = 0
check "a vfat ramdisk mounts again" mount -t vfat /dev/ram0 /mnt/f
# four frames: module text is a few % of a node's samples, and two gave
# 49 fetches on arm64 once (the clean-clone run of 2026-12-03)
top_under_io top_off 4
umount /mnt/f
check "rmmod ktrepl (modules=0)" logged rmmod ktrepl
check_log "no module line" "$want
$(unload_log)"
check_dmesg_clean
done_testing
