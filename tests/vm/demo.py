#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Boot a 2-node guest and show ktrepl's view of it on the terminal."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import ktvm  # noqa: E402

script = os.path.join(os.path.dirname(__file__), "guest", "demo.sh")
initrd = os.path.join(ktvm.BUILD, "demo-initrd.gz")
ktvm.build_initramfs("x86_64", script, initrd,
                     tools=[ktvm.tool("ktrepl-dump")])
print("Booting a 2-node x86_64 guest (QEMU/TCG)...", flush=True)
with ktvm.Guest("x86_64", "2x2", initrd, timeout=180) as g:
    rc, lines = g.run_to_end()
for line in lines:
    if not line.startswith("[") and not line.startswith("1.."):
        print(line)
sys.exit(rc)
