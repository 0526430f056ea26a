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


# A load's memcpy ran this close to the boot's fastest: see quiet()
QUIET = 1.25


def quiet(summaries):
    """The loads whose memcpy ran at the boot's own speed: within QUIET of
    the fastest. Under TCG the memcpy of one load runs 1x to 5x its
    fastest, the same in each of the load's five rounds, while the memset
    and the load's other steps do not move: the slow memcpy makes that
    load's ratio look better, never worse. These loads give the harsher
    figure."""
    cps = [int(x.get("memcpy_ns", 0)) for x in summaries]
    fastest = min((c for c in cps if c), default=0)
    return [x for x, c in zip(summaries, cps)
            if c and c <= QUIET * fastest]
