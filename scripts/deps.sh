#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install, idempotently, everything ktrepl needs to build and test, for
# the kernel profiles named (scripts/kernels/*.conf). Host packages come
# from apt; the guest kernels, their headers and busybox for arm64 are
# unpacked into $KTREPL_CACHE (not installed), so the host's /boot is
# never touched and `make clean` never throws away the debug vmlinux.
set -euo pipefail

CACHE=${KTREPL_CACHE:?set KTREPL_CACHE}
HERE=$(cd "$(dirname "$0")" && pwd)

die() { echo "deps: $*" >&2; exit 2; }

# the kernel profiles to fetch (scripts/kernels/NAME.conf): the arguments,
# else $KERNEL, else the pinned 6.1
profiles=("$@")
[ ${#profiles[@]} -gt 0 ] || profiles=("${KERNEL:-6.1}")

kernel_pkgs=()
for p in "${profiles[@]}"; do
	conf="$HERE/kernels/$p.conf"
	[ -f "$conf" ] || die "no kernel profile '$p' (have: $(cd "$HERE/kernels" && ls *.conf | sed 's/\.conf$//' | tr '\n' ' '))"
	# shellcheck source=/dev/null
	read -r common kbuild < <(. "$conf"; echo "$KERNEL_COMMON $KERNEL_KBUILD")
	[ -n "$kbuild" ] || die "$conf names no KERNEL_COMMON and KERNEL_KBUILD"
	kernel_pkgs+=("$common" "$kbuild")
done

HOST_PKGS=(build-essential bc flex bison libssl-dev kmod cpio libkdumpfile-dev libelf-dev libdw-dev
	libncurses-dev pkg-config crash makedumpfile qemu-system-x86
	qemu-system-arm gcc-aarch64-linux-gnu busybox-static
	python3 socat tmux e2fsprogs linux-perf "${kernel_pkgs[@]}"
	clang libclang-rt-14-dev prometheus bash-completion
	debhelper dh-dkms dkms lintian dpkg-dev
	python3-drgn python3-jsonschema libelf-dev:arm64 libdw-dev:arm64
	libkdumpfile-dev:arm64
	libncurses-dev:arm64)

as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

missing=()
for p in "${HOST_PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
need_arm64_arch=0
dpkg --print-foreign-architectures | grep -qx arm64 || need_arm64_arch=1

if [ ${#missing[@]} -gt 0 ] || [ $need_arm64_arch = 1 ]; then
	[ $need_arm64_arch = 1 ] && as_root dpkg --add-architecture arm64
	as_root apt-get update -qq || die "apt-get update failed"
	if [ ${#missing[@]} -gt 0 ]; then
		echo "deps: installing ${missing[*]}"
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends "${missing[@]}" ||
			die "apt-get install failed for: ${missing[*]}"
	fi
fi

mkdir -p "$CACHE/debs"

# fetch PKG[:ARCH] into the cache and unpack it into DIR (once)
fetch() {
	local pkg=$1 dir=$2 stamp
	stamp="$dir/.${pkg//:/_}.done"
	[ -e "$stamp" ] && return 0
	mkdir -p "$dir"
	(cd "$CACHE/debs" && ls ./"${pkg%%:*}"_*"${pkg#*:}"*.deb >/dev/null 2>&1 ||
		apt-get download -qq "$pkg") ||
		die "cannot download Debian package $pkg"
	local deb
	deb=$(ls "$CACHE"/debs/"${pkg%%:*}"_*.deb | grep -E "_(${3:-amd64|all})\.deb$" | tail -n1)
	[ -n "$deb" ] || die "downloaded $pkg but found no .deb"
	if [ -n "${4:-}" ]; then
		dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dir" "$4"
	else
		dpkg-deb -x "$deb" "$dir"
	fi
	touch "$stamp"
}

# Each kernel lives in $CACHE/kernels/<release>: image and modules, the
# flavour's headers (their common part and kbuild are host packages), and
# for x86_64 the debug vmlinux only (not the 1.7 GB tree). arm64 dumps are
# read without one: Debian's crash on amd64 cannot open them anyway.
fetch_kernel() {
	local rel=$1 arch=$2 dir="$CACHE/kernels/$1" hdr l target
	fetch "linux-image-$rel:$arch" "$dir" "$arch"
	fetch "linux-headers-$rel:$arch" "$dir" "$arch"
	if [ "$arch" = amd64 ]; then
		fetch "linux-image-$rel-dbg" "$dir" amd64 \
			"./usr/lib/debug/boot/vmlinux-$rel"
	fi
	# the headers' scripts/ and tools/ point into their own kbuild
	# package: the host's runs the same scripts natively
	hdr="$dir/usr/src/linux-headers-$rel"
	for l in scripts tools; do
		target=$(readlink "$hdr/$l" 2>/dev/null) || continue
		case $target in
		../../lib/*) ln -sfn "/usr/lib/${target#../../lib/}" "$hdr/$l" ;;
		# a run before this fix doubled the prefix
		/usr/lib//usr/lib/*) ln -sfn "${target#/usr/lib/}" "$hdr/$l" ;;
		esac
	done
}

for p in "${profiles[@]}"; do
	read -r x86 arm64 < <(. "$HERE/kernels/$p.conf"; echo "$KERNEL_X86 $KERNEL_ARM64")
	fetch_kernel "$x86" amd64
	fetch_kernel "$arm64" arm64
done
fetch "busybox-static:arm64" "$CACHE/arm64-busybox" arm64

# kdump in the guests (tests/vm/kdump.py): Debian's kexec-tools for both
# arches and the arm64 makedumpfile (the capture kernel of an arm64 guest
# runs it; the host's own serves x86_64), unpacked, never installed
for a in amd64 arm64; do
	fetch "kexec-tools:$a" "$CACHE/kdump/kexec-tools-$a" "$a"
done
fetch "makedumpfile:arm64" "$CACHE/kdump/makedumpfile-arm64" arm64

# checkpatch.pl for the module's style check: only three files of the
# kernel source package, unpacked once
if [ ! -e "$CACHE/checkpatch/scripts/checkpatch.pl" ]; then
	(cd "$CACHE/debs" && ls ./linux-source-6.1_*.deb >/dev/null 2>&1 ||
		apt-get download -qq linux-source-6.1) ||
		die "cannot download Debian package linux-source-6.1 (for checkpatch.pl)"
	mkdir -p "$CACHE/checkpatch"
	src=$(ls "$CACHE"/debs/linux-source-6.1_*.deb | tail -n1)
	dpkg-deb --fsys-tarfile "$src" |
		tar -xO --wildcards './usr/src/linux-source-6.1.tar.xz' |
		xz -dc | tar -x -C "$CACHE/checkpatch" --strip-components=1 \
			--wildcards 'linux-source-6.1/scripts/checkpatch.pl' \
			'linux-source-6.1/scripts/spelling.txt' \
			'linux-source-6.1/scripts/const_structs.checkpatch' \
			'linux-source-6.1/.clang-format' ||
		die "cannot unpack checkpatch.pl from linux-source-6.1"
fi

# --- crash on arm64 (issue 27) ---------------------------------------
# Debian's crash reads dumps of the architecture it was built for. For
# arm64 dumps on this host: Debian's arm64 crash, run by
# qemu-aarch64-static -L $CACHE/arm64-crash. That directory is an
# overlay on the host's root: the crash package and only those of its
# library packages that are not installed for arm64 already (qemu looks
# in the prefix first, then in /). And the arm64 debug vmlinux of the
# suite's kernel (the first profile), one file of the -dbg package.
if ! dpkg-query -W -f='${Status}' qemu-user-static 2>/dev/null | grep -q 'install ok installed'; then
	echo "deps: installing qemu-user-static"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends qemu-user-static ||
		die "apt-get install failed for: qemu-user-static"
fi
ARM64_CRASH="$CACHE/arm64-crash"
fetch "crash:arm64" "$ARM64_CRASH" arm64
# binutils is a tool crash runs, not a library it loads
for p in $(dpkg-deb -f "$(ls "$CACHE"/debs/crash_*_arm64.deb | tail -n1)" Depends |
	tr ',' '\n' | sed 's/[ (].*//; s/^ *//; /^$/d; /^binutils$/d'); do
	dpkg-query -W -f='${Status}' "$p:arm64" 2>/dev/null | grep -q 'install ok installed' ||
		fetch "$p:arm64" "$ARM64_CRASH" arm64
done
for lib in $(readelf -d "$ARM64_CRASH/usr/bin/crash" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
	found=
	for d in "$ARM64_CRASH"/{usr/,}lib/aarch64-linux-gnu /{usr/,}lib/aarch64-linux-gnu; do
		[ -e "$d/$lib" ] && found=$d
	done
	[ -n "$found" ] ||
		die "arm64 crash needs $lib: in no package unpacked into $ARM64_CRASH, nor installed for arm64"
done
# (none for a profile whose crash cannot read its dumps as they come,
# CRASH_LIMITS: t12 skips there)
read -r arm64_rel crash_limits < <(. "$HERE/kernels/${profiles[0]}.conf"
	echo "$KERNEL_ARM64 ${CRASH_LIMITS:-}")
if [ -z "$crash_limits" ]; then
	arm64_vmlinux="./usr/lib/debug/boot/vmlinux-$arm64_rel"
	fetch "linux-image-$arm64_rel-dbg:arm64" "$CACHE/kernels/$arm64_rel" arm64 "$arm64_vmlinux"
	# the -dbg vmlinux is of the booted image only if the image carries its
	# build ID (a newer upload of the same ABI would not): checked once
	arm64_kdir="$CACHE/kernels/$arm64_rel"
	if [ ! -e "$arm64_kdir/.vmlinux-dbg-build-id.ok" ]; then
		python3 - "$arm64_kdir/$arm64_vmlinux" "$arm64_kdir/boot/vmlinuz-$arm64_rel" <<-'EOF' ||
			import gzip, re, subprocess, sys
			notes = subprocess.run(["readelf", "-n", sys.argv[1]], capture_output=True,
			                       text=True, check=True).stdout
			bid = bytes.fromhex(re.search(r"Build ID: ([0-9a-f]+)", notes).group(1))
			with open(sys.argv[2], "rb") as f:
			    img = f.read()
			img = gzip.decompress(img) if img[:2] == b"\x1f\x8b" else img
			sys.exit(0 if bid in img else 1)
		EOF
			die "$arm64_vmlinux from linux-image-$arm64_rel-dbg is not of the cached vmlinuz-$arm64_rel (build IDs differ): remove $CACHE/debs/linux-image-$arm64_rel*_arm64.deb and $arm64_kdir, then run this again"
		touch "$arm64_kdir/.vmlinux-dbg-build-id.ok"
	fi
fi
# --- end crash on arm64 -----------------------------------------------

echo "deps: all present for ${profiles[*]} (cache $CACHE)"
