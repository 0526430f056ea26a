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

# fuzz_one TARGET: its result into OUT/TARGET.res, for the TAP lines
# (tests/tap.sh) written in order once all have run: "ok" or "not_ok",
# then the description, then any diagnostics
fuzz_one() {
	t=$1
	name=${t#fuzz_}
	work=$(mktemp -d)
	mkdir -p "$work/corpus" "$out/crashes/$name"
	cp -r "$here/corpus/$name/." "$work/corpus/" 2>/dev/null
	regress=""
	[ -d "$here/regress/$name" ] && regress="$here/regress/$name"
	log="$out/$name.log"
	# the regression inputs first: each must run clean
	if [ -n "$regress" ] && ! "$out/$t" $(ls -d "$regress"/* 2>/dev/null) > "$log" 2>&1; then
		printf 'not_ok\n%s\n' "$name: a regression input fails again (see $log)"
	elif "$out/$t" -max_total_time="$secs" -max_len=65536 -timeout=10 \
		-rss_limit_mb=2048 -artifact_prefix="$out/crashes/$name/" \
		-print_final_stats=1 "$work/corpus" >> "$log" 2>&1; then
		execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
		printf 'ok\n%s\n' "$name: ${execs:-?} inputs in ${secs} s, no crash, leak or hang"
	else
		printf 'not_ok\n%s\n' "$name: crashed; the input is in $out/crashes/$name/"
		grep -m3 -E 'ERROR|SUMMARY|runtime error' "$log"
	fi > "$out/$t.res"
	rm -rf "$work"
}

. "$here/../tap.sh"
tap_header
running=0
for t in "$@"; do
	rm -f "$out/$t.res"
	fuzz_one "$t" &
	running=$((running + 1))
	if [ $running -ge "$jobs" ]; then
		wait
		running=0
	fi
done
wait
for t in "$@"; do
	res="$out/$t.res"
	[ -s "$res" ] ||
		printf 'not_ok\n%s\n' "${t#fuzz_}: its run left no result" > "$res"
	verdict=$(sed -n 1p "$res")
	desc=$(sed -n 2p "$res")
	if [ "$verdict" = ok ]; then ok "$desc"; else not_ok "$desc"; fi
	sed -n '3,$s/^/# /p' "$res"
done
done_testing
