#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The table mirror (kernel/replica/mirror.c) sees a vmalloc-area map or
# unmap, or a protection change, only through the functions its
# kretprobes sit on. In each Debian kernel the tests cover (its -dbg
# vmlinux, from make deps): every probed function is out of line, every
# way in to the vmalloc area's page tables calls one of them directly,
# not an inlined copy, and on x86 every caller of CPA's core is probed
# or changes no mapping a node owns.
# A kernel where one does not would leave node tables stale and CPUs
# faulting on code mapped next to the replicated modules.
top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${KTREPL_CACHE:-/var/cache/ktrepl}
. "$top/tests/tap.sh"
tap_header
# the probed map and unmap functions, as mirror.c's table names them
probed=$(sed -n 's/.*MIRROR_PROBE("\([a-z_]*\)", range_entry.*/\1/p' \
	"$top/kernel/replica/mirror.c")
# the seven ways in: vmalloc (module, BPF and ftrace code among its
# callers; a|b names one function that a kernel calls either name),
# vmap, vm_map_ram, ioremap, and their unmaps
entries="__vmalloc_node_range|__vmalloc_node_range_noprof vmap vm_map_ram
	ioremap_page_range vunmap_range remove_vm_area vm_unmap_ram"
# the protection changes, per arch (ktr_arch_protect_probes[])
protect_x86=$(sed -n 's/.*{ "\([a-z_0-9]*\)", KTR_PROTECT_[A-Z_]* },.*/\1/p' \
	"$top/kernel/replica/arch_x86.c")
# those a kernel may lack: built with no path to them
optional_x86=$(sed -n 's/.*{ "\([a-z_0-9]*\)", KTR_PROTECT_[A-Z_]*, \.optional = true },.*/\1/p' \
	"$top/kernel/replica/arch_x86.c")
protect_x86="$protect_x86 $optional_x86"
protect_arm64=$(sed -n 's/.*{ "\([a-z_0-9]*\)", KTR_PROTECT_[A-Z_]* },.*/\1/p' \
	"$top/kernel/replica/arch_arm64.c")
# x86: the callers of CPA's core besides its funnel that change no
# mapping a node owns: the direct map's (set_direct_map_*, __set_pages_*)
# or EFI's own tables, never with the image's alias
cpa_core=__change_page_attr_set_clr
cpa_unowned="__change_page_attr_set_clr set_direct_map_invalid_noflush
	set_direct_map_default_noflush __set_pages_p __set_pages_np
	kernel_map_pages_in_pgd kernel_unmap_pages_in_pgd"
# a probe list mirror.c or an arch header no longer spells as the seds
# above read it would leave nothing to check but would pass: stop instead
if [ -z "$probed" ] || [ -z "$protect_x86" ] || [ -z "$protect_arm64" ]; then
	echo "Bail out! no MIRROR_PROBE(..., range_entry, ...) in kernel/replica/mirror.c, or no ktr_arch_protect_probes[] entry in arch_x86.c or arch_arm64.c"
	exit 1
fi
# and the debug kernel's build tree (make debug-kernel), where built
vmlinuxes=$(ls "$cache"/kernels/*/usr/lib/debug/boot/vmlinux-* \
	"$cache"/kernels/*-ktrepl-debug/usr/src/linux-headers-*/vmlinux 2>/dev/null)
if [ -z "$vmlinuxes" ]; then
	skip_all "no -dbg vmlinux in $cache/kernels (run make deps)"
	exit 0
fi
echo "# probed: $(echo $probed)"
echo "# protection changes: x86_64 $(echo $protect_x86); arm64 $(echo $protect_arm64)"
is_arm64() { file -L "$1" | grep -q aarch64; }
# the plan up front: per vmlinux, one check per probed function and one
# per way in, each made whether or not its function is found; on x86
# one more, for CPA's core
set -- $probed
np=$#
set -- $entries
ne=$#
plan=0
for v in $vmlinuxes; do
	if is_arm64 "$v"; then
		set -- $protect_arm64
		plan=$((plan + np + ne + $#))
	else
		set -- $protect_x86
		plan=$((plan + np + ne + $# + 1))
	fi
done
tap_plan $plan
# calls FILE OBJDUMP START SIZE: the names a function calls or jumps to
calls() {
	$2 -d --no-show-raw-insn --start-address=$((0x$3)) \
		--stop-address=$((0x$3 + 0x$4)) "$1" 2>/dev/null |
		sed -n 's/.*\(call\|jmp\|bl\|b\)[[:space:]]\+[0-9a-f]\+ <\([^>+]*\)>.*/\2/p' |
		sort -u
}
for v in $vmlinuxes; do
	rel=${v##*/vmlinux-}
	# the debug kernel's: its release is its build tree's name
	[ "$rel" = "$v" ] && rel=$(basename "$(dirname "$v")" | sed 's/^linux-headers-//')
	od=objdump
	protect=$protect_x86
	if is_arm64 "$v"; then
		od=aarch64-linux-gnu-objdump
		protect=$protect_arm64
	fi
	syms=$(mktemp)
	nm -S "$v" > "$syms"
	for f in $probed $protect; do
		# a clone (.constprop.N, .isra.N, .part.N) would take calls the
		# probe on the name never sees: it counts too (.cold is a part)
		n=$(awk -v f="$f" '($4 == f || (index($4, f ".") == 1 && $4 !~ /\.cold$/)) &&
			($3 == "t" || $3 == "T")' "$syms" | wc -l)
		case " $(echo $optional_x86) " in
		*" $f "*)
			# absent: no path to it, unless inlined into a caller of
			# CPA's core, which the last check names
			check "$rel: $f is one out-of-line function or absent (got $n, want 1 or 0)" \
				test "$n" -le 1
			continue
			;;
		esac
		check "$rel: $f is one out-of-line function (got $n, want 1)" \
			test "$n" = 1
	done
	for alts in $entries; do
		line=
		for e in $(echo "$alts" | tr '|' ' '); do
			line=$(awk -v f="$e" '$4 == f && ($3 == "t" || $3 == "T") { print $1, $2; exit }' "$syms")
			[ -n "$line" ] && break
		done
		if [ -z "$line" ]; then
			not_ok "$rel: $alts is a function in the symbol table"
			echo "# got: no such t/T symbol in nm -S"
			echo "# want: one of $(echo "$alts" | tr '|' ' ')"
			continue
		fi
		got=$(calls "$v" $od $line | tr '\n' ' ')
		hit=
		for f in $probed; do
			case " $got " in *" $f "*) hit=$f ;; esac
		done
		if [ -n "$hit" ]; then
			ok "$rel: $e reaches the tables through $hit"
		else
			not_ok "$rel: $e reaches the tables through a probed function"
			echo "# got calls to: $got"
			echo "# want one of: $(echo $probed)"
		fi
	done
	if ! is_arm64 "$v"; then
		# every caller of CPA's core, hot or cold, in the image's text
		callers=$($od -d --no-show-raw-insn -j .text "$v" 2>/dev/null |
			awk -v f="$cpa_core" '/^[0-9a-f]+ <.*>:$/ { fn = $2 }
				/(call|jmp)/ && ($NF == "<" f ">" || index($NF, "<" f ".") == 1) {
					sub(/\.cold>:$/, ">:", fn)
					print substr(fn, 2, length(fn) - 3) }' |
			sort -u)
		stray=
		for c in $callers; do
			case " $(echo $protect $cpa_unowned) " in
			*" $c "*) ;;
			*) stray="$stray $c" ;;
			esac
		done
		if [ -n "$callers" ] && [ -z "$stray" ]; then
			ok "$rel: every caller of $cpa_core is probed or changes no owned mapping"
		else
			not_ok "$rel: every caller of $cpa_core is probed or changes no owned mapping"
			echo "# got callers: $(echo $callers)"
			echo "# want each among: $(echo $protect $cpa_unowned)"
		fi
	fi
	rm -f "$syms"
done
done_testing
