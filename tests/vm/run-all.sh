#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run every real-guest test under prove. One test: tests/vm/t02-vmcore.py
#
# With no arguments, two phases. t03 (most of the time) runs in one slot
# while the functional suites share the other: each guest runs one TCG
# thread or a few, so two fit two cores. ktrepl-top's fidelity and the
# patch storms (t05, t06, t09) count what happens per second, or hold a
# guest's CPU longer when the host is busy, so they run afterwards with
# the machine to themselves.
set -uo pipefail
cd "$(dirname "$0")/../.."
mkdir -p build
run() { prove -v --timer -e python3 "$@"; }
if [ $# -gt 0 ]; then
	run "$@"
	exit
fi
timed=(tests/vm/t05-top.py tests/vm/t06-stress.py tests/vm/t09-storm.py)
shared=(tests/vm/t03-module.py)
for t in tests/vm/t[0-9]*.py; do
	case " ${timed[*]} ${shared[*]} " in
	*" $t "*) ;;
	*) shared+=("$t") ;;
	esac
done
run -j2 "${shared[@]}"
rc=$?
run "${timed[@]}" || rc=1
exit $rc
