#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ktrepl-top in real NUMA guests: locality figures without ktrepl, with
the workload on its nodes' tables and on the master's, bad input, the
module leaving under it, and the TUI inside tmux."""
import glob
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import ktvm  # noqa: E402

HERE = os.path.dirname(__file__)
tap = ktvm.Tap()
TOOLS = [ktvm.tool("ktrepl-dump"), ktvm.tool("ktrepl-top")]


def frames(lines, tag):
    return ktvm.json_records(tap, lines, tag)


def nodes_of(frame):
    return {n["node"]: n for n in frame["nodes"]}


def pct(n, key="local_pct"):
    return n[key] if n[key] is not None else -1


def check_fidelity(arch, lines):
    """Every CPU busy, 5 frames at the default event and rate: each frame
    loses <= 1% and either gets within 20% of the rate or says it did
    not; a ring too small to keep up is flagged lossy."""
    fd = frames(lines, "fid_default")
    tap.ok(len(fd) == 5 and all(f.get("event") == "cpu-clock" for f in fd),
           f"{arch}: 5 frames with every CPU busy, event cpu-clock",
           f"{[(f.get('frame'), f.get('event'), f.get('error')) for f in fd]}")
    for f in fd:
        lost = f["lost"] / max(1, f["samples"] + f["lost"])
        tap.ok(lost <= 0.01 and not f["lossy"],
               f"{arch}: frame {f['frame']} lost {f['lost']} of "
               f"{f['samples'] + f['lost']} samples ({100 * lost:.2f}%)")
        hz = f["achieved_hz"]
        near = hz["min"] >= 0.8 * f["rate_hz"]
        tap.ok(near != f["slow"] and f["trusted"] == near and all(
               c["rate_ok"] == (c["achieved_hz"] >= 0.8 * f["rate_hz"])
               for c in f["cpus"]),
               f"{arch}: frame {f['frame']}: slowest CPU {hz['min_cpu']} at "
               f"{hz['min']:.0f} of {f['rate_hz']} Hz (mean {hz['mean']:.0f})"
               f"{'' if near else ', and the frame says so (slow)'}")
        tap.ok(all(n["enough_samples"] == (n["local"] + n["remote"] >= 100)
                   for n in f["nodes"]),
               f"{arch}: frame {f['frame']}: every node's share says "
               "whether it rests on 100 samples")
    ft = frames(lines, "fid_tiny")
    tap.ok(len(ft) == 2 and all(f["lossy"] and not f["trusted"] and
                                f["lost_pct"] > 1 for f in ft),
           f"{arch}: a one-page ring loses samples and every frame says so "
           f"(lost {[round(f.get('lost_pct', 0), 1) for f in ft]}%)")


def check_prometheus(arch, lines, master):
    """--prometheus's window without ktrepl: promtool accepts it, and its
    shares are the frames': the master node local, the other remote."""
    for tag, what in (("prom", "on stdout"), ("prom_file", "in the file")):
        text = "".join(x + "\n" for x in ktvm.records(lines, tag))
        promtool = shutil.which("promtool")
        r = subprocess.run([promtool, "check", "metrics"], input=text,
                           capture_output=True, text=True) \
            if promtool else None
        tap.ok(r is not None and r.returncode == 0,
               f"{arch}: --prometheus {what}: promtool check metrics "
               "accepts it", (r.stdout + r.stderr) if r else "no promtool")
        ratio = {int(m.group(1)): float(m.group(2)) for m in re.finditer(
            r'^ktrepl_top_text_local_ratio\{node="(\d+)",text="core"\} '
            r'(\S+)$', text, re.M)}
        fetched = {int(m.group(1)): int(m.group(2)) for m in re.finditer(
            r'^ktrepl_top_text_fetches\{node="(\d+)",text="core",'
            r'where="(?:local|remote)"\} (\d+)$', text, re.M)}
        window = re.search(r"^ktrepl_top_window_seconds (\S+)$", text, re.M)
        tap.ok(window and 1.5 <= float(window.group(1)) <= 4,
               f"{arch}: --prometheus {what}: a window of 2 frames of 1 s "
               f"(got {window.group(1) if window else None} s)", text[-1500:])
        tap.ok(master in ratio and len(ratio) >= 2 and all(
            (r >= 0.95) if nid == master else (r <= 0.05)
            for nid, r in ratio.items()),
            f"{arch}: --prometheus {what}: core text local on the master "
            f"node {master} only, without replication (got {ratio}, "
            f"{sum(fetched.values())} core fetches)", text[-1500:])


# KTREPL_GUEST_ARCHES: run-all.sh runs the x86_64 guests beside other
# x86_64 tests, and the arm64 one alone
if ktvm.arch_selected("x86_64"):
    lines = ktvm.run_guest(tap, "x86_64", "2x2",
                           os.path.join(HERE, "guest", "top-live.sh"),
                           tools=TOOLS, name="[top x86_64 2x2]", timeout=300)
    m = next((re.match(r"MASTER-NODE (\d+)", x) for x in lines
              if x.startswith("MASTER-NODE")), None)
    master = int(m.group(1)) if m else None

    check_fidelity("x86_64", lines)
    plain = frames(lines, "plain")
    tap.ok(len(plain) == 2 and all(not f["module"] and f["activation"] == "none"
                                   for f in plain),
           f"without ktrepl: 2 frames, module=false, activation=none ({len(plain)})")
    for f in plain:
        ns = nodes_of(f)
        tap.ok(f["master_node"] == master,
               f"without ktrepl, the node holding the text is found: "
               f"{f['master_node']} (the module says {master})")
        for nid, n in ns.items():
            enough = n["samples"] >= 200
            if nid == master:
                tap.ok(enough and pct(n) >= 95,
                       f"frame {f['frame']}: node {nid} (holds the only copy) "
                       f"fetches {pct(n):.1f}% locally ({n['samples']} samples)")
            else:
                tap.ok(enough and 0 <= pct(n) <= 5,
                       f"frame {f['frame']}: node {nid} fetches "
                       f"{100 - pct(n):.1f}% remotely without replication "
                       f"({n['samples']} samples)")

    check_prometheus("x86_64", lines, master)

    wl = frames(lines, "workload")
    tap.ok(len(wl) == 3, f"3 JSON frames with the workload ({len(wl)})")
    for f in wl:
        tap.ok(f["module"] and f["activation"] == "workload" and
               f["on_node_tables"] > 0,
               f"frame {f['frame']}: {f['on_node_tables']} samples resolved "
               "through a node's own tables")
        cap = 1.3 * f["rate_hz"] * f["interval_s"]
        tap.ok(all(c["samples"] <= cap for c in f["cpus"]),
               f"frame {f['frame']}: no CPU has more samples than its rate "
               f"allows in the interval (<= {cap:.0f}: nothing carried over)",
               f"{[c['samples'] for c in f['cpus']]}")
        for nid, n in nodes_of(f).items():
            # what runs on a node's own tables fetches locally, all of it
            # (ktvm.own_set_local, as t03 and t07 hold it); the rest of a
            # node's samples are the kernel's own threads and ktrepl-top's,
            # on the master's tables, remote by design, and only shown
            tap.diag(f"frame {f['frame']}: node {nid}: {pct(n):.1f}% local "
                     f"in all, core text {pct(n['core']):.1f}% "
                     f"({n['samples']} samples)")
            if nid == master:
                tap.diag(f"frame {f['frame']}: node {nid} holds the master, "
                         "local with or without replication: not judged")
                continue
            good, resolved, lp = ktvm.own_set_local(n["on_sets"]["core"])
            tap.ok(good, f"frame {f['frame']}: node {nid} with "
                   f"replication, {ktvm.own_set_desc(resolved, lp)}")
    tb = {t["pid"]: t for t in map(ktvm.kv, ktvm.records(lines, "tasks_before"))}
    ta = {t["pid"]: t for t in map(ktvm.kv, ktvm.records(lines, "tasks_after"))}
    tap.ok(tb and tb.keys() == ta.keys() and all(
        t["probe"] == "1024" and
        int(t["iterations"]) > int(tb[p]["iterations"]) for p, t in ta.items()),
        "sampling only measures: the workers ran on and still compute "
        "int_sqrt(2^20) = 1024", f"{tb} {ta}")

    ms = frames(lines, "master")
    tap.ok(len(ms) == 2, f"2 JSON frames with the workload on master tables "
           f"({len(ms)})")
    for f in ms:
        tap.ok(f["on_node_tables"] == 0,
               f"frame {f['frame']}: no sample resolved through a node's tables")
        for nid, n in nodes_of(f).items():
            if nid == master:
                continue
            tap.ok(n["samples"] >= 200 and 0 <= pct(n) <= 5,
                   f"frame {f['frame']}: node {nid} on the master's tables "
                   f"fetches {100 - pct(n):.1f}% remotely")
    # --functions N: the default lists up to 10 hot remote functions, and
    # the workers on the master's tables give more than one; N=1 one
    hot = [len(f.get("hot_remote_functions", [])) for f in ms]
    f1 = [len(f.get("hot_remote_functions", []))
          for f in frames(lines, "master_f1")]
    tap.ok(hot and all(1 < n <= 10 for n in hot) and f1 == [1],
           "ktrepl-top --functions: 2 to 10 hot remote functions by default, "
           "exactly 1 with --functions 1",
           f"got default {hot}, --functions 1 {f1}\nwant 2..10 each, [1]")
    tm = [ktvm.kv(r) for r in ktvm.records(lines, "tasks_master")]
    tap.ok(tm and all(t["tables"] == "master" for t in tm),
           "the workers report tables=master")

    at = frames(lines, "attach")
    tap.ok(len(at) == 8 and at[0].get("module") is False and
           at[-1].get("module") is True and at[-1].get("on_node_tables", 0) > 0,
           "ktrepl.ko loaded under a running ktrepl-top: later frames resolve "
           "through the workers' tables", f"{[(f.get('frame'), f.get('module'), f.get('on_node_tables')) for f in at]}")

    un = frames(lines, "unload")
    tap.ok(len(un) == 6 and un[0].get("module") is True and
           un[-1]["activation"] == "gone" and
           "warning" in un[-1],
           "with the module unloaded mid-run, frames go on and say it is gone",
           f"{[(f['frame'], f['activation']) for f in un]}")

    # a memoryless node: its CPUs fetch from their nearest memory node's
    # replica, which ktrepl-top counts as local (from sysfs distances, on its
    # own) the way the module maps it. nokaslr keeps the image, so the
    # master, on node 0: under KASLR it can land on node 1, the memoryless
    # node's memory node, and then the replica is the master and nothing of
    # the mapping is tested (t03 covers KASLR on this topology)
    lines = ktvm.run_guest(tap, "x86_64", "2x2+memless",
                           os.path.join(HERE, "guest", "top-memless.sh"),
                           tools=TOOLS, name="[top x86_64 2x2+memless]",
                           timeout=300, cmdline="nokaslr")
    summ = {int(r["node"]): r for r in map(ktvm.kv, ktvm.records(lines, "summary"))
            if "node" in r}
    memless = [n for n, r in summ.items() if r.get("has_memory") == "0"]
    ml = frames(lines, "memless")
    tap.ok(len(memless) == 1 and len(ml) == 2,
           f"a memoryless node ({memless}) and 2 frames ({len(ml)})")
    for f in ml:
        ns = nodes_of(f) if "nodes" in f else {}
        for nid in memless:
            n = ns.get(nid, {})
            want = int(summ[nid]["memory_node"])
            tap.ok(isinstance(f.get("master_node"), int) and
                   want != f["master_node"],
                   f"frame {f.get('frame')}: memoryless node {nid}'s memory "
                   f"node ({want}) holds a replica, not the master "
                   f"({f.get('master_node')})")
            tap.ok(n.get("memory_node") == want,
                   f"frame {f.get('frame')}: ktrepl-top maps memoryless node "
                   f"{nid} to node {n.get('memory_node')}, as the module does "
                   f"({want})")
        # What a node's CPUs run on their memory node's tables (on_sets)
        # must fetch locally, all of it (ktvm.own_set_local). The rest is
        # the kernel's own threads on the master's tables, and only shown;
        # a node whose memory node holds the master is local either way
        for nid, n in ns.items():
            tag = f"frame {f['frame']}: node {nid}" + (
                " (memoryless)" if nid in memless else "")
            tap.diag(f"{tag}: core text {pct(n['core']):.1f}% from its "
                     f"memory node in all ({n['samples']} samples)")
            if n["memory_node"] == f["master_node"]:
                tap.diag(f"{tag}: its memory node holds the master, local "
                         "with or without replication: not judged")
                continue
            good, resolved, lp = ktvm.own_set_local(n["on_sets"]["core"])
            tap.ok(good, f"{tag}, core text "
                   f"{ktvm.own_set_desc(resolved, lp)}")

if ktvm.arch_selected("arm64"):
    # arm64: paging from VMCOREINFO without the module; with it, replication
    # is inactive there and every CPU fetches the master's text
    lines = ktvm.run_guest(tap, "arm64", "2x2",
                           os.path.join(HERE, "guest", "top-arm64.sh"),
                           tools=ktvm.arm64_tools(), name="[top arm64 2x2]",
                           timeout=400)
    m = next((re.match(r"MASTER-NODE (\d+)", x) for x in lines
              if x.startswith("MASTER-NODE")), None)
    amaster = int(m.group(1)) if m else None
    ap = frames(lines, "plain")
    tap.ok(len(ap) == 1 and ap[0].get("module") is False and
           ap[0]["master_node"] == amaster and all(
               n["samples"] > 0 and n["unresolved"] == 0
               for n in ap[0]["nodes"]),
           "arm64 without ktrepl: every sample resolves through swapper_pg_dir "
           f"and the text is found on node {amaster}", f"{ap}")
    for f in ap:
        for nid, n in nodes_of(f).items() if "nodes" in f else ():
            want = (pct(n) >= 95) if nid == amaster else (0 <= pct(n) <= 5)
            tap.ok(n["samples"] >= 50 and want,
                   f"arm64 without ktrepl: node {nid} fetches {pct(n):.1f}% "
                   f"locally ({n['samples']} samples)")
    ai = frames(lines, "inactive")
    tap.ok(len(ai) == 2 and all(f.get("activation") == "inactive" and
                                f.get("on_node_tables") == 0 for f in ai),
           "arm64 with ktrepl: replication inactive, no sample on a node's "
           "tables", f"{ai}")
    for f in ai:
        for nid, n in nodes_of(f).items() if "nodes" in f else ():
            if nid != amaster:
                # the worker's own loop is module text, which is not
                # replicated and may sit on either node: core text decides
                tap.ok(n["samples"] >= 50 and 0 <= pct(n["core"]) <= 5,
                       f"arm64, replication inactive: node {nid}'s worker "
                       f"fetches {100 - pct(n['core']):.1f}% of core text "
                       f"remotely ({100 - pct(n):.1f}% of all text)")

    # the same busybox loops on every CPU: inactive, the non-master nodes
    # fetch the master's text; percpu, every node fetches its own
    for f in frames(lines, "inactive_load"):
        for nid, n in nodes_of(f).items() if "nodes" in f else ():
            if nid != amaster:
                tap.ok(n["samples"] >= 50 and pct(n["core"]) <= 5,
                       f"arm64 inactive, plain workload: node {nid} fetches "
                       f"{100 - pct(n['core']):.1f}% of core text remotely "
                       f"({n['samples']} samples)")
    ap = frames(lines, "percpu")
    tap.ok(len(ap) == 2 and all(f.get("activation") == "percpu" for f in ap),
           "arm64 with ktrepl: activation percpu", f"{ap}")
    # percpu: each node's CPUs run on its set, so on_sets is the node's
    # whole figure; summed over the two frames, judged by the one rule
    summed = {}
    for f in ap:
        for nid, n in nodes_of(f).items() if "nodes" in f else ():
            got = summed.setdefault(nid, {"local": 0, "remote": 0})
            got["local"] += n["on_sets"]["core"]["local"]
            got["remote"] += n["on_sets"]["core"]["remote"]
    for nid, fig in sorted(summed.items()):
        if nid == amaster:
            tap.diag(f"arm64 percpu: node {nid} holds the master, "
                     f"{fig['local']} of {fig['local'] + fig['remote']} "
                     "local with or without replication: not judged")
            continue
        good, resolved, lp = ktvm.own_set_local(fig)
        tap.ok(good, f"arm64 percpu, plain workload, two frames: node {nid} "
               f"core text {ktvm.own_set_desc(resolved, lp)}")
    # the process view under percpu: a process runs on whichever CPU's
    # node set, so each row says percpu, names no set and is never one to
    # bind; the processes that ran on the replica node alone fetch its
    # own text
    rows = [p for f in ap for p in f.get("processes", [])]
    odd = [p for p in rows if p.get("tables") != "percpu" or
           p.get("set_node") != -1 or p.get("to_bind") is not False]
    tap.ok(rows and not odd,
           f"arm64 percpu --processes: all {len(rows)} rows say tables "
           "percpu, set_node -1, to_bind false",
           json.dumps(odd[:5] or ap, indent=1)[:2500])
    for nid in sorted({n for p in rows for n in p.get("nodes", [])}):
        if nid == amaster:
            continue
        fig = {"local": 0, "remote": 0}
        for p in rows:
            if p.get("nodes") == [nid]:
                fig["local"] += p["local"]
                fig["remote"] += p["remote"]
        good, resolved, lp = ktvm.own_set_local(fig)
        tap.ok(good, f"arm64 percpu --processes: the processes that ran on "
               f"node {nid} alone fetch {ktvm.own_set_desc(resolved, lp)}")

    check_fidelity("arm64", lines)
    fc = frames(lines, "fid_cycles")
    tap.ok(len(fc) == 3 and all(f.get("event") == "cycles" for f in fc) and
           fc[0]["lost"] <= 0.01 * (fc[0]["samples"] + fc[0]["lost"]),
           "arm64 --event cycles: the frequency-mode start-up burst lands in no "
           f"frame (first frame: {fc[0].get('lost') if fc else '-'} lost of "
           f"{fc[0].get('samples') if fc else '-'})",
           f"{[(f.get('frame'), f.get('samples'), f.get('lost'), f.get('achieved_hz')) for f in fc]}")

if ktvm.arch_selected("x86_64"):
    # The TUI in tmux, inside the guest
    files = {}
    for name in ("x/xterm", "s/screen", "t/tmux"):
        for base in ("/lib/terminfo", "/usr/share/terminfo"):
            if os.path.exists(os.path.join(base, name)):
                files[os.path.join("/lib/terminfo", name)] = \
                    os.path.join(base, name)
    # tmux insists on a UTF-8 locale
    for path in glob.glob("/usr/lib/locale/C.utf8/**", recursive=True):
        if os.path.isfile(path):
            files[path] = path
    tmux = shutil.which("tmux")
    if not tmux:
        tap.ok(False, "tmux is installed (make deps)")
    else:
        lines = ktvm.run_guest(tap, "x86_64", "2x2",
                               os.path.join(HERE, "guest", "top-tui.sh"),
                               tools=TOOLS + [tmux], files=files,
                               name="[top-tui x86_64 2x2]", timeout=300)

        def screen(tag):
            return "\n".join(ktvm.records(lines, tag))

        s = screen("nodes")
        rows = re.findall(r"^\s+(\d+)\s+(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)",
                          s, re.M)
        # LOCAL% (r[3]) is a node's whole figure, kernel threads on the
        # master's tables included: batch mode above only shows that and
        # judges what ran on a node's own set (ktvm.own_set_local). Here,
        # with tmux redrawing in the same guest, the screen only has to
        # show both nodes with samples, more than half of them local, which
        # a node fetching the master's text (<= 5% without ktrepl) is not
        tap.ok("ktrepl-top" in s and re.search(r"NODE\s+CPUS\s+SAMPLES", s) and
               len(rows) == 2 and all(int(r[2]) > 0 and float(r[3]) > 50
                                      for r in rows),
               "the node view shows both nodes with samples, mostly local", s)
        tap.ok("replication=workload" in s, "the header names the replication mode")
        s = screen("help")
        tap.ok("this help" in s and "sort by column" in s and "quit" in s,
               "'h' shows the help screen", s)
        s = screen("cpus")
        tap.ok(re.search(r"CPU\s+NODE\s+SAMPLES", s) and
               len(re.findall(r"^\s+\d+\s+\d+\s+\d+", s, re.M)) == 4,
               "any key closes help; 'c' shows the 4 CPUs", s)
        s = screen("scrolled")
        first = re.findall(r"^\s+(\d+)\s+\d+\s+\d+", s, re.M)
        tap.ok(re.search(r"CPU\s+NODE", s) and first[:1] == ["1"] and
               len(first) == 3, "Down scrolls the CPU view by one row", s)
        s = screen("funcs")
        tap.ok("FUNCTION" in s, "'f' shows the hot remote functions", s)
        s = screen("procs")
        # the workload's workers run on their nodes' sets: rows whose
        # TABLES is node, with the set's node beside it
        workers = re.findall(r"^\s+\d+\s+\S+\s+[\d,]+\s+node\s+\d+\s+\d+",
                             s, re.M)
        tap.ok("view: processes" in s and
               re.search(r"PID\s+COMM\s+NODES\s+TABLES\s+SET", s) and
               workers,
               "'p' shows the process view, the workers on their nodes' "
               "sets", s)
        s = screen("sorted")
        tap.ok("view: nodes" in s and "sort: local%" in s,
               "'n' then '4' sorts the node view by local%", s)
        s = screen("delay")
        tap.ok("delay 2.0s" in s, "'d' then 2 sets the refresh delay to 2 s", s)
        s = screen("small")
        tap.ok("too small" in s, "a 40x6 terminal gets a notice, no crash", s)
        s = screen("resized")
        tap.ok(re.search(r"NODE\s+CPUS", s), "growing it back redraws the table",
               s)
        s = screen("after")
        tap.ok("TOP-EXIT=0" in s, "'q' exits with status 0", s)
        tap.ok(re.search(r"^icanon$", s, re.M) and re.search(r"^echo$", s, re.M)
               and "NODE" not in s,
               "the terminal is restored: canonical mode, echo, screen gone", s)
tap.done()
