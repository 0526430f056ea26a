#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest scripts' scenario helpers (tests/vm/guest/lib.sh: start_test,
# logged, check_log, check_log_among), on a kernel log this test writes itself: a
# scenario's log is what follows its own marker, only ktrepl's messages
# and the logged commands, and it must match the expected log line for
# line, no line more or fewer.
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export TAP_SH="$HERE/../tap.sh" KMSG="$T/kmsg" TMPDIR="$T"
# the guest's dmesg: the kmsg writes with busybox's timestamps, and the
# log level prefix the kernel strips
dmesg() { sed 's/^<[0-9]>//; s/^/[    1.000000] /' "$KMSG"; }
. "$HERE/../vm/guest/lib.sh"
tap_header
tap_plan 19

# each case runs in a subshell so that its failures are its own: the
# outer TAP counts only whether check_log said what it should
outcome() {
	(T_N=0 T_FAIL=0; "$@" > "$T/out"; [ "$T_FAIL" = 0 ]) && echo pass || echo fail
}
want_outcome() {
	_w=$1
	shift
	_g=$(outcome "$@")
	if [ "$_g" = "$_w" ]; then
		ok "$_desc: $_w"
	else
		not_ok "$_desc: got $_g, want $_w"
		sed 's/^/# /' "$T/out"
	fi
}

: > "$KMSG"
echo "ktrepl: a message of an earlier scenario" >> "$KMSG"
start_test "load and unload"
logged true insmod ktrepl.ko
echo "ktrepl: activation=mm: node-bound processes run on their node's tables" >> "$KMSG"
echo "virtio_net: not ours" >> "$KMSG"
echo "ktrepl: load steps (us): alloc=17 hook=3" >> "$KMSG"
logged true rmmod ktrepl
echo "ktrepl: freed 10 of 10 pages allocated" >> "$KMSG"

WANT="% true insmod ktrepl.ko
ktrepl: activation=mm: node-bound processes run on their node's tables
ktrepl: load steps (us): *
% true rmmod ktrepl
ktrepl: freed * of * pages allocated"
_desc="the log since start_test, patterns for numbers"
want_outcome pass check_log "log" "$WANT"
_desc="a line missing from the log"
want_outcome fail check_log "log" "$WANT
ktrepl: one more"
_desc="a line the expected log does not have"
want_outcome fail check_log "log" "$(echo "$WANT" | sed '$d')"
_desc="a line that differs"
want_outcome fail check_log "log" "$(echo "$WANT" | sed 's/activation=mm/activation=percpu/')"
_desc="a failure shows want and got"
outcome check_log "log" "ktrepl: nothing" > /dev/null
if grep -q '^# want:' "$T/out" && grep -q '^#   ktrepl: freed 10 of 10' "$T/out"; then
	ok "$_desc"
else
	not_ok "$_desc"
	sed 's/^/# /' "$T/out"
fi

_desc="\"...\" stands for the lines up to the next pattern's match"
want_outcome pass check_log "log" "% true insmod ktrepl.ko
...
ktrepl: load steps (us): alloc=* hook=*
...
ktrepl: freed * of * pages allocated"
_desc="\"...\" still needs the line after it"
want_outcome fail check_log "log" "% true insmod ktrepl.ko
...
ktrepl: activation=percpu*
..."
_desc="a pattern's brackets and dots are the characters themselves"
want_outcome fail check_log "log" "% true insmod ktrepl.ko
ktrepl: activation=mm: node-bound processes run on their node.s tables
..."

start_test "second scenario"
echo "ktrepl: module vfat replicated: 8 KiB of text and rodata per node" >> "$KMSG"
_desc="a second scenario's log starts at its own marker"
want_outcome pass check_log "log" "ktrepl: module vfat replicated: * KiB of text and rodata per node"
start_test "load and unload"
_desc="a scenario run again starts from its latest marker"
want_outcome pass check_log "log" ""
_desc="\"...\" alone matches a log with no line"
start_test "empty"
want_outcome pass check_log "log" "..."
_desc="\"...\" twice in a row is \"...\" once"
start_test "twice"
echo "ktrepl: a" >> "$KMSG"
echo "ktrepl: b" >> "$KMSG"
want_outcome pass check_log "log" "...
...
ktrepl: b"
_desc="braces and backslashes are the characters themselves"
start_test "braces"
printf '%s\n' 'ktrepl: x{2} a\b' >> "$KMSG"
want_outcome pass check_log "log" 'ktrepl: x{2} a\b'
want_outcome fail check_log "log" 'ktrepl: xx a\b'

# check_log_among: lines that vary in number and order, each allowed
start_test "among"
for i in 1 2 3; do
	echo "ktrepl: load steps (us): alloc=$i" >> "$KMSG"
	echo "ktrepl: freed $i of $i pages allocated" >> "$KMSG"
done
ALLOWED="ktrepl: load steps (us): *
ktrepl: freed * of * pages allocated"
_desc="check_log_among: every line is one of the allowed, however many"
want_outcome pass check_log_among "log" "$ALLOWED"
_desc="check_log_among: an allowed pattern need not occur"
want_outcome pass check_log_among "log" "$ALLOWED
ktrepl: activation=mm*"
echo "ktrepl: audit: a write at x reached the master but not 1 replica(s); the fail-safe repairs them" >> "$KMSG"
_desc="check_log_among: a line none allows"
want_outcome fail check_log_among "log" "$ALLOWED"
_desc="check_log_among: a failure shows the line none allows, alone"
if grep -q '^#   ktrepl: audit: a write' "$T/out" &&
	! grep -q '^#   ktrepl: freed 1 of 1' "$T/out"; then
	ok "$_desc"
else
	not_ok "$_desc"
	sed 's/^/# /' "$T/out"
fi

T_TEST="a scenario whose marker is gone"
_desc="a scenario whose marker has left the log fails, and says why"
outcome check_log "log" "" > /dev/null
if [ "$(outcome check_log "log" "")" = fail ] &&
	grep -q 'no longer in the kernel log' "$T/out"; then
	ok "$_desc"
else
	not_ok "$_desc"
	sed 's/^/# /' "$T/out"
fi
done_testing
