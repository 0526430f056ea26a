#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Safe on a production host (issue 26), on both arches:

- fail-safe (guest/module-failsafe.sh): each kind of missed write the
  test build can force takes everyone off the node tables, the replicas
  are recopied and checked, and activation resumes only then (a missed
  table update leaves replication off); verify reports it once;
- kernel lockdown raised at run time after load (guest/lockdown.sh):
  under integrity every live command works and a flip is caught; under
  confidentiality the kcore tools exit 2 naming lockdown."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import ktvm  # noqa: E402

HERE = os.path.dirname(__file__)
tap = ktvm.Tap()
x86_tools = [ktvm.tool("ktrepl-dump"), ktvm.tool("ktrepl-top")]
for script, what in (("module-failsafe.sh", "fail-safe"),
                     ("lockdown.sh", "lockdown")):
    path = os.path.join(HERE, "guest", script)
    ktvm.run_guest(tap, "x86_64", "2x2", path, tools=x86_tools,
                   name=f"[x86_64 2x2 {what}]")
    ktvm.run_guest(tap, "arm64", "2x2", path, tools=ktvm.arm64_tools(),
                   name=f"[arm64 2x2 {what}]", timeout=900)
tap.done()
