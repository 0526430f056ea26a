# SPDX-License-Identifier: GPL-2.0
# A server's worth of modules (issue 26): at least WANT real modules of
# the cloud kernel loaded, in dependency order, after ktrepl.ko.
#
# Steps:
#   1. load the test build, then the modules in /lib/modules/many/list
#      until WANT of them are loaded (a driver without its hardware may
#      refuse: the next one is tried);
#   2. every one is replicated (summary's modules=), and summary, verify
#      (healthy) and walk --region module:LAST work live;
#   3. a byte flipped in the last module's replica is caught and named;
#   4. the host dumps the guest and checks the same on the vmcore.
# Expected log (lib.sh: start_test, check_log): the load's, then one
# "module M replicated" line per module with text, in load order, and
# nothing else (a driver that refuses to load never goes live: no line,
# and the flip logs nothing).
. /lib.sh
WANT=${WANT:-400}
start_test "many modules"
want=$(load_log /lib/modules/ktrepl-test.ko fault_inject=1)
check "insmod ktrepl-test.ko fault_inject=1" \
	logged insmod /lib/modules/ktrepl-test.ko fault_inject=1
loaded=$(load_many $WANT)
n=$(echo "$loaded" | kv loaded)
last=$(tail -n1 /tmp/loaded)
echo "# loaded $n modules in $(($(echo "$loaded" | kv load_cs) / 100)) s; the last: $last"
check "$WANT modules loaded (got $n)" test $n -ge $WANT
total=$(grep -c . /proc/modules)
reps=$(head -n1 $D/summary | kv modules)
# a module without text (tables only, e.g. 6.12's nls_ucs2_utils) is not
# replicated: a known limit (README)
missing=
textless=
for m in $(cut -d' ' -f1 /proc/modules); do
	[ $m = ktrepl ] && continue
	grep -q "^module=$m " $D/summary && continue
	if [ -e /sys/module/$m/sections/.text ]; then
		missing="$missing $m"
	else
		textless="$textless $m"
	fi
done
echo "# not replicated, no text:${textless:- none}"
check "every loaded module with text but ktrepl is replicated ($reps; not:${missing:- none})" \
	test -z "$missing"
want="$want
$(while read -r m; do
	grep -q "^module=$m " $D/summary &&
		module_replicated_log $m
done < /tmp/loaded)"
echo "LAST-MODULE $last"
R=$(grep 'role=replica' $D/summary | head -n1 | kv node)
echo "REPLICA-NODE $R"
check "ktrepl-dump summary works" sh -c "ktrepl-dump summary > /tmp/s.out 2>&1"
sed 's/^/# /' /tmp/s.out | head -n 4
ktrepl-dump --verify > /tmp/v.out 2>&1
rc=$?
sed 's/^/# /' /tmp/v.out | tail -n 3
check "ktrepl-dump --verify: healthy (exit 0, got $rc)" test $rc = 0
check "ktrepl-dump walk --region module:$last works" \
	sh -c "ktrepl-dump walk --node $R --region module:$last | grep -q ."
sym=$(awk -v m="[$last]" '$4 == m && $2 ~ /^[tT]$/ {print $3; exit}' /proc/kallsyms)
echo "FLIP-SYM $sym"
quiesce_audit
check "inject: flip $sym+0x1 [$last] on node $R" \
	sh -c "echo 'flip node=$R sym=$sym off=1' > $D/inject"
ktrepl-dump --verify > /tmp/v.out 2>&1
rc=$?
sed 's/^/# /' /tmp/v.out | head -n 4
check "verify exits 1 on the flip (got $rc)" test $rc = 1
if ! grep -q "$sym+0x1 \[$last\]" /tmp/v.out; then
	va=$(sed -n 's/^bytes: node [0-9]* 0x\([0-9a-f]*\) .*/\1/p' /tmp/v.out | head -n1)
	echo "# kallsyms around 0x$va and $sym:"
	grep -E "^${va%???}| $sym\b" /proc/kallsyms | sed 's/^/#   /' | head -n 12
fi
check "and names $sym+0x1 [$last]" grep -q "$sym+0x1 \[$last\]" /tmp/v.out
check "and nothing else" test "$(grep -v '^verify:' /tmp/v.out | grep -c '^[a-z-]*: ')" = 1
check_log "one line per module replicated, in load order, then the flip's" "$want"
check_dmesg_clean
done_testing
echo "KTREPL-READY-FOR-DUMP"
sleep 600
