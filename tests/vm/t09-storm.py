#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The unfiltered function tracer toggled (about 35k sites a round) while
ktrepl's workers run on their node's tables, x86_64 2x2.

Purpose: every patch of the storm reaches every replica, the workers keep
running on their node's roots through it, and the module adds no stall
the emulator does not have on its own.

Steps:
  1. control: the same storm without ktrepl.ko, timed;
  2. module: ktrepl.ko activation=workload, workers started, the same
     storm, the same rounds;
  3. the host compares: patches, replicas, workers, and stalls (each kind
     no more often than in the control; a control that cannot finish
     its rounds fails the test, which then judges nothing).

Both guests boot with the same emulation thresholds (ktvm.EMULATION):
under TCG on a busy host one round of 35k text pokes can take longer than
a real machine's soft-lockup threshold, so the thresholds are sized for
emulation, identically for the control and the module run.

This runs in run-all.sh's second phase, with the machine to itself."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
import ktvm  # noqa: E402

HERE = os.path.dirname(__file__)
tap = ktvm.Tap()
dump_tool = ktvm.tool("ktrepl-dump")


def storm_script(mode, rounds):
    path = os.path.join(ktvm.BUILD, f"storm-{mode}-{os.getpid()}.sh")
    with open(os.path.join(HERE, "guest", "module-storm.sh")) as src:
        text = src.read()
    with open(path, "w") as dst:
        dst.write(text.replace("MODE=${MODE:-module}", f"MODE={mode}")
                  .replace("ROUNDS=${ROUNDS:-5}", f"ROUNDS={rounds}"))
    return path


def run_storm(mode, rounds, timeout):
    script = storm_script(mode, rounds)
    name = ("[x86_64 2x2 storm control, no module]" if mode == "control"
            else "[x86_64 2x2 storm with workers]")
    lines = ktvm.run_guest(tap, "x86_64", "2x2", script, tools=[dump_tool],
                           name=name, timeout=timeout,
                           cmdline=ktvm.EMULATION)
    os.unlink(script)
    done = [ktvm.kv(r) for r in ktvm.records(lines, "round")]
    return lines, len(done), int(done[-1]["seconds"]) if done else None, \
        stall_lines(lines)


# What a kernel prints when it stalls, at loglevel 4 and above (so on the
# console ktvm boots with): RCU's "detected stall(s)" / "detected
# expedited stalls", the watchdog's soft lockup, khungtaskd's "blocked
# for more than N seconds". Read from the console itself, never from
# what the guest script gathers at its end: a run that stalls for good
# never gets there, and must not pass for having reported nothing.
STALL_KINDS = (
    ("soft lockup", re.compile(r"BUG: soft lockup")),
    ("hung task", re.compile(r"INFO: task .* blocked for more than \d+ seconds")),
    ("rcu stall", re.compile(r"rcu: INFO: .*detected.*stall")),
)


def stall_lines(lines):
    return [line for line in lines if not line.startswith("@@") and
            any(rx.search(line) for _, rx in STALL_KINDS)]


def stall_kinds(stalls):
    """The stall reports by kind: what a kernel reports, counted."""
    kinds = {kind: 0 for kind, _ in STALL_KINDS}
    for line in stalls:
        kinds[next(k for k, rx in STALL_KINDS if rx.search(line))] += 1
    return kinds


# one number of rounds for both runs: the module is judged against what
# the emulator does with the same storm, never against a shorter one
rounds = int(os.environ.get("KTREPL_STORM_ROUNDS", "5"))
_, done, control_s, control_stalls = run_storm("control", rounds, 600)
tap.diag(f"control: {done} of {rounds} rounds in {control_s} s, "
         f"{len(control_stalls)} stall lines")
if not tap.ok(done == rounds, f"the control run finished its {rounds} "
              "rounds (else the emulator alone cannot take this storm, and "
              "nothing could be credited to the module)",
              f"got {done}, want {rounds}"):
    tap.done()

lines, done, module_s, module_stalls = run_storm("module", rounds, 600)
tap.diag(f"with ktrepl and its workers: {done} of {rounds} rounds in "
         f"{module_s} s (control {control_s} s)")
tap.ok(done == rounds, f"the module run finished its {rounds} rounds",
       f"got {done}, want {rounds}")
got, base = stall_kinds(module_stalls), stall_kinds(control_stalls)
tap.ok(all(got[k] <= base[k] for k in got),
       "the module adds no RCU stall, soft lockup or hung task to the "
       "control's, kind by kind, over the same rounds",
       f"got with module {got}, want at most the control's {base}:\n" +
       "\n".join(module_stalls[:20]))
before = {t["pid"]: t for t in map(ktvm.kv, ktvm.records(lines, "before"))}
after = {t["pid"]: t for t in map(ktvm.kv, ktvm.records(lines, "after"))}
tap.ok(len(after) == 2 and all(
    t["probe"] == "1024" and t["root_pa"] == t["expected_root_pa"] and
    int(t["iterations"]) > int(before.get(pid, {}).get("iterations", "0"))
    for pid, t in after.items()),
    "after the storm every worker still computes 1024 on its node's root "
    "and kept running through it", f"before {before}\nafter {after}")
pt = [ktvm.kv(r) for r in ktvm.records(lines, "patches")]
tap.ok(pt and pt[0]["missed"] == "0" and int(pt[0]["patches"]) > 30000 * rounds,
       "every patch of the storm reached every replica",
       f"got {pt}, want missed=0 and patches > {30000 * rounds}")
tap.diag(f"patch hook: {ktvm.records(lines, 'kprobe')}")
tap.done()
