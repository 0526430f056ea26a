#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make demo: a 2-node guest and ktrepl's view of it, then a panic caused
by a replica-only divergence, dumped and explained by crash> ktrepl -p;
then an arm64 guest with every CPU on its node's replica."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import ktvm  # noqa: E402

HERE = os.path.dirname(__file__)
DUMP = ktvm.tool("ktrepl-dump")
TOP = ktvm.tool("ktrepl-top")
initrd = os.path.join(ktvm.BUILD, "demo-initrd.gz")
ktvm.build_initramfs("x86_64", os.path.join(HERE, "guest", "demo.sh"), initrd,
                     tools=[DUMP, TOP])
print("Booting a 2-node x86_64 guest (QEMU/TCG)...", flush=True)
with ktvm.Guest("x86_64", "2x2", initrd, timeout=300) as g:
    rc, lines = g.run_to_end()
for line in lines:
    if not line.startswith("[") and not line.startswith("1.."):
        print(line)
if rc:
    sys.exit(rc)

print("\n### a panic: node 0's replica of int_sqrt gets a trap that the "
      "master does not have,\n### and node 0's worker runs into it",
      flush=True)
tmp = tempfile.mkdtemp(prefix="ktrepl-demo-", dir=ktvm.BUILD)
core = os.path.join(tmp, "vmcore")
plines, error = ktvm.dump_guest(os.path.join(HERE, "guest", "dump-panic.sh"),
                                [(core, "elf")], panic=True, tools=[DUMP])
if error:
    sys.exit(f"demo: the panic guest failed: {error}")
print(plines[-1].split("] ", 1)[-1])
ext = ktvm.CRASH_EXT
print(f"\n$ crash -s vmlinux vmcore\ncrash> extend {ext}\ncrash> ktrepl -p",
      flush=True)
r = subprocess.run(["crash", "-s", ktvm.debug_vmlinux(), core],
                   input=f"extend {ext}\nktrepl -p\nquit\n",
                   capture_output=True, text=True, timeout=600)
print("\n".join(x for x in r.stdout.splitlines()
                if not x.startswith(ext) and "WARNING" not in x).strip())
subprocess.run(["rm", "-rf", tmp])

print("\n### arm64: every CPU runs on its node's replica (activation=percpu)",
      flush=True)
tools = ktvm.arm64_tools()
if not tools:
    sys.exit("demo: the arm64 tools are not built (make tools-arm64)")
initrd = os.path.join(ktvm.BUILD, "demo-arm64-initrd.gz")
ktvm.build_initramfs("arm64", os.path.join(HERE, "guest", "demo-arm64.sh"),
                     initrd, tools=tools)
print("Booting a 2-node arm64 guest (QEMU/TCG, about a minute)...",
      flush=True)
with ktvm.Guest("arm64", "2x2", initrd, timeout=600) as g:
    rc, lines = g.run_to_end()
for line in lines:
    if not line.startswith("[") and not line.startswith("1.."):
        print(line)
sys.exit(rc)
