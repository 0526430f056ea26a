# SPDX-License-Identifier: GPL-2.0
# The module as the ktrepl-dkms package built it: loads, and is healthy.
. /lib.sh
check "insmod the DKMS-built ktrepl.ko" insmod /lib/modules/ktrepl.ko
check "its srcversion is the packaged source's" \
	test "$(cat /sys/module/ktrepl/srcversion)" = "$(cat /srcversion)"
check "verify: healthy" ktrepl-dump --verify
check "node tables in use (activation mm)" \
	test "$(head -n1 $D/summary | kv activation)" = mm
check_dmesg_clean
done_testing
