# SPDX-License-Identifier: GPL-2.0
# verify against a raw read of the same bytes from /proc/kcore.
. /lib.sh
# busybox date has no %N: /proc/uptime gives 10 ms steps
ns() { awk '{printf "%.0f\n", $1 * 1000000000}' /proc/uptime; }
insmod /lib/modules/ktrepl.ko
for round in 1 2 3; do
	t0=$(ns)
	KTREPL_VERIFY_TIMES=1 ktrepl-dump -j verify > /tmp/v.json 2> /tmp/v.err
	t1=$(ns)
	# where verify's time went, check by check (ms)
	echo "@@vtimes@@ $(sed -n 's/.*verify times (ms): //p' /tmp/v.err)"
	# the same bytes, master and replica sides, raw through kcore
	args=$(awk '{ for (i = 1; i <= NF; i++) { split($i, f, "=");
		if (f[1] == "pa") pa = f[2]; if (f[1] == "size") size = f[2] }
		printf "%s %s ", pa, size }' $D/replicas)
	ktrepl-dump read -o /dev/null $args
	raw_rc=$?
	t2=$(ns)
	# and one node's alone (the first listed): what verify's cost per
	# node is judged against
	one=$(awk 'NR == 1 { split($1, f, "="); first = f[2] }
		{ for (i = 1; i <= NF; i++) { split($i, f, "=");
		if (f[1] == "node") node = f[2]; if (f[1] == "pa") pa = f[2];
		if (f[1] == "size") size = f[2] }
		if (node == first) printf "%s %s ", pa, size }' $D/replicas)
	ktrepl-dump read -o /dev/null $one
	raw1_rc=$?
	t3=$(ns)
	# what no command times: exec, the loader and exit, as ten runs
	# that open nothing (/proc/uptime's 10 ms steps, so ten)
	for i in 1 2 3 4 5 6 7 8 9 10; do ktrepl-dump --version > /dev/null; done
	t4=$(ns)
	echo "@@verify@@ verify_ns=$((t1 - t0)) raw_ns=$((t2 - t1)) raw1_ns=$((t3 - t2)) exec_ns=$(((t4 - t3) / 10)) raw_rc=$raw_rc raw1_rc=$raw1_rc $(cat /tmp/v.json)"
done
done_testing
# bench.py's vmcore half dumps this guest; its scaling half does not
if [ "${WAIT_DUMP:-1}" = 1 ]; then
	echo "KTREPL-READY-FOR-DUMP"
	sleep 600
fi
