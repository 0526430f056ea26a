#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The table mirror (kernel/replica/mirror.c) sees a vmalloc-area map or
# unmap only through the functions its kretprobes sit on. In each
# Debian kernel the tests cover (its -dbg vmlinux, from make deps):
# every probed function is out of line, and every way in to the vmalloc
# area's page tables calls one of them directly, not an inlined copy.
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
# a probe list mirror.c no longer spells as the sed above reads it would
# leave nothing to check but would pass: stop instead
if [ -z "$probed" ]; then
	echo "Bail out! no MIRROR_PROBE(..., range_entry, ...) found in kernel/replica/mirror.c"
	exit 1
fi
vmlinuxes=$(ls "$cache"/kernels/*/usr/lib/debug/boot/vmlinux-* 2>/dev/null)
if [ -z "$vmlinuxes" ]; then
	skip_all "no -dbg vmlinux in $cache/kernels (run make deps)"
	exit 0
fi
echo "# probed: $(echo $probed)"
# the plan up front: per vmlinux, one check per probed function and one
# per way in, each made whether or not its function is found
set -- $vmlinuxes
nv=$#
set -- $probed
np=$#
set -- $entries
tap_plan $((nv * (np + $#)))
# calls FILE OBJDUMP START SIZE: the names a function calls or jumps to
calls() {
	$2 -d --no-show-raw-insn --start-address=$((0x$3)) \
		--stop-address=$((0x$3 + 0x$4)) "$1" 2>/dev/null |
		sed -n 's/.*\(call\|jmp\|bl\|b\)[[:space:]]\+[0-9a-f]\+ <\([^>+]*\)>.*/\2/p' |
		sort -u
}
for v in $vmlinuxes; do
	rel=${v##*/vmlinux-}
	od=objdump
	file -L "$v" | grep -q aarch64 && od=aarch64-linux-gnu-objdump
	syms=$(mktemp)
	nm -S "$v" > "$syms"
	for f in $probed; do
		n=$(awk -v f="$f" '$4 == f && ($3 == "t" || $3 == "T")' "$syms" | wc -l)
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
	rm -f "$syms"
done
done_testing
