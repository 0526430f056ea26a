#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# sanitize-dumps.sh DUMP BUILD: TAP. The ASan and UBSan build of
# ktrepl-dump on every vmcore the guest tests left under BUILD (and the
# unit fixtures' raw images): each command ends with exit 0, 1 or 2 and
# no sanitizer report.
set -u
dump=$1 build=$2
n=0 failed=0
echo "TAP version 13"
cores=$(ls -t "$build"/ktrepl-t0*/vmcore* "$build"/ktrepl-t0*/*.elf 2>/dev/null | head -n 6)
[ -n "$cores" ] || echo "# no vmcore under $build: run make vm-check first"
for core in $cores; do
	for cmd in summary verify diff "walk --node 0"; do
		n=$((n + 1))
		"$dump" --vmcore "$core" -j $cmd > /dev/null 2> /tmp/san.$$
		rc=$?
		if [ $rc -le 2 ] && ! grep -q 'Sanitizer\|runtime error' /tmp/san.$$; then
			echo "ok $n - ktrepl-dump --vmcore $(basename "$(dirname "$core")")/$(basename "$core") $cmd: exit $rc, no sanitizer report"
		else
			echo "not ok $n - ktrepl-dump --vmcore $core $cmd: exit $rc"
			grep -m5 'Sanitizer\|runtime error\|#[0-9] ' /tmp/san.$$ | sed 's/^/# /'
			failed=$((failed + 1))
		fi
	done
done
rm -f /tmp/san.$$
echo "1..$n"
[ $failed = 0 ]
