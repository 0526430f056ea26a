# SPDX-License-Identifier: GPL-2.0
# The modules as the ktrepl-dkms package built them: ktrepl.ko loads and
# is healthy; installed where DKMS puts them, kmod's modprobe loads both
# for ktrepl-bench, and the shipped 32 MiB bench module is replicated.
# Scenarios with the kernel log each must leave (lib.sh: start_test,
# check_log).
. /lib.sh

# TEST: the DKMS-built module
# - insmod the module DKMS built against the guest's kernel headers
# - its srcversion is the packaged source's: the guest runs what the
#   package built, not a module from this tree's own build
# - verify is healthy and activation is the arch's default (x86_64: mm)
# - rmmod
# Expected log: load_log's and unload_log's, as for this tree's build.
want="$(load_log /lib/modules/ktrepl.ko)
$(unload_log)"
start_test "the DKMS-built module"
check "insmod the DKMS-built ktrepl.ko" logged insmod /lib/modules/ktrepl.ko
check "its srcversion is the packaged source's" \
	test "$(cat /sys/module/ktrepl/srcversion)" = "$(cat /srcversion)"
check "verify: healthy" ktrepl-dump --verify
check "node tables in use (activation mm)" \
	test "$(head -n1 $D/summary | kv activation)" = mm
check "rmmod ktrepl" logged rmmod ktrepl
check_log "the load's and the unload's log" "$want"

# TEST: ktrepl-bench through modprobe
# - both DKMS-built modules in /lib/modules/$(uname -r)/updates/dkms with
#   the host's depmod output, and kmod's modprobe, as a user's host has
# - ktrepl-bench text with neither --module nor --bench-module: modprobe
#   loads both (the host judges the JSON: every node measured, the
#   shipped 32 MiB body)
# - by hand, as ktrepl-bench does: the bench module from node 0's CPUs,
#   then ktrepl: its 32 MiB of text and rodata replicated, verify healthy
# - modprobe -r both: nothing left loaded
# Expected log: ktrepl.ko's loads and unloads, with the bench module
# replicated and freed, as often as the run's time allowed; then the
# hand load's.
allowed="% taskset -c * /sbin/modprobe ktrepl_bench_text
% /sbin/modprobe ktrepl
$(load_log ktrepl | grep -v '^% ')
$(module_replicated_log ktrepl_bench_text)
$(module_freed_log ktrepl_bench_text)
$(unload_log | grep -v '^% ')
% /sbin/modprobe -r ktrepl
% /sbin/modprobe -r ktrepl_bench_text"
start_test "ktrepl-bench through modprobe"
# kmod's modprobe, where Debian has it: first on ktrepl-bench's PATH,
# and named in full here (busybox sh runs its own applet before PATH)
export PATH=/sbin:$PATH
MP=/sbin/modprobe
check "modprobe is kmod's" sh -c "$MP --version | grep -q '^kmod version'"
check "modprobe finds both DKMS-built modules" \
	sh -c "$MP -n -v ktrepl | grep -q updates/dkms/ktrepl.ko &&
		$MP -n -v ktrepl_bench_text |
			grep -q updates/dkms/ktrepl_bench_text.ko"
t0=$(now_ms)
ktrepl-bench --quick --max-time ${BENCH_MAX_TIME:-40} -j text >/tmp/text \
	2>/tmp/text.err
echo "@@text_rc@@ $?"
emit text cat /tmp/text
emit text_err cat /tmp/text.err
echo "# ktrepl-bench text through modprobe: $(($(now_ms) - t0)) ms"
check "ktrepl-bench left nothing loaded" \
	no_bench_modules_loaded
check "modprobe the bench module from node 0's CPUs" \
	logged taskset -c "$(cut -d, -f1 /sys/devices/system/node/node0/cpulist)" \
	$MP ktrepl_bench_text
check "modprobe ktrepl" logged $MP ktrepl
emit summary grep -E '^module=ktrepl_bench_text ' $D/summary
check "verify with the 32 MiB module replicated: healthy" ktrepl-dump --verify
check "modprobe -r ktrepl" logged $MP -r ktrepl
check "modprobe -r ktrepl_bench_text" logged $MP -r ktrepl_bench_text
check "nothing left loaded" \
	no_bench_modules_loaded
check_log_among "only ktrepl.ko's loads and unloads, the bench module's replication" \
	"$allowed"
check_dmesg_clean
done_testing
