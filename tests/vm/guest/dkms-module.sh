# SPDX-License-Identifier: GPL-2.0
# The module as the ktrepl-dkms package built it: loads, and is healthy.
# One scenario with the kernel log it must leave (lib.sh: start_test,
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
check_dmesg_clean
done_testing
