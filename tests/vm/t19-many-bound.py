#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""No silent cap on bound processes (issue 39).

One x86_64 2x2 guest (activation=mm): guest/many-bound.sh confines 650
processes to a replica node and checks that the live bind file lists
every one. The host dumps the guest through QMP meanwhile, and
ktrepl-dump --vmcore reads the descriptor: 256 listed (its slots), the
rest counted in bound_omitted, so that listed + omitted covers all 650,
and the plain summary says how many it left out."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import ktvm  # noqa: E402

HERE = os.path.dirname(__file__)
N = 650
SLOTS = 256
tap = ktvm.Tap()


def main():
    if not ktvm.arch_selected("x86_64"):
        tap.skip_all("x86_64 guests not selected (KTREPL_GUEST_ARCHES)")
    tmp = tempfile.mkdtemp(prefix="ktrepl-t19-", dir=ktvm.BUILD)
    initrd = os.path.join(tmp, "initrd.gz")
    ktvm.build_initramfs("x86_64",
                         os.path.join(HERE, "guest", "many-bound.sh"),
                         initrd, tools=[ktvm.tool("ktrepl-dump")])
    name = "[x86_64 2x2 many bound]"
    core = os.path.join(tmp, "vmcore.elf")
    dumped = False
    try:
        with ktvm.Guest("x86_64", "2x2", initrd, timeout=400) as g:
            try:
                at, _ = g.wait_for(r"^KTREPL-DUMP many$")
                g.dump(core)
                dumped = True
                g.qmp(("cont", {}))
                g.send("go\n")
                rc, lines = g.run_to_end()
                folded = tap.fold_guest(name, lines)
                tap.ok(rc == 0 and folded > 0,
                       f"{name} guest script passed ({folded} guest checks)",
                       "\n".join(lines[-30:]))
            except (TimeoutError, RuntimeError) as e:
                tap.ok(False, f"{name} guest script finished",
                       "\n".join([str(e)] + g.lines[-40:]))
        if dumped:
            check_dump(name, core)
        else:
            tap.ok(False, f"{name} a dump was taken while {N} were bound")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    tap.done()


def check_dump(name, core):
    dump = ktvm.tool("ktrepl-dump")
    r = subprocess.run([dump, "-j", "--vmcore", core, "summary"],
                       capture_output=True, text=True, timeout=300)
    try:
        st = json.loads(r.stdout)
    except ValueError:
        st = {}
    listed = len(st.get("bound", []))
    omitted = st.get("bound_omitted", 0)
    tap.ok(r.returncode == 0 and listed == SLOTS,
           f"{name} the dump's descriptor lists {SLOTS} bound processes, "
           "its slots", f"got exit {r.returncode}, {listed} listed\n"
           f"{r.stderr[-400:]}")
    tap.ok(listed + omitted >= N,
           f"{name} and counts the rest: listed + bound_omitted >= {N}",
           f"got {listed} + {omitted}")
    r = subprocess.run([dump, "--vmcore", core, "summary"],
                       capture_output=True, text=True, timeout=300)
    want = f"(bound processes listed: {listed} of {listed + omitted}; "
    tap.ok(r.returncode == 0 and want in r.stdout,
           f"{name} the plain summary says how many it left out",
           f"want {want!r}, got exit {r.returncode}:\n{r.stdout[-600:]}")


main()
