#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What t03-module.py and t03-module-arm64.py check of module
replication, in one guest of each arch."""
import os

import ktvm

HERE = os.path.dirname(__file__)


def module_replication(tap, arch, dump_tool, topo="2x2"):
    """module-mods.sh in a guest of ARCH: a module loaded before
    ktrepl.ko and ones after, file I/O on them, module patches, a
    flipped module byte, 20 reloads; and ktrepl-top's view of each
    node's module fetches, with modules on and off."""
    name = f"[{arch} {topo} modules]"
    tools = ([dump_tool, ktvm.tool("ktrepl-top")] if arch == "x86_64"
             else ktvm.arm64_tools())
    lines = ktvm.run_guest(tap, arch, topo,
                           os.path.join(HERE, "guest", "module-mods.sh"),
                           tools=tools, name=name, files=ktvm.fs_modules(arch),
                           timeout=300 if arch == "x86_64" else 900)
    for m in ktvm.records(lines, "mirror"):
        tap.diag(f"{name} {m}")
    # module text as ktrepl-top sees it, each node's CPUs doing file I/O
    # on the vfat ramdisk: every node on its copies, the master node too
    # (fat and vfat were loaded from a replica node's CPUs, so their own
    # pages lie there and the master node runs copies)
    roles = {int(ktvm.kv(r)["node"]): ktvm.kv(r)["role"]
             for r in ktvm.records(lines, "roles")}
    mods = {ktvm.kv(r)["module"]: ktvm.kv(r)
            for r in ktvm.records(lines, "modules")}
    frames = ktvm.json_records(tap, lines, "top")
    tap.ok(len(frames) == 2, f"{name} ktrepl-top gave 2 frames under I/O")
    for f in frames:
        for n in f["nodes"]:
            # what ran on a node's set: activation mm leaves unbound
            # kernel threads (writeback, kworkers) on the master's
            tap.diag(f"{name} frame {f['frame']} node {n['node']}: module "
                     f"text {n['module']['local_pct']}% local overall")
            role = roles.get(n["node"])
            # the master node's set is the master's tables
            mod = n["module"] if role == "master" else n["on_sets"]["module"]
            fetched = mod["local"] + mod["remote"]
            if role not in ("replica", "master") or fetched < 50:
                tap.diag(f"{name} frame {f['frame']} node {n['node']} "
                         f"({role}): {fetched} module fetches, not judged")
                continue
            floor = 95
            tap.ok(mod["local_pct"] is not None and
                   mod["local_pct"] >= floor,
                   f"{name} frame {f['frame']}: {role} node {n['node']} "
                   f"fetches {mod['local_pct']}% of module text locally on "
                   f"its set ({fetched} fetches, floor {floor}%)",
                   f"{f.get('hot_remote_functions', [])[:8]} {mods}")
    # modules=0: a replica node's module fetches go to the master's pages
    off = ktvm.json_records(tap, lines, "top_off")
    judged = [(f["frame"], n["node"], n["on_sets"]["module"]) for f in off
              for n in f["nodes"] if roles.get(n["node"]) == "replica" and
              n["on_sets"]["module"]["local"] +
              n["on_sets"]["module"]["remote"] >= 50]
    tap.ok(len(off) == 2 and judged and
           all(m["local_pct"] is not None and m["local_pct"] <= 20
               for _, _, m in judged),
           f"{name} modules=0: replica nodes fetch module text remotely",
           f"{[(fr, nd, m['local_pct']) for fr, nd, m in judged]}")
