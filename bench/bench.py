#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ktrepl benchmarks: ratios against peers measured in the same run.

1. ktrepl.ko load time against a plain memcpy of the same bytes timed in
   the same load, and the per-node overhead (goal: within 2x of memcpy),
   step by step, also with init_on_alloc=0 (`bench.py load` runs only
   this).
2. ktrepl-dump verify, live, against a raw read of the same bytes from
   /proc/kcore (goal: at least 0.8x the raw rate); `bench.py scaling`:
   verify on 2, 4 and 8 nodes of one CPU each against one node's raw
   read (goal: linear, at most 1.1 x N x one node's).
3. The same on a vmcore, against the raw read and against a drgn script
   doing the same compare (goal: ktrepl-dump's speed-up over drgn at
   least half the raw read's, the most any reader can win; the old goal,
   20x, lay beyond that limit); `bench.py vmcore` runs 2 and 3 alone.
5. arm64: ftrace enable plus disable with every CPU on its node's
   replica (activation=percpu) against the same without the module (goal:
   <= 2x), and the cost of one TTBR1 switch.
4. ktrepl-top at 1 s refresh and 1 kHz per CPU: its own CPU use (goal
   <= 1% of a CPU, and at most busybox top's at the same refresh, with a
   second ktrepl-top sampling from another CPU so that both pay TCG's
   sampling tax), and the workload's rate with and without sampling
   (goal: <= 1% slower); `bench.py top-busy`: the same with a second
   guest busy on the host.
7. ktrepl-dump --verify during a patch storm (ftrace, static keys,
   kprobes), ranges caught mid-patch re-read, against verify at rest in
   the same guest (goal: <= 1.5x), x86_64 and arm64.
6. x86_64 activation=mm: a pipe between two processes pinned to one CPU
   of a replica node, bound to its set with kernel text non-global,
   against the same without the module and with activation=workload
   (text global): what dropping global text entries costs a process that
   context-switches hard.
8. `bench.py aa`: ktrepl-bench's A/A false-positive rate, x86_64 2x2,
   over AA_RUNS A/A controls (default 20): the nodes flagged significant
   (goal: no more than a 5% rate makes likely).
9. `bench.py verify-native` (no guest, on this host): verify's byte
   pipeline, the library's kt_diff_run() over a raw image in page cache
   of 2, 4 and 8 nodes' copies of 30 MiB with one byte planted, against
   the limit measured in the same run on the same bytes: the raw read
   plus a plain memcmp of each replica block (goal: <= 1.2x), and linear
   in the bytes read (8 nodes' ns per byte <= 1.2x 2 nodes').
10. `bench.py vmcore-native`: ktrepl-dump verify on this host over a
   QMP ELF dump of a 4x1 guest in page cache, against the dump file's
   raw read in 1 MiB blocks measured between the runs: the byte check at
   >= 0.5x the raw rate, the whole command (start-up included) <= 2x the
   byte check; libkdumpfile's page-at-a-time reader beside it.
11. `bench.py preloaded`: x86_64 2x2 with 200 of the cloud kernel's
   modules loaded first (timed: what loading them cost the kernel), then
   the load's replication of them (its modules step, 3 loads): goal
   <= 0.1x the kernel's loading.
12. `bench.py churn`: x86_64 2x2, the kernel loads and unloads 200 of
   the cloud kernel's modules, alone and with ktrepl.ko loaded, twice
   each, interleaved: the overheads <= 0.25x the kernel's own loading
   and unloading, and ktrepl.ko's unload among them <= 0.1x the
   kernel's unloading of them.
Times under TCG are emulated; only the ratios mean something.

--check: each goal is also judged (a "goal:" line, met or missed), and
the run exits 1 when one was missed or gave no figure, 0 when every goal
measured was met. Not part of make check: TCG timings are noisy, so this
is where the README's goal claims are judged, on demand.

--markdown: this run's goals are added to bench/results.json, and
bench/RESULTS.md is written again from it (bench/results.py): one table
per goal, newest first, with the median, range and runs, met or missed.
"""
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests",
                                "vm"))
import ktvm  # noqa: E402
import load_figures  # noqa: E402
import results  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DUMP = ktvm.tool("ktrepl-dump")
TOP = ktvm.tool("ktrepl-top")
# Debian's linux-perf (scripts/deps.sh), the sampling peer of ktrepl-top
PERF = "/usr/bin/perf"


def records(lines, tag):
    pre = f"@@{tag}@@ "
    return [x[len(pre):] for x in lines if x.startswith(pre)]


def kv(line):
    return dict(f.split("=", 1) for f in line.split() if "=" in f)


def boot(script, topo, dump=None, arch="x86_64", files=None, cmdline="",
         extra_tools=(), prealloc=False):
    path = os.path.join(HERE, "guest", script)
    if dump:
        lines, error = ktvm.dump_guest(path, [(dump, "elf")], topo=topo,
                                       tools=[DUMP], timeout=900,
                                       cmdline=cmdline)
        if error:
            sys.exit(f"bench: {error}")
        return lines
    initrd = os.path.join(ktvm.BUILD, f"bench-{os.getpid()}.gz")
    tools = [DUMP, TOP] if arch == "x86_64" else ktvm.arm64_tools()
    tools += list(extra_tools)
    ktvm.build_initramfs(arch, path, initrd, tools=tools, files=files)
    with ktvm.Guest(arch, topo, initrd, timeout=1200, cmdline=cmdline,
                    prealloc=prealloc) as g:
        _, lines = g.run_to_end()
    os.unlink(initrd)
    return lines


def timed(cmd):
    t = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True)
    return time.monotonic() - t, r


FLAGS = ("--check", "--markdown")
CHECK = "--check" in sys.argv[1:]
MARKDOWN = "--markdown" in sys.argv[1:]
only = [a for a in sys.argv[1:] if a not in FLAGS]
GOALS = []   # (name, figure or None, "<=" or ">=", target, met)
RECORDS = []  # the same, as bench/results.json keeps them (results.py)


def host_name():
    """The CPU model and its count: what a figure was measured on"""
    model = "?"
    try:
        with open("/proc/cpuinfo") as f:
            model = next((x.split(":", 1)[1].strip() for x in f
                          if x.startswith(("model name", "CPU part"))), "?")
    except OSError:
        pass
    return f"{model} x{os.cpu_count()}"


def commit_name():
    r = subprocess.run(["git", "-C", HERE, "describe", "--always",
                        "--dirty"], capture_output=True, text=True)
    return r.stdout.strip() or "?"


HOST = host_name()
COMMIT = commit_name()


def goal(name, figure, op, target, samples=None, native=False):
    """Judge one goal: figure op target. None: the run gave no figure,
    which is a miss. samples: the runs figure is the median of (their
    range goes into RESULTS.md); native: measured on this host, not in a
    TCG guest."""
    met = figure is not None and (figure <= target if op == "<="
                                  else figure >= target)
    GOALS.append((name, figure, op, target, met))
    RECORDS.append(results.record(
        name, figure, op, target, met, samples=samples,
        date=time.strftime("%Y-%m-%d"), commit=COMMIT, host=HOST,
        kind="native" if native else "emulated"))
    shown = "no figure" if figure is None else f"{figure:.3g}"
    print(f"goal: {name}: {shown} (want {op} {target:g}): "
          f"{'met' if met else 'MISSED'}", flush=True)
    return met


def judged_exit(rc=0):
    """With --check, the goals decide the status; with --markdown, they
    go into bench/RESULTS.md."""
    if MARKDOWN:
        results.update(os.path.join(HERE, "results.json"),
                       os.path.join(HERE, "RESULTS.md"), RECORDS)
        print(f"# {len(RECORDS)} goals added to bench/RESULTS.md")
    if CHECK:
        missed = [g for g in GOALS if not g[4]]
        print(f"# goals: {len(GOALS) - len(missed)} of {len(GOALS)} met"
              + (": missed " + ", ".join(g[0] for g in missed)
                 if missed else ""))
        rc = 1 if missed or not GOALS else rc
    sys.exit(rc)



def top_busy_bench():
    """top_bench with a second guest on the host, every vCPU of it busy,
    which inflates TCG's sampling tax. Both tools are measured in the
    same busy run, so the ratio holds."""
    initrd = os.path.join(ktvm.BUILD, f"bench-busy-{os.getpid()}.gz")
    ktvm.build_initramfs("x86_64", os.path.join(HERE, "guest", "busy.sh"),
                         initrd)
    try:
        with ktvm.Guest("x86_64", "2x2", initrd, timeout=3600) as g:
            g.wait_for(r"^BUSY-STARTED")
            top_bench("2x2, a second guest busy on the host")
    finally:
        os.unlink(initrd)


def top_bench(what="2x2"):
    if not os.access(PERF, os.X_OK):
        sys.exit(f"bench: no {PERF}: the peer ktrepl-top is measured "
                 "against (apt-get install linux-perf, or make deps)")
    lines = boot("top.sh", "2x2", extra_tools=[PERF])

    def rate(w):
        return int(w["iterations"]) / (int(w["centisec"]) / 100)

    def cpu(w):
        return 100.0 * int(w["cpu_ns"]) / 1e9 / (int(w["centisec"]) / 100)

    base = [kv(x) for x in records(lines, "base")]
    smp = [kv(x) for x in records(lines, "sampled")]
    peer = [kv(x) for x in records(lines, "peer")]
    matched = [kv(x) for x in records(lines, "peer_sampled")]
    perf = [kv(x) for x in records(lines, "perf")]
    if not base or not smp or not peer or not matched or not perf:
        sys.exit("bench: the ktrepl-top guest gave no figures")
    # a window opened before two 1 s frames could be out measured startup
    # (-1: frame 2 never came)
    early = [w for w in smp + matched if int(w.get("settle_cs", 0)) < 200]
    if early:
        sys.exit(f"bench: {len(early)} ktrepl-top window(s) began "
                 f"{', '.join(w.get('settle_cs', '?') for w in early)} cs "
                 f"after launch, before its second frame was out (-1: "
                 f"never): they measure startup, not the cost per second")
    dead = [w for w in smp + peer + matched + perf
            if w.get("alive") != "1"]
    gone = records(lines, "sampler_gone")
    if dead or gone:
        sys.exit(f"bench: {len(dead)} measured tool(s) and {len(gone)} "
                 f"second sampler(s) exited before their window ended: "
                 f"no figure")
    b = statistics.median(map(rate, base))
    s_ = statistics.median(map(rate, smp))
    p_ = statistics.median(map(rate, peer))
    tool = statistics.median(map(cpu, smp))
    top = statistics.median(map(cpu, peer))
    top_taxed = statistics.median(map(cpu, matched))
    f_ = statistics.median(map(rate, perf))
    perf_cpu = statistics.median(map(cpu, perf))
    # each round's base is the window just before both tools' windows
    top_tax = [100 * (1 - rate(s) / rate(b0)) for s, b0 in zip(smp, base)]
    perf_tax = [100 * (1 - rate(f) / rate(b0)) for f, b0 in zip(perf, base)]

    def spread(xs, ys):
        """Each round's tools ran back to back on the same host load."""
        r = [cpu(x) / cpu(y) for x, y in zip(xs, ys) if cpu(y)]
        if not r:
            return "per round: no peer time to divide by"
        return (f"per round {min(r):.2f}x to {max(r):.2f}x, "
                f"median {statistics.median(r):.2f}x")

    def ratio(a, b_):
        return f"{a / b_:.2f}x" if b_ else "no peer time"

    model = native_model_cost()
    perf_host = native_perf_cost()
    print(f"ktrepl-top [{what}, 1 s, 1 kHz/CPU]: tool CPU {tool:.2f}% of a "
          f"CPU (goal <= 1%); busybox top at 1 s under the same sampling "
          f"tax {top_taxed:.2f}% ({ratio(tool, top_taxed)}, goal <= 1x; "
          f"{spread(smp, matched)}); busybox top alone {top:.2f}% "
          f"({ratio(tool, top)}; {spread(smp, peer)}); workload "
          f"{s_:.0f} vs {b:.0f} bursts/s unsampled: "
          f"{100 * (1 - s_ / b):+.1f}% slowdown (goal <= 1%; under busybox "
          f"top, which does not sample, {100 * (1 - p_ / b):+.1f}%); "
          f"natively the model costs {model} per sample")
    print(f"ktrepl-top against perf record -a -F 1000 -o /dev/null, same "
          f"rounds [{what}]: workload slowdown {100 * (1 - s_ / b):+.1f}% vs "
          f"{100 * (1 - f_ / b):+.1f}% (per round: ktrepl-top "
          + ", ".join(f"{x:+.1f}%" for x in top_tax) + "; perf "
          + ", ".join(f"{x:+.1f}%" for x in perf_tax) +
          f"); own CPU {tool:.2f}% vs {perf_cpu:.2f}% of a CPU "
          f"({ratio(tool, perf_cpu)}; {spread(smp, perf)}); on this host "
          f"perf record costs {perf_host} per sample")
    # paired: each round's two windows against that round's own base
    paired = [t - p for t, p in zip(top_tax, perf_tax)]
    goal(f"workload slowdown, ktrepl-top minus perf record [{what}] "
         "(points, median of rounds)",
         statistics.median(paired) if paired else None, "<=", 0,
         samples=paired)
    goal(f"ktrepl-top CPU against perf record's [{what}]",
         tool / perf_cpu if perf_cpu else None, "<=", 1,
         samples=[cpu(x) / cpu(y) for x, y in zip(smp, perf) if cpu(y)])
    goal(f"ktrepl-top CPU [{what}] (% of a CPU)", tool, "<=", 1)
    goal(f"ktrepl-top against busybox top under the same tax [{what}]",
         tool / top_taxed if top_taxed else None, "<=", 1)
    goal(f"workload slowdown under ktrepl-top [{what}] (%)",
         100 * (1 - s_ / b) if b else None, "<=", 1)
    # the spread, round by round: a median alone hides an outlier
    print("  rounds: ktrepl-top " +
          ", ".join(f"{cpu(w):.2f}%" for w in smp) + "; busybox top taxed " +
          ", ".join(f"{cpu(w):.2f}%" for w in matched) + "; alone " +
          ", ".join(f"{cpu(w):.2f}%" for w in peer))


def native_perf_cost():
    """perf record's own CPU per sample on this host: the difference
    between an 8 s and a 1 s record of every CPU at 1 kHz, so that its
    start-up and exit cancel. Its samples go to a file, for the count."""
    def run(seconds):
        with tempfile.TemporaryDirectory() as tmp:
            data = os.path.join(tmp, "perf.data")
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            r = subprocess.run([PERF, "record", "-a", "-F", "1000", "-B",
                                "-q", "-o", data, "--", "sleep",
                                str(seconds)], capture_output=True,
                               text=True)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            rep = subprocess.run([PERF, "script", "-i", data, "-F", "cpu"],
                                 capture_output=True, text=True)
        n = len(rep.stdout.splitlines())
        if r.returncode or rep.returncode or not n:
            return None
        # rusage, not os.times(): those count 10 ms ticks
        cpu = (after.ru_utime + after.ru_stime -
               before.ru_utime - before.ru_stime)
        return cpu, n
    # three pairs, 1 s and 8 s: one pair's difference is within rusage's
    # noise on a shared host (it came out negative once)
    pers, whole = [], []
    for _ in range(3):
        short, long_ = run(1), run(8)
        if short and long_ and long_[1] > short[1]:
            pers.append((long_[0] - short[0]) / (long_[1] - short[1]))
            whole.append(long_[0] / long_[1])
    if not pers:
        return "(perf record gave no samples here)"
    # the marginal cost is often below rusage's resolution: the whole 8 s
    # record's CPU over its samples bounds it from above
    return (f"{statistics.median(pers) * 1e6:.2f} us marginal (median of "
            f"{len(pers)} pairs, {min(pers) * 1e6:.2f} to "
            f"{max(pers) * 1e6:.2f}), at most {min(whole) * 1e6:.2f} us "
            "with its start-up")


def native_model_cost():
    """The locality model on this host, where TCG does not blur it."""
    exe = os.path.join(ktvm.BUILD, "model_bench")
    lib = os.path.join(ktvm.ROOT, "tools", "lib", "ktrepl")
    archive = os.path.join(ktvm.BUILD, "tools", "lib", "ktrepl", "libktrepl.a")
    r = subprocess.run(["cc", "-O2", "-D_GNU_SOURCE", "-I" + lib,
                        "-I" + os.path.join(ktvm.ROOT, "kernel", "include"),
                        "-o", exe, os.path.join(HERE, "model_bench.c"),
                        archive, "-lkdumpfile",
                        "-lelf", "-ldw"], capture_output=True, text=True)
    if r.returncode:
        return "? (build failed)"
    r = subprocess.run([exe], capture_output=True, text=True)
    if r.returncode:
        return f"? ({r.stderr.strip()})"
    ns = json.loads(r.stdout)["ns_per_sample"]
    return f"{ns:.0f} ns ({ns * 2000 / 1e7:.3f}% of a CPU at 2000 samples/s)"


def verify_native_bench():
    """verify's compare natively against read + memcmp (issue 42)."""
    exe = os.path.join(ktvm.BUILD, "verify_bench")
    lib = os.path.join(ktvm.ROOT, "tools", "lib", "ktrepl")
    archive = os.path.join(ktvm.BUILD, "tools", "lib", "ktrepl", "libktrepl.a")
    r = subprocess.run(["cc", "-O2", "-D_GNU_SOURCE", "-I" + lib,
                        "-I" + os.path.join(ktvm.ROOT, "kernel", "include"),
                        "-o", exe, os.path.join(HERE, "verify_bench.c"),
                        archive, "-lkdumpfile", "-lelf", "-ldw"],
                       capture_output=True, text=True)
    if r.returncode:
        print("# verify_bench did not build: " + r.stderr[-500:])
        goal("verify natively, x read + memcmp", None, "<=", 1.2,
             native=True)
        return
    image = os.path.join(ktvm.BUILD, f"verify-native-{os.getpid()}.img")
    mib, per_byte = 30, {}
    try:
        for n in (2, 4, 8):
            r = subprocess.run([exe, str(n), str(mib), image],
                               capture_output=True, text=True)
            f = json.loads(r.stdout) if r.returncode == 0 else None
            planted = 0xffffffff81000000 + (mib << 20) // 2
            # a pipeline that misses the planted byte measures nothing
            if not f or f["ranges"] != 1 or f["range_va"] != planted or \
                    f["limit_differ"] != 1:
                print(f"verify natively [{n} nodes]: no valid run: "
                      f"{f or r.stderr.strip()}")
                goal(f"verify natively [{n} nodes], x read + memcmp", None,
                     "<=", 1.2, native=True)
                continue
            ratio = f["pipeline_ns"] / f["read_memcmp_ns"]
            # the master's bytes are read once a block, each replica's once
            per_byte[n] = f["pipeline_ns"] / (f["compared"] + f["bytes"])
            gbs = (f["compared"] + f["bytes"]) / f["pipeline_ns"]
            print(f"verify natively [{n} nodes of {mib} MiB]: "
                  f"{f['pipeline_ns'] / 1e6:.1f} ms ({gbs:.2f} GB/s read); "
                  f"read + memcmp {f['read_memcmp_ns'] / 1e6:.1f} ms, raw "
                  f"read {f['read_ns'] / 1e6:.1f} ms: {ratio:.2f}x the limit")
            goal(f"verify natively [{n} nodes], x read + memcmp", ratio,
                 "<=", 1.2, native=True)
    finally:
        if os.path.exists(image):
            os.unlink(image)
    goal("verify natively, 8 nodes' ns per byte read x 2 nodes'",
         per_byte[8] / per_byte[2] if 2 in per_byte and 8 in per_byte
         else None, "<=", 1.2, native=True)


def med_range(xs):
    """'median (min-max)' of a list of figures"""
    return (f"{statistics.median(xs):.3g} ({min(xs):.3g}-{max(xs):.3g}, "
            f"n={len(xs)})")


def verify_times(core, reader):
    """One ktrepl-dump verify of core: the tool's own phase times (ms),
    its wall time from outside (s), and what it compared."""
    env = dict(os.environ, KTREPL_VERIFY_TIMES="1", KTREPL_DUMP_READER=reader)
    t = time.monotonic()
    r = subprocess.run([DUMP, "-j", "--vmcore", core, "verify"], env=env,
                       capture_output=True, text=True)
    wall = time.monotonic() - t
    line = next((x for x in r.stderr.splitlines()
                 if "verify times (ms):" in x), "")
    f = kv(line.partition("(ms):")[2])
    return r.returncode, wall, f


def vmcore_native_bench():
    tmp = tempfile.mkdtemp(prefix="ktrepl-bench-", dir=ktvm.BUILD)
    core = os.path.join(tmp, "vmcore")
    try:
        boot("verify.sh", "4x1", dump=core)
        vmcore_native(core)
    finally:
        subprocess.run(["rm", "-rf", tmp])


def vmcore_native(core, runs=7):
    """vmcore verify on this host (issue 42): a QMP ELF dump of a 4x1
    guest, in page cache, against the raw read of the dump file in 1 MiB
    blocks, measured between verify runs. Goals: the byte check reads at
    >= 0.5x the raw rate, and the whole command (from outside, start-up
    included) takes <= 2x the byte check. libkdumpfile's reader is run
    beside it for the record."""
    size = os.path.getsize(core)
    summ = json.loads(subprocess.run(
        [DUMP, "-j", "--vmcore", core, "summary"], capture_output=True,
        text=True).stdout)
    replicas = sum(n["role"] == "replica" for n in summ["nodes"])
    raw, fig = [], {"direct": [], "libkdumpfile": []}
    subprocess.run(["cat", core], stdout=subprocess.DEVNULL)  # cache
    # what this harness's own fork, exec and wait cost (a run of true):
    # taken off each whole command, which keeps its own start-up
    floor = statistics.median(timed(["true"])[0] for _ in range(15))
    for _ in range(runs):
        t, _ = timed(["dd", f"if={core}", "of=/dev/null", "bs=1M"])
        raw.append(size / t / 1e9)
        for reader, got in fig.items():
            rc, wall, f = verify_times(core, reader)
            if rc != 0 or "bytes" not in f:
                print(f"vmcore verify natively [{reader}]: exit {rc}, "
                      f"no times: {f}")
                continue
            compared = int(f["compared_bytes"])
            # the master's bytes are read once a block, each replica's
            read = compared + compared // max(replicas, 1)
            got.append((read / float(f["bytes"]) / 1e6, float(f["bytes"]),
                        (wall - floor) * 1e3, float(f["open"]), read))
    print(f"vmcore verify natively [4x1, {size / 1e9:.2f} GB ELF dump "
          f"in page cache]: raw read {med_range(raw)} GB/s; the harness's "
          f"own fork, exec and wait {floor * 1e3:.1f} ms, taken off each "
          "whole command")
    for reader, got in fig.items():
        if not got:
            continue
        print(f"  {reader:12s}: byte check {med_range([g[1] for g in got])}"
              f" ms for {got[0][4] / 1e6:.1f} MB read "
              f"({med_range([g[0] for g in got])} GB/s); whole command "
              f"{med_range([g[2] for g in got])} ms, open "
              f"{med_range([g[3] for g in got])} ms")
    got = fig["direct"]
    rate = [g[0] / r for g, r in zip(got, raw)]
    whole = [g[2] / g[1] for g in got]
    if got:
        print(f"  byte check x raw rate {med_range(rate)}; whole command "
              f"x byte check {med_range(whole)}")
    goal("vmcore verify natively, byte check x the raw read rate",
         statistics.median(rate) if got else None, ">=", 0.5,
         samples=rate, native=True)
    goal("vmcore verify natively, whole command x the byte check",
         statistics.median(whole) if got else None, "<=", 2,
         samples=whole, native=True)


def ftrace_bench():
    lines = boot("ftrace-arm64.sh", "2x2", arch="arm64")
    runs = [kv(x) for x in records(lines, "toggle")]
    plain = statistics.median(int(r["ns"]) for r in runs
                              if r["mode"] == "plain")
    percpu = statistics.median(int(r["ns"]) for r in runs
                               if r["mode"] == "percpu")
    summ = [kv(x) for x in records(lines, "summary")]
    sw = statistics.median(int(x["switch_ns"]) for x in summ)
    acts = {x["activation"] for x in summ}
    print(f"ftrace on+off [arm64 2x2, activation {'/'.join(acts)}]: "
          f"{percpu / 1e9:.2f} s with ktrepl vs {plain / 1e9:.2f} s without: "
          f"{percpu / plain:.2f}x (goal <= 2x); one TTBR1 switch "
          f"{sw / 1e3:.0f} us (emulated)")
    goal("arm64 ftrace on+off with percpu, x plain", percpu / plain, "<=", 2)


def mm_bench():
    lines = boot("mm-x86.sh", "2x2")
    runs = [kv(x) for x in records(lines, "pipe")]
    med = {m: statistics.median(int(r["ms"]) for r in runs
                                if r["mode"] == m)
           for m in ("plain", "workload", "mm")}
    bound = len(records(lines, "bound"))
    print(f"pipe ping-pong on one CPU [x86_64 2x2, the pair bound: "
          f"{bound} records]: {med['mm'] / 1e3:.2f} s with activation=mm "
          f"(text non-global) vs {med['plain'] / 1e3:.2f} s without ktrepl: "
          f"{med['mm'] / med['plain']:.2f}x; activation=workload (text "
          f"global) {med['workload'] / med['plain']:.2f}x. QEMU's TCG TLB "
          f"drops global entries at every CR3 load too, so only a real "
          f"machine shows what non-global text costs")


def modules_bench():
    for arch in ("x86_64", "arm64"):
        lines = boot("modules.sh", "2x2", arch=arch,
                     files=ktvm.fs_modules(arch))
        runs = [kv(x) for x in records(lines, "cycle")]
        med = {m: statistics.median(int(r["ms"]) for r in runs
                                    if r["mode"] == m)
               for m in ("plain", "modules0", "modules1")}
        mirrors = [int(kv(x).get("table_mirrors", 0))
                   for x in records(lines, "summary")]
        print(f"10 loads and unloads of fat+vfat [{arch} 2x2]: "
              f"{med['modules1'] / 1e3:.2f} s with module replication vs "
              f"{med['plain'] / 1e3:.2f} s without ktrepl: "
              f"{med['modules1'] / med['plain']:.2f}x (goal <= 2x); "
              f"ktrepl with modules=0 "
              f"{med['modules0'] / med['plain']:.2f}x; table entries "
              f"mirrored per round {statistics.median(mirrors) if mirrors else '?'}")
        goal(f"module load+unload with replication [{arch}], x plain",
             med["modules1"] / med["plain"], "<=", 2)


def preloaded_bench():
    """The load's replication of modules already loaded, against what
    loading them cost the kernel, timed in the same guest: a server
    carries hundreds. Each module costs ktrepl a copy, its tables, a
    protection change and one mirror of the owned tables; the kernel's
    own load reads, relocates, links and protects it, with at least as
    many protection changes: goal <= 0.1x. Before 864a97b, where each
    set_memory call mirrored every owned table, it was 0.29x (3.37 s
    against 11.63 s, 2026-12-07); after, 0.05x (0.50 s against 9.19 s)."""
    with tempfile.TemporaryDirectory(dir=ktvm.BUILD) as tmp:
        files, _ = ktvm.many_modules(ktvm.module_dir("x86_64"), tmp)
        lines = boot("preloaded.sh", "2x2", files=files)
    pre = [kv(x) for x in records(lines, "preloaded")]
    loads = [kv(x) for x in records(lines, "load")]
    name = "load among 200 modules [x86_64 2x2], modules step x the kernel's loading of them"
    if not pre or not loads or "modules" not in loads[0]:
        print("load among 200 modules: the guest gave no figures")
        goal(name, None, "<=", 0.1)
        return
    kernel_s = int(pre[0]["centisec"]) / 100
    step = statistics.median(int(x["modules"]) for x in loads) / 1e6
    print(f"load among {pre[0]['modules']} modules [x86_64 2x2]: "
          f"replicating them at load {step:.2f} s (median of {len(loads)} "
          f"loads: " + ", ".join(f"{int(x['modules']) / 1e6:.2f}"
                                 for x in loads) +
          f" s) against {kernel_s:.2f} s for the kernel to load them: "
          f"{step / kernel_s:.2f}x (goal <= 0.1x); "
          f"{loads[0].get('replicated')} modules replicated")
    goal(name, step / kernel_s if kernel_s else None, "<=", 0.1,
         samples=[int(x["modules"]) / 1e6 / kernel_s for x in loads])


def churn_bench():
    """Module loads and unloads on a host that runs ktrepl.ko, against
    the kernel's own cost of them, timed in the same guest, interleaved:
    a load is then replicated at MODULE_STATE_LIVE, an unload released
    at GOING, and ktrepl.ko's own unload releases every module loaded.
    Goals: each overhead <= 0.25x the kernel's loading or unloading of
    the 200 modules, ktrepl.ko's unload among them <= 0.1x the kernel's
    unloading of them. Before the targeted mirror of a protection
    change, the deferred mirror at release and one grace period for the
    unload (2026-12-07, the same boot): loads +0.53x, unloads +0.61x,
    ktrepl.ko's unload 3.7 s (0.29x); after, +0.08x, +0.10x and 0.65 s."""
    with tempfile.TemporaryDirectory(dir=ktvm.BUILD) as tmp:
        files, _ = ktvm.many_modules(ktvm.module_dir("x86_64"), tmp)
        lines = boot("churn.sh", "2x2", files=files)
    plain = [kv(x) for x in records(lines, "plain")]
    with_k = [kv(x) for x in records(lines, "ktrepl")]
    release = [kv(x) for x in records(lines, "release")]
    names = ("module loads among 200 [x86_64 2x2], ktrepl.ko's overhead "
             "x the kernel's own",
             "module unloads among 200 [x86_64 2x2], ktrepl.ko's overhead "
             "x the kernel's own",
             "ktrepl.ko's unload among 200 modules [x86_64 2x2] x the "
             "kernel's unloading of them")
    if not plain or len(plain) != len(with_k) or not release:
        print("module churn: the guest gave no figures")
        for name, target in zip(names, (0.25, 0.25, 0.1)):
            goal(name, None, "<=", target)
        return
    cs = {k: [int(p[k]) for p in plain] for k in ("load_cs", "unload_cs")}
    over = {k: [(int(w[k]) - int(p[k])) / int(p[k])
                for p, w in zip(plain, with_k)]
            for k in ("load_cs", "unload_cs")}
    rm = [int(r["rmmod_cs"]) / int(p["unload_cs"])
          for r, p in zip(release, plain)]
    print(f"module churn, {plain[0].get('loaded')} modules [x86_64 2x2], "
          f"{len(plain)} rounds: the kernel loads them in "
          f"{', '.join(f'{c / 100:.2f}' for c in cs['load_cs'])} s, "
          f"unloads them in "
          f"{', '.join(f'{c / 100:.2f}' for c in cs['unload_cs'])} s; "
          f"with ktrepl.ko "
          f"{', '.join(str(int(w['load_cs']) / 100) for w in with_k)} s and "
          f"{', '.join(str(int(w['unload_cs']) / 100) for w in with_k)} s; "
          f"ktrepl.ko's unload among them "
          f"{', '.join(str(int(r['rmmod_cs']) / 100) for r in release)} s")
    for name, figs, target in zip(names, (over["load_cs"], over["unload_cs"],
                                          rm), (0.25, 0.25, 0.1)):
        goal(name, statistics.median(figs), "<=", target, samples=figs)


def raw_reads_done(runs, name):
    """The rounds whose raw reads worked. From 2026-12-01 to 12-06 the
    raw read was 'read -o /dev/null', which read -o refused (an existing
    file) in a few ms, and every raw figure of those days measured that
    refusal: a read that failed is no baseline."""
    done = [r for r in runs if r.get("raw_rc") == "0" and
            r.get("raw1_rc", "0") == "0"]
    if len(done) < len(runs):
        print(f"# {name}: {len(runs) - len(done)} of {len(runs)} rounds "
              "dropped: their raw read failed (raw_rc "
              f"{[r.get('raw_rc') for r in runs]})")
    return done


def verify_storm_bench():
    for arch in ("x86_64", "arm64"):
        lines = boot("verify-storm.sh", "2x2", arch=arch)
        runs = [kv(x) for x in records(lines, "verify")]
        med = {m: statistics.median(int(r["ms"]) for r in runs
                                    if r["mode"] == m)
               for m in ("rest", "storm")}
        bad = [r for r in runs if r["rc"] != "0"]
        reread = sum(int(r["reread"]) for r in runs if r["mode"] == "storm")
        patches = kv(records(lines, "patches")[0])["during"] \
            if records(lines, "patches") else "?"
        print(f"verify during a patch storm [{arch} 2x2, {patches} patches "
              f"meanwhile]: {med['storm'] / 1e3:.2f} s vs "
              f"{med['rest'] / 1e3:.2f} s at rest: "
              f"{med['storm'] / med['rest']:.2f}x (goal <= 1.5x); "
              f"{reread} ranges re-read in 10 runs; runs not healthy: "
              f"{len(bad)}")
        goal(f"verify during a patch storm [{arch}], x at rest",
             med["storm"] / med["rest"], "<=", 1.5)


def load_bench():
    """Replication at load against a plain memcpy of the same bytes, both
    timed in the same load (bench=1), so each load gives one ratio and
    the host's speed, which drifts twofold between runs under TCG,
    cancels out of it. The median ratio judges the goal; the spread is
    shown. A second boot with init_on_alloc=0 shows what Debian's
    hardened default (every page zeroed at allocation) costs."""
    for topo in ("2x2", "4x1"):
        for cmdline in ("", "init_on_alloc=0"):
            load_bench_one(topo, cmdline)


def load_bench_one(topo, cmdline):
    """Each load against the baseline the kernel makes it pay anyway,
    timed in the same load (medians of 5 rounds in the module): with
    init_on_alloc=1 the allocator zeroes every replica page before the
    copy overwrites it, so the goal is <= 1.5x (memset + memcpy); with
    init_on_alloc=0, <= 2x memcpy."""
    label = f"{topo}{', ' + cmdline if cmdline else ''}"
    # the host's first touch of a page would land in the zeroing at
    # allocation alone: see ktvm.Guest
    lines = boot("load.sh", topo, cmdline=cmdline, prealloc=True)
    zeroing = load_figures.zeroing(records(lines, "autoinit"))
    base, want = load_figures.baseline(zeroing)
    loads = [x for x in (kv(y) for y in records(lines, "load"))
             if load_figures.ratio(x, zeroing) is not None]
    name = f"load [{topo}, init_on_alloc={int(bool(zeroing))}], x {base}"
    if zeroing is None or not loads:
        print(f"load [{label}]: the guest gave no figures (init_on_alloc "
              f"{'unknown' if zeroing is None else int(zeroing)})")
        goal(name, None, "<=", want)
        return
    nodes = [kv(x) for x in records(lines, "nodes")]
    ratios = sorted(load_figures.ratio(x, zeroing) for x in loads)
    by_memcpy = sorted(int(x["replicate_ns"]) / int(x["memcpy_ns"])
                       for x in loads)
    load = statistics.median(int(x["load_ns"]) for x in loads)
    rep = statistics.median(int(x["replicate_ns"]) for x in loads)
    hook = statistics.median(int(x["hook_ns"]) for x in loads)
    cp = statistics.median(int(x["memcpy_ns"]) for x in loads)
    zs = statistics.median(int(x.get("memset_ns", 0)) for x in loads)
    over = sorted({int(n["overhead_bytes"]) for n in nodes
                   if n.get("role") == "replica"})
    print(f"load [{label}]: init_on_alloc={int(zeroing)}; replication "
          f"(copies, tables, protection) {statistics.median(ratios):.2f}x "
          f"its own load's {base}, median of {len(ratios)} loads (goal <= "
          f"{want}x; {ratios[0]:.2f}-{ratios[-1]:.2f}); "
          f"{statistics.median(by_memcpy):.2f}x the memcpy alone; medians "
          f"{rep / 1e6:.1f} ms vs memcpy {cp / 1e6:.1f} ms and memset "
          f"{zs / 1e6:.1f} ms; whole load {load / 1e6:.1f} ms, of which "
          f"hooking the patcher {hook / 1e6:.1f} ms; per-node overhead "
          f"{[round(o / 2**20, 1) for o in over]} MiB")
    goal(name, statistics.median(ratios), "<=", want, samples=ratios)
    calm = sorted(load_figures.ratio(x, zeroing)
                  for x in load_figures.quiet(loads))
    print(f"load [{label}]: the {len(calm)} loads whose memcpy ran within "
          f"{load_figures.QUIET}x of the boot's fastest: "
          f"{statistics.median(calm):.2f}x ({calm[0]:.2f}-{calm[-1]:.2f})")
    goal(f"{name}, loads at the memcpy's own speed",
         statistics.median(calm), "<=", want, samples=calm)
    # each step against its own load's memcpy, median over the loads
    steps = [x for x in (kv(y) for y in records(lines, "steps"))
             if int(x.get("memcpy", 0))]
    if steps:
        names = [k for k in steps[0] if k not in ("memcpy", "memset")]
        med = {k: statistics.median(int(x.get(k, 0)) / int(x["memcpy"])
                                    for x in steps)
               for k in names + ["memset"]}
        print(f"load [{label}] by step, median of {len(steps)} (x its "
              "load's memcpy): " +
              ", ".join(f"{k} {med[k]:.2f}x" for k in names) +
              f"; the memset baseline {med['memset']:.2f}x")


def scaling_bench():
    """verify against the number of nodes (one CPU each): linear if it
    takes at most 1.1 x N x one node's raw read of the same bytes."""
    path = os.path.join(ktvm.BUILD, f"verify-scaling-{os.getpid()}.sh")
    with open(os.path.join(HERE, "guest", "verify.sh")) as src:
        text = src.read().replace("${WAIT_DUMP:-1}", "0")
    with open(path, "w") as dst:
        dst.write(text)
    for nodes in (2, 4, 8):
        topo = f"{nodes}x1"
        lines = boot(path, topo)
        runs = [kv(x.partition(" {")[0]) for x in records(lines, "verify")]
        runs = raw_reads_done(runs, f"verify scaling [{topo}]")
        if not runs:
            print(f"verify scaling [{topo}]: the guest gave no figures")
            goal(f"verify scaling [{topo}], x one node", None, "<=",
                 1.1 * nodes)
            continue
        v = statistics.median(int(r["verify_ns"]) for r in runs)
        # one node's extents read alone (the raw read of all of them
        # grows less than linearly: its fixed costs)
        one = statistics.median(int(r["raw1_ns"]) for r in runs)
        every = statistics.median(int(r["raw_ns"]) for r in runs)
        # a round whose verify could not open its target has no times
        times = [t for t in (kv(x) for x in records(lines, "vtimes")) if t]
        split = ", ".join(
            f"{k} {statistics.median(float(t[k]) for t in times if k in t):.0f}"
            for k in times[0] if k not in ("compared_bytes", "tables")) \
            if times else "?"
        # the command's own total against the wall time around it: the
        # rest is exec, the loader and exit, which --version alone costs
        if times and "total" in times[0]:
            total = statistics.median(float(t["total"]) for t in times)
            start = statistics.median(int(r.get("exec_ns", 0)) for r in runs)
            split += (f"; outside the command {v / 1e6 - total:.0f}, of "
                      f"which a run of --version {start / 1e6:.0f}")
        print(f"verify scaling [{topo}]: where it goes (ms, median): {split}")
        print(f"verify scaling [{topo}]: {v / 1e6:.0f} ms, one node's raw "
              f"read {one / 1e6:.0f} ms (all {nodes}: {every / 1e6:.0f} "
              f"ms): {v / one:.2f} x one node "
              f"(goal <= {1.1 * nodes:.1f}, 1.1 x {nodes}; "
              f"{v / one / nodes:.2f} per node); runs "
              + ", ".join(f"{int(r['verify_ns']) / 1e6:.0f}" for r in runs)
              + " ms")
        goal(f"verify scaling [{topo}], x one node's raw read", v / one,
             "<=", 1.1 * nodes)
    os.unlink(path)


def aa_bench():
    """ktrepl-bench's A/A false-positive rate over AA_RUNS runs (default
    20) of x86_64 2x2: each run's nodes, flagged or not. The man page
    states at most 5% per node (a sign test over paired rounds); the goal
    is a count of flags no higher than a binomial at 5% makes likely
    (the smallest count with P(X >= k) < 5% is a miss)."""
    import math
    runs = int(os.environ.get("AA_RUNS", "20"))
    sub = os.path.join(ktvm.BUILD, "tools", "ktrepl-bench", "ktrepl-bench")
    ko = os.path.join(os.path.dirname(ktvm.ktrepl_ko("x86_64", test=True)),
                      "ktrepl_bench_text.ko")
    script = os.path.join(ktvm.BUILD, f"bench-aa-{os.getpid()}.sh")
    with open(os.path.join(HERE, "guest", "aa.sh")) as f:
        text = f.read()
    with open(script, "w") as f:
        f.write(text.replace("${AA_RUNS:-20}", str(runs)))
    initrd = os.path.join(ktvm.BUILD, f"bench-aa-{os.getpid()}.gz")
    ktvm.build_initramfs("x86_64", script, initrd, tools=[sub],
                         files={"/lib/modules/ktrepl_bench_text.ko": ko})
    with ktvm.Guest("x86_64", "2x2", initrd, timeout=600 + 60 * runs) as g:
        _, lines = g.run_to_end()
    os.unlink(initrd)
    os.unlink(script)
    flags = total = 0
    for rec in records(lines, "aa"):
        try:
            doc = json.loads(rec)
        except ValueError:
            continue
        for n in (doc.get("benchmarks") or [{}])[0].get("nodes", []):
            total += 1
            flags += bool(n.get("significant"))
    # a run that gave no JSON is a miss, not one comparison fewer
    want_total = runs * len(ktvm.parse_topology("2x2"))
    if total != want_total:
        print(f"# {total} node comparisons of the {want_total} asked for")
        goal("ktrepl-bench A/A: nodes flagged", None, "<=", 0)
        return
    # the smallest k with P(X >= k) < 0.05 for X ~ Binomial(total, 0.05)
    tail, k = 1.0, 0
    while tail >= 0.05:
        tail -= math.comb(total, k) * 0.05 ** k * 0.95 ** (total - k)
        k += 1
    print(f"ktrepl-bench A/A [x86_64 2x2]: {flags} of {total} node "
          f"comparisons flagged ({100 * flags / total:.1f}%); at 5% a count "
          f"of {k} or more has under 5% chance")
    goal(f"ktrepl-bench A/A [x86_64 2x2], nodes flagged of {total}", flags,
         "<=", k - 1)


def vmcore_bench():
    """Live verify against the raw kcore read, vmcore verify against
    the raw read of its extents and against drgn, on one 4x1 guest"""
    tmp = tempfile.mkdtemp(prefix="ktrepl-bench-", dir=ktvm.BUILD)
    core = os.path.join(tmp, "vmcore")
    lines = boot("verify.sh", "4x1", dump=core)
    runs = []
    for x in records(lines, "verify"):
        head, _, js = x.partition(" {")
        f = kv(head)
        if raw_reads_done([f], "live verify [4x1]"):
            runs.append((int(f["verify_ns"]), int(f["raw_ns"]),
                         json.loads("{" + js)["compared_bytes"]))
    if runs:
        v = statistics.median(r[0] for r in runs)
        raw = statistics.median(r[1] for r in runs)
        print(f"live verify [4x1]: {v / 1e6:.0f} ms; raw kcore read of the "
              f"same bytes {raw / 1e6:.0f} ms; verify runs at {raw / v:.2f}x "
              "the raw rate (goal >= 0.8x)")
    goal("live verify [4x1], x the raw kcore rate",
         raw / v if runs else None, ">=", 0.8,
         samples=[r[1] / r[0] for r in runs] or None)

    tv, r = timed([DUMP, "-j", "--vmcore", core, "verify"])
    st = json.loads(r.stdout)
    ext = json.loads(subprocess.run([DUMP, "-j", "--vmcore", core, "summary"],
                                    capture_output=True, text=True).stdout)
    # extents for the peers, from the same descriptor
    walk = []
    for n in ext["nodes"]:
        for reg in ext["regions"]:
            rr = subprocess.run([DUMP, "-j", "--vmcore", core, "walk", "--node",
                                 str(n["node"]), "--region", reg["region"]],
                                capture_output=True, text=True)
            for m in json.loads(rr.stdout)["mappings"]:
                lo = max(int(m["va"], 16), int(reg["start"], 16))
                hi = min(int(m["va"], 16) + m["size"], int(reg["end"], 16))
                if m["present"] and lo < hi and n["role"] in ("master", "replica"):
                    walk.append({"va": lo, "size": hi - lo,
                                 "pa": int(m["pa"], 16) + lo - int(m["va"], 16),
                                 "master": n["role"] == "master"})
    ej = os.path.join(tmp, "extents.json")
    json.dump(walk, open(ej, "w"))
    pairs = [str(x) for e in walk for x in (hex(e["pa"]), e["size"])]
    traw, rr = timed([DUMP, "--vmcore", core, "read", "-o", "/dev/null",
                      *pairs])
    if rr.returncode:
        # a refused read takes no time: no figure rather than a flattering one
        print(f"# the raw read failed (exit {rr.returncode}): "
              f"{rr.stderr.strip()[:300]}")
        traw = float("nan")
    # Debian's python3, where python3-drgn lives
    td, rd = timed(["/usr/bin/python3", os.path.join(HERE, "drgn_compare.py"),
                    core, ej])
    dj = json.loads(rd.stdout) if rd.returncode == 0 else {}
    if rd.returncode:
        print("# drgn failed: " + rd.stderr[-500:].replace("\n", " "))
    # The old goal, 20x faster than drgn, asked for more than the raw read
    # of the same bytes gives (drgn took 0.12-0.15 s against a 6-30 ms raw
    # read: 5-20x is the limit). Judged now against that limit, measured
    # here: ktrepl-dump's speed-up over drgn as a share of the raw read's.
    limit = td / traw if traw == traw and traw > 0 else None
    print(f"vmcore verify [4x1]: {tv:.2f} s for {st['compared_bytes']} bytes; "
          f"raw read of the same extents {traw:.2f} s ({traw / tv:.2f}x the "
          f"raw rate); drgn compare {td:.2f} s: {td / tv:.1f}x slower than "
          f"ktrepl-dump, and {limit or float('nan'):.1f}x slower than the raw "
          f"read, the most any reader of these bytes can win; drgn compared "
          f"{dj.get('compared')} bytes")
    goal("vmcore verify [4x1] against drgn, share of the raw read's speed-up",
         (td / tv) / limit if dj and limit else None, ">=", 0.5)
    vmcore_native(core)
    subprocess.run(["rm", "-rf", tmp])


def main():
    print("# ktrepl benchmarks (QEMU/TCG guests; compare ratios, not times)")
    # the benchmarks named, in this table's order; none: the lot
    SINGLE = {"verify-storm": verify_storm_bench, "modules": modules_bench,
              "top": top_bench, "top-busy": top_busy_bench, "mm": mm_bench,
              "ftrace": ftrace_bench, "load": load_bench,
              "scaling": scaling_bench, "aa": aa_bench,
              "verify-native": verify_native_bench,
              "vmcore-native": vmcore_native_bench,
              "vmcore": vmcore_bench, "preloaded": preloaded_bench,
              "churn": churn_bench}
    # a misspelt name would otherwise run the lot, for hours
    unknown = [a for a in only if a not in SINGLE]
    if unknown:
        print(f"bench.py: unknown benchmark {', '.join(unknown)}; valid names: "
              f"{', '.join(sorted(SINGLE))} (none: all of them; --check: judge "
              "the goals; --markdown: add them to bench/RESULTS.md)",
              file=sys.stderr)
        sys.exit(2)
    named = [name for name in SINGLE if name in only]
    for name in named:
        SINGLE[name]()
    if named:
        judged_exit()
    verify_native_bench()
    load_bench()
    vmcore_bench()
    top_bench()
    ftrace_bench()
    judged_exit()


if __name__ == "__main__":
    main()
