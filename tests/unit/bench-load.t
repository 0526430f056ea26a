#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The load benchmark's bookkeeping (bench/load_figures.py): under
init_on_alloc=1 a load is judged against memset + memcpy with a 1.5x
goal, under init_on_alloc=0 against the memcpy alone with 2x, and a load
without the baseline it needs gives no figure rather than a wrong one."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))
from ktrepl_tap import Tap  # noqa: E402
import load_figures as lf  # noqa: E402

tap = Tap()
tap.plan(9)
on = ["heap alloc:on"]
off = ["heap alloc:off"]
tap.ok(lf.zeroing(on) is True and lf.zeroing(off) is False and
       lf.zeroing([]) is None and lf.zeroing(["", "heap alloc:off"]) is
       False, "init_on_alloc read from the kernel's mem auto-init line, "
       "None when it said nothing",
       f"{lf.zeroing(on)} {lf.zeroing(off)} {lf.zeroing([])}")
tap.ok(lf.baseline(True) == ("memset + memcpy", 1.5) and
       lf.baseline(False) == ("memcpy", 2),
       "the baselines and their goals", f"{lf.baseline(True)} "
       f"{lf.baseline(False)}")
load = {"replicate_ns": "300", "memcpy_ns": "100", "memset_ns": "50"}
got = lf.ratio(load, True)
tap.ok(got == 2.0, "zeroing: 300 ns over 100 memcpy + 50 memset is 2.0x",
       f"got {got}")
got = lf.ratio(load, False)
tap.ok(got == 3.0, "no zeroing: the memset is not credited, 3.0x",
       f"got {got}")
got = lf.ratio({"replicate_ns": "300", "memcpy_ns": "100"}, True)
tap.ok(got is None, "zeroing but no memset_ns (an older module): no "
       "figure", f"got {got}")
got = lf.ratio({"replicate_ns": "300", "memcpy_ns": "0",
                "memset_ns": "50"}, True)
tap.ok(got is None, "no memcpy (bench=1 missing): no figure", f"got {got}")
got = lf.ratio({"replicate_ns": "300", "memcpy_ns": "100",
                "memset_ns": "0"}, False)
tap.ok(got == 3.0, "no zeroing needs no memset", f"got {got}")
loads = [{"memcpy_ns": str(c)} for c in (100, 124, 126, 400, 0)]
got = [int(x["memcpy_ns"]) for x in lf.quiet(loads)]
tap.ok(got == [100, 124], "quiet loads: memcpy within 1.25x of the "
       "fastest, a load without one left out", f"got {got}, want [100, 124]")
got = lf.quiet([{"memcpy_ns": "0"}])
tap.ok(got == [], "no load with a memcpy: none quiet", f"got {got}")
tap.done()
