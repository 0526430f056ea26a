#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The engine's layers only call down (kernel/replica/LAYERS): every name
that a file of kernel/replica uses and another defines is defined in the
same layer or a lower one, save the trip and the debts LAYERS lists; each
debt still runs up (a paid one must leave the list); and every .c file
has a layer."""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPLICA = os.path.join(HERE, "..", "..", "kernel", "replica")
sys.path.insert(0, os.path.join(HERE, ".."))
from ktrepl_tap import Tap  # noqa: E402

TRIP = {"ktr_failsafe_trip", "ktr_failsafe_trip_on_growth"}


def read_layers(path):
    layers, debts = {}, set()
    for line in open(path):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.match(r"debt (\S+) -> (\S+): (\w+)$", line)
        if m:
            debts.add(m.groups())
            continue
        name, layer = line.split()
        layers[name] = int(layer)
    return layers, debts


def strip_comments(src):
    src = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)
    src = re.sub(r"//[^\n]*", " ", src)
    return re.sub(r'"(\\.|[^"\\])*"', '""', src)


# a definition with external linkage at column 0: a function (its body
# follows) or an object with an initializer or none; static ones are the
# file's own
DEF_FN = re.compile(r"^(?!static\b|#|typedef\b)[A-Za-z_][\w \t\*]*?\b(\w+)\([^;]*?\)\s*\{",
                    re.M | re.S)
DEF_OBJ = re.compile(r"^(?!static\b|extern\b|#|typedef\b)(?:const\s+)?(?:struct\s+)?\w[\w \t\*]*?\b(\w+)(?:\[[^\]]*\])?\s*(?:=|;)",
                     re.M)


def definitions(src):
    names = set(DEF_FN.findall(src))
    for n in DEF_OBJ.findall(src):
        if n.startswith("ktr"):
            names.add(n)
    return {n for n in names if n.startswith("ktr")}


def main():
    tap = Tap()
    layers, debts = read_layers(os.path.join(REPLICA, "LAYERS"))
    files = sorted(f for f in os.listdir(REPLICA) if f.endswith(".c"))
    tap.plan(3)
    unlayered = [f for f in files if f not in layers]
    gone = [f for f in layers if f not in files]
    tap.ok(not unlayered and not gone,
           "every .c file of kernel/replica has a layer in LAYERS",
           f"got: without a layer {unlayered}, listed but absent {gone}")
    srcs = {f: strip_comments(open(os.path.join(REPLICA, f)).read())
            for f in files}
    owner = {}
    for f, src in srcs.items():
        for n in definitions(src):
            owner.setdefault(n, f)
    up = set()
    for f, src in srcs.items():
        for n in set(re.findall(r"\b(ktr\w*)\b", src)):
            o = owner.get(n)
            if o and o != f and n not in TRIP and \
                    layers.get(f, 99) < layers.get(o, -1):
                up.add((f, o, n))
    new = sorted(up - debts)
    tap.ok(not new, "nothing calls up a layer but the trip and the debts",
           "got, a name used a layer below its definition (FROM -> TO: "
           "NAME, layers):\n" + "\n".join(
               f"  {a} -> {b}: {n} (L{layers[a]} -> L{layers[b]})"
               for a, b, n in new) + "\nwant: none (or a debt line in "
           "LAYERS that says why)")
    paid = sorted(debts - up)
    tap.ok(not paid, f"each of the {len(debts)} debts still runs up",
           "got, debts that no longer run up (remove them from LAYERS):\n"
           + "\n".join(f"  {a} -> {b}: {n}" for a, b, n in paid))
    print(f"# {len(up)} up-calls, {len(up & debts)} of them debts; "
          f"{len(owner)} names defined across {len(files)} files")
    sys.exit(0 if tap.failed == 0 else 1)


main()
