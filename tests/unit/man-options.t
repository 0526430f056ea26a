#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Every long option a tool's --help lists is in its man page
(docs/man/TOOL.8), and every option the man page gives an entry of its own
(.B or .BI --name at the start of a line) is in --help: a new option can
not ship undocumented, nor a dropped one stay documented."""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(HERE, ".."))
from ktrepl_tap import Tap  # noqa: E402

OUT = os.path.join(TOP, "build", "tools")
TOOLS = {
    "ktrepl-dump": os.environ.get("KTREPL_DUMP",
                                  os.path.join(OUT, "ktrepl-dump",
                                               "ktrepl-dump")),
    "ktrepl-top": os.environ.get("KTREPL_TOP",
                                 os.path.join(OUT, "ktrepl-top",
                                              "ktrepl-top")),
    "ktrepl-bench": os.environ.get("KTREPL_BENCH",
                                   os.path.join(OUT, "ktrepl-bench",
                                                "ktrepl-bench")),
}


def help_options(tool):
    r = subprocess.run([tool, "--help"], capture_output=True, text=True,
                       timeout=30)
    return set(re.findall(r"(?<![\w-])--([a-z][a-z0-9-]*)", r.stdout)), r


def man_options(path):
    # the font changes (\fB, \fR) and escaped hyphens of roff, out
    text = re.sub(r"\\f[BIRP]", "", open(path).read()).replace("\\-", "-")
    every = set(re.findall(r"(?<![\w-])--([a-z][a-z0-9-]*)", text))
    entries = set(re.findall(r"^\.(?:B|BI|BR)\s+(?:-\w,?\s+)?--([a-z][a-z0-9-]*)",
                             text, re.M))
    entries |= set(re.findall(r'^\.(?:BR|BI)\s+-\w\s+",\s+"\s+--([a-z][a-z0-9-]*)',
                              text, re.M))
    return every, entries


tap = Tap()
tap.plan(2 * len(TOOLS))
for name, tool in TOOLS.items():
    man = os.path.join(TOP, "docs", "man", f"{name}.8")
    if not os.access(tool, os.X_OK):
        tap.ok(False, f"{name}: built ({tool})")
        tap.ok(False, f"{name}: man page entries")
        continue
    helped, r = help_options(tool)
    every, entries = man_options(man)
    missing = sorted(helped - every)
    tap.ok(r.returncode == 0 and helped and not missing,
           f"{name}: each of the {len(helped)} long options of --help is in "
           f"{name}.8",
           f"got: not in the man page: {missing} (--help exit "
           f"{r.returncode})")
    stale = sorted(entries - helped)
    tap.ok(not stale,
           f"{name}: each of the {len(entries)} options {name}.8 has an "
           "entry for is in --help",
           f"got: documented, but not in --help: {stale}")
sys.exit(0 if tap.failed == 0 else 1)
