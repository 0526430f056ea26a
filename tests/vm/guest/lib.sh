# SPDX-License-Identifier: GPL-2.0
# TAP helpers for guest scripts: the host counts these lines.
T_N=0
T_FAIL=0
ok() {
	T_N=$((T_N + 1))
	echo "ok $T_N - $*"
}
not_ok() {
	T_N=$((T_N + 1))
	T_FAIL=$((T_FAIL + 1))
	echo "not ok $T_N - $*"
}
# check DESC CMD...: ok when CMD succeeds
check() {
	d=$1
	shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}
# No WARN, BUG or oops may ever appear in the kernel log.
check_dmesg_clean() {
	if dmesg | grep -Eq 'WARNING:|BUG:|Oops|general protection|Call Trace'; then
		dmesg | grep -EA20 'WARNING:|BUG:|Oops|general protection' | sed 's/^/# /'
		not_ok "kernel log is free of WARN/BUG/oops"
	else
		ok "kernel log is free of WARN/BUG/oops"
	fi
}
done_testing() {
	echo "1..$T_N"
	[ $T_FAIL = 0 ]
}

# emit NAME CMD...: CMD's output, each line tagged for the host to parse
emit() {
	name=$1
	shift
	"$@" 2>&1 | sed "s/^/@@$name@@ /"
}

# kv KEY < line: the value of KEY=... in a key=value record
kv() {
	sed -n "s/.*\\(^\\| \\)$1=\\([^ ]*\\).*/\\2/p"
}

# pa_node PA: the node whose memory block holds physical address PA,
# from sysfs alone (independent of ktrepl); -1 if none
pa_node() {
	_bs=$((0x$(cat /sys/devices/system/memory/block_size_bytes)))
	_blk=$(($1 / _bs))
	for _n in /sys/devices/system/node/node[0-9]*; do
		if [ -e "$_n/memory$_blk" ]; then
			echo "${_n##*node}"
			return
		fi
	done
	echo -1
}

D=/sys/kernel/debug/ktrepl

# replicas_on_their_nodes: every replica extent's first and last page lie
# on its node's memory node, by sysfs; prints "BAD N" and the count
replicas_on_their_nodes() {
	_bad=0
	_n=0
	while read -r _line; do
		_node=$(echo "$_line" | kv node)
		_pa=$(echo "$_line" | kv pa)
		_size=$(echo "$_line" | kv size)
		_mem=$(grep "^node=$_node " $D/summary | kv memory_node)
		for _a in $((_pa)) $((_pa + _size - 4096)); do
			_got=$(pa_node $_a)
			if [ "$_got" != "$_mem" ]; then
				echo "# extent of node $_node at pa $_pa: page $_a is on node $_got" >&2
				_bad=$((_bad + 1))
			fi
		done
		_n=$((_n + 1))
	done < $D/replicas
	echo "$_bad $_n"
}
