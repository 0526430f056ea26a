#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guests boot with the NUMA topology asked for; the module loads."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
import ktvm  # noqa: E402

MEM_PER_NODE = 512

tap = ktvm.Tap()
script = os.path.join(os.path.dirname(__file__), "guest", "topology.sh")
for arch, topo in (("x86_64", "2x2"), ("x86_64", "4x1"), ("arm64", "2x2"),
                   ("x86_64", "2x2+memless"), ("arm64", "2x2+memless")):
    want = ktvm.parse_topology(topo)
    name = f"[{arch} {topo}]"
    lines = ktvm.run_guest(tap, arch, topo, script, name=name,
                           mem_per_node=MEM_PER_NODE)
    seen = {}
    for line in lines:
        m = re.match(r"TOPO node=(\d+) cpus=(\S*) memtotal_kb=(\d+)", line)
        if m:
            seen[int(m.group(1))] = (m.group(2), int(m.group(3)))
    tap.ok(len(seen) == len(want),
           f"{name} guest sees {len(want)} nodes (saw {len(seen)})")
    cpu = 0
    for nid, node in enumerate(want):
        cpus, kb = seen.get(nid, ("", 0))
        first, last = cpu, cpu + node["cpus"] - 1
        cpu += node["cpus"]
        want_cpus = str(first) if first == last else f"{first}-{last}"
        tap.ok(cpus == want_cpus,
               f"{name} node {nid} has CPUs {want_cpus} (saw '{cpus}')")
        if node["memory"]:
            # the kernel reserves some of each node's memory for itself
            ok = MEM_PER_NODE * 1024 * 0.8 <= kb <= MEM_PER_NODE * 1024
            tap.ok(ok, f"{name} node {nid} has ~{MEM_PER_NODE} MiB "
                   f"(MemTotal {kb} kB)")
        else:
            tap.ok(kb == 0, f"{name} node {nid} is memoryless "
                   f"(MemTotal {kb} kB)")
tap.done()
