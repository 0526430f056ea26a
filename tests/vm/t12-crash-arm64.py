#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""crash> ktrepl on an arm64 dump, in Debian's arm64 crash (under
qemu-aarch64-static on an x86_64 host, natively on arm64): one 2x2
percpu guest whose replica node has a flipped byte (int_sqrt+0x10) and
a trap (write_sysrq_trigger), panicked through the trap by a shell on
that node's CPU, one QEMU ELF dump, and one crash session with every
command.

Debian's crash 8.0.2 may find no panic task in these dumps, ELF or
kdump-compressed: panic()'s smp_send_stop() took the other CPUs offline
(a kdump kernel's crash stop does not), so crash gives the first
NT_PRSTATUS note (CPU 0's) to the one online CPU and cannot unwind it
("cpu N: cannot find NT_PRSTATUS note"), and it puts none of a 6.1
kernel's tasks in its table but those running. ktrepl -p then names the
kernel's own panic_cpu; with no kdump kernel, no CPU saved its trap
registers in a crash note, so its verdict is "unknown", and says why.
t14's arm64 trap scenario, a kdump dump, judges the positive verdict."""
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
import ktvm  # noqa: E402

HERE = os.path.dirname(__file__)
ARCH = "arm64"
tap = ktvm.Tap()

argv, ext = ktvm.crash_argv(ARCH)
if argv is None:
    tap.skip_all(ext)
VMLINUX = ktvm.crash_vmlinux(ARCH)
if not os.path.exists(VMLINUX):
    tap.skip_all(f"no arm64 -dbg vmlinux {VMLINUX} (make check-deps "
                 "extracts it from linux-image-"
                 f"{ktvm.kernel_release(ARCH)}-dbg)")
if ktvm.kernel_profile().get("CRASH_LIMITS"):
    tap.skip_all(f"the {ktvm.KERNEL} profile's crash cannot read its "
                 "dumps as they come (CRASH_LIMITS); this covers the 6.1 "
                 "series")
for path, why in ((ext, "make crash-ext-arm64"),
                  (ktvm.ktrepl_ko(ARCH, test=True), "make kernel-arm64-test")):
    if not os.path.exists(path):
        tap.ok(False, f"{path} is built", f"run {why}")
        tap.done()

tmp = tempfile.mkdtemp(prefix="ktrepl-t12-", dir=ktvm.BUILD)
core = os.path.join(tmp, "arm64.elf")
lines, error = ktvm.dump_guest(
    os.path.join(HERE, "guest", "crash-arm64-panic.sh"),
    [(core, "elf")], panic=True, arch=ARCH, timeout=400)
# the guest's scenario checks its log before the panic step
tap.fold_guest("[arm64 2x2]", lines)
console = "\n".join(lines)
rep = next((int(m.group(1)) for m in (re.match(r"REPLICA-NODE (\d+)", x)
                                      for x in lines) if m), None)
syms = {m.group(1): int(m.group(2), 16) for m in
        (re.match(r"SYM (\w+) ([0-9a-f]+)$", x) for x in lines) if m}
isqrt = syms.get("int_sqrt")
trap_va = syms.get("write_sysrq_trigger")
tap.ok(error is None and rep is not None and isqrt and trap_va,
       f"the guest reached its panic and the ELF dump was written "
       f"(replica node {rep}, {syms})",
       f"{error}\n" + "\n".join(lines[-40:]))
if error or rep is None or not isqrt or not trap_va:
    tap.done()
# 2x2: node n has CPUs 2n and 2n+1 (ktvm.Guest numbers them in order)
rep_cpus = {2 * rep, 2 * rep + 1}
m = re.search(r"CPU: (\d+) PID: \d+ Comm: (\S+)", console)
tap.ok(m and int(m.group(1)) in rep_cpus and m.group(2) == "sh"
       and "BRK" in console and "write_sysrq_trigger" in console,
       f"the shell hit the trap in node {rep}'s replica on a node-{rep} CPU "
       f"and the box panicked (want cpu in {sorted(rep_cpus)}, sh; got "
       f"{m and m.groups()})", console[-3000:])

# the -dbg vmlinux is the dumped kernel's: crash would be misled otherwise
with open(core, "rb") as f:
    head = f.read(1 << 20)
m = re.search(rb"BUILD-ID=([0-9a-f]+)", head)
dump_id = m.group(1).decode() if m else None
notes = subprocess.run(["readelf", "-n", VMLINUX], capture_output=True,
                       text=True).stdout
m = re.search(r"Build ID: ([0-9a-f]+)", notes)
file_id = m.group(1) if m else None
tap.ok(dump_id and dump_id == file_id,
       "the dump's VMCOREINFO BUILD-ID is the -dbg vmlinux's",
       f"got {dump_id}, want {file_id}")

# one session, every command, each output after its marker
COMMANDS = {"sys": "sys", "bt": "bt", "summary": "ktrepl",
            "verify": "ktrepl -v", "cpus": "ktrepl -c", "diff": "ktrepl -d",
            "vtop": "ktrepl -t int_sqrt", "panic": "ktrepl -p"}
t0 = time.monotonic()
rc, out, outs = ktvm.crash_session(VMLINUX, core, COMMANDS, arch=ARCH)
took = time.monotonic() - t0
tap.diag(f"crash session ({' '.join(argv[:1])}, {len(COMMANDS)} commands): "
         f"{took:.0f} s")
tap.ok(rc == 0 and set(outs) == set(COMMANDS) and
       "shared object loaded" in out,
       "Debian's arm64 crash opens the dump, loads the arm64 extension and "
       f"runs every command (rc {rc}, got {sorted(outs)})", out[-3000:])
sysout = outs.get("sys", "")
tap.ok(re.search(r"RELEASE: " + re.escape(ktvm.kernel_release(ARCH)), sysout)
       and re.search(r"^\s*CPUS: 4(\s|$)", sysout, re.M) and
       "PANIC:" in sysout, "sys: the arm64 release, 4 CPUs, the panic",
       sysout)
# crash's own panic task (sys names it), which bt and ktrepl -p use
crash_panic = re.search(r"^\s+PID: \d+", sysout, re.M)
NO_PANIC_TASK = ("crash 8.0.2 found no panic task in this dump (its sys "
                 "names none: the NT_PRSTATUS notes of the CPUs panic() "
                 "took offline)")
bt = outs.get("bt", "")
if crash_panic:
    tap.ok(re.search(r'COMMAND: "sh"', bt) and "write_sysrq_trigger" in bt,
           "bt: the panic task is the shell, through write_sysrq_trigger",
           bt)
else:
    tap.skip("bt: the panic task is the shell", NO_PANIC_TASK)

summ = outs.get("summary", "")
tap.ok("arch arm64" in summ and "activation percpu" in summ and
       re.search(rf"^{rep}\s+{rep}\s+replica\s+{min(rep_cpus)}-"
                 rf"{max(rep_cpus)}\s+0x[0-9a-f]+", summ, re.M),
       f"ktrepl: arm64, activation percpu, node {rep} a replica with CPUs "
       f"{min(rep_cpus)}-{max(rep_cpus)}", summ)

# the flip and the trap, by address and by crash's symbol names (arm64
# reports the whole instruction a changed byte is in)
flip = rf"bytes: node {rep} {isqrt + 0x10:#x} len [14] int_sqrt\+0x10 "
trap = rf"bytes: node {rep} {trap_va:#x} len [1-4] write_sysrq_trigger\+0x0 "
ver = outs.get("verify", "")
got = [x for x in ver.splitlines() if x.startswith("bytes:")]
tap.ok(re.search(flip, ver) and re.search(trap, ver) and
       "verify: DIVERGED: 2 violations" in ver,
       f"ktrepl -v: exactly the flip (int_sqrt+0x10) and the trap "
       f"(write_sysrq_trigger+0x0) on node {rep}, named with crash's "
       "symbols",
       f"got {got}\nwant /{flip}/ and /{trap}/, 2 violations\n{ver}")

cpus = outs.get("cpus", "")
rows = re.findall(r"^(\d+)\s+(\d+)\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+(.*)$",
                  cpus, re.M)
# the roots each CPU had loaded just before the panic, as pgds showed
# them live: an oracle apart from the descriptor that -c reads
live = {int(r["cpu"]): r.get("loaded_root_pa") for r in
        map(ktvm.kv, ktvm.records(lines, "pgds"))}
want = {c: (str(c // 2), live.get(c), "its node's (node)" if c in rep_cpus
            else "its node's (master)") for c in range(4)}
gotc = {int(r[0]): (r[1], r[2], r[4]) for r in rows}
tap.ok(len(live) == 4 and gotc == want,
       "ktrepl -c: every CPU's recorded root is the one pgds showed loaded "
       "before the panic, its node's", f"got {gotc}\nwant {want}\n{cpus}")

diff = outs.get("diff", "")
ranges = re.findall(r"^node (\d+) (\w+) (0x[0-9a-f]+) len (\d+) (\S+) \[",
                    diff, re.M)
gotd = sorted((int(n), int(va, 16), sym) for n, _, va, _, sym in ranges)
wantd = sorted([(rep, isqrt + 0x10, "int_sqrt+0x10"),
                (rep, trap_va, "write_sysrq_trigger+0x0")])
tap.ok(gotd == wantd,
       f"ktrepl -d: two ranges on node {rep}, int_sqrt+0x10 and "
       "write_sysrq_trigger+0x0", f"got {gotd}\nwant {wantd}\n{diff}")

vtop = outs.get("vtop", "")
leaves = re.findall(r"^node (\d+) 0x[0-9a-f]+-0x[0-9a-f]+\s+\S+\s+\w+\s+\S+"
                    r"\s+pa (0x[0-9a-f]+)\s+node (\d+)$", vtop, re.M)
tap.ok(len(leaves) == 2 and all(n == pn for n, _, pn in leaves) and
       len({pa for _, pa, _ in leaves}) == 2,
       "ktrepl -t int_sqrt: each node's own tables reach its own copy",
       f"got {leaves}\n{vtop}")

pan = outs.get("panic", "")
verdict = (f"verdict: the panic ran through 1 diverged range of node {rep}'s "
           "replica: a replica divergence is the likely cause")
# the branch is the extension's own: crash may name no panic task in sys
# and still give the extension one (tt->panic_task), whose stack it then
# cannot unwind to the trapping frame
m = re.search(r"panic task \d+ \((\S+)\) on cpu (\d+), node (\d+)", pan)
hit = re.search(rf"^\s+{trap_va:016x} write_sysrq_trigger(\+0x0)?\s+"
                "IN A DIVERGED RANGE", pan, re.M)
if not m:
    # no task from crash: -p names the kernel's panic_cpu, and with no
    # kdump kernel no CPU saved its registers, so the verdict is unknown
    # and says why (t14's trap scenario has them, and judges the verdict)
    p = re.search(r"^panic on cpu (\d+), node (\d+) \(crash names no "
                  r"panic task: the cpu is the kernel's panic_cpu\)", pan,
                  re.M)
    tap.ok(p and int(p.group(1)) in rep_cpus and int(p.group(2)) == rep,
           f"ktrepl -p, where crash names no panic task: the kernel's "
           f"panic_cpu, a node-{rep} CPU", f"got {p and p.groups()}\n{pan}")
    tap.ok(re.search(r"^verdict: unknown: no CPU saved its registers \(no "
                     r"kdump kernel took this dump", pan, re.M),
           "ktrepl -p: the verdict is unknown, for want of the CPU's "
           "registers (a QEMU dump, no crash notes)", pan)
else:
    tap.ok(m.group(1) == "sh" and
           int(m.group(2)) in rep_cpus and int(m.group(3)) == rep,
           f"ktrepl -p: the panic task, the shell, on a node-{rep} CPU",
           f"got {m.groups()}\n{pan}")
    if not hit and not crash_panic:
        tap.skip("ktrepl -p: the exception PC in the trap's diverged range",
                 "crash 8.0.2 names no panic task in sys and its backtrace "
                 "of this QEMU dump does not reach the trapping frame, and "
                 "no crash note holds it (no kdump kernel); t14's trap "
                 "scenario judges -p's verdict from the crash note")
    else:
        tap.ok(hit and verdict in pan,
               "ktrepl -p: the exception PC is write_sysrq_trigger, in the "
               "trap's diverged range: a replica divergence is the likely "
               "cause", f"want /{verdict}/ and write_sysrq_trigger's PC in a "
               f"diverged range\n{pan}")

if tap.failed == 0:
    os.unlink(core)
    os.rmdir(tmp)
tap.done()
