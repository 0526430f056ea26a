#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# run.sh OUT SECONDS TARGET...: TAP, one line per target, in the order
# given; a crash keeps its input in OUT/crashes/ and fails the line. The
# targets run FUZZ_JOBS at a time (default: the CPUs), each for SECONDS.
set -u
out=$1 secs=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
jobs=${FUZZ_JOBS:-$(nproc)}

# fuzz_one N TARGET: its TAP line (and diagnostics) into OUT/TARGET.tap
fuzz_one() {
	n=$1 t=$2
	name=${t#fuzz_}
	work=$(mktemp -d)
	mkdir -p "$work/corpus" "$out/crashes/$name"
	cp -r "$here/corpus/$name/." "$work/corpus/" 2>/dev/null
	regress=""
	[ -d "$here/regress/$name" ] && regress="$here/regress/$name"
	log="$out/$name.log"
	# the regression inputs first: each must run clean
	if [ -n "$regress" ] && ! "$out/$t" $(ls -d "$regress"/* 2>/dev/null) > "$log" 2>&1; then
		echo "not ok $n - $name: a regression input fails again (see $log)"
	elif "$out/$t" -max_total_time="$secs" -max_len=65536 -timeout=10 \
		-rss_limit_mb=2048 -artifact_prefix="$out/crashes/$name/" \
		-print_final_stats=1 "$work/corpus" >> "$log" 2>&1; then
		execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
		echo "ok $n - $name: ${execs:-?} inputs in ${secs} s, no crash, leak or hang"
	else
		echo "not ok $n - $name: crashed; the input is in $out/crashes/$name/"
		grep -m3 -E 'ERROR|SUMMARY|runtime error' "$log" | sed 's/^/# /'
	fi > "$out/$t.tap"
	rm -rf "$work"
}

echo "TAP version 13"
n=0 running=0
for t in "$@"; do
	n=$((n + 1))
	rm -f "$out/$t.tap"
	fuzz_one $n "$t" &
	running=$((running + 1))
	if [ $running -ge "$jobs" ]; then
		wait
		running=0
	fi
done
wait
failed=0
i=0
for t in "$@"; do
	i=$((i + 1))
	[ -s "$out/$t.tap" ] ||
		echo "not ok $i - ${t#fuzz_}: its run left no result" > "$out/$t.tap"
	cat "$out/$t.tap"
	grep -q '^not ok' "$out/$t.tap" && failed=$((failed + 1))
done
echo "1..$n"
[ $failed = 0 ]
