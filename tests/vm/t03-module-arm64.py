#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ktrepl.ko in real arm64 guests: the basics (module-arm64.sh), module
replication, and activation=percpu on every topology and with KPTI. The
x86_64 half is t03-module.py."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import ktvm  # noqa: E402
from module_replication import module_replication  # noqa: E402

HERE = os.path.dirname(__file__)
tap = ktvm.Tap()
ktvm.run_guest(tap, "arm64", "2x2",
               os.path.join(HERE, "guest", "module-arm64.sh"),
               tools=ktvm.arm64_tools(), name="[arm64 2x2]", timeout=400)

module_replication(tap, "arm64", None)


# arm64 activation=percpu: the full run on 2x2 (storm, freshness, cycles),
# the basics on the other topologies and with KPTI forced on
def percpu_script(full):
    path = os.path.join(ktvm.BUILD, f"percpu-{os.getpid()}.sh")
    with open(os.path.join(HERE, "guest", "module-percpu.sh")) as src:
        text = src.read()
    # t06 runs the 60 s storm, with verifies during it, on its own boot
    storm_s = int(os.environ.get("KTREPL_STORM_SECONDS", "20"))
    cycles = int(os.environ.get("KTREPL_PERCPU_CYCLES", "10"))
    with open(path, "w") as dst:
        dst.write(text.replace("FULL=${FULL:-0}", f"FULL={int(full)}")
                  .replace("STORM_S=${STORM_S:-20}", f"STORM_S={storm_s}")
                  .replace("CYCLES=${CYCLES:-10}", f"CYCLES={cycles}"))
    return path


def arm64_modules():
    """zram and what it needs, and dummy; those the kernel builds in
    (6.12: zsmalloc, lzo) are left out."""
    base = ktvm.module_dir("arm64")
    mods = {"zsmalloc": "mm", "lzo": "crypto", "lzo-rle": "crypto",
            "zram": "drivers/block/zram", "dummy": "drivers/net"}
    paths = {f"/lib/modules/{m}.ko":
             ktvm.kernel_module(base, f"kernel/{d}/{m}.ko")
             for m, d in mods.items()}
    return {d: p for d, p in paths.items() if os.path.exists(p)}


for topo, cmdline, full in (("2x2", "", True), ("4x1", "", False),
                            ("2x2+memless", "", False),
                            ("2x2", "kpti=1", False)):
    script = percpu_script(full)
    name = f"[arm64 {topo}{' ' + cmdline if cmdline else ''} percpu]"
    lines = ktvm.run_guest(tap, "arm64", topo, script,
                           tools=ktvm.arm64_tools(), name=name,
                           files=arm64_modules(),
                           # the full run's control and module storms share
                           # one boot, so one set of thresholds
                           cmdline=f"{cmdline} {ktvm.EMULATION}" if full
                           else cmdline,
                           timeout=900 if full else 400)
    os.unlink(script)
    for r in ktvm.records(lines, "control") + ktvm.records(lines, "storm"):
        tap.diag(f"{name} {r}")
    summ = [ktvm.kv(r) for r in ktvm.records(lines, "summary")]
    if summ:
        tap.diag(f"{name} switch cost {summ[0].get('switch_ns')} ns, "
                 f"{summ[0].get('donated_pages')} table pages donated")
    if cmdline == "kpti=1":
        kpti = ktvm.records(lines, "kpti")
        tap.ok(any("forced ON by kpti command line" in x for x in kpti),
               f"{name} the guest really runs with KPTI", f"{kpti}")
tap.done()
