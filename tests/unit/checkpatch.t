#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The module passes checkpatch.pl --no-tree -f, file by file (TAP).
top=$(cd "$(dirname "$0")/../.." && pwd)
cp=${KTREPL_CACHE:-/var/cache/ktrepl}/checkpatch/scripts/checkpatch.pl
. "$top/tests/tap.sh"
tap_header
if [ ! -f "$cp" ]; then
	skip_all "no checkpatch.pl (run make deps)"
	exit 0
fi
# one checkpatch per CPU (it is most of make unit-check's time), the
# results then reported in file order
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
files=$(cd "$top" && find kernel -name '*.[ch]' | sort)
# one check per file
tap_plan "$(printf '%s\n' $files | grep -c .)"
printf '%s\n' $files | xargs -P "$(nproc)" -I{} sh -c '
	f=$1
	# the compatibility header exists to test the kernel'"'"'s version
	ignore=
	[ "$f" = kernel/include/ktrepl_compat.h ] &&
		ignore="--ignore LINUX_VERSION_CODE"
	perl "$2" --no-tree -f --terse $ignore "$3/$f" > "$4/$(echo "$f" | tr / _)" 2>&1
' sh {} "$cp" "$top" "$out"
for f in $files; do
	result=$out/$(echo "$f" | tr / _)
	res=$(grep -v '^total:' "$result" 2>/dev/null)
	if [ ! -e "$result" ]; then
		not_ok "checkpatch $f"
		echo "# checkpatch.pl did not run"
	elif [ -z "$res" ]; then
		ok "checkpatch $f"
	else
		not_ok "checkpatch $f"
		echo "$res" | sed 's/^/# /'
	fi
done
done_testing
