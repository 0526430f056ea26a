#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A server's worth of modules (issue 26): at least 400 real modules of
the cloud kernel loaded after ktrepl.ko, in dependency order, on the
suite's kernel (KTREPL_MANY_MODULES_KERNELS="6.1 6.12" for both series;
on 6.4+ a module is two regions, text and rodata). Live: summary,
verify and walk --region module:NAME work and a flip in the last
module's replica is caught and named (guest/many-modules.sh); then on a
vmcore of the same guest: summary lists every module, walk finds the
last one, and verify reports exactly the flip and no stale-table."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import ktvm  # noqa: E402

HERE = os.path.dirname(__file__)
tap = ktvm.Tap()
DUMP = ktvm.tool("ktrepl-dump")
WANT = int(os.environ.get("KTREPL_MANY_MODULES", "400"))
def run(kernel):
    moddir = ktvm.module_dir("x86_64", kernel)
    tmp = tempfile.mkdtemp(prefix="ktrepl-t11-", dir=ktvm.BUILD)
    files, candidates = ktvm.many_modules(moddir, tmp)
    rel = ktvm.kernel_release("x86_64", kernel)
    name = f"[x86_64 2x2 {rel} {WANT} modules]"
    tap.diag(f"{name} {candidates} candidate modules in dependency order")
    core = os.path.join(tmp, "vmcore.elf")
    script = os.path.join(tmp, "many-modules.sh")
    with open(os.path.join(HERE, "guest", "many-modules.sh")) as src, \
            open(script, "w") as dst:
        dst.write(src.read().replace("WANT=${WANT:-400}", f"WANT={WANT}"))
    # the scenario's log is hundreds of lines past the boot's
    lines, error = ktvm.dump_guest(script, [(core, "elf")], tools=[DUMP],
                                   files=files, kernel=kernel, timeout=1500,
                                   cmdline="log_buf_len=4M")
    if error:
        tap.ok(False, f"{name} guest reached the dump point",
               "\n".join([error] + lines[-40:]))
        return
    tap.fold_guest(name, lines)
    last = next((x.split()[1] for x in lines
                 if x.startswith("LAST-MODULE ")), None)
    sym = next((x.split()[1] for x in lines if x.startswith("FLIP-SYM ")
                and len(x.split()) > 1), None)
    rep = next((x.split()[1] for x in lines
                if x.startswith("REPLICA-NODE ")), None)

    def dump(*args):
        r = subprocess.run([DUMP, "--vmcore", core, *args],
                           capture_output=True, text=True, timeout=600)
        return r.returncode, r.stdout, r.stderr

    rc, out, err = dump("-j", "summary")
    try:
        summ = json.loads(out)
    except ValueError:
        summ = {}
    mods = [r for r in summ.get("regions", [])
            if r.get("region", "").startswith("module:") and
            not r["region"].endswith("/rodata")]
    tap.ok(rc == 0 and len(mods) >= WANT,
           f"{name} vmcore: summary lists every replicated module",
           f"got exit {rc} and {len(mods)} modules, want exit 0 and >= "
           f"{WANT}\n{err[-800:]}")
    rc, out, err = dump("walk", "--node", str(rep), "--region",
                        f"module:{last}")
    tap.ok(rc == 0 and out.strip(),
           f"{name} vmcore: walk --region module:{last} finds it",
           f"got exit {rc}: {(out + err)[-800:]}")
    rc, out, err = dump("-j", "verify")
    try:
        v = json.loads(out)
    except ValueError:
        v = {"violations": []}
    kinds = [x["check"] for x in v.get("violations", [])]
    flip = [x for x in v.get("violations", []) if x["check"] == "bytes"]
    tap.ok(rc == 1 and kinds.count("bytes") == 1 and
           "stale-table" not in kinds,
           f"{name} vmcore: verify reports exactly the flip, no stale-table",
           f"got exit {rc}, kinds {sorted(set(kinds))} "
           f"({len(kinds)}), want exit 1 and one bytes\n{err[-800:]}")
    tap.ok(flip and (f"[{last}]" in flip[0].get("sym", "") or
                     flip[0].get("region") == f"module:{last}"),
           f"{name} vmcore: the flip is placed in module {last} ({sym})",
           f"got {flip[:1]}")
    for f in os.listdir(tmp):
        os.unlink(os.path.join(tmp, f))
    os.rmdir(tmp)


for k in os.environ.get("KTREPL_MANY_MODULES_KERNELS",
                        os.environ.get("KTREPL_KERNEL", "6.1")).split():
    run(k)
tap.done()
