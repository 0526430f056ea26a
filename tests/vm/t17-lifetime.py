#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""No page ktrepl.ko freed is reachable after unload (issue 39).

One x86_64 2x2 guest, booted nopti so that kernel mappings are global,
activation=mm: guest/module-lifetime.sh loads the test build's
ktrepl_bench_text.ko from a CPU of the node that does not hold the
image, runs its code from every CPU, goes through a fail-safe that
resumes and one that gives up, unloads ktrepl.ko, refills the freed
memory and runs the module's code on every CPU again; the guest asserts
the test build's order of events (leaf moved, every PCID flushed on
every CPU, page freed).

The host dumps the guest through QMP at three points and walks the
master's tables in each, by hand (independent of the tools under test):
before ktrepl.ko, every leaf over the module is global and maps a page
of the loader's node; while ktrepl.ko has given up, none is global and
each maps a page of the master's node (its master copy); after unload,
each leaf is again what it was before: the same page, global.

KTREPL_LIFETIME_KEEP=<dir> keeps the dumps."""
import os
import re
import shutil
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import ktvm  # noqa: E402

HERE = os.path.dirname(__file__)
tap = ktvm.Tap()
MEM_PER_NODE = 512 << 20
PAGE = 4096
PRESENT, PSE, GLOBAL = 1 << 0, 1 << 7, 1 << 8
ADDR = 0x000ffffffffff000


class PhysMem:
    """Physical reads of a QEMU ELF dump (paging off: PT_LOADs by PA)."""

    def __init__(self, path):
        self.f = open(path, "rb")
        self.loads = [s for s in ktvm.elf_segments(path) if s[0] == 1]

    def u64(self, pa):
        for _t, off, paddr, size in self.loads:
            if paddr <= pa < paddr + size:
                self.f.seek(off + pa - paddr)
                return struct.unpack("<Q", self.f.read(8))[0]
        raise ValueError(f"pa {pa:#x} is in no PT_LOAD")


def leaf(mem, root, levels, va):
    """(entry, level) of the leaf over va, or (0, level) where none."""
    shifts = (48, 39, 30, 21, 12)[5 - levels:]
    table = root
    for lvl, shift in enumerate(shifts):
        e = mem.u64(table + ((va >> shift) & 511) * 8)
        if not e & PRESENT:
            return 0, lvl
        if lvl == levels - 1 or (lvl > 0 and e & PSE):
            return e, lvl
        table = e & ADDR
    raise AssertionError("unreachable")


def module_pages(rec):
    """Every page VA of the module's text and rodata (summary record)."""
    kv = ktvm.kv(rec)
    ranges = [(int(kv["start"], 16), int(kv["end"], 16))]
    if int(kv.get("rodata_end", "0"), 16):
        ranges.append((int(kv["rodata_start"], 16),
                       int(kv["rodata_end"], 16)))
    return [va for a, b in ranges for va in range(a, b, PAGE)]


def node_of(pa):
    return pa // MEM_PER_NODE


def main():
    bench_ko = os.path.join(os.path.dirname(ktvm.ktrepl_ko("x86_64",
                                                            test=True)),
                            "ktrepl_bench_text.ko")
    keep = os.environ.get("KTREPL_LIFETIME_KEEP")
    tmp = keep or tempfile.mkdtemp(prefix="ktrepl-lifetime-")
    os.makedirs(tmp, exist_ok=True)
    initrd = os.path.join(ktvm.BUILD, f"initrd-lifetime-{os.getpid()}.gz")
    ktvm.build_initramfs("x86_64",
                         os.path.join(HERE, "guest", "module-lifetime.sh"),
                         initrd, files={
                             "/lib/modules/ktrepl_bench_text.ko": bench_ko})
    name = "[x86_64 2x2 mm nopti lifetime]"
    dumps = {}
    lines = []
    try:
        with ktvm.Guest("x86_64", "2x2", initrd, cmdline="nopti log_buf_len=4M",
                        timeout=400, mem_per_node=MEM_PER_NODE >> 20) as g:
            try:
                at = 0
                for point in ("before", "given_up", "after"):
                    at, _ = g.wait_for(rf"^KTREPL-DUMP {point}$", at)
                    at += 1
                    path = os.path.join(tmp, f"{point}.elf")
                    g.dump(path)
                    g.qmp(("cont", {}))
                    g.send("go\n")
                    dumps[point] = path
                rc, lines = g.run_to_end()
                folded = tap.fold_guest(name, lines)
                tap.ok(rc == 0 and folded > 0,
                       f"{name} guest script passed ({folded} guest checks)",
                       "\n".join(lines[-30:]))
            except (TimeoutError, RuntimeError) as e:
                tap.ok(False, f"{name} guest script finished",
                       "\n".join([str(e)] + g.lines[-40:]))
                lines = list(g.lines)
        walk(name, lines, dumps)
    finally:
        os.unlink(initrd)
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)
    tap.done()


def walk(name, lines, dumps):
    rec = next(iter(ktvm.records(lines, "module")), None)
    root = next(iter(ktvm.records(lines, "master_root")), None)
    levels = next(iter(ktvm.records(lines, "paging")), None)
    m = next((re.search(r"image at \d+ on node (\d+); the module goes on "
                        r"node (\d+)", x) for x in lines
              if "image at" in x), None)
    if not (rec and root and levels and m and len(dumps) == 3):
        tap.ok(False, f"{name} the guest gave the module's record, the "
               "master root, the paging levels, the nodes and three dumps",
               f"record {rec}, root {root}, levels {levels}, "
               f"dumps {sorted(dumps)}")
        return
    master, loader = int(m.group(1)), int(m.group(2))
    root, levels = int(root, 16), int(levels)
    pages = module_pages(rec)
    leaves = {}
    for point, path in dumps.items():
        mem = PhysMem(path)
        leaves[point] = [leaf(mem, root, levels, va) for va in pages]
    tap.diag(f"{name} {len(pages)} pages of ktrepl_bench_text, master "
             f"node {master}, loader's node {loader}")

    def bad(point, want):
        return [(hex(va), hex(e), lvl)
                for va, (e, lvl) in zip(pages, leaves[point])
                if not want(e, lvl)][:8]

    last = levels - 1
    b = bad("before", lambda e, lvl: e & PRESENT and lvl == last and
            e & GLOBAL and node_of(e & ADDR) == loader)
    tap.ok(not b, f"{name} before ktrepl.ko: every leaf over the module is "
           f"a global 4 KiB leaf on node {loader}'s memory", f"{b}")
    b = bad("given_up", lambda e, lvl: e & PRESENT and lvl == last and
            not e & GLOBAL and node_of(e & ADDR) == master)
    tap.ok(not b, f"{name} given up: every leaf is non-global and maps the "
           f"master node's ({master}) copy: the hazard the unload must "
           "undo", f"{b}")
    diff = [(hex(va), hex(a[0]), hex(z[0]))
            for va, a, z in zip(pages, leaves["before"], leaves["after"])
            if a != z][:8]
    tap.ok(not diff, f"{name} after unload: every leaf is what it was "
           "before ktrepl.ko, the loader's page, global", f"{diff}")


main()
