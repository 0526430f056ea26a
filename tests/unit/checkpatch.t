#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The module passes checkpatch.pl --no-tree -f, file by file (TAP).
top=$(cd "$(dirname "$0")/../.." && pwd)
cp=${KTREPL_CACHE:-/var/cache/ktrepl}/checkpatch/scripts/checkpatch.pl
. "$top/tests/tap.sh"
tap_header
if [ ! -f "$cp" ]; then
	echo "1..0 # SKIP no checkpatch.pl (run make deps)"
	exit 0
fi
for f in $(cd "$top" && find kernel -name '*.[ch]' | sort); do
	# the compatibility header exists to test the kernel's version
	ignore=
	[ "$f" = kernel/include/ktrepl_compat.h ] &&
		ignore="--ignore LINUX_VERSION_CODE"
	out=$(perl "$cp" --no-tree -f --terse $ignore "$top/$f" 2>&1 | grep -v '^total:')
	if [ -z "$out" ]; then
		ok "checkpatch $f"
	else
		not_ok "checkpatch $f"
		echo "$out" | sed 's/^/# /'
	fi
done
done_testing
