#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Seed corpora from real guest output:
make-seeds.py VMCORE DEBUGFS_DIR MODULE.ko VMLINUX

From an ELF vmcore a guest test wrote (QEMU's dump-guest-memory): the
descriptor pages and each node's table pages on the way to the start of
text and rodata, as sparse images (sparse.h) for the descriptor and
page-table targets; its first 64 KiB (headers and QEMU's CPU notes); the
first 64 KiB of makedumpfile's flattened rewrite of it. From a copy of a
guest's debugfs directory, the debugfs target's input; a Debian module
(ELF) and the head of the -dbg vmlinux's symbols in System.map form for
the ELF and map readers. Run by hand when the formats change."""
import json
import os
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DUMP = os.path.join(HERE, "../../build/tools/ktrepl-dump/ktrepl-dump")
MAGIC = b"KTREPL-VMCORE-D\0"


def loads(path):
    """(paddr, offset, filesz) of each PT_LOAD of an ELF64 file."""
    with open(path, "rb") as f:
        hdr = f.read(64)
        phoff, = struct.unpack_from("<Q", hdr, 32)
        phentsize, phnum = struct.unpack_from("<HH", hdr, 54)
        f.seek(phoff)
        out = []
        for _ in range(phnum):
            ph = f.read(phentsize)
            ptype, _, off, _, paddr, filesz = struct.unpack_from("<IIQQQQ", ph)
            if ptype == 1:
                out.append((paddr, off, filesz))
    return out


def read_pa(f, segs, pa, n=4096):
    for paddr, off, size in segs:
        if paddr <= pa < paddr + size:
            f.seek(off + pa - paddr)
            return f.read(n).ljust(n, b"\0")
    return None


def find_descriptor(f, segs):
    for paddr, off, size in segs:
        for page in range(0, size, 4096):
            f.seek(off + page)
            if f.read(16) == MAGIC:
                return paddr + page
    return None


def sparse(f, segs, pas):
    out = b""
    for pa in sorted(set(pas)):
        page = read_pa(f, segs, pa)
        if page is not None:
            out += struct.pack("<Q", pa) + page
    return out


def dump_json(core, *args):
    return json.loads(subprocess.run([DUMP, "--vmcore", core, "-j", *args],
                                     capture_output=True, text=True,
                                     check=True).stdout)


def main():
    core, debugfs, module, vmlinux = sys.argv[1:5]
    segs = loads(core)
    summary = dump_json(core, "summary")
    tables = set()
    for region in summary["regions"]:
        walk = dump_json(core, "walk", "--va", region["start"])
        for m in walk["mappings"]:
            tables.update(int(e["table_pa"], 16) for e in m["entries"])
    with open(core, "rb") as f:
        desc = find_descriptor(f, segs)
        size, = struct.unpack("<I", read_pa(f, segs, desc, 24)[20:24])
        pages = [desc + p for p in range(0, size + 4095, 4096)]
        for name, data in (("descriptor", sparse(f, segs, pages + list(tables))),):
            write(name, "real-x86_64", data)
        for node in summary["nodes"]:
            root = int(node["root_pa"], 16)
            va = int(summary["regions"][0]["start"], 16)
            header = struct.pack("<BBBBIQQQ", 0, 2, 0, 48 - 36, 0, root, va,
                                 64 << 20)
            write("pgtable", f"real-x86_64-node{node['node']}",
                  header + sparse(f, segs, tables))
    text = b""
    for name in ("abi", "summary", "replicas", "pgds", "tasks", "patches"):
        path = os.path.join(debugfs, name)
        if os.path.exists(path):
            with open(path, "rb") as src:
                text += f"==> {name} <==\n".encode() + src.read()
    write("debugfs", "real-x86_64-2x2", text)
    with open(core, "rb") as f:
        write("qemu_cpu", "real-x86_64-head", f.read(65536))
        # the dump's head in makedumpfile's flattened framing: a header
        # page, (offset, size) records big-endian, an end record
        f.seek(0)
        head = f.read(65536)
    flat = (b"makedumpfile".ljust(16, b"\0") + struct.pack(">QQ", 1, 1)
            ).ljust(4096, b"\0")
    flat += struct.pack(">qq", 0, 32768) + head[:32768]
    flat += struct.pack(">qq", -1, -1)
    write("flattened", "real-x86_64-head", flat)
    with open(module, "rb") as f:
        write("elf", os.path.basename(module), f.read())
    nm = subprocess.run(["nm", "-n", vmlinux], capture_output=True,
                        check=True).stdout
    write("elf", "System.map-head", b"".join(nm.splitlines(True)[:300]))


def write(target, name, data):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)
    print(f"{target}/{name}: {len(data)} bytes")


if __name__ == "__main__":
    main()
