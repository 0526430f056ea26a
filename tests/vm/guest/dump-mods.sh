# SPDX-License-Identifier: GPL-2.0
# Module copies for a vmcore: brd before ktrepl.ko, fat and vfat after,
# then one byte of vfat's copy on a replica node flipped (t04 dumps the
# guest). Two scenarios, each with the kernel log it must leave (lib.sh:
# start_test, check_log); the host folds their TAP.
. /lib.sh
X=/lib/modules/extra

# TEST: modules
# - insmod brd, then the test build (fault_inject=1), then fat and vfat
# - verify: healthy
# Expected log: brd's insmod; the load's (load_log), brd replicated
# during it; then fat and vfat, each replicated as it loads.
start_test "modules"
check "brd loads before ktrepl.ko" logged insmod $X/brd.ko rd_nr=1 rd_size=4096
want=$(load_log /lib/modules/ktrepl-test.ko fault_inject=1)
check "insmod ktrepl-test.ko fault_inject=1" \
	logged insmod /lib/modules/ktrepl-test.ko fault_inject=1
fat_vfat() { logged insmod $X/fat.ko && logged insmod $X/vfat.ko; }
check "fat and vfat load after it" fat_vfat
check "verify: healthy" ktrepl-dump --verify
check_log "brd replicated at load, fat and vfat as they load" \
	"% insmod $X/brd.ko rd_nr=1 rd_size=4096
$want
% insmod $X/fat.ko
$(module_replicated_log fat)
% insmod $X/vfat.ko
$(module_replicated_log vfat)"

# TEST: flip
# - flip vfat_lookup+0x4 in node R's copy, once a whole audit pass ran
#   (arm64)
# - the flipped address and the summary's module lines, for the host
# Expected log: the inject command.
start_test "flip"
R=$(grep 'role=replica' $D/summary | head -n1 | kv node)
audit_settle
log_cmd "echo 'flip node=$R sym=vfat_lookup off=4' > $D/inject"
check "inject: flip vfat_lookup+0x4 on node $R" \
	sh -c "echo 'flip node=$R sym=vfat_lookup off=4' > $D/inject"
echo "FLIPPED $R $(grep ' vfat_lookup\b' /proc/kallsyms | cut -d' ' -f1)"
emit modules grep '^module=' $D/summary
check_log "the inject logs nothing" \
	"% echo 'flip node=$R sym=vfat_lookup off=4' > $D/inject"
echo KTREPL-READY-FOR-DUMP
sleep 600
