#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The module passes checkpatch.pl --no-tree -f, file by file (TAP).
top=$(cd "$(dirname "$0")/../.." && pwd)
cp=${KTREPL_CACHE:-/var/cache/ktrepl}/checkpatch/scripts/checkpatch.pl
echo "TAP version 13"
if [ ! -f "$cp" ]; then
	echo "1..0 # SKIP no checkpatch.pl (run make deps)"
	exit 0
fi
n=0
fail=0
for f in $(cd "$top" && find kernel -name '*.[ch]' | sort); do
	n=$((n + 1))
	# the compatibility header exists to test the kernel's version
	ignore=
	[ "$f" = kernel/include/ktrepl_compat.h ] &&
		ignore="--ignore LINUX_VERSION_CODE"
	out=$(perl "$cp" --no-tree -f --terse $ignore "$top/$f" 2>&1 | grep -v '^total:')
	if [ -z "$out" ]; then
		echo "ok $n - checkpatch $f"
	else
		echo "not ok $n - checkpatch $f"
		echo "$out" | sed 's/^/# /'
		fail=1
	fi
done
echo "1..$n"
exit $fail
