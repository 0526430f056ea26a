# SPDX-License-Identifier: GPL-2.0
# Helpers for guest scripts. TAP (ok, not_ok, check, done_testing) is
# tests/tap.sh's, which ktvm puts at /tap.sh: the host counts its lines.
. "${TAP_SH:-/tap.sh}"
# Scenarios, in the style of the kernel's livepatch selftests. A script
# is a run of scenarios; each one opens with a comment block
#	# TEST: NAME
#	# - purpose, then the steps
#	# Expected log: ...
# then start_test NAME, its steps (logged CMD... records "% CMD" in the
# kernel log before running it) and check_log DESC WANT: the scenario's
# log, ktrepl's own messages and the logged commands since start_test,
# must be WANT line for line, each line of WANT a shell pattern (see
# log_matches).
KMSG=${KMSG:-/dev/kmsg}
start_test() {
	T_TEST=$1
	# the guest's uptime: where a slow script's time goes, scenario by
	# scenario, from any run's output
	echo "# TEST: $1 (uptime $(cut -d' ' -f1 /proc/uptime) s)"
	echo "<5>===== TEST: $1 =====" >> "$KMSG"
}
# before_panic: what the script has printed reaches the host before the
# box panics. A panic stops the CPUs with the serial tty's buffer unsent
# (the kernel's own lines are flushed, a script's are not), and a check
# printed just before it would be lost and never counted: the host
# (ktvm's fold_guest) wants as many as @@guest_checks@@ says.
before_panic() {
	echo "@@guest_checks@@ $T_N"
	console_drained
}
# console_drained: until the console UART's tx count stops moving (at
# most 3 s); a second where the driver gives no count
console_drained() {
	cd_f=/proc/tty/driver/serial
	[ -r $cd_f ] || cd_f=/proc/tty/driver/ttyAMA
	cd_last=
	cd_i=0
	while [ $cd_i -lt 30 ]; do
		cd_tx=$(sed -n 's/^0:.* tx:\([0-9]*\).*/\1/p' $cd_f 2>/dev/null)
		if [ -z "$cd_tx" ]; then
			sleep 1
			return
		fi
		[ "$cd_tx" = "$cd_last" ] && return
		cd_last=$cd_tx
		cd_i=$((cd_i + 1))
		usleep 100000
	done
}
# step TEXT: a named step of the scenario, for whoever reads the output
step() {
	echo "# [$T_TEST] step: $*"
}
logged() {
	log_cmd "$@"
	"$@"
}
# log_cmd CMD...: only the "% CMD" line, for a command run another way
log_cmd() {
	echo "<5>% $*" >> "$KMSG"
}
# test_log: the current scenario's log (see start_test)
test_log() {
	dmesg | sed 's/^\[[^]]*\] //' | awk -v t="===== TEST: $T_TEST =====" '
		BEGIN { n = -1 }
		$0 == t { n = 0; next }
		n < 0 { next }
		# the kernel'"'"'s own notes on our first load of a boot, not ours
		/^ktrepl: (loading out-of-tree module taints|module verification failed)/ { next }
		/^ktrepl: |^% / { l[++n] = $0 }
		END {
			if (n < 0)
				print "(the scenario'"'"'s start is no longer in the kernel log: log_buf_len)"
			for (i = 1; i <= n; i++)
				print l[i]
		}'
}
# glob_re P (awk): shell pattern P (* and ?) as an anchored regex
_AWK_GLOB_RE='
	function glob_re(p,    r, i, c) {
		r = "^"
		for (i = 1; i <= length(p); i++) {
			c = substr(p, i, 1)
			if (c == "*")
				r = r ".*"
			else if (c == "?")
				r = r "."
			else if (index("\\^$.[]|()+{}", c))
				r = r "\\" c
			else
				r = r c
		}
		return r "$"
	}'
# log_matches GOT WANT (files): GOT's lines are WANT's, one by one, each
# line of WANT a shell pattern (* and ?), and a WANT line of "..." any
# number of lines (none too) up to the next pattern's first match, for
# steps whose messages vary in number
log_matches() {
	awk "$_AWK_GLOB_RE"'
	# one pass, no backtracking: "..." skips up to the first line that
	# matches the pattern after it
	function matches(    g, w) {
		g = 1
		for (w = 1; w <= nw; w++) {
			if (want[w] == "...") {
				if (w == nw)
					return 1
				while (g <= ng && got[g] !~ re[w + 1])
					g++
				continue
			}
			if (g > ng || got[g] !~ re[w])
				return 0
			g++
		}
		return g > ng
	}
	FILENAME == ARGV[1] { got[++ng] = $0; next }
	# "..." twice in a row (spliced lists) is "..." once
	$0 == "..." && nw && want[nw] == "..." { next }
	{ want[++nw] = $0; re[nw] = glob_re($0) }
	END { exit !matches() }' "$1" "$2"
}
# log_lines_among GOT ALLOWED (files): every line of GOT matches one of
# ALLOWED's patterns; prints those that match none
log_lines_among() {
	awk "$_AWK_GLOB_RE"'
	FILENAME == ARGV[1] { got[++ng] = $0; next }
	{ re[++nr] = glob_re($0) }
	END {
		for (g = 1; g <= ng; g++) {
			for (r = 1; r <= nr && got[g] !~ re[r]; r++)
				;
			if (r > nr) {
				print got[g]
				bad = 1
			}
		}
		exit bad
	}' "$1" "$2"
}
check_log() {
	_lg=${TMPDIR:-/tmp}/.log_got
	_lw=${TMPDIR:-/tmp}/.log_want
	test_log > "$_lg"
	# blank lines are none: WANT may splice in lists that can be empty
	printf '%s\n' "$2" | grep -v '^$' > "$_lw"
	if log_matches "$_lg" "$_lw"; then
		ok "[$T_TEST] $1"
	else
		not_ok "[$T_TEST] $1"
		echo "# want:"
		sed 's/^/#   /' "$_lw"
		echo "# got:"
		sed 's/^/#   /' "$_lg"
	fi
}

# check_log_among NAME ALLOWED: for a step whose messages vary in number
# and order (a tool that loads and unloads the module as often as its
# time allows): every line of the scenario's log is one of ALLOWED's
# (newline-separated shell patterns)
check_log_among() {
	_lg=${TMPDIR:-/tmp}/.log_got
	_lw=${TMPDIR:-/tmp}/.log_want
	test_log > "$_lg"
	printf '%s\n' "$2" | grep -v '^$' > "$_lw"
	if log_lines_among "$_lg" "$_lw" > "$_lg.bad"; then
		ok "[$T_TEST] $1"
	else
		not_ok "[$T_TEST] $1"
		echo "# allowed:"
		sed 's/^/#   /' "$_lw"
		echo "# got, not allowed:"
		sed 's/^/#   /' "$_lg.bad"
	fi
}

# neither ktrepl.ko nor ktrepl-bench's module is loaded
no_bench_modules_loaded() {
	! grep -Eq '^(ktrepl|ktrepl_bench_text) ' /proc/modules
}
# module_replicated_log M / module_freed_log M: what ktrepl logs when it
# replicates module M (at M's load, or at its own for a module already
# loaded) and when it frees M's copies (at M's unload). M is a file name
# or a module name: the kernel's name has "_" for "-".
module_replicated_log() {
	echo "ktrepl: module $(echo "$1" | tr - _) replicated: * KiB of text and rodata per node"
}
module_freed_log() {
	echo "ktrepl: module $(echo "$1" | tr - _): replicas freed"
}

# modules_replicated_log: the line ktrepl logs at load for each module
# already loaded, live and with text (one without is not replicated), as
# it walks them (/proc/modules' order)
modules_replicated_log() {
	awk '$1 != "ktrepl" && $5 == "Live" { print $1 }' /proc/modules |
		while read -r _m; do
			[ -e /sys/module/$_m/sections/.text ] &&
				module_replicated_log $_m
		done
	return 0
}

# load_log PATH [PARAM...]: the log of "logged insmod PATH PARAM..." that
# succeeds, with the activation its parameters ask for or the arch's
# default (workload and inactive log none: workload starts on a control
# write, and inactive as asked has no reason to give). percpu also
# says how many table pages it donated, and a kernel whose kallsyms has
# no data symbols where rodata ends and that VMCOREINFO is out of reach. The
# modules loaded before are replicated during the load, and on x86_64
# ktrepl.ko itself once it is live (the module notifier sees its own
# load). Call it before the load: it reads /proc/modules.
# kallsyms_data_syms: "rv", "r-", "-v" or "--": whether kallsyms lists
# __start_rodata and vmcoreinfo_data (data symbols: KALLSYMS_ALL). One
# pass, kept in a file: reading /proc/kallsyms takes seconds under
# emulation, and load_log runs in subshells that cannot keep a variable.
kallsyms_data_syms() {
	[ -s /tmp/.kallsyms_data ] ||
		awk '$3 == "__start_rodata" { r = 1 } $3 == "vmcoreinfo_data" { v = 1 }
			END { print (r ? "r" : "-") (v ? "v" : "-") }' /proc/kallsyms \
			> /tmp/.kallsyms_data
	cat /tmp/.kallsyms_data
}

load_log() {
	_syms=$(kallsyms_data_syms)
	_act=$(echo "$*" | sed -n 's/.*activation=\([a-z]*\).*/\1/p')
	case ${_act:-$(uname -m)} in
	x86_64 | mm) _act=mm ;;
	aarch64 | percpu) _act=percpu ;;
	esac
	echo "% insmod $*"
	# a kernel without KALLSYMS_ALL (Debian's arm64) lists no data symbols
	case $_syms in
	r*) ;;
	*) echo "ktrepl: rodata taken from the master's mappings: * KiB after text" ;;
	esac
	[ $_act = percpu ] &&
		echo "ktrepl: copied tables pre-populated: * pages donated to the kernel's tables"
	modules_replicated_log
	echo "ktrepl: load steps (us):*"
	case $_act in
	mm) echo "ktrepl: activation=mm: node-bound processes run on their node's tables" ;;
	percpu) echo "ktrepl: activation=percpu: every CPU runs on its node's tables" ;;
	# inactive as asked for has no reason to give: the module logs
	# "activation=inactive activation_reason=..." only for a fallback,
	# which a load that succeeds as asked never is
	inactive) ;;
	esac
	case $1 in
	*ktrepl-test.ko) echo "ktrepl: test build (KTREPL_TEST): fault injection compiled in; tainting the kernel (TAINT_TEST); never load it on a production host" ;;
	esac
	# the panic probe records roots only where patches reach the replicas
	case " $* " in
	*" propagate=0 "*) echo "ktrepl: dumps will not record each CPU's root at panic: patch propagation is off" ;;
	esac
	case $_syms in
	?v) ;;
	*) echo "ktrepl: VMCOREINFO not reachable; offline tools will scan for the descriptor" ;;
	esac
	[ "$(uname -m)" = x86_64 ] &&
		module_replicated_log ktrepl
	return 0
}
# unload_log: the log of "logged rmmod ktrepl"
unload_log() {
	echo "% rmmod ktrepl"
	echo "ktrepl: freed * of * pages allocated (and * table pages donated to the kernel at load)"
}

# the kernel has user namespaces (CONFIG_USER_NS): /proc/self/ns/user
have_user_namespaces() { [ -e /proc/self/ns/user ]; }

# No WARN, BUG or oops may ever appear in the kernel log.
check_dmesg_clean() {
	if dmesg | grep -Eq 'WARNING:|BUG:|Oops|general protection|Call Trace'; then
		dmesg | grep -EA20 'WARNING:|BUG:|Oops|general protection' | sed 's/^/# /'
		not_ok "kernel log is free of WARN/BUG/oops"
	else
		ok "kernel log is free of WARN/BUG/oops"
	fi
}
# emit NAME CMD...: CMD's output, each line tagged for the host to parse
emit() {
	name=$1
	shift
	"$@" 2>&1 | sed "s/^/@@$name@@ /"
}

# wait_for SECONDS CMD...: CMD succeeds within SECONDS (polling 0.1 s)
wait_for() {
	_t=$(($1 * 10))
	shift
	while [ $_t -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		_t=$((_t - 1))
	done
	"$@"
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

# busybox date has no %N: milliseconds from /proc/uptime
now_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
# and centiseconds, /proc/uptime's own resolution, with no awk to start
uptime_cs() { cut -d' ' -f1 /proc/uptime | tr -d .; }

# load_many WANT: the first WANT modules of /lib/modules/many/list
# (ktvm.many_modules()) that load, in its order; a driver without its
# hardware refuses, and the next is tried. Each successful insmod is
# timed to the centisecond (the rounding averages out over the sum);
# the names, as /proc/modules spells them, go to /tmp/loaded in load
# order. Prints "loaded=N load_cs=CS".
load_many() {
	: > /tmp/loaded
	_n=0
	_cs=0
	while [ $_n -lt "$1" ] && read -r _f; do
		_t0=$(uptime_cs)
		if insmod "/lib/modules/many/$_f" 2>/dev/null; then
			_cs=$((_cs + $(uptime_cs) - _t0))
			_n=$((_n + 1))
			echo "$_f" | sed 's/^[0-9]*-//; s/\.ko$//; s/-/_/g' >> /tmp/loaded
		fi
	done < /lib/modules/many/list
	echo "loaded=$_n load_cs=$_cs"
}

# audit_settle: where an audit runs (arm64), wait until a whole pass ran
# after the last patch. A pass compares every master page that changed
# since the one before, so it would repair a byte flipped on purpose in
# such a page right after a patch storm: inject only once it has passed.
audit_settle() {
	[ "$(head -n1 $D/summary | kv arch)" = arm64 ] || return 0
	_a0=$(head -n1 $D/summary | kv audits)
	_t=0
	while [ $(($(head -n1 $D/summary | kv audits) - _a0)) -lt 2 ] &&
		[ $_t -lt 150 ]; do
		sleep 0.1
		_t=$((_t + 1))
	done
}

# quiesce_audit: for a flip that must survive until a dump. A patch on
# the flipped byte's page would let the audit (arm64) repair the flip as
# a missed write; with 16K pages most pages see one. Stop the audit (its
# last pass may still be queued) and wait until patching calms down
# (perf's static keys go off a second after ktrepl-top exits).
quiesce_audit() {
	[ -w /sys/module/ktrepl/parameters/audit_period_ms ] &&
		echo 0 > /sys/module/ktrepl/parameters/audit_period_ms
	_p0=-1
	_a0=-1
	while [ "$(patches)" != "$_p0" ] ||
		[ "$(head -n1 $D/summary | kv audits)" != "$_a0" ]; do
		_p0=$(patches)
		_a0=$(head -n1 $D/summary | kv audits)
		sleep 3
	done
}

# replicas_on_their_nodes: every replica extent's first and last page lie
# on its node's memory node, by sysfs; prints "BAD N" and the count.
# One awk pass: a boot can have 150 extents, and forking per extent took
# over two minutes in an arm64 TCG guest.
replicas_on_their_nodes() {
	_bs=$((0x$(cat /sys/devices/system/memory/block_size_bytes)))
	for _n in /sys/devices/system/node/node[0-9]*; do
		for _m in "$_n"/memory[0-9]*; do
			[ -e "$_m" ] && echo "block ${_m##*memory} ${_n##*node}"
		done
	done > /tmp/.blocks
	grep '^node=' $D/summary > /tmp/.nodes
	awk -v bs="$_bs" '
	function hex(s,    v, i) {
		s = tolower(s)
		sub(/^0x/, "", s)
		v = 0
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	function kv(key,    i) {
		for (i = 1; i <= NF; i++)
			if (index($i, key "=") == 1)
				return substr($i, length(key) + 2)
		return ""
	}
	$1 == "block" { node_of[$2] = $3; next }
	FILENAME == "/tmp/.nodes" {
		mem[kv("node")] = kv("memory_node")
		if (kv("role") == "master")
			master = kv("node")
		next
	}
	# the master node (and its memoryless aliases) runs a module from
	# the module'"'"'s own pages
	kv("region") == "module" && mem[kv("node")] == master { next }
	{
		pa = hex(kv("pa"))
		last = pa + kv("size") - 4096
		for (k = 0; k < 2; k++) {
			a = k ? last : pa
			b = int(a / bs)
			got = (b in node_of) ? node_of[b] : -1
			if (got != mem[kv("node")]) {
				printf "# extent of node %s at pa %s: its %s page is on node %s\n", \
					kv("node"), kv("pa"), k ? "last" : "first", got > "/dev/stderr"
				bad++
			}
		}
		n++
	}
	END { print bad + 0, n + 0 }' /tmp/.blocks /tmp/.nodes $D/replicas
}

# Every unload reports "freed X of Y pages allocated"; X must be Y.
all_freed() {
	dmesg | grep 'ktrepl: freed' | awk '{
		for (i = 1; i < NF; i++)
			if ($i == "freed" && $(i + 1) != $(i + 3))
				bad++
	} END { exit bad > 0 }'
}

# busybox loops ktrepl did not write, one pinned to each CPU, in the
# background until stop_load
start_load() {
	_c=0
	while [ $_c -lt "$(nproc)" ]; do
		taskset -c $_c sh -c 'while :; do md5sum /bin/busybox >/dev/null;
			find /sys/kernel -maxdepth 2 >/dev/null 2>&1; /bin/true; done' &
		_c=$((_c + 1))
	done
}
stop_load() {
	kill $(jobs -p) 2>/dev/null
	wait 2>/dev/null
}

# ktrepl-top's own fidelity, every CPU busy: 5 frames at the default
# event and rate, and a ring too small to keep up. The host checks them.
# A one-page ring holds 4 times as much with 16K pages: sample 4 times
# as often there.
top_fidelity() {
	_kb=$(awk '/^KernelPageSize:/ { print $2; exit }' /proc/self/smaps)
	start_load
	emit fid_default ktrepl-top -j -n 5 -d 1
	emit fid_tiny env KTREPL_TOP_RING_PAGES=1 ktrepl-top -j -n 2 -d 1 \
		--sample-rate $((1000 * ${_kb:-4} / 4))
	stop_load
}

TR=/sys/kernel/tracing

# a kprobe event $1 on a hot function: at its entry, or past ftrace's
# patchable NOPs where kprobes refuse the ftrace site itself
add_kprobe() {
	echo "p:$1 do_sys_openat2" >> $TR/kprobe_events 2>/dev/null ||
		echo "p:$1 do_sys_openat2+8" >> $TR/kprobe_events
}

# kprobe_cycle NAME: arm a kprobe event, fire it once, remove it (two
# text patches each way)
kprobe_cycle() {
	add_kprobe $1
	echo 1 > $TR/events/kprobes/$1/enable
	cat /proc/self/stat > /dev/null
	echo 0 > $TR/events/kprobes/$1/enable
	echo "-:$1" >> $TR/kprobe_events
}

# patches: how many text patches the module has propagated
patches() { head -n1 $D/patches | kv patches; }

# A storm of every kind of core-text patching, for $1 seconds. The
# function tracer is filtered to a few hundred functions and the ring
# buffer is off: unfiltered, one round takes minutes under emulation and
# stalls the pinned kernel even without ktrepl (see README).
storm() {
	echo 0 > $TR/tracing_on
	echo 'vfs_* ksys_* do_sys_* *_lock *sched*' > $TR/set_ftrace_filter
	end=$(($(date +%s) + $1))
	rounds=0
	while [ $(date +%s) -lt $end ]; do
		echo function > $TR/current_tracer
		echo 1 > /proc/sys/kernel/sched_schedstats
		kprobe_cycle ktstorm
		echo 0 > /proc/sys/kernel/sched_schedstats
		echo nop > $TR/current_tracer
		rounds=$((rounds + 1))
		echo "# storm round $rounds at $(date +%s)" > /dev/console
	done
	echo > $TR/set_ftrace_filter
	echo 1 > $TR/tracing_on
	echo "$rounds"
}

# shipped_module_checks: the module users install has no test-only code
# (issue 26); its load-time parameters cannot be changed at run time.
shipped_module_checks() {
	_p=/sys/module/ktrepl/parameters
	for _t in fault_inject fail_alloc bench propagate; do
		check "the shipped module has no '$_t' parameter" test ! -e $_p/$_t
	done
	check "the shipped module has no inject file" test ! -e $D/inject
	_w=$(find $_p -type f -perm -200 2>/dev/null)
	check "no parameter can be written at run time${_w:+: $_w can}" \
		test -z "$_w"
	_w=$(find $D -type f ! -perm 400 ! -name '*_ctl' 2>/dev/null)
	check "every reader is 0400${_w:+: not $_w}" test -z "$_w"
	_w=$(find $D -type f -name '*_ctl' ! -perm 200 2>/dev/null)
	check "every control file is 0200${_w:+: not $_w}" test -z "$_w"
	if [ -e $D/workload_ctl ] && [ "$(head -n1 $D/summary | kv activation)" != workload ]; then
		check "workload start is refused outside activation=workload" \
			sh -c "! echo start > $D/workload_ctl 2>/dev/null"
	fi
	# kernel addresses only for whom /proc/kallsyms shows them: root in
	# a user namespace has no CAP_SYSLOG in the initial one
	# keyed on the facility, not on unshare failing: where the kernel
	# has user namespaces, a failed unshare fails the checks below
	if ! have_user_namespaces; then
		# the debug kernel (defconfig) has no user namespaces
		skip "a reader without CAP_SYSLOG gets EPERM, not addresses" \
			"no user namespaces in this kernel (unshare -Ur)"
		skip "a control write without CAP_SYS_ADMIN is refused (EPERM)" \
			"no user namespaces in this kernel (unshare -Ur)"
		return
	fi
	unshare -Ur cat $D/summary > /dev/null 2>/tmp/noaddr.err
	check "a reader without CAP_SYSLOG gets EPERM, not addresses" \
		grep -q 'not permitted' /tmp/noaddr.err
	_c=$(ls $D/*_ctl 2>/dev/null | head -n1)
	if [ -n "$_c" ]; then
		# root in a user namespace: uid 0 for the file mode, but no
		# CAP_SYS_ADMIN in the initial namespace
		unshare -Ur sh -c "echo stop > $_c" 2>/tmp/nocap.err
		check "a control write without CAP_SYS_ADMIN is refused (EPERM)" \
			grep -q 'not permitted' /tmp/nocap.err
	fi
}
