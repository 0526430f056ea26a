#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run every real-guest test under prove. One test: tests/vm/t02-vmcore.py
#
# With no arguments, two phases. t03 (most of the time) runs in one slot
# while the functional suites share the other. ktrepl-top's fidelity and
# the patch storms (t05, t06, t09) count what happens per second, or hold
# a guest's CPU longer when the host is busy, so they run afterwards:
# their x86_64 guests two at a time (one TCG thread each, so each has a
# core to itself), then their arm64 ones (a thread per vCPU) alone
# (KTREPL_GUEST_ARCHES, ktvm.arch_selected).
set -uo pipefail
cd "$(dirname "$0")/../.."
mkdir -p build
run() { prove -v --timer -e python3 "$@"; }
if [ $# -gt 0 ]; then
	run "$@"
	exit
fi
timed=(tests/vm/t09-storm.py tests/vm/t05-top.py tests/vm/t06-stress.py)
timed_arm64=(tests/vm/t05-top.py tests/vm/t06-stress.py)
# the shared phase longest first, so that neither slot ends waiting on
# a long file the other could have taken (the clean-clone run of
# 2026-12-02: t16 started last and left the other slot idle 4 minutes);
# the rest in name order after them
shared=(tests/vm/t03-module.py tests/vm/t14-kdump.py tests/vm/t08-packages.py
	tests/vm/t16-bench.py tests/vm/t11-many-modules.py tests/vm/t04-dump.py)
for t in tests/vm/t[0-9]*.py; do
	case " ${timed[*]} ${shared[*]} " in
	*" $t "*) ;;
	*) shared+=("$t") ;;
	esac
done
# CI shows only a run's tail: a failure in the first phase would scroll
# away under the second, so both are logged and every failure is repeated
# last, with the file it came from
log=build/vm-check.log
: >"$log"
: >build/guest-times.log
run -j2 "${shared[@]}" 2>&1 | tee -a "$log"
rc=${PIPESTATUS[0]}
KTREPL_GUEST_ARCHES=x86_64 run -j2 "${timed[@]}" 2>&1 | tee -a "$log"
[ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
KTREPL_GUEST_ARCHES=arm64 run "${timed_arm64[@]}" 2>&1 | tee -a "$log"
[ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
if [ "$rc" -ne 0 ]; then
	echo "# vm-check failed; every failure of both phases (all of it: $log):"
	awk '/^\[[0-9:]+\] tests\/vm\// { t = $2 }
	     /^not ok / { print t ": " $0 }
	     /^Test Summary Report/,/^Files=/ { print }' "$log"
fi
echo "# the longest guests (seconds, test, guest; all: build/guest-times.log):"
sort -rn build/guest-times.log | head -12 | sed 's/^/#   /'
exit $rc
