#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Kernel lockdown, raised at run time after ktrepl.ko is loaded, on both
arches (guest/lockdown.sh has the steps): under integrity every live
command of ktrepl-dump and ktrepl-top works as without it and a flipped
byte is caught; under confidentiality the tools that need /proc/kcore
exit 2 naming kernel lockdown."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import ktvm  # noqa: E402

HERE = os.path.dirname(__file__)
tap = ktvm.Tap()
script = os.path.join(HERE, "guest", "lockdown.sh")
ktvm.run_guest(tap, "x86_64", "2x2", script,
               tools=[ktvm.tool("ktrepl-dump"), ktvm.tool("ktrepl-top")],
               name="[x86_64 2x2 lockdown]")
ktvm.run_guest(tap, "arm64", "2x2", script, tools=ktvm.arm64_tools(),
               name="[arm64 2x2 lockdown]", timeout=600)
tap.done()
