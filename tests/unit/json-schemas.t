#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The tools' JSON against the schemas of tests/schemas/ (written from the
man pages), without a guest: every JSON output reachable offline, as -j
and as -p. ktrepl-dump reads synthetic raw images written here (the
two-node x86_64 kernel of fixture.h, with its descriptor: one healthy,
one with a violation of every kind a dump can show), the real guest's
descriptor of fixtures/x86_64-2x2 (summary, and the commands that stop part
way for want of its memory), a vmlinux of the image's text, and an ELF
vmcore that leaves pages out; ktrepl-top samples a fake kernel as
tui-signals.t does (skipped where perf is refused); ktrepl-bench, which
needs a NUMA machine, gives its errors only. Every error object, and
documents broken on purpose, are checked too."""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.join(HERE, "..", "..", "build", "tools")
DUMP = os.environ.get("KTREPL_DUMP",
                      os.path.join(BUILD, "ktrepl-dump", "ktrepl-dump"))
TOP = os.environ.get("KTREPL_TOP",
                     os.path.join(BUILD, "ktrepl-top", "ktrepl-top"))
BENCH = os.environ.get("KTREPL_BENCH",
                       os.path.join(BUILD, "ktrepl-bench", "ktrepl-bench"))
FIXTURE = os.path.join(HERE, "fixtures", "x86_64-2x2")
sys.path.insert(0, os.path.join(HERE, ".."))
from ktrepl_tap import SCHEMA_CHECK, Tap, perf_refused  # noqa: E402

tap = Tap(header=False)
ok = tap.ok

# fixture.h's kernel: node 0 owns [0, 4M), node 1 [4M, 8M)
IMG_SIZE = 8 << 20
NODE_MEM = 4 << 20
TEXT_VA = 0xffffffff81000000
TEXT_SIZE = 0x2000
RODATA_VA = TEXT_VA + TEXT_SIZE
RODATA_SIZE = 0x1000
DMAP = 0xffff888000000000
MOD_VA = 0xffffffffc0000000
P, RW, PSE, GLB, NX = 1, 2, 0x80, 0x100, 1 << 63
MASTER = dict(root=0x1000, pud=0x2000, pmd=0x3000, pte=0x4000,
              text=0x100000, rodata=0x102000)
REPLICA = dict(root=0x401000, pud=0x402000, pmd=0x403000, pte=0x404000,
               text=0x500000, rodata=0x502000)
DMAP_PUD, DMAP_PMD = 0x6000, 0x7000
MM_PGD = 0x9000             # a bound process's top-level table
DESC_PA = 0x300000
SYMBOLS = ("ffffffff81000000 T func_a\nffffffff81000100 T func_b\n"
           "ffffffff81002000 R some_table\n")
# x86_64, 4-level, init_top_pgt at PA 0x1000: what libkdumpfile needs
VMCOREINFO = (b"OSRELEASE=6.1.0\nPAGESIZE=4096\n"
              b"SYMBOL(init_top_pgt)=ffffffff80001000\n"
              b"NUMBER(phys_base)=0\nNUMBER(pgtable_l5_enabled)=0\n")
# what the broken image's verify must report (kt_violation_names[])
BROKEN_CHECKS = {"failsafe", "bytes", "locality", "exec-rodata", "root",
                 "not-covered", "cpu-root", "task-root", "mm-entry"}


def idx(va, shift):
    return (va >> shift) & 511


def fnv(h, data):
    for c in data:
        h = ((h ^ c) * 0x100000001b3) & (2**64 - 1)
    return h


def descriptor(activation, cpu_root, tasks, bound, failsafe, omitted):
    """ktrepl_desc.h's layout version 1, sealed (self_pa, fixed_sum)"""
    nodes = struct.pack("<iiIIQQQQ", 0, 0, 1, 1, MASTER["root"], 0, 0,
                        NODE_MEM) + \
        struct.pack("<iiIIQQQQ", 1, 1, 1, 2, REPLICA["root"], 12288,
                    NODE_MEM, IMG_SIZE)
    regions = struct.pack("<16sQQ", b"text", TEXT_VA, TEXT_VA + TEXT_SIZE) + \
        struct.pack("<16sQQ", b"rodata", RODATA_VA, RODATA_VA + RODATA_SIZE)
    ext = b"".join(struct.pack("<iIQQQIi", *e) for e in (
        (0, 0, TEXT_VA, MASTER["text"], TEXT_SIZE, 12, 0),
        (0, 1, RODATA_VA, MASTER["rodata"], RODATA_SIZE, 12, 0),
        (1, 0, TEXT_VA, REPLICA["text"], TEXT_SIZE, 12, 1),
        (1, 1, RODATA_VA, REPLICA["rodata"], RODATA_SIZE, 12, 1)))
    cpu_node = struct.pack("<4i", 0, 0, 1, 1)
    task_arr = b"".join(struct.pack("<iiQQQ", *t) for t in tasks)
    root_arr = struct.pack("<4Q", *cpu_root) if cpu_root else b""
    bound_arr = b"".join(struct.pack("<iiQQQ16s", *b) for b in bound)
    nodes_off = 248
    regions_off = nodes_off + len(nodes)
    extents_off = regions_off + len(regions)
    cpu_node_off = extents_off + len(ext)
    tasks_off = cpu_node_off + len(cpu_node)
    cpu_root_off = tasks_off + len(task_arr) if cpu_root else 0
    bound_off = tasks_off + len(task_arr) + len(root_arr)
    size = bound_off + len(bound_arr)
    hdr = bytearray(struct.pack(
        "<16sII16s16sIIIiIIIIIIQQQQQIIIIIIIIIIIIIIQI20sQQII",
        b"KTREPL-VMCORE-D\0", 1, size, b"x86_64", activation, 4, 48, 12, 0,
        1, 2, 2, 4, 4, len(tasks), MASTER["root"], DMAP, 3, 15, 0,
        nodes_off, regions_off, extents_off, cpu_node_off, tasks_off,
        cpu_root_off, len(bound), bound_off if bound else 0, 0, 0, 0, 0,
        omitted, 1 if omitted else 0, *failsafe, DESC_PA, 0, 0, 0))
    fixed = nodes + regions + ext + cpu_node
    h = 0xcbf29ce484222325
    for start, end in ((16, 40), (56, 72), (76, 112), (136, 184),
                       (224, 232), (240, 244)):
        h = fnv(h, hdr[start:end])
    struct.pack_into("<Q", hdr, 232, fnv(h, fixed))
    return bytes(hdr) + fixed + task_arr + root_arr + bound_arr


def image(path, broken=False):
    """fixture.h's healthy image and its descriptor; broken: one of each
    violation a dump can show (BROKEN_CHECKS). Returns the master text."""
    img = bytearray(IMG_SIZE)

    def put(pa, v):
        struct.pack_into("<Q", img, pa, v)

    put(DMAP_PUD, DMAP_PMD | P | RW)
    for k in range(IMG_SIZE >> 21):
        put(DMAP_PMD + 8 * k, (k << 21) | P | PSE | NX |
            (0 if k << 21 >= NODE_MEM else RW))
    for n in (MASTER, REPLICA):
        put(n["root"] + 8 * idx(TEXT_VA, 39), n["pud"] | P | RW)
        put(n["pud"] + 8 * idx(TEXT_VA, 30), n["pmd"] | P | RW)
        put(n["pmd"] + 8 * idx(TEXT_VA, 21), n["pte"] | P | RW)
        for k in range(0, TEXT_SIZE, 0x1000):
            put(n["pte"] + 8 * idx(TEXT_VA + k, 12),
                (n["text"] + k) | P | GLB)
        put(n["pte"] + 8 * idx(RODATA_VA, 12), n["rodata"] | P | NX)
        put(n["root"] + 8 * idx(DMAP, 39), DMAP_PUD | P | RW)
    t, r = MASTER["text"], MASTER["rodata"]
    img[t:t + TEXT_SIZE] = b"\x90" * TEXT_SIZE
    img[t + 0x40:t + 0x44] = bytes((0x66, 0x90, 0x66, 0x90))
    img[t + 0x60:t + 0x65] = bytes((0xe8, 0x11, 0x22, 0x33, 0x44))
    img[t + 0x100:t + 0x105] = bytes((0x0f, 0x1f, 0x44, 0x00, 0x00))
    img[t + 0x180] = 0x55
    img[r:r + RODATA_SIZE] = b"\xa5" * RODATA_SIZE
    rt, rr = REPLICA["text"], REPLICA["rodata"]
    img[rt:rt + TEXT_SIZE] = img[t:t + TEXT_SIZE]
    img[rr:rr + RODATA_SIZE] = img[r:r + RODATA_SIZE]
    desc = dict(activation=b"workload", cpu_root=None, tasks=[], bound=[],
                failsafe=(0, 0, b""), omitted=0)
    if broken:
        # a patch the replica missed, a kprobe's int3, a flipped byte
        img[rt + 0x100:rt + 0x105] = bytes((0xe8, 1, 2, 3, 4))
        img[rt + 0x180] = 0xcc
        img[rt + 0x1234] = 0x80
        # node 1: executable rodata, its second text page the master's,
        # a top-level entry outside the window that is not the master's
        put(REPLICA["pte"] + 8 * idx(RODATA_VA, 12), REPLICA["rodata"] | P)
        put(REPLICA["pte"] + 8 * idx(TEXT_VA + 0x1000, 12),
            (t + 0x1000) | P | GLB)
        put(REPLICA["root"] + 8 * 300, DMAP_PMD | P | RW)
        # copies of two modules the descriptor had no slot for
        for n, pmd, pte, pages in ((MASTER, 0x5000, 0x8000, 0x110000),
                                   (REPLICA, 0x405000, 0x408000, 0x510000)):
            put(n["pud"] + 8 * idx(MOD_VA, 30), pmd | P | RW)
            put(pmd + 8 * idx(MOD_VA, 21), pte | P | RW)
            for s in (0, 1, 5):
                put(pte + 8 * s, (pages + 0x1000 * s) | P | GLB |
                    (NX if s == 1 else 0))
        # CPU 3 and a worker on the master's root, a bound mm on no set
        put(MM_PGD + 8 * idx(TEXT_VA, 39), 0x1234000 | P | RW)
        desc.update(activation=b"percpu", omitted=2,
                    cpu_root=[MASTER["root"], MASTER["root"],
                              REPLICA["root"], MASTER["root"]],
                    tasks=[(4242, 1, MASTER["root"], REPLICA["root"], 7)],
                    bound=[(777, 1, MM_PGD, REPLICA["root"], 1000,
                            b"worker")],
                    failsafe=(2, 1, b"write_missed"))
    d = descriptor(**desc)
    img[DESC_PA:DESC_PA + len(d)] = d
    with open(path, "wb") as f:
        f.write(img)
    return bytes(img[t:t + TEXT_SIZE])


def vmlinux(path, text, link):
    """an x86_64 vmlinux: .text at link, _stext, _etext, the functions"""
    syms = [(b"_stext", link, 0), (b"_etext", link + len(text), 0),
            (b"func_a", link, 0x100),
            (b"func_b", link + 0x100, len(text) - 0x100)]
    strtab, symtab = b"\0", bytes(24)
    for name, value, size in syms:
        symtab += struct.pack("<IBBHQQ", len(strtab), 0x12, 0, 1, value,
                              size)
        strtab += name + b"\0"
    shstrtab = b"\0.text\0.symtab\0.strtab\0.shstrtab\0"
    text_off = 0x1000
    symtab_off = text_off + len(text)
    strtab_off = symtab_off + len(symtab)
    shstr_off = strtab_off + len(strtab)
    sh_off = (shstr_off + len(shstrtab) + 7) & ~7
    shdrs = bytes(64) + b"".join(struct.pack("<IIQQQQIIQQ", *s) for s in (
        (1, 1, 6, link, text_off, len(text), 0, 0, 4096, 0),
        (7, 2, 0, 0, symtab_off, len(symtab), 3, 1, 8, 24),
        (15, 3, 0, 0, strtab_off, len(strtab), 0, 0, 1, 0),
        (23, 3, 0, 0, shstr_off, len(shstrtab), 0, 0, 1, 0)))
    ehdr = struct.pack("<16sHHIQQQIHHHHHH",
                       b"\x7fELF\x02\x01\x01" + bytes(9), 2, 62, 1, link, 0,
                       sh_off, 0, 64, 56, 0, 64, 5, 4)
    body = ehdr + bytes(text_off - len(ehdr)) + text + symtab + strtab + \
        shstrtab
    with open(path, "wb") as f:
        f.write(body + bytes(sh_off - len(body)) + shdrs)


def elf_vmcore(path, mem, memsz, vmcoreinfo):
    """an ELF core whose one PT_LOAD holds fewer bytes than it spans, as a
    filtered dump's (p_filesz < p_memsz)"""
    name = b"VMCOREINFO\0"

    def pad4(b):
        return b + b"\0" * (-len(b) % 4)

    note = struct.pack("<III", len(name), len(vmcoreinfo), 0) + pad4(name) + \
        pad4(vmcoreinfo)
    note_off = 64 + 2 * 56
    load_off = (note_off + len(note) + 4095) & ~4095
    ehdr = struct.pack("<16sHHIQQQIHHHHHH",
                       b"\x7fELF\x02\x01\x01" + bytes(9), 4, 62, 1, 0, 64,
                       0, 0, 64, 56, 2, 0, 0, 0)
    notes = struct.pack("<IIQQQQQQ", 4, 0, note_off, 0, 0, len(note), 0, 0)
    ram = struct.pack("<IIQQQQQQ", 1, 7, load_off, DMAP, 0, len(mem), memsz,
                      4096)
    head = ehdr + notes + ram + note
    with open(path, "wb") as f:
        f.write(head + bytes(load_off - len(head)) + mem)


def fake_kernel(d):
    """tui-signals.t's: x86_64, 4-level, no ktrepl, one node, CPU 0"""
    kcore = os.path.join(d, "kcore")
    elf_vmcore(kcore, bytes(16384), 16384, VMCOREINFO)
    with open(os.path.join(d, "kallsyms"), "w") as f:
        f.write("ffffffff81000000 T _stext\nffffffff81200000 T _etext\n")
    open(os.path.join(d, "modules"), "w").close()
    sysfs = os.path.join(d, "sys", "devices", "system")
    os.makedirs(os.path.join(sysfs, "memory"))
    os.makedirs(os.path.join(sysfs, "node", "node0", "memory0"))
    with open(os.path.join(sysfs, "memory", "block_size_bytes"), "w") as f:
        f.write("8000000\n")
    with open(os.path.join(sysfs, "node", "node0", "cpulist"), "w") as f:
        f.write("0\n")
    return ["--kcore", kcore, "--kallsyms", os.path.join(d, "kallsyms"),
            "--modules", os.path.join(d, "modules"),
            "--sysfs", os.path.join(d, "sys"),
            "--debugfs", os.path.join(d, "no-debugfs")]


def run(tool, *args):
    r = subprocess.run([tool, *args], capture_output=True, text=True,
                       timeout=120)
    return r.returncode, r.stdout, r.stderr


class Batch:
    """Checks whose TAP lines wait for one json-schema-check per schema
    (each start of it costs a python3 and jsonschema's import): ok() and
    schema() record, flush() validates and prints in order."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.pending = []

    def ok(self, cond, desc, diag=None):
        self.pending.append(("ok", cond, desc, diag))

    def schema(self, schema, text, desc, lines=False, refused=None):
        """valid against schema; refused: invalid, the message with it"""
        path = os.path.join(self.tmp, f"doc{len(self.pending)}.json")
        with open(path, "w") as f:
            f.write(text)
        self.pending.append(("schema", schema, path, lines, desc, text,
                             refused))

    def flush(self):
        groups = {}
        for p in self.pending:
            if p[0] == "schema":
                groups.setdefault((p[1], p[3]), []).append(p[2])
        found = {}
        # os.devnull (no JSON, refused) makes them two files at least,
        # so that each error line starts with the file it is about
        for (schema, lines), paths in groups.items():
            r = subprocess.run([SCHEMA_CHECK, *(["--lines"] if lines else []),
                                schema, *paths, os.devnull],
                               capture_output=True, text=True, timeout=120)
            for path in paths:
                found[path] = [x[len(path) + 2:] for x in
                               r.stdout.splitlines()
                               if x.startswith(path + ": ")]
            if r.returncode == 2 or r.stderr:
                for path in paths:
                    found[path].append(r.stderr.strip())
        for p in self.pending:
            if p[0] == "ok":
                ok(*p[1:])
                continue
            _, schema, path, _, desc, text, refused = p
            errors = "\n".join(found[path])
            head = " ".join(text.split())[:300]
            if refused is None:
                ok(not errors, desc, f"want: valid against {schema}\n"
                   f"got: {errors}\ndocument: {head}")
            else:
                ok(refused in errors, desc, f"want: refused by {schema}, "
                   f"saying {refused}\ngot: {errors or 'valid'}")
        self.pending = []


def check(schema, desc, tool, args, rcs=(0,), lines=False):
    """the output of tool args, with -j and with -p where the tool has it,
    valid against schema, the tool exiting with one of rcs; the -j one"""
    docs = []
    for fmt in (["-j"] if lines else ["-j", "-p"]):
        rc, out, err = run(tool, fmt, *args)
        if rc not in rcs:
            batch.ok(False, f"{desc} ({fmt}): exits "
                     f"{' or '.join(map(str, rcs))}",
                     f"got {rc}: {os.path.basename(tool)} {fmt} "
                     f"{' '.join(args)}\n{out}{err}")
            continue
        batch.schema(schema, out, f"{desc} ({fmt}): {schema}", lines=lines)
        try:
            docs.append(json.loads(out) if not lines else
                        [json.loads(x) for x in out.splitlines()])
        except ValueError:
            docs.append({})
    return docs[0] if docs else {}


def invalid(schema, doc, desc, want):
    """a document the schema must refuse, with want in the message"""
    batch.schema(schema, json.dumps(doc), f"refused: {desc} ({want})",
                 refused=want)


def dump_checks(tmp):
    good, bad = os.path.join(tmp, "good.img"), os.path.join(tmp, "bad.img")
    text = image(good)
    image(bad, broken=True)
    syms = os.path.join(tmp, "kallsyms")
    with open(syms, "w") as f:
        f.write(SYMBOLS)

    for img, what, rcs in ((good, "healthy image", (0,)),
                           (bad, "broken image", (1,))):
        src = ["--raw", img, "--kallsyms", syms]
        check("ktrepl-dump-summary", f"{what}: summary", DUMP,
              src + ["summary"])
        v = check("ktrepl-dump-verify", f"{what}: verify", DUMP,
                  src + ["verify"], rcs)
        check("ktrepl-dump-diff", f"{what}: diff", DUMP, src + ["diff"], rcs)
        check("ktrepl-dump-walk", f"{what}: walk", DUMP,
              src + ["walk", "--node", "1"])
        check("ktrepl-dump-walk", f"{what}: walk --va", DUMP,
              src + ["walk", "--va", hex(TEXT_VA + 0x100)])
        if img == good:
            healthy = v
    seen = {x.get("check") for x in v.get("violations", [])}
    batch.ok(seen == BROKEN_CHECKS,
             "the broken image's verify has a violation of every kind planted",
             f"got {sorted(seen)}\nwant {sorted(BROKEN_CHECKS)}")
    check("ktrepl-dump-walk", "walk --va where nothing is mapped", DUMP,
          ["--raw", bad, "walk", "--va", hex(MOD_VA + 0x3000)])

    # the master's text against a vmlinux linked 2 MiB lower (KASLR): a
    # missed patch site (ftrace), and a byte nothing explains
    file_text = bytearray(text)
    file_text[0x100:0x105] = bytes((0xe8, 1, 2, 3, 4))
    file_text[0x1234] = 0x80
    vml = os.path.join(tmp, "vmlinux")
    vmlinux(vml, bytes(file_text), TEXT_VA - 0x200000)
    for extra in ([], ["--all"]):
        d = check("ktrepl-dump-diff-vmlinux",
                  " ".join(["diff --against-vmlinux"] + extra), DUMP,
                  ["--raw", good, "--vmlinux", vml, "diff",
                   "--against-vmlinux", *extra], (1,))
    batch.ok(d.get("kinds") == {"ftrace": 1, "unknown": 1} and
             d.get("kaslr_slide") == 0x200000 and
             len(d.get("diffs", [])) == 2,
             "diff --against-vmlinux --all: both ranges, the slide", d)

    check("ktrepl-dump-read", "read (a raw image)", DUMP,
          ["--raw", good, "read", hex(DESC_PA), "16"])
    core = os.path.join(tmp, "filtered.core")
    elf_vmcore(core, bytes(range(256)) * 16, 0x4000, VMCOREINFO)
    r = check("ktrepl-dump-read", "read across pages the dump left out",
              DUMP, ["--vmcore", core, "read", "0xff0", "0x20"])
    batch.ok(r.get("not_in_dump") == [{"pa": "0x1000", "len": 16}],
             "read: not_in_dump names the part left out", r)

    # the real guest's descriptor alone: its state, but none of its memory
    desc = os.path.join(FIXTURE, "descriptor.bin")
    with open(os.path.join(FIXTURE, "descriptor.pa")) as f:
        src = ["--raw", f"{desc}@{f.read().strip()}"]
    check("ktrepl-dump-summary", "x86_64-2x2 descriptor: summary", DUMP,
          src + ["summary"])
    for cmd in ("verify", "diff", "walk"):
        d = check(f"ktrepl-dump-{cmd}",
                  f"x86_64-2x2 descriptor: {cmd} stops part way", DUMP,
                  src + [cmd], (2,))
        batch.ok("error" in d, f"{cmd}: its object closes with the error", d)

    nowhere = os.path.join(tmp, "no-debugfs")
    for args, what in ((["frobnicate"], "an unknown command"),
                       (["--debugfs", nowhere, "summary"], "no debugfs"),
                       (["--vmcore", nowhere, "verify"], "no such vmcore"),
                       (["--raw", good, "read", "0"], "read's usage"),
                       (["--raw", good, "walk", "--node", "7"], "no node 7"),
                       (["summary", "extra"], "summary's arguments"),
                       (["--bogus", "summary"], "an unknown option"),
                       (["walk", "--node"], "an option missing its value")):
        check("ktrepl-error", f"error: {what}", DUMP, args, (2,))
    check("ktrepl-version", "--version", DUMP, ["--version"])

    # documents broken on purpose: a schema that refuses nothing would
    # pass every check above
    bad_doc = dict(healthy)
    del bad_doc["counts"]
    invalid("ktrepl-dump-verify", bad_doc, "verify without counts",
            "'counts' is a required property")
    bad_doc = dict(healthy, checked_at="now")
    invalid("ktrepl-dump-verify", bad_doc, "verify with a key no page names",
            "'checked_at' was unexpected")
    bad_doc = dict(healthy, compared_bytes="12288")
    invalid("ktrepl-dump-verify", bad_doc, "compared_bytes a string",
            "$.compared_bytes: '12288' is not of type 'integer'")


def top_checks(tmp):
    for args, what in ((["-d", "0"], "a bad delay"),
                       (["--bogus"], "an unknown option")):
        check("ktrepl-error", f"ktrepl-top error: {what}", TOP, args, (2,),
              lines=True)
    check("ktrepl-version", "ktrepl-top --version", TOP, ["--version"],
          lines=True)
    d = os.path.join(tmp, "fake")
    os.mkdir(d)
    args = fake_kernel(d)
    # the skip is keyed on the kernel refusing perf, asked directly: where
    # it allows it, a tool that says otherwise fails below
    refused = perf_refused()
    if refused:
        # as many points as the frames would have given
        for what in ("the frames' schema", "two frames"):
            batch.ok(True, f"ktrepl-top -j: {what} # SKIP cannot sample "
                     f"here: {refused}")
        return
    frames = check("ktrepl-top-frame", "ktrepl-top -j -n 2 (a fake kernel)",
                   TOP, ["-n", "2", "-d", "0.1", *args], lines=True)
    batch.ok(len(frames) == 2, "two frames, one JSON object per line", frames)


# ktrepl-bench -j as ktrepl-bench.8 describes it: no real run here
BENCH_DOC = {
    "version": 1,
    "machine": {"cpu_model": "QEMU", "arch": "x86_64", "kernel": "6.1.0",
                "hypervisor": "KVM", "emulated": False,
                "nodes": [{"node": 0, "cpus": "0-1", "memory_kb": 1048576,
                           "distance": [10, 20]},
                          {"node": 1, "cpus": "2-3", "memory_kb": 1048576,
                           "distance": [20, 10]}]},
    "benchmarks": [
        {"name": "text", "text_bytes": 33554432, "iterations": 4, "runs": 6,
         "control": False, "activation": "mm", "time_limited": False,
         "seconds": 12.5, "emulated": False,
         "nodes": [{"node": 1, "before_ns": 2.5e8, "after_ns": 2.0e8,
                    "diff_pct": -20.0, "ci_pct": 1.5, "significant": True,
                    "samples": 6, "before_ci_ns": [2.4e8, 2.6e8],
                    "after_ci_ns": [1.9e8, 2.1e8], "diff_lo_pct": -24.0,
                    "diff_hi_pct": -16.0}],
         "verdict": "replication speeds up node 1 -20.0%"},
        {"name": "syscalls/fork-1/cold", "operation": "one fork()",
         "cold": True, "evict_bytes": 67108864, "evict_assumed": False,
         "iterations": 1, "runs": 3, "control": True, "activation": None,
         "time_limited": True, "seconds": 60.0, "emulated": False,
         "nodes": [{"node": 0, "before_ns": 1.0e5, "after_ns": 1.0e5,
                    "diff_pct": 0.0, "ci_pct": None, "significant": False,
                    "samples": 3, "before_ci_ns": None, "after_ci_ns": None,
                    "diff_lo_pct": None, "diff_hi_pct": None}],
         "verdict": "inconclusive: too few runs"}],
    "costs": {"emulated": False, "control": False, "activation": "mm",
              "seconds": 30.0, "loads": 11, "time_limited": False,
              "memory": {"reason": None,
                         "nodes": [{"node": 1, "role": "replica",
                                    "text_bytes": 1, "rodata_bytes": 2,
                                    "module_bytes": 3, "table_bytes": 4,
                                    "total_bytes": 10}]},
              **{k: {"value": 1000.0, "unit": "ns", "reason": None}
                 for k in ("load_ns", "ftrace_ns", "ftrace_loaded_ns",
                           "static_key_ns", "static_key_loaded_ns",
                           "pingpong_bound_ns", "pingpong_unbound_ns")},
              "pingpong_ratio": {"value": None, "unit": "ratio",
                                 "reason": "percpu: nothing is bound"},
              "verdict": "one measurement each"}}


def bench_checks():
    # usage errors are JSON too, each with -j and -p
    cases = (("ktrepl-error", "an unknown benchmark", ["bogus"], (2,)),
             ("ktrepl-error", "--bound 0", ["--bound", "0"], (2,)),
             ("ktrepl-error", "--markdown with -j", ["--markdown"], (2,)),
             ("ktrepl-error", "an unknown option", ["--bogus"], (2,)),
             ("ktrepl-version", "--version", ["--version"], (0,)))
    for schema, what, args, rcs in cases:
        # make unit-check builds it: missing is a failure, not a skip
        if not os.access(BENCH, os.X_OK):
            for fmt in ("-j", "-p"):
                batch.ok(False, f"ktrepl-bench {what} ({fmt}): {BENCH} is "
                         "built (make tools)")
        else:
            check(schema, f"ktrepl-bench: {what}", BENCH, args, rcs)
    batch.schema("ktrepl-bench", json.dumps(BENCH_DOC),
                 "ktrepl-bench.8's report is valid against ktrepl-bench")
    doc = json.loads(json.dumps(BENCH_DOC))
    doc["costs"]["load_ns"]["reason"] = "both"
    invalid("ktrepl-bench", doc, "a figure with a value and a reason",
            "$.costs.load_ns")
    doc = json.loads(json.dumps(BENCH_DOC))
    doc["benchmarks"][0]["cold"] = False
    invalid("ktrepl-bench", doc, "text with a syscalls table's key",
            "$.benchmarks[0]")


TAP_CHILD = """
import sys
sys.path.insert(0, sys.argv[1])
from ktrepl_tap import Tap
tap = Tap()
tap.ok_schema("ktrepl-error", '{"version": 1, "error": "x"}', "good")
tap.ok_schema("ktrepl-error", '{"version": 2, "error": 7}', "bad")
tap.ok_schema("ktrepl-top-frame", '{"version": 1}\\n', "lines", lines=True)
tap.done()
"""


def tap_checks():
    """Tap.ok_schema, as the guest tests will use it: its TAP lines"""
    r = subprocess.run([sys.executable, "-c", TAP_CHILD,
                        os.path.join(HERE, "..")], capture_output=True,
                       text=True, timeout=60)
    out = r.stdout
    ok(r.returncode == 1 and "ok 1 - good\n" in out and
       "not ok 2 - bad\n" in out and "not ok 3 - lines\n" in out,
       "Tap.ok_schema: ok when valid, a failure when refused", out)
    ok("# got: $.error: 7 is not of type 'string'\n" in out and
       "# want: valid against ktrepl-error\n" in out and
       "line 1: $: 'frame' is a required property" in out,
       "Tap.ok_schema: got and want, a path into the document for each "
       "error", out + r.stderr)


def main():
    global batch
    tap.header()
    # every point below, skipped or not: a run that stops early fails
    tap.plan(85)
    r = subprocess.run([SCHEMA_CHECK, "ktrepl-error", "-"],
                       input='{"version": 1, "error": "x"}',
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        ok(False, "tests/json-schema-check runs", r.stdout + r.stderr)
        tap.done()
    tmp = tempfile.mkdtemp(prefix="ktrepl-schemas-")
    batch = Batch(tmp)
    try:
        tap_checks()
        dump_checks(tmp)
        top_checks(tmp)
        bench_checks()
        batch.flush()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
