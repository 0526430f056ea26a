#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The dump's own kallsyms on real guests (issue 27), and the unit test
fixtures cut from them.

For each kernel (ARCH:PROFILE arguments; default x86_64:6.1 arm64:6.1
x86_64:6.12 arm64:6.12) one 2x2 guest loads ktrepl, flips a replica byte
in int_sqrt, prints its /proc/kallsyms, and is dumped. Then, on the host:

  - the whole of the dump's kallsyms, as ktrepl decodes it
    (test_kallsyms --vmcore), equals that /proc/kallsyms, and every
    symbol is in nm's list of the -dbg vmlinux (at KERNELOFFSET) where
    there is one;
  - ktrepl-dump --vmcore DUMP verify, with no symbol file, names the flip
    int_sqrt+0x4;
  - with --write, tests/unit/fixtures/kallsyms/ARCH-RELEASE/ gets the
    first K symbols' tables, cut from the dump by this script alone (the
    VMCOREINFO note, the linear map of the kernel image, the ELF
    segments), and the symbols an independent source gives for them.

TAP on stdout. Boots guests: run it under flock /work/guest.lock.
KTREPL_KEEP_DUMP=1 keeps each dump and its console in a directory (a
diag names it); KTREPL_REUSE_DUMP=DIR runs the host's part again on one.
"""
import base64
import gzip
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import ktvm  # noqa: E402

HERE = os.path.dirname(__file__)
FIXTURES = os.path.join(ktvm.ROOT, "tests", "unit", "fixtures", "kallsyms")
TEST = os.path.join(ktvm.BUILD, "unit", "test_kallsyms")
DUMP = ktvm.tool("ktrepl-dump")
TABLES = ("kallsyms_names", "kallsyms_num_syms", "kallsyms_token_table",
          "kallsyms_token_index", "kallsyms_offsets", "kallsyms_relative_base")
# x86_64's __START_KERNEL_map: __pa_symbol(x) = x - it + phys_base
X86_KERNEL_MAP = 0xffffffff80000000
# the VMCOREINFO lines a fixture keeps
KEEP = re.compile(r"^(OSRELEASE|PAGESIZE|KERNELOFFSET|SYMBOL\((_stext|"
                  r"kallsyms_\w+)\)|NUMBER\((phys_base|kimage_voffset|"
                  r"PHYS_OFFSET|VA_BITS)\))=")


def vmcoreinfo(core):
    """The VMCOREINFO note's lines of an ELF core, read by hand."""
    with open(core, "rb") as f:
        for p_type, p_offset, _, p_filesz in ktvm.elf_segments(core):
            if p_type != 4:
                continue
            f.seek(p_offset)
            data, off = f.read(p_filesz), 0
            while off + 12 <= len(data):
                namesz, descsz, _ = struct.unpack_from("<III", data, off)
                name = data[off + 12:off + 12 + namesz].rstrip(b"\0")
                desc = off + 12 + (namesz + 3) // 4 * 4
                if name == b"VMCOREINFO":
                    return data[desc:desc + descsz].decode().rstrip("\0")
                off = desc + (descsz + 3) // 4 * 4
    return ""


def info_dict(text):
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


class Image:
    """Kernel image bytes of an ELF dump, by VA, through the linear map
    of the image (not the page tables ktrepl walks)."""

    def __init__(self, core, arch, info):
        self.core = core
        if arch == "x86_64":
            self.delta = X86_KERNEL_MAP - int(info["NUMBER(phys_base)"])
        else:
            self.delta = int(info["NUMBER(kimage_voffset)"], 16)

    def read(self, va, size):
        off = ktvm.elf_phys_offset(self.core, va - self.delta)
        with open(self.core, "rb") as f:
            f.seek(off)
            return f.read(size)


def names_length(names, k):
    """Bytes the first k entries of kallsyms_names take (a length byte, or
    two with 0x80 set in the first, then that many tokens)."""
    off = 0
    for _ in range(k):
        n = names[off]
        off += 2 + ((n & 0x7f) | names[off + 1] << 7) if n & 0x80 else 1 + n
    return off


def count_big(names, total):
    """How many of the total entries have a two-byte length."""
    off = big = 0
    for _ in range(total):
        n = names[off]
        if n & 0x80:
            off += 2 + ((n & 0x7f) | names[off + 1] << 7)
            big += 1
        else:
            off += 1 + n
    return big


def nm_shifted(vmlinux, arch, slide):
    """nm's symbols of a vmlinux as kallsyms has them: the image's moved
    by the KASLR slide; x86's percpu ones (linked at 0) where they are,
    and of type A, as scripts/kallsyms.c --absolute-percpu makes every
    symbol from __per_cpu_start to __per_cpu_end."""
    out = subprocess.run(["nm", vmlinux], capture_output=True, text=True,
                         check=True).stdout
    rows = [f for f in (line.split() for line in out.splitlines())
            if len(f) == 3]
    ends = {n: int(a, 16) for a, _, n in rows
            if n in ("__per_cpu_start", "__per_cpu_end")}
    syms = []
    for a, t, n in rows:
        addr = int(a, 16)
        if addr >= 0xffff000000000000:
            addr += slide
        elif arch == "x86_64" and ends and \
                ends["__per_cpu_start"] <= addr <= ends["__per_cpu_end"]:
            t = "A"
        # a list: one name can be at one address twice (__key.3)
        syms.append((addr, t, n))
    return syms


def write_fixture(tap, arch, rel, core, info, kallsyms, nm):
    img = Image(core, arch, info)
    va = {t: int(info[f"SYMBOL({t})"], 16) for t in TABLES}
    total, = struct.unpack("<I", img.read(va["kallsyms_num_syms"], 4))
    # K: a multiple of 256 (kallsyms_markers stays right for the cut)
    # that takes in _stext
    stext = next(i for i, s in enumerate(kallsyms) if s[2] == "_stext")
    k = max(512, (stext // 256 + 1) * 256)
    names_full = img.read(va["kallsyms_names"],
                          va["kallsyms_token_table"] - va["kallsyms_names"]
                          if va["kallsyms_token_table"] > va["kallsyms_names"]
                          else 8 << 20)
    big = count_big(names_full, total)
    tt_end = va["kallsyms_token_index"] if va["kallsyms_token_index"] > \
        va["kallsyms_token_table"] else va["kallsyms_token_table"] + 4096
    tables = {
        "kallsyms_names": names_full[:names_length(names_full, k)],
        "kallsyms_num_syms": struct.pack("<I", k),
        "kallsyms_token_table": img.read(va["kallsyms_token_table"],
                                         tt_end - va["kallsyms_token_table"]),
        "kallsyms_token_index": img.read(va["kallsyms_token_index"], 512),
        "kallsyms_offsets": img.read(va["kallsyms_offsets"], 4 * k),
        "kallsyms_relative_base": img.read(va["kallsyms_relative_base"], 8),
    }
    out = os.path.join(FIXTURES, f"{arch}-{rel}")
    os.makedirs(out, exist_ok=True)
    for name, data in tables.items():
        with open(os.path.join(out, name + ".bin"), "wb") as f:
            f.write(data)
    with open(os.path.join(out, "vmcoreinfo"), "w") as f:
        f.write("".join(line + "\n" for line in vmcoreinfo(core).splitlines()
                        if KEEP.match(line)))
    # expected: every 32nd of the first K, _stext and the last, from the
    # guest's /proc/kallsyms; on x86 only those nm confirms, at nm's
    picks = sorted(set(range(0, k, 32)) | {stext, k - 1})
    want = [kallsyms[i] for i in picks]
    source = "the guest's /proc/kallsyms of the same boot"
    if nm is not None:
        nm = set(nm)
        confirmed = [s for s in want if s in nm]
        tap.ok(len(confirmed) == len(want),
               f"{arch} {rel}: nm on the -dbg vmlinux confirms the "
               f"{len(want)} sampled /proc/kallsyms lines (got "
               f"{len(confirmed)})")
        want = confirmed
        source += (", each line confirmed by nm on the -dbg vmlinux at "
                   "KERNELOFFSET")
    with open(os.path.join(out, "expected"), "w") as f:
        f.write("".join(f"{a:016x} {t} {n}\n" for a, t, n in want))
    with open(os.path.join(out, "info"), "w") as f:
        f.write(f"arch={arch}\nrelease={rel}\nk={k}\nnum_syms={total}\n"
                f"big_symbols={big}\nexpected_from={source}\n")
    size = sum(len(d) for d in tables.values())
    tap.ok(True, f"{arch} {rel}: fixture of {k} of {total} symbols "
           f"({size} bytes; {big} two-byte lengths in the whole table; "
           f"_stext is symbol {stext}) in {out}")


def write_seed(arch, rel, out):
    """tests/fuzz/corpus/kallsyms/ (fuzz_kallsyms.c's input): a fixture's
    tables packed in their memory order, behind their offsets."""
    info = info_dict(open(os.path.join(out, "vmcoreinfo")).read())
    order = sorted(TABLES, key=lambda t: int(info[f"SYMBOL({t})"], 16))
    body, offs = b"", {}
    for t in order:
        offs[t] = len(body)
        body += open(os.path.join(out, t + ".bin"), "rb").read()
        body += b"\0" * (-len(body) % 8)
    hdr = struct.pack("<6IB7x", *(offs[t] for t in TABLES),
                      1 if arch == "x86_64" else 0)
    seed = os.path.join(ktvm.ROOT, "tests", "fuzz", "corpus", "kallsyms",
                        f"real-{arch}-{rel}")
    os.makedirs(os.path.dirname(seed), exist_ok=True)
    with open(seed, "wb") as f:
        f.write(hdr + body)


def one(tap, arch, profile, write):
    rel = ktvm.kernel_release(arch, profile)
    reuse = os.environ.get("KTREPL_REUSE_DUMP")
    tmp = reuse or tempfile.mkdtemp(prefix="ktrepl-kallsyms-", dir=ktvm.BUILD)
    core = os.path.join(tmp, "vmcore.elf")
    if reuse:
        with open(os.path.join(tmp, "console")) as f:
            lines = f.read().splitlines()
    else:
        tools = ktvm.arm64_tools() if arch == "arm64" else [DUMP]
        lines, error = ktvm.dump_guest(
            os.path.join(HERE, "guest", "capture-kallsyms.sh"),
            [(core, "elf")], arch=arch, tools=tools, kernel=profile,
            timeout=900)
        tap.fold_guest(f"[{arch} {rel}]", lines)
        if error:
            tap.ok(False, f"{arch} {rel}: guest reached the dump point",
                   "\n".join([error] + lines[-30:]))
            return
        with open(os.path.join(tmp, "console"), "w") as f:
            f.write("".join(x + "\n" for x in lines))
    text = gzip.decompress(base64.b64decode(
        "".join(ktvm.records(lines, "kallsyms_gz")))).decode()
    kallsyms = []
    for line in text.splitlines():
        a, t, n = line.split()[:3]
        kallsyms.append((int(a, 16), t, n))
    n_lines = next((int(x.split()[1]) for x in lines
                    if x.startswith("KALLSYMS-LINES ")), -1)
    tap.ok(len(kallsyms) == n_lines > 0,
           f"{arch} {rel}: the guest's /proc/kallsyms came over whole "
           f"({len(kallsyms)} lines, want {n_lines})")
    ks_file = os.path.join(tmp, "kallsyms")
    with open(ks_file, "w") as f:
        f.write(text)
    info = info_dict(vmcoreinfo(core))
    tap.ok(all(f"SYMBOL({t})" in info for t in TABLES),
           f"{arch} {rel}: VMCOREINFO says where every table is "
           f"(markers: {'SYMBOL(kallsyms_markers)' in info}, seqs_of_names:"
           f" {'SYMBOL(kallsyms_seqs_of_names)' in info})")
    order = sorted(TABLES, key=lambda t: int(info.get(f"SYMBOL({t})", "0"),
                                              16))
    tap.diag(f"{arch} {rel}: tables in memory order: {' '.join(order)}")
    r = subprocess.run([TEST, "--vmcore", core, "--expect", ks_file],
                       capture_output=True, text=True)
    tap.ok(r.returncode == 0, f"{arch} {rel}: the dump's kallsyms equal "
           "the guest's /proc/kallsyms", r.stdout[-3000:] + r.stderr)
    for x in r.stdout.splitlines():
        if x.startswith(("ok", "not ok")):
            tap.diag(f"{arch} {rel}: {x}")
    vmlinux = os.path.join(ktvm.CACHE, "kernels", rel, "usr", "lib", "debug",
                           "boot", f"vmlinux-{rel}")
    nm = None
    if os.path.exists(vmlinux):
        slide = int(info.get("KERNELOFFSET", "0"), 16)
        nm = nm_shifted(vmlinux, arch, slide)
        nm_file = os.path.join(tmp, "nm")
        with open(nm_file, "w") as f:
            f.write("".join(f"{a:016x} {t} {n}\n" for a, t, n in nm))
        r = subprocess.run([TEST, "--vmcore", core, "--expect", nm_file,
                            "--subset"], capture_output=True, text=True)
        tap.ok(r.returncode == 0, f"{arch} {rel}: every symbol of the dump's "
               f"kallsyms is in nm's list of the -dbg vmlinux at "
               f"KERNELOFFSET {slide:#x}", r.stdout[-3000:] + r.stderr)
        for x in r.stdout.splitlines():
            if x.startswith(("ok", "not ok")):
                tap.diag(f"{arch} {rel}: {x}")
    else:
        tap.diag(f"{arch} {rel}: no -dbg vmlinux at {vmlinux}")
    # the flip, named from the dump alone
    r = subprocess.run([DUMP, "-j", "--vmcore", core, "verify"],
                       capture_output=True, text=True)
    v = json.loads(r.stdout) if r.stdout.startswith("{") else {}
    syms = [x.get("sym") for x in v.get("violations", [])]
    tap.ok(r.returncode == 1 and syms == ["int_sqrt+0x4"],
           f"{arch} {rel}: ktrepl-dump --vmcore verify, no symbol file, "
           f"names the flip int_sqrt+0x4 (got {syms})", r.stderr)
    r = subprocess.run([DUMP, "--vmcore", core, "diff"], capture_output=True,
                       text=True)
    tap.ok(r.returncode == 1 and "int_sqrt+0x4" in r.stdout,
           f"{arch} {rel}: and diff does", r.stdout[-1500:] + r.stderr)
    if write:
        write_fixture(tap, arch, rel, core, info, kallsyms, nm)
        write_seed(arch, rel, os.path.join(FIXTURES, f"{arch}-{rel}"))
    if os.environ.get("KTREPL_KEEP_DUMP") or reuse:
        tap.diag(f"{arch} {rel}: dump kept in {tmp}")
    else:
        shutil.rmtree(tmp)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    write = "--write" in sys.argv
    tap = ktvm.Tap()
    for spec in args or ["x86_64:6.1", "arm64:6.1", "x86_64:6.12",
                         "arm64:6.12"]:
        arch, _, profile = spec.partition(":")
        one(tap, arch, profile or ktvm.KERNEL, write)
    tap.done()


if __name__ == "__main__":
    main()
