#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A QMP vmcore of an x86_64 guest opens in crash and in libkdumpfile, and
our memory-source code reads the same page the guest read live."""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import ktvm  # noqa: E402


def elf_read_phys(path, pa, length):
    """Independent oracle: the ELF program headers read by hand."""
    off = ktvm.elf_phys_offset(path, pa)
    if off is None:
        return None
    with open(path, "rb") as f:
        f.seek(off)
        return f.read(length)


tap = ktvm.Tap()
dump_tool = ktvm.tool("ktrepl-dump")
script = os.path.join(os.path.dirname(__file__), "guest", "known-page.sh")
tmp = tempfile.mkdtemp(prefix="ktrepl-vmcore-", dir=ktvm.BUILD)
elf_core = os.path.join(tmp, "vmcore.elf")
kdump_core = os.path.join(tmp, "vmcore.kdump")
lines, error = ktvm.dump_guest(script, [(elf_core, "elf"),
                                        (kdump_core, "kdump-zlib")],
                               tools=[dump_tool])
if error:
    tap.ok(False, "guest reached the dump point",
           "\n".join([error] + lines[-30:]))
    tap.done()
tap.fold_guest("[x86_64 2x2]", lines)

pa = page = None
for line in lines:
    m = re.match(r"KNOWN-PA (0x[0-9a-f]+)", line)
    if m:
        pa = int(m.group(1), 16)
    m = re.match(r"KNOWN-PAGE (\{.*\})", line)
    if m:
        page = bytes.fromhex(json.loads(m.group(1))["bytes"])
tap.ok(pa is not None and page is not None and len(page) == 4096,
       "guest reported the known page")
tap.ok(page is not None and any(page), "the known page is not all zeroes")

oracle = elf_read_phys(elf_core, pa or 0, 4096)
tap.ok(oracle == page,
       "the ELF vmcore holds the bytes the guest read (own ELF parse)")

for fmt, core in (("ELF", elf_core), ("kdump-compressed", kdump_core)):
    r = subprocess.run([dump_tool, "-j", "--vmcore", core, "read",
                        hex(pa or 0), "4096"], capture_output=True, text=True)
    got = None
    if r.returncode == 0:
        got = bytes.fromhex(json.loads(r.stdout)["bytes"])
    tap.ok(got == page, f"ktrepl-dump --vmcore ({fmt}, libkdumpfile) reads "
           "the page the guest read", r.stderr)

vmlinux = ktvm.debug_vmlinux()
rc, out = ktvm.crash(vmlinux, elf_core, "ktrepl", "ktrepl -p", "sys",
                     timeout=300)
# no VMCOREINFO line, and a scan of the memory crash holds finds none
tap.ok(rc == 0 and re.search(r"no ktrepl state in this dump: no descriptor "
                             r"in \d+ MiB of memory", out) is not None,
       "crash> ktrepl on a dump without ktrepl says so", out[-1500:])
tap.ok_crash("own", re.search(r"^\s*CPUS: 4\s*$", out, re.M) is not None,
             "and crash goes on (sys after it)", out[-1500:])
for fmt, core in (("ELF", elf_core), ("kdump-compressed", kdump_core)):
    rc, out = ktvm.crash(vmlinux, core, "sys", extend=False, timeout=300)
    tap.ok_crash("own", rc == 0 and re.search(r"RELEASE: " + re.escape(
        ktvm.kernel_release("x86_64")), out) is not None,
        f"crash opens the {fmt} vmcore with the -dbg vmlinux", out[-4000:])
    tap.ok_crash("own", re.search(r"^\s*CPUS: 4\s*$", out, re.M)
                 is not None,
                 f"crash sees the guest's 4 CPUs in the {fmt} vmcore")

# a guest that panicked can still be dumped, and crash sees the panic
script = os.path.join(os.path.dirname(__file__), "guest", "panic.sh")
panic_core = os.path.join(tmp, "panic.elf")
plines, error = ktvm.dump_guest(script, [(panic_core, "elf")], panic=True)
# the guest's scenario checks its log before the panic
tap.fold_guest("[x86_64 2x2 panic]", plines)
dumped = error is None
tap.ok(dumped, "a panicked guest is dumped through QMP",
       "\n".join([str(error)] + plines[-20:]))
if dumped:
    rc, out = ktvm.crash(vmlinux, panic_core, "sys", "bt", extend=False,
                         timeout=300)
    tap.ok_crash("own", re.search(r"PANIC: \"Kernel panic - not syncing: "
                                    "sysrq triggered crash", out) is not None,
                 "crash reads the panic message from the panicked guest's "
                 "dump", out[-2000:])
    tap.ok_crash("own", "sysrq_handle_crash" in out,
                 "crash's backtrace shows the panicking function",
                 out[-1500:])

subprocess.run(["rm", "-rf", tmp])
tap.done()
