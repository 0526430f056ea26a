# SPDX-License-Identifier: GPL-2.0
"""What a load (bench=1) is judged against: the baseline the kernel makes
it pay anyway, timed by the module in the same load. With init_on_alloc=1
the allocator zeroes every replica page before the copy overwrites it, so
the baseline is memset + memcpy and the goal 1.5x; with init_on_alloc=0
it is the memcpy alone, and the goal 2x."""


def zeroing(autoinit_lines):
    """init_on_alloc from the kernel's 'mem auto-init: ... heap alloc:on'
    (None: the kernel did not say)"""
    said = [x for x in autoinit_lines if "heap alloc:" in x]
    if not said:
        return None
    return "heap alloc:on" in said[-1]


def baseline(zero):
    """(what the load is judged against, the goal)"""
    return ("memset + memcpy", 1.5) if zero else ("memcpy", 2)


def ratio(summary, zero):
    """replicate_ns over the baseline of one load's summary line (its
    key=value fields), or None when the module gave no baseline (bench=1
    missing, or a module too old for memset_ns under init_on_alloc=1)"""
    cp = int(summary.get("memcpy_ns", 0))
    zs = int(summary.get("memset_ns", 0))
    rep = int(summary.get("replicate_ns", 0))
    if not cp or not rep or (zero and not zs):
        return None
    return rep / (cp + (zs if zero else 0))
