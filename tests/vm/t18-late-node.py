#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A node onlined after ktrepl.ko loaded is never given another node's set.

One x86_64 guest, "2x2+late": nodes 0 and 1 with CPUs and memory, node 2
with neither, so offline at boot. guest/late-node.sh loads ktrepl.ko
(activation=mm), then asks for a DIMM on node 2 (KTREPL-HOTPLUG): the
host adds one through QMP (ACPI memory hotplug, onlined at once by
memhp_default_state=online) and sends "go". The guest then asserts that
node 2 is published as role=late, memory_node=-1, on the master's root,
that bind_ctl refuses it, that ktrepl-dump shows it and verify is
healthy; and that a reload gives node 2 a replica of its own."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import ktvm  # noqa: E402

HERE = os.path.dirname(__file__)
tap = ktvm.Tap()


def main():
    if not ktvm.arch_selected("x86_64"):
        tap.skip_all("x86_64 guests not selected (KTREPL_GUEST_ARCHES)")
    initrd = os.path.join(ktvm.BUILD, f"initrd-late-{os.getpid()}.gz")
    ktvm.build_initramfs("x86_64",
                         os.path.join(HERE, "guest", "late-node.sh"),
                         initrd, tools=[ktvm.tool("ktrepl-dump")])
    name = "[x86_64 2x2+late]"
    try:
        with ktvm.Guest("x86_64", "2x2+late", initrd,
                        cmdline="memhp_default_state=online",
                        timeout=300) as g:
            try:
                at, _ = g.wait_for(r"^KTREPL-HOTPLUG$")
                g.hotplug_dimm()
                g.send("go\n")
                rc, lines = g.run_to_end()
                folded = tap.fold_guest(name, lines)
                tap.ok(rc == 0 and folded > 0,
                       f"{name} guest script passed ({folded} guest checks)",
                       "\n".join(lines[-30:]))
            except (TimeoutError, RuntimeError) as e:
                tap.ok(False, f"{name} guest script finished",
                       "\n".join([str(e)] + g.lines[-40:]))
    finally:
        os.unlink(initrd)
    tap.done()


main()
