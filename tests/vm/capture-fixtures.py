#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Regenerate tests/unit/fixtures/ from one real x86_64 2x2 guest: its
debugfs files and its vmcore descriptor, read at the same moment. Not a
test; run it by hand after an ABI change and review the diff.
--out DIR writes there instead (to look without touching the fixtures).
--mods captures, into x86_64-2x2-mods/, what that load cannot hold:
module extents (replicas) and patch records (patches), from a load with
the bench module and two flips of its static key (test_records.c)."""
import argparse
import os
import re
import struct
import sys

sys.path.insert(0, os.path.dirname(__file__))
import ktvm  # noqa: E402

HERE = os.path.dirname(__file__)
OUT = os.path.join(ktvm.ROOT, "tests", "unit", "fixtures", "x86_64-2x2")


def descriptor_pa(core):
    """KTREPL_DESCRIPTOR= from the dump's VMCOREINFO note."""
    with open(core, "rb") as f:
        for p_type, p_offset, _, p_filesz in ktvm.elf_segments(core):
            if p_type != 4:
                continue
            f.seek(p_offset)
            found = re.findall(rb"KTREPL_DESCRIPTOR=([0-9a-f]+)",
                               f.read(p_filesz))
            if found:
                return int(found[-1], 16)
    return None


def write_files(lines, out):
    files = {}
    for line in lines:
        if line.startswith("@@file:"):
            tag, _, text = line.partition("@@ ")
            name = tag[len("@@file:"):].replace("pgtables-", "pgtables/")
            files.setdefault(name, []).append(text)
    for name, text in files.items():
        path = os.path.join(out, "debugfs", name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write("".join(t + "\n" for t in text))
    return files


def capture_mods(out):
    bench_ko = os.path.join(os.path.dirname(ktvm.ktrepl_ko("x86_64",
                                                           test=True)),
                            "ktrepl_bench_text.ko")
    initrd = os.path.join(ktvm.BUILD, f"capture-mods-{os.getpid()}.gz")
    ktvm.build_initramfs("x86_64",
                         os.path.join(HERE, "guest", "capture-mods.sh"),
                         initrd,
                         files={"/lib/modules/ktrepl_bench_text.ko":
                                bench_ko})
    try:
        with ktvm.Guest("x86_64", "2x2", initrd, timeout=300) as g:
            rc, lines = g.run_to_end()
    finally:
        os.unlink(initrd)
    if rc or any(x.startswith("not ok") for x in lines):
        sys.exit("capture failed:\n" + "\n".join(lines[-30:]))
    files = write_files(lines, out)
    print(f"wrote {len(files)} debugfs files to {out}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None,
                    help=f"where to write (default {OUT}, or {OUT}-mods)")
    ap.add_argument("--mods", action="store_true",
                    help="module extents and patch records only")
    args = ap.parse_args()
    if args.mods:
        capture_mods(args.out or OUT + "-mods")
        return
    out = args.out or OUT
    core = os.path.join(ktvm.BUILD, "capture.vmcore")
    lines, error = ktvm.dump_guest(
        os.path.join(HERE, "guest", "capture-fixtures.sh"), [(core, "elf")],
        tools=[ktvm.tool("ktrepl-dump")])
    if error or any(x.startswith("not ok") for x in lines):
        sys.exit(f"capture failed: {error or 'see the guest'}")
    passed = [x for x in lines if x.startswith("ok ")]
    print(f"the guest's {len(passed)} checks passed, its load's log among them")
    pa = descriptor_pa(core)
    with open(core, "rb") as f:
        f.seek(ktvm.elf_phys_offset(core, pa))
        raw = f.read(1 << 20)
    os.unlink(core)
    size = struct.unpack_from("<I", raw, 20)[0]
    files = write_files(lines, out)
    with open(os.path.join(out, "descriptor.bin"), "wb") as f:
        f.write(raw[:size])
    with open(os.path.join(out, "descriptor.pa"), "w") as f:
        f.write(f"0x{pa:x}\n")
    print(f"wrote {len(files)} debugfs files and a {size}-byte descriptor "
          f"at 0x{pa:x} to {out}")


if __name__ == "__main__":
    main()
