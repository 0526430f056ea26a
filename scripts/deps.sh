#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install, idempotently, everything ktrepl needs to build and test.
# Host packages come from apt; the guest kernels, the arm64 headers and
# busybox for arm64 are unpacked into $KTREPL_CACHE (not installed), so
# the host's /boot is never touched and `make clean` never throws away
# the 280 MB debug vmlinux.
set -euo pipefail

KABI=${KABI:?set KABI, e.g. 6.1.0-50}
CACHE=${KTREPL_CACHE:?set KTREPL_CACHE}

HOST_PKGS=(build-essential bc kmod cpio libkdumpfile-dev libelf-dev libdw-dev
	libncurses-dev pkg-config crash makedumpfile qemu-system-x86
	qemu-system-arm gcc-aarch64-linux-gnu busybox-static
	python3 socat tmux "linux-headers-$KABI-cloud-amd64" linux-kbuild-6.1
	clang libclang-rt-14-dev
	python3-drgn libelf-dev:arm64 libdw-dev:arm64 libkdumpfile-dev:arm64
	libncurses-dev:arm64)

die() { echo "deps: $*" >&2; exit 2; }

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

# x86_64 guest kernel + modules, and the debug vmlinux only (not the 1.7 GB tree)
fetch "linux-image-$KABI-cloud-amd64" "$CACHE/amd64" amd64
fetch "linux-image-$KABI-cloud-amd64-dbg" "$CACHE/amd64-dbg" amd64 \
	"./usr/lib/debug/boot/vmlinux-$KABI-cloud-amd64"

# arm64 guest kernel, headers for cross-building the module, busybox
fetch "linux-image-$KABI-cloud-arm64:arm64" "$CACHE/arm64" arm64
fetch "linux-headers-$KABI-cloud-arm64:arm64" "$CACHE/arm64" arm64
fetch "busybox-static:arm64" "$CACHE/arm64-busybox" arm64

# The arm64 headers' scripts/ and tools/ point at the arm64 kbuild
# package; the host's x86 kbuild runs the same scripts natively.
hdr="$CACHE/arm64/usr/src/linux-headers-$KABI-cloud-arm64"
for l in scripts tools; do
	if [ -L "$hdr/$l" ] && [ "$(readlink "$hdr/$l")" != "/usr/lib/linux-kbuild-6.1/$l" ]; then
		ln -sfn "/usr/lib/linux-kbuild-6.1/$l" "$hdr/$l"
	fi
done
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

echo "deps: all present (cache $CACHE)"
