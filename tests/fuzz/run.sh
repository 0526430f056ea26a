#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# run.sh OUT SECONDS TARGET...: TAP, one line per target; a crash keeps
# its input in OUT/crashes/ and fails the line.
set -u
out=$1 secs=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
n=0 failed=0
echo "TAP version 13"
for t in "$@"; do
	name=${t#fuzz_}
	n=$((n + 1))
	work=$(mktemp -d)
	mkdir -p "$work/corpus" "$out/crashes/$name"
	cp -r "$here/corpus/$name/." "$work/corpus/" 2>/dev/null
	regress=""
	[ -d "$here/regress/$name" ] && regress="$here/regress/$name"
	log="$out/$name.log"
	# the regression inputs first: each must run clean
	if [ -n "$regress" ] && ! "$out/$t" $(ls -d "$regress"/* 2>/dev/null) > "$log" 2>&1; then
		echo "not ok $n - $name: a regression input fails again (see $log)"
		failed=$((failed + 1))
		rm -rf "$work"
		continue
	fi
	if "$out/$t" -max_total_time="$secs" -max_len=65536 -timeout=10 \
		-rss_limit_mb=2048 -artifact_prefix="$out/crashes/$name/" \
		-print_final_stats=1 "$work/corpus" >> "$log" 2>&1; then
		execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
		echo "ok $n - $name: ${execs:-?} inputs in ${secs} s, no crash, leak or hang"
	else
		echo "not ok $n - $name: crashed; the input is in $out/crashes/$name/"
		grep -m3 -E 'ERROR|SUMMARY|runtime error' "$log" | sed 's/^/# /'
		failed=$((failed + 1))
	fi
	rm -rf "$work"
done
echo "1..$n"
[ $failed = 0 ]
