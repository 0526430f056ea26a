# SPDX-License-Identifier: GPL-2.0
"""The peer: the same replica-vs-master compare as ktrepl-dump verify's
byte check, written with drgn over a vmcore (python3-drgn)."""
import json
import sys

import drgn

core, extents_json = sys.argv[1], sys.argv[2]
prog = drgn.Program()
prog.set_core_dump(core)
ext = json.load(open(extents_json))
master = {e["va"]: e for e in ext if e["master"]}
ranges = 0
compared = 0
for e in ext:
    if e["master"]:
        continue
    va = e["va"]
    while va < e["va"] + e["size"]:
        m = next(m for m in master.values()
                 if m["va"] <= va < m["va"] + m["size"])
        n = min(e["va"] + e["size"], m["va"] + m["size"], va + (1 << 20)) - va
        a = prog.read(m["pa"] + va - m["va"], n, True)
        b = prog.read(e["pa"] + va - e["va"], n, True)
        if a != b:
            ranges += sum(1 for i in range(n) if a[i] != b[i] and
                          (i == 0 or a[i - 1] == b[i - 1]))
        compared += n
        va += n
print(json.dumps({"compared": compared, "ranges": ranges}))
