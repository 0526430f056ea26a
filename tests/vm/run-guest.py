#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run one guest script in one guest, as the tNN files do, and print its
TAP: for writing and debugging a scenario without its whole test file.

  tests/vm/run-guest.py [--arch A] [--topo T] [--cpu C] [--kernel K]
                        [--timeout S] [--console] SCRIPT

SCRIPT is a path or a name under tests/vm/guest/. The guest gets the
tools for its arch and the shipped and test builds of ktrepl.ko, as in
make check (build them first: make kernel kernel-test tools). Exit 0
when the script passed. Boots a guest: take the guest lock (flock
/work/guest.lock) where others share the machine."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import ktvm  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", default="x86_64", choices=("x86_64", "arm64"))
    ap.add_argument("--topo", default="2x2")
    ap.add_argument("--cpu")
    ap.add_argument("--kernel", help="a profile of scripts/kernels")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--modules", action="store_true",
                    help="add the Debian modules module-mods.sh loads")
    ap.add_argument("--file", action="append", default=[],
                    metavar="GUEST=HOST", help="a file for the guest")
    ap.add_argument("--tool", action="append", default=[], metavar="HOST",
                    help="one more program for the guest's PATH (a helper "
                    "of build/helpers/ARCH, say)")
    ap.add_argument("--cmdline", default="", help="more kernel options")
    ap.add_argument("--console", action="store_true",
                    help="print the guest's whole console at the end")
    ap.add_argument("script")
    args = ap.parse_args()
    script = args.script
    if not os.path.exists(script):
        script = os.path.join(os.path.dirname(__file__), "guest", script)
    tools = [ktvm.tool("ktrepl-dump"), ktvm.tool("ktrepl-top")] \
        if args.arch == "x86_64" else ktvm.arm64_tools()
    tools += args.tool
    files = ktvm.fs_modules(args.arch, args.kernel) if args.modules else {}
    files.update(f.split("=", 1) for f in args.file)
    tap = ktvm.Tap()
    lines = ktvm.run_guest(tap, args.arch, args.topo, script, tools=tools,
                           files=files, kernel=args.kernel, cpu=args.cpu,
                           cmdline=args.cmdline, timeout=args.timeout)
    if args.console:
        print("\n".join(f"# console: {x}" for x in lines))
    tap.done()


if __name__ == "__main__":
    main()
