#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ktrepl.ko on the debug kernel (make debug-kernel: lockdep with RCU
list checks, atomic-sleep checks, KASAN, kmemleak): load and unload
cycles, module replication, activation mm and workload, and a short patch
storm, each on its own boot, each judged by the guest's own checks and
by the kernel's: any lockdep or RCU splat, sleeping-in-atomic report,
KASAN report or kmemleak leak fails it. Runs only with
KTREPL_DEBUG_KERNEL=1 (make debug-check, or make check
KTREPL_DEBUG_KERNEL=1), which builds the kernel once into the cache."""
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
import ktvm  # noqa: E402

HERE = os.path.dirname(__file__)
tap = ktvm.Tap()
if os.environ.get("KTREPL_DEBUG_KERNEL") != "1":
    tap.skip_all("the debug kernel run is KTREPL_DEBUG_KERNEL=1 "
                 "(make debug-check)")

# the profile scripts/debug-kernel.sh builds (outside the Debian ones)
KERNEL = "built/debug"
REL = ktvm.kernel_release("x86_64", KERNEL)
# KASAN and lockdep under TCG: several times the stock kernel's time
SLOW = float(os.environ.get("KTREPL_DEBUG_SLOWDOWN", "4"))
MEM = 1536  # per node: KASAN's shadow, kmemleak's pool, bigger replicas

need = {"the debug kernel image": ktvm.kernel_image("x86_64", KERNEL),
        "ktrepl.ko built against it": ktvm.ktrepl_ko("x86_64", KERNEL),
        "the test build against it": ktvm.ktrepl_ko("x86_64", KERNEL,
                                                    test=True)}
missing = [f"{what}: {path}" for what, path in need.items()
           if not os.path.exists(path)]
if missing:
    tap.ok(False, f"debug kernel {REL} and its modules are built",
           "\n".join(missing + ["make debug-check builds them"]))
    tap.done()

dump_tool = ktvm.tool("ktrepl-dump")
top_tool = ktvm.tool("ktrepl-top")

# Around each guest script: kmemleak forgets what boot left unreferenced,
# the script runs, ktrepl.ko is unloaded if the script left it loaded,
# then two scans (an object is reported once unreferenced for 5 s and
# seen so by a scan), and the kernel's log and lockdep's state for the
# host to judge.
WRAPPER = """#!/bin/sh
K=/sys/kernel/debug/kmemleak
if [ -w $K ]; then
	echo scan > $K
	echo clear > $K
	echo "@@kmemleak_on@@ 1"
fi
{env} sh /inner.sh
rc=$?
rmmod ktrepl 2>/dev/null
if [ -w $K ]; then
	sleep 6
	echo scan > $K
	sleep 1
	echo scan > $K
	sed 's/^/@@kmemleak@@ /' $K
fi
grep -E 'debug_locks|chain lookup misses|dependency chains' /proc/lockdep_stats 2>/dev/null |
	sed 's/^/@@lockdep@@ /'
dmesg | sed 's/^/@@dmesg@@ /'
exit $rc
"""

# The headline of every report the debug options make, as the kernel
# prints it (lockdep: kernel/locking/lockdep.c, RCU: lockdep_rcu_suspicious,
# might_sleep: __might_resched, KASAN: mm/kasan/report.c)
REPORTS = re.compile(
    r"WARNING: possible circular locking dependency|"
    r"WARNING: possible recursive locking|"
    r"WARNING: inconsistent lock state|"
    r"WARNING: possible irq lock inversion|"
    r"WARNING: .*-safe -> .*-unsafe lock order|"
    r"WARNING: suspicious RCU usage|"
    r"WARNING: lock held when returning to user space|"
    r"WARNING: bad unlock balance|"
    r"WARNING: held lock freed|"
    r"BUG: sleeping function called from invalid context|"
    r"BUG: scheduling while atomic|"
    r"BUG: Invalid wait context|"
    r"BUG: KASAN: |"
    r"BUG: MAX_LOCKDEP|BUG: MAX_STACK_TRACE|"
    r"WARNING: CPU: \d+ PID: \d+ at |"
    r"BUG: unable to handle|general protection fault|Oops")


def reports(log):
    """(headline, the report's lines) for each report in a kernel log."""
    out = []
    for i, line in enumerate(log):
        if REPORTS.search(line):
            end = i + 1
            while end < len(log) and end < i + 60 and \
                    not re.search(r"---\[ end trace|^=+$", log[end]):
                end += 1
            out.append((line.strip(), log[i:end + 1]))
    return out


def is_ours(block):
    """Whether a report names ktrepl: a frame or a lock of the module."""
    return any("[ktrepl" in x or "ktr_" in x or "ktrepl" in x
               for x in block)


def leaks(lines):
    """kmemleak's reports: each unreferenced object with its backtrace."""
    recs = ktvm.records(lines, "kmemleak")
    out, cur = [], None
    for r in recs:
        if r.startswith("unreferenced object"):
            cur = [r]
            out.append(cur)
        elif cur is not None:
            cur.append(r)
    return out


def run(name, script, topo="2x2", timeout=300, files=None, tools=(),
        env=""):
    start = time.monotonic()
    wrapper = os.path.join(ktvm.BUILD, f"t15-{os.getpid()}-wrap.sh")
    with open(wrapper, "w") as f:
        f.write(WRAPPER.format(env=env))
    files = dict(files or {})
    files["/inner.sh"] = script
    label = f"[debug {REL} {topo} {name}]"
    try:
        lines = ktvm.run_guest(tap, "x86_64", topo, wrapper, tools=tools,
                               name=label, files=files, kernel=KERNEL,
                               mem_per_node=MEM,
                               # the log must hold the whole run's reports
                               cmdline=f"{ktvm.EMULATION} log_buf_len=8M",
                               timeout=int(timeout * SLOW))
    finally:
        os.unlink(wrapper)
    took = time.monotonic() - start
    log = ktvm.records(lines, "dmesg")
    # reports that reached the console only (a guest that died early)
    if not log:
        log = lines
    tap.ok(any("KernelAddressSanitizer initialized" in x for x in log),
           f"{label} KASAN is on", "\n".join(log[:40]))
    tap.ok(ktvm.records(lines, "kmemleak_on") == ["1"],
           f"{label} kmemleak is on")
    state = " ".join(ktvm.records(lines, "lockdep"))
    tap.diag(f"{label} {took:.0f} s; lockdep: {state}")
    m = re.search(r"debug_locks:\s+(\d+)", state)
    tap.ok(m and m.group(1) == "1", f"{label} lockdep still validating at "
           "the end (debug_locks=1: no splat or overflow turned it off)",
           state)
    found = reports(log)
    for head, block in found:
        tap.diag(f"{label} {'ktrepl' if is_ours(block) else 'not ktrepl'}"
                 f": {head}")
    tap.ok(not found, f"{label} no lockdep, RCU, atomic-sleep, KASAN or "
           f"WARN report ({len(found)}; "
           f"{sum(is_ours(b) for _, b in found)} naming ktrepl)",
           "\n".join("\n".join(b) for _, b in found[:3]))
    leaked = leaks(lines)
    tap.ok(not leaked, f"{label} kmemleak finds no leak after unload "
           f"({len(leaked)} unreferenced objects)",
           "\n".join("\n".join(x) for x in leaked[:4]))
    return lines


# KASAN's quarantine holds freed objects back from the allocator, so free
# memory is no leak oracle on this kernel: kmemleak and the engine's own
# page accounting (all_freed, kept) judge leaks here
CYCLES = int(os.environ.get("KTREPL_DEBUG_CYCLES", "20"))
cycles = ktvm.script_with("module-cycles.sh", (
    ("while [ $i -lt 30 ]", "while [ $i -lt 3 ]"),
    ("while [ $i -lt 100 ]", f"while [ $i -lt {CYCLES} ]"),
    ('check "100 load/unload cycles all succeed"',
     f'check "{CYCLES} load/unload cycles all succeed"'),
    ('check "free memory back to baseline after 100 cycles (within 1 MiB)"',
     'echo "# not judged on KASAN (quarantine): free memory back to '
     'baseline after the cycles" ||'),
    ('-ge 131', f'-ge {CYCLES + 4}'),
    ('check "free memory back to baseline after the failure sweep '
     '(within 1 MiB)"',
     'echo "# not judged on KASAN (quarantine): free memory back to '
     'baseline after the failure sweep" ||'),
))
storm_rounds = int(os.environ.get("KTREPL_DEBUG_STORM_ROUNDS", "2"))
SUITES = {
    "load": lambda: run("load", os.path.join(HERE, "guest", "module-load.sh"),
                        tools=[dump_tool]),
    "modules": lambda: run("modules",
                           os.path.join(HERE, "guest", "module-mods.sh"),
                           files=ktvm.fs_modules("x86_64", KERNEL),
                           timeout=400, tools=[dump_tool, top_tool]),
    "mm": lambda: run("mm", os.path.join(HERE, "guest", "module-mm.sh"),
                      timeout=400, tools=[dump_tool, top_tool]),
    "workload": lambda: run("workload",
                            os.path.join(HERE, "guest", "module-workload.sh"),
                            timeout=400, tools=[dump_tool]),
    "storm": lambda: run("storm", os.path.join(HERE, "guest",
                                               "module-storm.sh"),
                         timeout=400, tools=[dump_tool],
                         env=f"ROUNDS={storm_rounds}"),
    "cycles": lambda: run("cycles", cycles, timeout=900, tools=[dump_tool],
                          files=ktvm.big_modules(KERNEL)),
}
# KTREPL_DEBUG_SUITES=load,mm runs those only (in this order)
chosen = os.environ.get("KTREPL_DEBUG_SUITES", ",".join(SUITES)).split(",")
try:
    for suite in chosen:
        if suite not in SUITES:
            raise SystemExit(f"t15: no suite {suite!r} (have: "
                             f"{', '.join(SUITES)})")
        SUITES[suite]()
finally:
    os.unlink(cycles)
tap.done()
