# SPDX-License-Identifier: GPL-2.0
# The one TAP producer of the shell tests: the host's tests/unit/*.t
# source it from here, the guest scripts through /lib.sh (ktvm puts it
# at /tap.sh in every test initramfs). POSIX sh, for busybox too.
T_N=0
T_FAIL=0
tap_header() {
	echo "TAP version 13"
}
ok() {
	T_N=$((T_N + 1))
	echo "ok $T_N - $*"
}
not_ok() {
	T_N=$((T_N + 1))
	T_FAIL=$((T_FAIL + 1))
	echo "not ok $T_N - $*"
}
# skip DESC REASON: a check this system cannot make
skip() {
	T_N=$((T_N + 1))
	echo "ok $T_N - $1 # SKIP $2"
}
# skip_all REASON: this system can make none of the checks (the plan
# alone, before any check)
skip_all() {
	echo "1..0 # SKIP $1"
}
# check DESC CMD...: ok when CMD succeeds
check() {
	d=$1
	shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}
# tap_plan N: the plan first, before any check, so that a test that
# stops early fails (done_testing then checks that N were run)
T_PLAN=
tap_plan() {
	T_PLAN=$1
	echo "1..$1"
}
# the plan last when tap_plan gave none; status 0 when nothing failed
# (and, after tap_plan, the planned number of checks ran)
done_testing() {
	if [ -z "$T_PLAN" ]; then
		echo "1..$T_N"
	elif [ "$T_N" != "$T_PLAN" ]; then
		echo "# planned $T_PLAN, ran $T_N"
		return 1
	fi
	[ $T_FAIL = 0 ]
}
