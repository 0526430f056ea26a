#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ktrepl-bench text in real NUMA guests (x86_64 and arm64, 2x2): the
harness, not the numbers. Every node measured, the JSON as documented,
the machine marked emulated, the bench module really replicated onto
every node while on (ktrepl-dump walk), a forced slowdown on one node
found significant there alone, an A/A control without a difference, and
the refusals (exit 2, the reason named)."""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import ktvm  # noqa: E402

HERE = os.path.dirname(__file__)
tap = ktvm.Tap()
NODE_KEYS = {"node": int, "before_ns": (int, float), "after_ns": (int, float),
             "diff_pct": (int, float), "ci_pct": (int, float, type(None)),
             "significant": bool}


def bench_ko(arch):
    """The test build's bench module (make kernel-test: a small body)."""
    return os.path.join(os.path.dirname(ktvm.ktrepl_ko(arch, test=True)),
                        "ktrepl_bench_text.ko")


def bench_tool(arch):
    sub = "tools" if arch == "x86_64" else "tools-arm64"
    return os.path.join(ktvm.BUILD, sub, "ktrepl-bench", "ktrepl-bench")


def one_json(lines, tag):
    recs = ktvm.records(lines, tag)
    try:
        return json.loads("\n".join(recs))
    except ValueError:
        tap.diag(f"{tag}: not JSON: {' '.join(recs)[:300]}")
        return {}


def schema_errors(doc):
    errs = []
    if doc.get("version") != 1:
        errs.append(f"version {doc.get('version')!r}")
    m = doc.get("machine", {})
    for k in ("cpu_model", "kernel", "nodes", "emulated"):
        if k not in m:
            errs.append(f"machine.{k} missing")
    for n in m.get("nodes", []):
        if not isinstance(n.get("distance"), list) or \
                len(n["distance"]) != len(m["nodes"]):
            errs.append(f"machine node {n.get('node')}: distance row")
    b = doc.get("benchmarks")
    if not isinstance(b, list) or len(b) != 1:
        return errs + [f"benchmarks: {b!r}"[:100]]
    for k in ("name", "nodes", "verdict"):
        if k not in b[0]:
            errs.append(f"benchmarks[0].{k} missing")
    for n in b[0].get("nodes", []):
        for k, t in NODE_KEYS.items():
            if k not in n or not isinstance(n[k], t) or \
                    (t is int and isinstance(n[k], bool)):
                errs.append(f"node {n.get('node')}: {k}={n.get(k)!r}")
    return errs


def nodes_of(doc):
    b = (doc.get("benchmarks") or [{}])[0]
    return {n["node"]: n for n in b.get("nodes", [])}


def check_arch(arch, topo):
    ncpu_nodes = len(ktvm.parse_topology(topo))
    files = {"/lib/modules/ktrepl_bench_text.ko": bench_ko(arch)}
    tools = [bench_tool(arch)] + ([ktvm.tool("ktrepl-dump")]
                                  if arch == "x86_64" else
                                  [p for p in ktvm.arm64_tools()
                                   if p.endswith("ktrepl-dump")])
    lines = ktvm.run_guest(tap, arch, topo,
                           os.path.join(HERE, "guest", "bench-text.sh"),
                           tools=tools, files=files,
                           name=f"[bench {arch} {topo}]", timeout=420)
    ms = {k: int(m.group(1)) for k in ("TEXT", "SLOW", "SAME")
          for m in [next((re.match(rf"{k}-MS (\d+)", x) for x in lines
                          if x.startswith(f"{k}-MS")), None)] if m}
    tap.diag(f"{arch}: guest time per run (ms): {ms}")
    slow = next((int(x.split()[1]) for x in lines
                 if x.startswith("SLOW-NODE")), None)

    text = one_json(lines, "text")
    errs = schema_errors(text)
    tap.ok(not errs, f"{arch}: text -j validates (version, machine, "
           "benchmarks[].nodes[] with the documented fields)", "; ".join(errs))
    tn = nodes_of(text)
    tap.ok(len(tn) == ncpu_nodes and all(
        n["before_ns"] > 0 and n["after_ns"] > 0 and n["samples"] >= 6
        for n in tn.values()),
        f"{arch}: every node ({sorted(tn)}) measured off and on, >= 6 runs "
        "each", f"{tn}")
    for nid, n in sorted(tn.items()):
        tap.diag(f"{arch} text node {nid}: before {n['before_ns'] / 1e6:.2f} "
                 f"ms after {n['after_ns'] / 1e6:.2f} ms diff "
                 f"{n['diff_pct']:+.1f}% +-{n['ci_pct'] or 0:.1f}% "
                 f"significant={n['significant']} runs={n['samples']}")
    b = (text.get("benchmarks") or [{}])[0]
    tap.diag(f"{arch} text: {b.get('iterations')} passes of "
             f"{b.get('text_bytes')} bytes per run, {b.get('runs')} runs per "
             f"arm, {b.get('seconds', 0):.0f} s, time_limited="
             f"{b.get('time_limited')}")
    want_act = "mm" if arch == "x86_64" else "percpu"
    tap.ok(b.get("activation") == want_act and b.get("control") is False,
           f"{arch}: the on-arm ran with ktrepl.ko's default activation "
           f"({b.get('activation')}, want {want_act})")
    m = text.get("machine", {})
    tap.ok(m.get("emulated") is True and b.get("emulated") is True and
           "mean nothing" in b.get("verdict", ""),
           f"{arch}: marked emulated ({m.get('hypervisor')}), and the verdict "
           f"says so: {b.get('verdict')!r}")
    tap.ok(len(m.get("nodes", [])) == ncpu_nodes and all(
        n["distance"][i] == 10 for i, n in enumerate(m.get("nodes", []))),
        f"{arch}: the machine's nodes with their distances "
        f"{[n.get('distance') for n in m.get('nodes', [])]}")

    sd = one_json(lines, "slow")
    sn = nodes_of(sd)
    tap.ok(not schema_errors(sd) and slow in sn and sn[slow]["significant"]
           and sn[slow]["diff_pct"] > 0,
           f"{arch}: a 100 ms delay on node {slow}'s second-arm runs is "
           f"significant there: {sn.get(slow, {}).get('diff_pct', 0):+.1f}% "
           f"+-{sn.get(slow, {}).get('ci_pct') or 0:.1f}%", f"{sn}")
    others = {k: v for k, v in sn.items() if k != slow}
    tap.ok(others and not any(n["significant"] for n in others.values()),
           f"{arch}: and on no other node "
           f"({ {k: round(v['diff_pct'], 1) for k, v in others.items()} })",
           f"{others}")
    same = one_json(lines, "same")
    an = nodes_of(same)
    tap.ok(len(an) == ncpu_nodes and not any(
        n["significant"] for n in an.values()) and
        "no significant difference" in
        (same.get("benchmarks") or [{}])[0].get("verdict", ""),
        f"{arch}: two identical arms (control): no significant difference "
        f"({ {k: round(v['diff_pct'], 1) for k, v in an.items()} })",
        f"{an}")
    md = "\n".join(ktvm.records(lines, "md"))
    tap.ok(re.search(r"^\| before \(ms\) \|", md, re.M) and
           re.search(r"^\| difference \|", md, re.M) and "**Verdict:**" in md,
           f"{arch}: --markdown gives the table (before, after, difference) "
           "and the verdict", md[:600])

    summ = ktvm.records(lines, "summary")
    rec = next((ktvm.kv(r) for r in summ
                if r.startswith("module=ktrepl_bench_text ")), None)
    tap.ok(rec is not None and rec.get("orig_node") == "0",
           f"{arch}: ktrepl.ko lists ktrepl_bench_text, its pages on node 0 "
           f"({rec})", "\n".join(summ))
    for nid in range(ncpu_nodes):
        w = one_json(lines, f"walk{nid}")
        maps = [x for x in w.get("mappings", w.get("walk", []))
                if isinstance(x, dict)] if isinstance(w, dict) else []
        pn = sorted({x.get("pa_node") for x in maps})
        tap.ok(maps and pn == [nid],
               f"{arch}: node {nid}'s tables map ktrepl_bench_text's text "
               f"from node {nid}'s memory ({len(maps)} leaves, pa nodes {pn})",
               json.dumps(w)[:600])


def host_refusals():
    """On the host, which has no NUMA guest's kernel: the refusals that
    need no module."""
    tool = bench_tool("x86_64")
    r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534",
                        "--clear-groups", tool, "text"],
                       capture_output=True, text=True)
    tap.ok(r.returncode == 2 and "needs root" in r.stderr,
           f"not root: exit {r.returncode}, {r.stderr.strip()!r}")
    r = subprocess.run([tool, "-j", "costs"], capture_output=True, text=True)
    tap.ok(r.returncode == 2 and "not implemented yet" in
           json.loads(r.stdout or "{}").get("error", ""),
           f"costs: refused as not implemented yet under -j ({r.stdout.strip()})")
    if os.geteuid() == 0 and not os.path.ismount("/sys/kernel/debug"):
        r = subprocess.run([tool, "text"], capture_output=True, text=True)
        tap.ok(r.returncode == 2 and "debugfs is not mounted" in r.stderr,
               f"no debugfs: exit {r.returncode}, {r.stderr.strip()!r}")
    else:
        tap.skip("no debugfs: refused", "the host has debugfs mounted "
                 "(or we are not root)")
    r = subprocess.run([tool, "--help"], capture_output=True, text=True)
    tap.ok(r.returncode == 0 and "syscalls" in r.stdout and
           r.stdout.count("not implemented yet") == 2,
           "--help lists syscalls and costs as not implemented yet")


host_refusals()
check_arch("x86_64", "2x2")
check_arch("arm64", "2x2")
tap.done()
