#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build, once, an x86_64 debug kernel from Debian's linux-source-6.1:
# defconfig, what the test guests need (tests/vm/ktvm.py boots it as it
# boots Debian's cloud kernel), and lockdep, atomic-sleep checks, KASAN
# and kmemleak, so that the guest tests can run ktrepl.ko under them
# (tests/vm/t15-debug-kernel.py). The result is cached like the Debian
# kernels (scripts/deps.sh), under $KTREPL_CACHE/kernels/<release>/:
#
#   boot/vmlinuz-<release>, boot/config-<release>, boot/System.map-<release>
#   lib/modules/<release>/        the guests' modules (qemu_fw_cfg, brd, vfat)
#   usr/src/linux-headers-<release>/   the build tree itself (O=): its
#                                 Module.symvers, .config and scripts are
#                                 what building ktrepl.ko against it needs
#
# The source is unpacked next to it in $KTREPL_CACHE/debug-kernel/ (the
# build tree's Makefile points there). `make clean` keeps both; a second
# run with the same configuration is a no-op. Build with nice -n 19 and
# -j$KTREPL_DEBUG_JOBS (2): guests may run beside it.
set -euo pipefail

CACHE=${KTREPL_CACHE:?set KTREPL_CACHE}
HERE=$(cd "$(dirname "$0")" && pwd)
JOBS=${KTREPL_DEBUG_JOBS:-2}

die() { echo "debug-kernel: $*" >&2; exit 2; }

# the release name is the profile's: one place says it
# shellcheck source=/dev/null
REL=$(. "$HERE/kernels/built/debug.conf"; echo "$KERNEL_X86")
LOCALVERSION=-${REL#*-}
SRC_DEB=$(ls "$CACHE"/debs/linux-source-6.1_*_all.deb 2>/dev/null | tail -n1)
SRC_ROOT=$CACHE/debug-kernel
SRC=$SRC_ROOT/linux-source-6.1
DEST=$CACHE/kernels/$REL
OUT=$DEST/usr/src/linux-headers-$REL

# Every option the guests and the checks need, as scripts/config takes
# them; each is checked in the final .config, so a dependency Kconfig
# silently dropped is an error here, not a mystery in a guest.
OPTIONS=(
	# naming: the release is 6.1.N$LOCALVERSION, nothing appended
	"--set-str LOCALVERSION $LOCALVERSION" "-d LOCALVERSION_AUTO"
	# no debug info (hours of link time), hence no BTF (pahole)
	"-e DEBUG_INFO_NONE" "-d DEBUG_INFO_BTF"
	# the guests' machine: q35, ACPI NUMA, serial console, initramfs
	"-e ACPI" "-e NUMA" "-e ACPI_NUMA" "-e X86_64_ACPI_NUMA"
	"-e SERIAL_8250" "-e SERIAL_8250_CONSOLE"
	"-e BLK_DEV_INITRD" "-e RD_GZIP" "-e DEVTMPFS" "-e TMPFS"
	"-e VIRTIO_MENU" "-e VIRTIO" "-e VIRTIO_PCI" "-e VIRTIO_BLK"
	"-e VIRTIO_CONSOLE" "-d HZ_1000" "-e HZ_250"
	# as Debian's cloud kernel: 5-level paging, PTI, KASLR, THP,
	# memory hotplug (/sys/devices/system/memory), cpusets, schedstats
	"-e X86_5LEVEL" "-e PAGE_TABLE_ISOLATION" "-e RANDOMIZE_BASE"
	"-e TRANSPARENT_HUGEPAGE" "-e MEMORY_HOTPLUG" "-e MEMORY_HOTREMOVE"
	"-e CPUSETS" "-e SCHED_DEBUG" "-e SCHEDSTATS" "-e HOTPLUG_CPU"
	"-e PERF_EVENTS" "-e PROC_KCORE" "-e DEBUG_FS" "-e JUMP_LABEL"
	# what ktrepl hooks and what the tests patch text with
	"-e KPROBES" "-e KRETPROBES" "-e FTRACE" "-e FUNCTION_TRACER"
	"-e FUNCTION_GRAPH_TRACER" "-e DYNAMIC_FTRACE"
	"-e DYNAMIC_FTRACE_WITH_REGS" "-e KPROBE_EVENTS" "-e STACK_TRACER"
	"-e KALLSYMS" "-e KALLSYMS_ALL" "-e LIVEPATCH"
	"-e MODULES" "-e MODULE_UNLOAD" "-d MODULE_SIG"
	"-e STRICT_KERNEL_RWX" "-e STRICT_MODULE_RWX"
	# modules the guests load (ktvm.py: init's fw_cfg, fs_modules())
	"-m FW_CFG_SYSFS" "-m BLK_DEV_RAM" "-m FAT_FS" "-m VFAT_FS"
	"-d MSDOS_FS" "-e NLS" "-m NLS_CODEPAGE_437" "-m NLS_ISO8859_1"
	"-m NLS_UTF8" "-m NLS_ASCII"
	# the checks
	"-e DEBUG_KERNEL" "-e PROVE_LOCKING" "-e PROVE_RCU" "-e RCU_EXPERT" "-e PROVE_RCU_LIST"
	"-e DEBUG_ATOMIC_SLEEP" "-e DEBUG_PREEMPT"
	"--set-val LOCKDEP_BITS 16" "--set-val LOCKDEP_CHAINS_BITS 17"
	"--set-val LOCKDEP_STACK_TRACE_BITS 20"
	"-e KASAN" "-e KASAN_GENERIC" "-e KASAN_INLINE"
	"-e DEBUG_KMEMLEAK" "-d DEBUG_KMEMLEAK_DEFAULT_OFF"
	"--set-val DEBUG_KMEMLEAK_MEM_POOL_SIZE 40000"
	# a scan only when the test asks for one: a background scan under
	# TCG takes minutes of CPU at a random time
	"-d DEBUG_KMEMLEAK_AUTO_SCAN"
	"-d KFENCE"
	# workload.c's preemption notifiers: only KVM selects them (Debian's
	# cloud kernels have KVM as a module)
	"-m KVM" "-m KVM_INTEL" "-e PREEMPT_NOTIFIERS"
	# nothing the guests have: half the build time (i915 alone is minutes)
	"-d DRM" "-d SOUND" "-d CFG80211" "-d WLAN" "-d WIRELESS"
	"-d NETFILTER" "-d USB_SUPPORT" "-d BT" "-d MEDIA_SUPPORT"
	"-d PCCARD" "-d MD" "-d ETHERNET" "-d AGP" "-d FB"
	"-d INPUT_JOYSTICK" "-d INPUT_TABLET" "-d INPUT_TOUCHSCREEN"
)
FINGERPRINT=$(printf '%s\n' "$SRC_DEB" "${OPTIONS[@]}" | sha256sum | cut -c1-16)
STAMP=$DEST/.debug-kernel.done

if [ -e "$STAMP" ] && [ "$(cat "$STAMP")" = "$FINGERPRINT" ] &&
	[ -e "$DEST/boot/vmlinuz-$REL" ] && [ -e "$OUT/Module.symvers" ]; then
	echo "debug-kernel: $REL is built ($DEST)"
	exit 0
fi
[ -n "$SRC_DEB" ] || die "no linux-source-6.1 .deb in $CACHE/debs: run make deps"
for t in flex bison bc; do
	command -v $t >/dev/null || die "$t is missing: run make deps (scripts/deps.sh HOST_PKGS)"
done
[ -e /usr/include/openssl/ssl.h ] || die "libssl-dev is missing: run make deps"
[ -e /usr/include/libelf.h ] || die "libelf-dev is missing: run make deps"

if [ ! -e "$SRC_ROOT/.unpacked" ] || [ "$(cat "$SRC_ROOT/.unpacked")" != "$SRC_DEB" ]; then
	echo "debug-kernel: unpacking $(basename "$SRC_DEB")"
	rm -rf "$SRC"
	mkdir -p "$SRC_ROOT"
	dpkg-deb --fsys-tarfile "$SRC_DEB" |
		tar -xO ./usr/src/linux-source-6.1.tar.xz | xz -dc |
		tar -x -C "$SRC_ROOT" || die "cannot unpack $SRC_DEB"
	echo "$SRC_DEB" >"$SRC_ROOT/.unpacked"
fi

mkdir -p "$OUT"
kmake() { nice -n 19 make -C "$SRC" O="$OUT" ARCH=x86_64 "$@"; }

kmake -s x86_64_defconfig
args=()
for o in "${OPTIONS[@]}"; do
	# shellcheck disable=SC2206
	args+=($o)
done
"$SRC/scripts/config" --file "$OUT/.config" "${args[@]}"
kmake -s olddefconfig

# every option as asked, or say which Kconfig refused
bad=0
for o in "${OPTIONS[@]}"; do
	read -r op name val <<<"$o"
	case $op in
	-e) want="CONFIG_$name=y" ;;
	-m) want="CONFIG_$name=m" ;;
	-d) want="# CONFIG_$name is not set" ;;
	--set-str) want="CONFIG_$name=\"$val\"" ;;
	--set-val) want="CONFIG_$name=$val" ;;
	esac
	if [ "$op" = -d ]; then
		grep -q "^CONFIG_$name=" "$OUT/.config" && { echo "debug-kernel: wanted $want, got $(grep "^CONFIG_$name=" "$OUT/.config")" >&2; bad=1; }
	else
		grep -qxF "$want" "$OUT/.config" || { echo "debug-kernel: wanted $want, got '$(grep -E "CONFIG_$name[= ]" "$OUT/.config")'" >&2; bad=1; }
	fi
done
[ $bad = 0 ] || die "the configuration lost options above (a dependency?)"

echo "debug-kernel: building $REL with -j$JOBS (about 25 minutes on 2 cores)"
kmake -j"$JOBS" bzImage modules
# the release the tree built (include/config/kernel.release) is the
# profile's, or nothing downstream finds its modules
[ "$(cat "$OUT/include/config/kernel.release")" = "$REL" ] ||
	die "the tree built $(cat "$OUT/include/config/kernel.release"), the profile says $REL"
mkdir -p "$DEST/boot"
cp "$OUT/arch/x86/boot/bzImage" "$DEST/boot/vmlinuz-$REL"
cp "$OUT/.config" "$DEST/boot/config-$REL"
cp "$OUT/System.map" "$DEST/boot/System.map-$REL"
rm -rf "$DEST/lib/modules/$REL"
kmake -s INSTALL_MOD_PATH="$DEST" modules_install
echo "$FINGERPRINT" >"$STAMP"
echo "debug-kernel: $REL built into $DEST"
