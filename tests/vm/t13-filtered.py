#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Dumps as fleets capture them. One real guest (x86_64 2x2, 1 GiB,
ktrepl.ko loaded) is dumped by QEMU twice: live, and after a panic. Each
ELF dump is converted by the host's makedumpfile into every format it
writes, always at -d 31 (zero, cache, cache-private, user and free pages
left out), as the capture kernel would have written it from /proc/vmcore.
ktrepl-dump verify and summary must read each and find the same
descriptor, also where VMCOREINFO has no KTREPL_DESCRIPTOR line
(kdump-tools loads the crash kernel, and takes its copy of VMCOREINFO,
before ktrepl.ko loads), and crash> ktrepl must find it there too: from
the module's ktrepl_descriptor_pa, or in minimal mode (no module
symbols) by scanning what the dump holds. In the live dump the
descriptor's empty tail (module slots) is zero pages next to free ones,
which makedumpfile -E drops into p_memsz past p_filesz: they must read
as zeros.

KTREPL_FILTERED_DUMPS=<live ELF>:<panic ELF> skips the boot;
KTREPL_FILTERED_KEEP=<dir> keeps the dumps made."""
import json
import mmap
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
import ktvm  # noqa: E402

HERE = os.path.dirname(__file__)
tap = ktvm.Tap()
DUMP = ktvm.tool("ktrepl-dump")
MAGIC = b"KTREPL-VMCORE-D\0"
PAGE = 4096
# what makedumpfile writes, as its options (1.7.2: -p and -z only where
# it was built with snappy and zstd; Debian 12's has neither)
FORMATS = [
    ("ELF (-E)", ["-E"], "elf"),
    ("kdump, uncompressed", [], "kdump"),
    ("kdump, zlib (-c)", ["-c"], "kdump"),
    ("kdump, lzo (-l)", ["-l"], "kdump"),
    ("kdump, snappy (-p)", ["-p"], "kdump"),
    ("kdump, zstd (-z)", ["-z"], "kdump"),
    ("flattened kdump, lzo (-F -l)", ["-F", "-l"], "flat"),
    ("flattened ELF (-F -E)", ["-F", "-E"], "flat"),
]


def run(*args, timeout=600):
    r = subprocess.run([DUMP, *args], capture_output=True, text=True,
                       timeout=timeout)
    return r.returncode, r.stdout, r.stderr


def load_segments(path):
    """(p_paddr, p_offset, p_filesz, p_memsz) of each PT_LOAD."""
    return [(pa, off, filesz, memsz) for t, off, pa, filesz, memsz in
            ktvm.elf_program_headers(path) if t == 1]


def find_descriptor(path):
    """(pa, size) of the page that starts with the descriptor's magic in
    an unfiltered ELF core, found independently of the tools."""
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0,
                                          access=mmap.ACCESS_READ) as m:
        for pa, off, filesz, _ in load_segments(path):
            first = (PAGE - pa % PAGE) % PAGE
            for o in range(first, filesz, PAGE):
                if m[off + o:off + o + 16] == MAGIC:
                    size, = struct.unpack_from("<I", m, off + o + 20)
                    return pa + o, size
    return None, 0


def excluded_pages(path, pa, size):
    """Pages of [pa, pa + size) an ELF core holds only as p_memsz past
    p_filesz: the zero pages makedumpfile -E -d 31 left out."""
    n = 0
    for seg_pa, _, filesz, memsz in load_segments(path):
        lo, hi = max(pa, seg_pa + filesz), min(pa + size, seg_pa + memsz)
        if hi > lo:
            n += (hi - lo + PAGE - 1) // PAGE
    return n


def as_proc_vmcore(src, dst, strip):
    """A copy of QEMU's ELF core laid out as the capture kernel's
    /proc/vmcore is: program headers right after the ELF header, no
    section headers. makedumpfile (1.7.2, and upstream) reads program
    headers at sizeof(Elf64_Ehdr) whatever e_phoff says, and QEMU puts its
    section headers there. strip: the VMCOREINFO KTREPL_DESCRIPTOR line
    renamed in place, as the copy kdump-tools took before the module
    loaded lacks it. Returns how many lines were renamed."""
    shutil.copy(src, dst)
    os.chmod(dst, 0o600)
    count = 0
    with open(dst, "r+b") as f, mmap.mmap(f.fileno(), 0) as m:
        phoff, = struct.unpack_from("<Q", m, 32)
        phentsize, phnum = struct.unpack_from("<HH", m, 54)
        table = m[phoff:phoff + phentsize * phnum]
        lowest = min(struct.unpack_from("<Q", table, i * phentsize + 8)[0]
                     for i in range(phnum))
        if 64 + len(table) > lowest:
            raise RuntimeError(f"{src}: no room for the program headers")
        m[64:lowest] = table + bytes(lowest - 64 - len(table))
        struct.pack_into("<Q", m, 32, 64)            # e_phoff
        struct.pack_into("<Q", m, 40, 0)             # e_shoff
        struct.pack_into("<HHH", m, 58, 0, 0, 0)     # e_shentsize..shstrndx
        at = m.find(b"KTREPL_DESCRIPTOR=") if strip else -1
        while at >= 0:
            m[at:at + 18] = b"KTREPL_DESCRIPTXR="
            count += 1
            at = m.find(b"KTREPL_DESCRIPTOR=", at + 18)
    return count


def makedumpfile(opts, src, dst, kind):
    args = ["makedumpfile", *opts, "-d", "31", src]
    start = time.monotonic()
    if kind == "flat":
        with open(dst, "wb") as out:
            r = subprocess.run(args, stdout=out, stderr=subprocess.PIPE,
                               text=True, timeout=900)
    else:
        r = subprocess.run(args + [dst], capture_output=True, text=True,
                           timeout=900)
    return r.returncode, (r.stderr or "") + (getattr(r, "stdout", "") or
                                             ""), time.monotonic() - start


def summary_json(core):
    rc, out, err = run("-j", "--vmcore", core, "summary")
    try:
        return rc, json.loads(out), err
    except ValueError:
        return rc, None, err + out[:500]


def crash_ktrepl(core, minimal=False):
    """crash> ktrepl on core: (exit, output, seconds the command took,
    timed inside the session by crash's shell escape)."""
    args = ["--minimal"] if minimal else []
    lines = [f"extend {ktvm.CRASH_EXT}", "!date +T%s.%N", "ktrepl",
             "!date +T%s.%N", "quit"]
    r = subprocess.run(["crash", "-s", *args, ktvm.crash_vmlinux(), core],
                       input="\n".join(lines) + "\n", capture_output=True,
                       text=True, timeout=900)
    marks = [float(x) for x in re.findall(r"^T(\d+\.\d+)$", r.stdout, re.M)]
    took = marks[1] - marks[0] if len(marks) == 2 else float("nan")
    return r.returncode, r.stdout + r.stderr, took


# ktrepl.ko, some page cache, a live dump, then a panic
GUEST_SCRIPT = """. /lib.sh
insmod /lib/modules/ktrepl.ko || echo "insmod failed"
cat /bin/busybox /lib/modules/*.ko > /dev/null
echo KTREPL-READY-FOR-DUMP
sleep 5
echo c > /proc/sysrq-trigger
"""


def dump_twice(tmp):
    """(live ELF, panic ELF, error) of one guest."""
    script = os.path.join(tmp, "guest.sh")
    with open(script, "w") as f:
        f.write(GUEST_SCRIPT)
    initrd = os.path.join(tmp, "initrd.gz")
    ktvm.build_initramfs("x86_64", script, initrd)
    live, panic = (os.path.join(tmp, n) for n in ("live.elf", "panic.elf"))
    with ktvm.Guest("x86_64", "2x2", initrd, timeout=400,
                    keep_panicked=True) as g:
        try:
            g.wait_for(r"^KTREPL-READY-FOR-DUMP")
            g.dump(live)      # stops the guest: its clock stops too
            g.qmp(("cont", {}))
            g.wait_panic()
            g.dump(panic)
        except Exception as e:  # report, never hang
            return None, None, "\n".join([str(e)] + g.lines[-30:])
    return live, panic, None


# the dumps crash> ktrepl reads: the fleet's case, no VMCOREINFO line
CRASH_ON = ("panic, no VMCOREINFO line: ELF (-E) -d 31",
            "panic, no VMCOREINFO line: kdump, zlib (-c) -d 31",
            "panic, no VMCOREINFO line: flattened kdump, lzo (-F -l) -d 31")


def check_formats(tag, src, ref, desc, made, keep):
    """src converted into every format at -d 31, each read back."""
    for what, opts, kind in FORMATS:
        name = re.sub(r"[^a-z0-9]+", "-", f"{tag} {what}".lower()).strip("-")
        dst = os.path.join(os.path.dirname(src), name)
        label = f"{tag}: {what} -d 31"
        rc, msg, took = makedumpfile(opts, src, dst, kind)
        # Debian's 1.7.2 has no snappy or zstd: it says so and writes the
        # pages uncompressed (test_filtered reads real -p and -z pages)
        off = re.search(r"'-.' option is disabled.*", msg)
        if off:
            tap.diag(f"{label}: makedumpfile: {off.group(0)} (it wrote the "
                     "pages uncompressed)")
        if not tap.ok(rc == 0 and os.path.exists(dst),
                      f"makedumpfile {' '.join(opts)} -d 31 writes {label} "
                      f"({took:.1f} s, "
                      f"{os.path.getsize(dst) >> 20 if rc == 0 else 0} MiB)",
                      msg):
            continue
        made[label] = dst
        if kind == "elf":
            n = excluded_pages(dst, *desc)
            tap.diag(f"{label}: {n} of the descriptor's pages are p_memsz "
                     "past p_filesz (excluded zero pages: they read as "
                     "zeros)")
        rc, out, err = run("--vmcore", dst, "verify")
        tap.ok(rc == 0 and "truncated" not in err,
               f"{label}: verify exits 0 ({rc})", out[-800:] + err)
        rc, got, err = summary_json(dst)
        tap.ok(rc == 0 and got == ref,
               f"{label}: summary exits 0 with the unfiltered dump's "
               f"descriptor ({rc})",
               err + json.dumps(got)[:800] if got != ref else err)
        if not keep and label not in CRASH_ON:
            os.unlink(dst)


def main():
    if not shutil.which("makedumpfile"):
        tap.skip_all("no makedumpfile (make deps)")
    keep = os.environ.get("KTREPL_FILTERED_KEEP")
    tmp = tempfile.mkdtemp(prefix="ktrepl-t13-", dir=ktvm.BUILD)
    given = os.environ.get("KTREPL_FILTERED_DUMPS")
    if given:
        live, panic = given.split(":")
    else:
        live, panic, error = dump_twice(tmp)
        if not tap.ok(error is None, "the guest (1 GiB, ktrepl.ko) was "
                      "dumped live and after its panic", error):
            shutil.rmtree(tmp, ignore_errors=True)
            tap.done()
    made, refs = {}, {}
    for tag, elf in (("live", live), ("panic", panic)):
        rc, ref, err = summary_json(elf)
        refs[tag] = ref
        tap.ok(rc == 0 and ref, f"{tag}: QEMU's unfiltered ELF dump: summary "
               f"exits 0 ({rc})", err)
        desc = find_descriptor(elf)
        tap.ok(desc[0] is not None, f"{tag}: the descriptor is in the dump at "
               f"{desc[0] and hex(desc[0])} ({desc[1]} bytes)")
        proc = os.path.join(tmp, f"{tag}-proc-vmcore.elf")
        noline = os.path.join(tmp, f"{tag}-proc-vmcore-noline.elf")
        as_proc_vmcore(elf, proc, False)
        n = as_proc_vmcore(elf, noline, True)
        tap.diag(f"{tag}: QEMU's dump holds {n} KTREPL_DESCRIPTOR= line(s) "
                 "(VMCOREINFO and its copies in memory); the kdump-tools "
                 "copy has none")
        for what, core in (("laid out as /proc/vmcore", proc),
                           ("laid out as /proc/vmcore, no VMCOREINFO line",
                            noline)):
            rc, got, err = summary_json(core)
            tap.ok(rc == 0 and got == ref, f"{tag}: the unfiltered dump "
                   f"{what}: summary exits 0, the same descriptor ({rc})",
                   err)
        if desc[0] is None:
            continue
        check_formats(tag, proc, ref, desc, made, keep)
        check_formats(f"{tag}, no VMCOREINFO line", noline, ref, desc, made,
                      keep)
        os.unlink(proc)
        os.unlink(noline)

    # crash: the symbol in full mode, the scan in minimal mode
    root = (refs.get("panic") or {}).get("master_root_pa", "?")
    for label in CRASH_ON:
        core = made.get(label)
        if not core:
            tap.skip(f"crash on {label}", "the dump was not made")
            continue
        for minimal in (False, True):
            how = ("ktrepl_descriptor_pa" if not minimal else
                   "minimal mode: the scan up to the kernel's max_pfn"
                   if "flattened" in label else
                   "minimal mode: the scan of what the file holds")
            rc, out, took = crash_ktrepl(core, minimal)
            found = ("master node" in out and root in out and
                     "ktrepl:" not in out)
            tap.ok(found, f"crash> ktrepl on {label} ({how}) finds the "
                   f"descriptor (master root {root}) in {took:.2f} s",
                   out[-1500:])
    if keep:
        os.makedirs(keep, exist_ok=True)
        for f in os.listdir(tmp):
            shutil.move(os.path.join(tmp, f), os.path.join(keep, f))
    shutil.rmtree(tmp, ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
