#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Safe on a production host (issue 26), on both arches:

- fail-safe (guest/module-failsafe.sh): each kind of missed write the
  test build can force takes everyone off the node tables, the replicas
  are recopied and checked, every node table entry is rebuilt from the
  master's where it differs (a missed table update), and activation
  resumes only then; verify reports it once;
- kernel lockdown raised at run time after load (guest/lockdown.sh):
  under integrity every live command works and a flip is caught; under
  confidentiality the kcore tools exit 2 naming lockdown;
- the table mirror (guest/mirror-pool.sh): a fork storm, at a memory
  cgroup's limit too, exhausts none of its kretprobes' instances even
  with fewer than the CPUs, and ftrace's trampoline next to the
  replicated modules is mirrored into the node's tables (x86_64)."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import ktvm  # noqa: E402

HERE = os.path.dirname(__file__)
tap = ktvm.Tap()
x86_tools = [ktvm.tool("ktrepl-dump"), ktvm.tool("ktrepl-top")]
for script, what in (("module-failsafe.sh", "fail-safe"),
                     ("lockdown.sh", "lockdown"),
                     ("mirror-pool.sh", "mirror pool")):
    path = os.path.join(HERE, "guest", script)
    ktvm.run_guest(tap, "x86_64", "2x2", path,
                   tools=x86_tools + [ktvm.helper("x86_64", "seccomp_storm")],
                   name=f"[x86_64 2x2 {what}]")
    ktvm.run_guest(tap, "arm64", "2x2", path,
                   tools=ktvm.arm64_tools() + [ktvm.helper("arm64",
                                                           "seccomp_storm")],
                   name=f"[arm64 2x2 {what}]", timeout=900)

# after a panic: the vmcore's descriptor says the host was in fail-safe
tmp = tempfile.mkdtemp(prefix="ktrepl-t10-", dir=ktvm.BUILD)
script = ktvm.script_with("module-failsafe.sh",
                          (("DUMP=${DUMP:-0}", "DUMP=1"),))
core = os.path.join(tmp, "vmcore.elf")
lines, error = ktvm.dump_guest(script, [(core, "elf")], tools=x86_tools,
                               timeout=400)
name = "[x86_64 2x2 fail-safe vmcore]"
if error:
    tap.ok(False, f"{name} guest reached the dump point",
           "\n".join([error] + lines[-30:]))
else:
    tap.fold_guest(name, lines)
    r = subprocess.run([ktvm.tool("ktrepl-dump"), "--vmcore", core, "-j",
                        "verify"], capture_output=True, text=True,
                       timeout=300)
    try:
        viol = json.loads(r.stdout).get("violations", [])
    except ValueError:
        viol = []
    fs = [v for v in viol if v.get("check") == "failsafe"]
    tap.ok(r.returncode == 1 and len(fs) == 1 and fs[0].get("active") and
           fs[0].get("reason") == "patch_missed" and fs[0].get("events", 0) >= 2,
           f"{name} verify on the dump reports the host in fail-safe "
           "(patch_missed, 2 events: recurring's give-up)",
           f"got exit {r.returncode}, {fs or viol[:3]}\n{r.stderr[-600:]}")
    r = subprocess.run([ktvm.tool("ktrepl-dump"), "--vmcore", core,
                        "summary"], capture_output=True, text=True,
                       timeout=300)
    tap.ok(r.returncode == 0 and "activation inactive" in r.stdout,
           f"{name} summary on the dump: activation inactive",
           f"got exit {r.returncode}:\n{r.stdout[:600]}{r.stderr[-400:]}")
for f in os.listdir(tmp):
    os.unlink(os.path.join(tmp, f))
os.rmdir(tmp)
tap.done()
