# SPDX-License-Identifier: GPL-2.0
# Module copies for a vmcore: brd before ktrepl.ko, fat and vfat after,
# then one byte of vfat's copy on a replica node flipped.
. /lib.sh
X=/lib/modules/extra
check "brd loads before ktrepl.ko" insmod $X/brd.ko rd_nr=1 rd_size=4096
check "insmod ktrepl-test.ko fault_inject=1" insmod /lib/modules/ktrepl-test.ko fault_inject=1
check "fat and vfat load after it" sh -c "insmod $X/fat.ko && insmod $X/vfat.ko"
check "verify: healthy" ktrepl-dump --verify
R=$(grep 'role=replica' $D/summary | head -n1 | kv node)
audit_settle
check "inject: flip vfat_lookup+0x4 on node $R" \
	sh -c "echo 'flip node=$R sym=vfat_lookup off=4' > $D/inject"
echo "FLIPPED $R $(grep ' vfat_lookup\b' /proc/kallsyms | cut -d' ' -f1)"
emit modules grep '^module=' $D/summary
echo KTREPL-READY-FOR-DUMP
sleep 600
