#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Dumps as fleets capture them: kexec-tools, a capture kernel, makedumpfile.

Each scenario is one guest boot (kdump.py; guest/kdump-panic.sh names the
steps). The guest loads a crash kernel with Debian's kexec-tools in the
scenario's order, panics on a CPU of a replica node, and the capture
kernel writes /proc/vmcore with Debian's makedumpfile at -d 31 in every
format of the scenario. On each dump:
  - ktrepl-dump finds the descriptor (VMCOREINFO carries it only when the
    crash kernel was loaded after ktrepl.ko) and checks it is the live one;
  - verify catches the flipped replica byte and names it;
  - every CPU's root at the panic is recorded, the panicking CPU on its
    node's set;
  - crash> ktrepl, -v, -c and -p work on it: Debian's crash on x86_64,
    and on arm64 Debian's arm64 crash with every command, bt included.
A dump taken after ktrepl.ko was unloaded has, correctly, no descriptor,
though the VMCOREINFO copy kexec took while it was loaded still names it.

KTREPL_KDUMP_MATRIX=1 runs every format in every scenario on both arches
(the long tail). By default the kdump-tools order gets every container
(kdump-compressed, ELF, flattened; zlib pages are the unit tests') on
x86_64 and kdump-compressed on arm64, and the other orders one each.
"""
import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import kdump  # noqa: E402
import ktvm  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "guest", "kdump-panic.sh")
MATRIX = os.environ.get("KTREPL_KDUMP_MATRIX") == "1"
ALL = list(kdump.FORMATS)

# (arch, scenario, formats) - one guest boot each
RUNS = [
    ("x86_64", "kexec-first", ALL if MATRIX else ["lzo", "elf", "flat"]),
    ("x86_64", "insmod-first", ALL if MATRIX else ["lzo"]),
    ("x86_64", "unloaded", ALL if MATRIX else ["lzo"]),
    ("x86_64", "reloaded", ALL if MATRIX else ["elf"]),
    ("x86_64", "trap", ["lzo"]),
    ("arm64", "kexec-first", ALL if MATRIX else ["lzo"]),
    ("arm64", "trap", ["lzo"]),
]
if MATRIX:
    RUNS += [("arm64", s, ALL) for s in ("insmod-first", "unloaded",
                                         "reloaded")]
# the scenarios whose panic is an oops on the replica's own trap
TRAPPED = {"trap"}
# KTREPL_T14_ONLY=arm64:trap,x86_64:trap runs those runs alone (to work
# on one scenario); a pair that is no run is an error, not an empty plan
ONLY = [x for x in os.environ.get("KTREPL_T14_ONLY", "").split(",") if x]

tap = ktvm.Tap()
unknown = [x for x in ONLY if x not in {f"{a}:{s}" for a, s, _ in RUNS}]
if unknown:
    print(f"Bail out! KTREPL_T14_ONLY: no run {unknown} (runs: "
          f"{', '.join(f'{a}:{s}' for a, s, _ in RUNS)})", flush=True)
    sys.exit(2)
if ONLY:
    RUNS = [r for r in RUNS if f"{r[0]}:{r[1]}" in ONLY]
VMLINUX = ktvm.debug_vmlinux()
tmp = tempfile.mkdtemp(prefix="ktrepl-t14-", dir=ktvm.BUILD)


def dump_tool(*args):
    r = subprocess.run([ktvm.tool("ktrepl-dump"), *args],
                       capture_output=True, text=True, timeout=900)
    return r.returncode, r.stdout, r.stderr


class Live:
    """What the guest read from debugfs just before the panic, apart from
    the descriptor the dump carries: every CPU's loaded root (pgds), and
    the panicking shell's pid and the bindings it saw (mm)."""

    def __init__(self, lines):
        self.roots = {int(r["cpu"]): r["loaded_root_pa"] for r in
                      map(ktvm.kv, ktvm.records(lines, "pgds"))
                      if "loaded_root_pa" in r}
        shell = [ktvm.kv(r) for r in ktvm.records(lines, "panic_shell")]
        self.pid = shell[0].get("pid") if shell else None
        self.mm_pgd = next((b["mm_pgd_pa"] for b in
                            map(ktvm.kv, ktvm.records(lines, "bind_live"))
                            if b.get("pid") == self.pid), None)


def check_dump(arch, scenario, fmt, path, node, cpu, live):
    name = f"[{arch} {scenario} makedumpfile {' '.join(kdump.FORMATS[fmt])}" \
           f" -d {kdump.DUMP_LEVEL}]"
    sym_args = ["--vmlinux", VMLINUX] if arch == "x86_64" else []
    rc, out, err = dump_tool("-j", "--vmcore", path, "summary")
    summ = json.loads(out) if rc == 0 and out.startswith("{") else {}
    if scenario == "unloaded":
        # the copy kexec took named the descriptor, but the unload shrank
        # VMCOREINFO and the panic wrote CRASHTIME= over that line; a line
        # that survives is checked and passed over (unit tests)
        tap.ok(rc == 2 and "no ktrepl state in this dump" in out + err,
               f"{name} ktrepl was unloaded after the crash kernel was "
               "loaded: no descriptor is trusted, and summary says so "
               "(exit 2)", f"rc {rc}\n{out}{err}")
        return
    tap.ok(rc == 0 and summ.get("nodes"),
           f"{name} summary finds the descriptor", f"rc {rc}\n{err}")
    cpus = summ.get("cpus", [])
    at_panic = [c for c in cpus if c.get("root_at_panic")]
    tap.ok(len(cpus) == 4 and len(at_panic) == 4,
           f"{name} every CPU's root at the panic is recorded "
           f"({len(at_panic)} of {len(cpus)})", json.dumps(cpus))
    me = next((c for c in cpus if c["cpu"] == cpu), {})
    if arch == "arm64":
        # percpu: a CPU keeps its node's root, so the one it had loaded
        # just before the panic is the one the panic recorded
        got = {c["cpu"]: c.get("recorded_root_pa") for c in cpus}
        tap.ok(len(live.roots) == 4 and got == live.roots and
               got.get(cpu) != summ.get("master_root_pa"),
               f"{name} every CPU's recorded root is the one pgds showed "
               f"loaded before the panic, CPU {cpu}'s node {node}'s",
               f"got {got}\nwant {live.roots} (master "
               f"{summ.get('master_root_pa')})")
    else:
        # mm: the panicking shell was bound to its node's set, so its CPU
        # had that process's mm loaded, as the shell read it from bind
        tap.ok(live.mm_pgd is not None and
               me.get("recorded_root_pa") == live.mm_pgd,
               f"{name} the panicking CPU {cpu} ran the mm that bind showed "
               f"for the panicking shell (pid {live.pid}), bound to node "
               f"{node}'s set",
               f"got {json.dumps(me)}\nwant recorded_root_pa "
               f"{live.mm_pgd} (pid {live.pid})")
    rc, out, err = dump_tool("-j", "--vmcore", path, *sym_args, "verify")
    ver = json.loads(out) if out.startswith("{") else {}
    viol = ver.get("violations", [])
    flips = [v for v in viol if v.get("kind") != "cpu-root" and
             v.get("node") == node and v.get("check") == "bytes"]
    # x86_64 names it from the -dbg vmlinux; arm64, given no symbols,
    # from the dump's own kallsyms tables (Debian's arm64 System.map is a
    # placeholder)
    want_sym = "int_sqrt+0x4"
    tap.ok(rc == 1 and any(v.get("sym") == want_sym for v in flips),
           f"{name} verify exits 1 and finds the flipped byte on node "
           f"{node} ({want_sym})",
           f"rc {rc} {json.dumps(viol)[:1500]}\n{err}")
    tap.ok(not any(v.get("check") == "cpu-root" or
                   v.get("kind") == "cpu-root" for v in viol),
           f"{name} no CPU ran on tables no set owns at the panic",
           json.dumps(viol)[:1500])

def check_readers_agree(arch, scenario, path):
    """An ELF dump read directly (the default) and through libkdumpfile
    (KTREPL_DUMP_READER): the same verify, diff and bytes, byte for byte,
    over the edges of every PT_LOAD (where excluded pages begin)."""
    name = f"[{arch} {scenario} makedumpfile -E, direct reader]"
    sym_args = ["--vmlinux", VMLINUX] if arch == "x86_64" else []
    reads = []
    for t, _, pa, filesz, memsz in ktvm.elf_program_headers(path):
        if t != 1 or memsz < 64:
            continue
        reads.append([hex(pa), "64"])
        if filesz >= 8 and memsz >= filesz + 8:
            reads.append([hex(pa + filesz - 8), "4104"])
        reads.append([hex(pa + memsz - 16), "16"])
    runs = [["-j", "--vmcore", path, *sym_args, "verify"],
            ["-j", "--vmcore", path, *sym_args, "diff"]] + \
        [["-j", "--vmcore", path, "read", *r] for r in reads]
    differ = []
    for args in runs:
        direct = dump_tool(*args)
        env = dict(os.environ, KTREPL_DUMP_READER="libkdumpfile")
        r = subprocess.run([ktvm.tool("ktrepl-dump"), *args], env=env,
                           capture_output=True, text=True, timeout=900)
        lib = (r.returncode, r.stdout, r.stderr)
        if direct != lib:
            differ.append(f"{' '.join(args[3:])}: direct {direct[:2]} "
                          f"{direct[2][:300]}\nlibkdumpfile {lib[:2]} "
                          f"{lib[2][:300]}")
    tap.ok(len(reads) >= 3 and not differ,
           f"{name} verify, diff and {len(reads)} reads over the edges of "
           "every PT_LOAD: the same output from libkdumpfile "
           f"({len(differ)} of {len(runs)} differ, want 0)",
           "\n".join(differ)[:3000])


def fingerprint(path):
    st = os.stat(path)
    with open(path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    return (st.st_size, st.st_mtime_ns, digest)


def triage_want(scenario, node):
    """(verdict, reason, node) triage must write for a scenario's dump"""
    if scenario == "unloaded":
        return ("no_ktrepl", "no_descriptor", -1)
    if scenario in TRAPPED:
        return ("diverged", "panic_in_diverged_range", node)
    return ("not_diverged", "diverged_off_panic_path", node)


def check_triage(arch, scenario, fmt, path, node, cpu):
    """ktrepl-dump triage on a kdump-tools crash directory, as the boot
    after the panic runs it (debian/ktrepl-triage.service): the real dump
    as kdump-tools names it (a hard link, so a write would show), and for
    kexec-first a copy cut to 60% (a capture cut short). Each gets the
    right verdict beside it, the metrics are promtool-clean, and a second
    run changes nothing: not the dumps, not the verdicts."""
    name = f"[{arch} {scenario} triage, makedumpfile {' '.join(kdump.FORMATS[fmt])}]"
    failed_before = tap.failed
    crash = tempfile.mkdtemp(prefix=f"crash-{arch}-{scenario}-", dir=tmp)
    real = os.path.join(crash, "202612061200")
    os.makedirs(real)
    real_dump = os.path.join(real, "dump.202612061200")
    os.link(path, real_dump)
    dumps = {real: (real_dump,) + triage_want(scenario, node)}
    if scenario == "kexec-first":
        cut = os.path.join(crash, "202612061100")
        os.makedirs(cut)
        cut_dump = os.path.join(cut, "dump.202612061100")
        with open(path, "rb") as f, open(cut_dump, "wb") as g:
            g.write(f.read(os.path.getsize(path) * 6 // 10))
        # older than the real one: the metrics' "last" is the real dump
        st = os.stat(real_dump)
        os.utime(cut_dump, ns=(st.st_atime_ns, st.st_mtime_ns - 60 * 10**9))
        dumps[cut] = (cut_dump, "damaged", "unreadable", -1)
    before = {d: fingerprint(v[0]) for d, v in dumps.items()}
    prom = os.path.join(crash, "ktrepl-triage.prom")
    args = ["triage", "--crash-dir", crash, f"--prometheus={prom}"]
    want_rc = 1 if scenario in TRAPPED else 0
    rc, out, err = dump_tool(*args)
    tap.ok(rc == want_rc, f"{name} triage exits {want_rc}",
           f"got rc {rc}, want {want_rc}\n{out}{err}")
    verdicts = {}
    for d, (dump, verdict, reason, vnode) in dumps.items():
        vpath = os.path.join(d, "ktrepl-verdict.json")
        try:
            with open(vpath) as f:
                v = json.load(f)
        except (OSError, ValueError) as e:
            v = {"error": str(e)}
        verdicts[d] = v
        what = os.path.basename(dump)
        got = (v.get("verdict"), v.get("reason"), v.get("node"))
        want = (verdict, reason or got[1], vnode)
        tap.ok(got == want,
               f"{name} {what}: verdict {verdict}"
               + (f" ({reason})" if reason else "")
               + (f", node {vnode}" if vnode >= 0 else ""),
               f"got {got}\nwant {want}\n{json.dumps(v, indent=1)[:2500]}")
        if verdict == "damaged":
            tap.ok("cannot be read" in v.get("summary", ""),
                   f"{name} {what}: the verdict says the dump cannot be "
                   "read, and why", v.get("summary"))
            continue
        if verdict == "no_ktrepl":
            continue
        pan = v.get("panic", {})
        hits = [a for a in pan.get("addresses", [])
                if a.get("in_diverged_range")]
        if verdict == "diverged":
            ok = (pan.get("cpu") == cpu and
                  pan.get("registers_from") == "descriptor" and any(
                a.get("sym", "").startswith("write_sysrq_trigger") and
                a.get("range_sym", "").startswith("write_sysrq_trigger")
                for a in hits))
            tap.ok(ok, f"{name} {what}: the panic on cpu {cpu} trapped in "
                   "the diverged range at write_sysrq_trigger, by the "
                   "descriptor's panic site (no symbol needed)",
                   json.dumps(pan, indent=1)[:2500])
        else:
            flips = [x for x in v.get("verify", {}).get("first", [])
                     if x.get("sym") == "int_sqrt+0x4" and
                     x.get("node") == node]
            tap.ok(pan.get("cpu") == cpu and pan.get("registers") and
                   pan.get("registers_from") == "descriptor" and
                   not hits and flips,
                   f"{name} {what}: cpu {cpu}'s registers (the "
                   "descriptor's panic site) are on no diverged range, "
                   f"and verify names the flip on node {node} "
                   "(int_sqrt+0x4)",
                   json.dumps(v, indent=1)[:2500])
    with open(prom) as f:
        text = f.read()
    r = subprocess.run(["promtool", "check", "metrics"], input=text,
                       capture_output=True, text=True)
    last = dumps[real]
    want_line = (f'ktrepl_panic_last_diverged{{node="'
                 f'{last[3] if last[3] >= 0 else ""}",reason="{last[2]}",'
                 f'verdict="{last[1]}"}} {1 if last[1] == "diverged" else 0}')
    tap.ok(r.returncode == 0 and
           f"ktrepl_panic_dumps_total {len(dumps)}\n" in text and
           want_line + "\n" in text,
           f"{name} the metrics are promtool-clean, count {len(dumps)} "
           f"dump(s) and say of the newest: {want_line}",
           f"promtool rc {r.returncode}: {r.stdout}{r.stderr}\n{text}")
    rc2, out2, err2 = dump_tool(*args)
    again = {}
    for d in dumps:
        try:
            with open(os.path.join(d, "ktrepl-verdict.json")) as f:
                again[d] = json.load(f)
        except (OSError, ValueError) as e:
            again[d] = {"error": str(e)}
    after = {d: fingerprint(v[0]) for d, v in dumps.items()}
    tap.ok(rc2 == want_rc and again == verdicts and after == before and
           out2.count("already judged") == len(dumps),
           f"{name} a second run judges nothing again: same exit, same "
           "verdicts, and neither dump changed (size, mtime, sha256)",
           f"rc {rc2}\n{out2}{err2}\nverdicts same: {again == verdicts}"
           f"\ndumps same: {after == before}")
    if tap.failed > failed_before:
        tap.diag(f"{name} kept for a look: {crash}")
        return
    for d, v in dumps.items():
        os.unlink(v[0])
        os.unlink(os.path.join(d, "ktrepl-verdict.json"))
        os.rmdir(d)
    os.unlink(prom)
    os.rmdir(crash)


def check_boot_after(arch, scenario, fmt, disk, node, cpu, tools):
    """The boot after the panic judges its own dump: a second guest boot
    mounts the disk the capture kernel wrote and runs ktrepl-dump triage
    on it as debian/ktrepl-triage.service would (guest/triage-boot.sh).
    Its verdict is the one the host's triage wrote for the same dump."""
    name = f"[{arch} {scenario} boot after the panic]"
    mods = tempfile.mkdtemp(prefix=f"disk-mods-{arch}-", dir=tmp)
    which = os.path.join(mods, "triage-dump")
    with open(which, "w") as f:
        f.write(fmt + "\n")
    files = kdump.disk_modules(arch, mods)
    files["/etc/triage-dump"] = which
    lines = ktvm.run_guest(tap, arch, "2x2",
                           os.path.join(HERE, "guest", "triage-boot.sh"),
                           tools=tools, files=files, name=name,
                           extra_args=kdump.disk_args(arch, disk),
                           timeout=600)
    shutil.rmtree(mods)
    try:
        v = json.loads("\n".join(ktvm.records(lines, "verdict")))
    except ValueError as e:
        v = {"error": str(e)}
    verdict, reason, vnode = triage_want(scenario, node)
    pan = v.get("panic", {})
    got = (v.get("verdict"), v.get("reason"), v.get("node"), pan.get("cpu"))
    want = (verdict, reason, vnode, cpu)
    tap.ok(got == want,
           f"{name} the guest's triage: verdict {verdict} ({reason}), "
           f"node {vnode}, the panic on cpu {cpu}",
           f"got {got}\nwant {want}\n{json.dumps(v, indent=1)[:2500]}")
    prom = "\n".join(ktvm.records(lines, "prom")) + "\n"
    r = subprocess.run(["promtool", "check", "metrics"], input=prom,
                       capture_output=True, text=True)
    want_line = (f'ktrepl_panic_last_diverged{{node="{vnode}",'
                 f'reason="{reason}",verdict="{verdict}"}} '
                 f'{1 if verdict == "diverged" else 0}')
    tap.ok(r.returncode == 0 and "ktrepl_panic_dumps_total 1\n" in prom and
           want_line + "\n" in prom,
           f"{name} its metrics are promtool-clean and say {want_line}",
           f"promtool rc {r.returncode}: {r.stdout}{r.stderr}\n{prom}")


def verdict_re(scenario, node):
    """What -p must conclude: the trap scenarios panicked on the replica's
    own trap at write_sysrq_trigger, the others through sysrq's crash,
    which runs no byte the flip changed."""
    if scenario in TRAPPED:
        return (rf"^\s+[0-9a-f]{{16}} write_sysrq_trigger(\+0x0)?\s+IN A "
                rf"DIVERGED RANGE: write_sysrq_trigger\+0x[01] len \d+.*"
                rf"^verdict: the panic ran through 1 diverged range of node "
                rf"{node}'s replica: a replica divergence is the likely "
                rf"cause$")
    return (rf"verdict: not in a diverged range \(\d+ ranges? differs? on "
            rf"node {node}, none on the panic path\)")


def verdict_desc(scenario, node):
    if scenario in TRAPPED:
        return (f"the trap at write_sysrq_trigger on node {node} is named, "
                "and the verdict is a replica divergence")
    return f"the flip on node {node} is not on the panic path"


def check_crash(scenario, fmt, path, node, cpu):
    name = f"[x86_64 {scenario} makedumpfile {' '.join(kdump.FORMATS[fmt])}]"
    other = 1 - node
    commands = {"summary": "ktrepl", "verify": "ktrepl -v",
                "cpus": "ktrepl -c", "panic": "ktrepl -p",
                "diff": "ktrepl -d", "diff_node": f"ktrepl -d -n {node}",
                "diff_other": f"ktrepl -d -n {other}",
                "diff_none": "ktrepl -d -n 7"}
    rc, out, outs = ktvm.crash_session(VMLINUX, path, commands)
    tap.ok(rc == 0 and set(outs) == set(commands),
           f"{name} crash opens the dump and runs every command "
           f"(rc {rc}, got {sorted(outs)})", out[-3000:])
    summ = outs.get("summary", "")
    tap.ok("REGION" in summ and "master node" in summ,
           f"{name} crash> ktrepl finds the descriptor", summ[-2500:])
    ver = outs.get("verify", "")
    tap.ok(f"bytes: node {node} " in ver and "int_sqrt+0x4" in ver,
           f"{name} crash> ktrepl -v names the flip on node {node}",
           ver[-2500:])
    rows = re.findall(r"^(\d+) +(\d+) +(0x[0-9a-f]+) +(0x[0-9a-f]+) +(.*)$",
                      outs.get("cpus", ""), re.M)
    tap.ok(len(rows) == 4 and "only QEMU's ELF dumps" not in out,
           f"{name} crash> ktrepl -c lists every CPU's root at the panic",
           "\n".join(map(str, rows)) + outs.get("cpus", "")[-1500:])
    # -d on every replica node, and -n to one: the flip (and the trap) on
    # the panicking node, nothing on the other (the master's), none on a
    # node the dump lacks
    # x86_64's ud2 (0f 0b) over the ftrace NOP (0f 1f ...) differs in
    # its second byte only
    want = ["int_sqrt+0x4"] + (["write_sysrq_trigger+0x1"]
                               if scenario in TRAPPED else [])
    for tag, want_rows in (("diff", want), ("diff_node", want),
                           ("diff_other", [])):
        got = re.findall(r"^node (\d+) \S+ 0x[0-9a-f]+ len \d+ (\S+) \[",
                         outs.get(tag, ""), re.M)
        tap.ok(sorted(got) == sorted((str(node), w) for w in want_rows),
               f"{name} crash> {commands[tag]}: "
               f"{', '.join(want_rows) or 'no range'} on node "
               f"{node if want_rows else other}",
               f"got {got}\nwant {want_rows} on node {node}\n"
               f"{outs.get(tag, '')[-1500:]}")
    tap.ok("no node 7 in this dump" in outs.get("diff_none", ""),
           f"{name} crash> ktrepl -d -n 7: no node 7 in this dump",
           outs.get("diff_none", "")[-800:])
    pan = outs.get("panic", "")
    tap.ok_crash("tasks", re.search(rf"panic task \d+ \(\S+\) on cpu {cpu}, "
                                    rf"node {node}", pan) is not None,
                 f"{name} crash> ktrepl -p finds the panic on cpu {cpu}",
                 pan[-2500:])
    # the flip is in int_sqrt, which the sysrq panic never runs
    tap.ok_crash("tasks", re.search(verdict_re(scenario, node), pan,
                                    re.M | re.S) is not None,
                 f"{name} crash> ktrepl -p: {verdict_desc(scenario, node)}",
                 pan[-2500:])


def check_crash_arm64(scenario, fmt, path, node, cpu, live):
    """Debian's arm64 crash (under qemu-aarch64-static on an x86_64 host)
    on a kdump dump: the capture kernel's crash stop left every CPU online
    with its NT_PRSTATUS note, so crash has the panic task that QEMU's
    dumps of a plain panic lack (t12)."""
    name = f"[arm64 {scenario} makedumpfile {' '.join(kdump.FORMATS[fmt])}," \
           " Debian's arm64 crash]"
    argv, ext = ktvm.crash_argv("arm64")
    vmlinux = ktvm.crash_vmlinux("arm64")
    if argv is None or not os.path.exists(ext) or \
            not os.path.exists(vmlinux):
        tap.skip(f"{name} crash> ktrepl", f"no arm64 crash or extension or "
                 f"-dbg vmlinux ({ext}, {vmlinux}): make check-deps "
                 "crash-ext-arm64")
        return
    commands = {"sys": "sys", "bt": "bt", "summary": "ktrepl",
                "verify": "ktrepl -v", "cpus": "ktrepl -c",
                "diff": "ktrepl -d", "vtop": "ktrepl -t int_sqrt",
                "panic": "ktrepl -p"}
    rc, out, outs = ktvm.crash_session(vmlinux, path, commands, arch="arm64")
    tap.ok(rc == 0 and set(outs) == set(commands),
           f"{name} crash opens the dump and runs every command "
           f"(rc {rc}, got {sorted(outs)})", out[-3000:])
    # crash's own panic task, as its sys names it: Debian's arm64 crash
    # 8.0.2 finds none for an oops that kdump caught in die() (PANIC: "",
    # the shell not in its task table), only for a panic() (sysrq c)
    crash_panic = re.search(r"^\s+PID: \d+", outs.get("sys", ""), re.M)
    no_task = (f"Debian's arm64 crash names no panic task in this dump (its "
               f"sys: PANIC: {'' if crash_panic else 'empty, no PID'}), "
               "for an oops that kdump caught in die()")
    if not crash_panic and scenario in TRAPPED:
        tap.skip(f"{name} bt: crash has the panic task, the shell", no_task)
    else:
        tap.ok(re.search(r'COMMAND: "sh"', outs.get("bt", "")),
               f"{name} bt: crash has the panic task, the shell",
               outs.get("bt", "") + outs.get("sys", ""))
    tap.ok("activation percpu" in outs.get("summary", ""),
           f"{name} crash> ktrepl: activation percpu",
           outs.get("summary", ""))
    tap.ok(re.search(rf"bytes: node {node} 0x[0-9a-f]+ len [14] "
                     r"int_sqrt\+0x4 ", outs.get("verify", "")),
           f"{name} crash> ktrepl -v names the flip on node {node}",
           outs.get("verify", ""))
    rows = re.findall(r"^(\d+)\s+(\d+)\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s",
                      outs.get("cpus", ""), re.M)
    got = {int(r[0]): r[2] for r in rows}
    tap.ok(len(rows) == 4 and got == live.roots,
           f"{name} crash> ktrepl -c: every CPU's root at the panic is the "
           "one pgds showed loaded before it",
           f"got {got}\nwant {live.roots}\n{outs.get('cpus', '')}")
    # the flip, and the trap's brk over write_sysrq_trigger's first
    # instruction where there is one: exactly those ranges
    want = [(str(node), "int_sqrt+0x4")] + (
        [(str(node), "write_sysrq_trigger+0x0")] if scenario in TRAPPED
        else [])
    got = re.findall(r"^node (\d+) \w+ 0x[0-9a-f]+ len \d+ (\S+) \[",
                     outs.get("diff", ""), re.M)
    tap.ok(sorted(got) == sorted(want),
           f"{name} crash> ktrepl -d: "
           f"{' and '.join(w for _, w in want)} on node {node}",
           f"got {got}\nwant {want}\n{outs.get('diff', '')}")
    leaves = re.findall(r"^node (\d+) 0x[0-9a-f]+-0x[0-9a-f]+\s+\S+\s+\w+"
                        r"\s+\S+\s+pa (0x[0-9a-f]+)\s+node (\d+)$",
                        outs.get("vtop", ""), re.M)
    tap.ok(len(leaves) == 2 and all(n == pn for n, _, pn in leaves),
           f"{name} crash> ktrepl -t int_sqrt: each node's tables reach its "
           "own copy", f"got {leaves}\n{outs.get('vtop', '')}")
    pan = outs.get("panic", "")
    # crash's own task where it gives the extension one (tt->panic_task,
    # even when its sys prints no PID: a panic() through sysrq c)
    task = re.search(rf"^panic task {live.pid} \(sh\) on cpu {cpu}, "
                     rf"node {node}", pan, re.M)
    if crash_panic or task:
        who = task
        whence = "crash's panic task, the shell"
    else:
        # crash names no task: -p takes the kernel's panic_cpu and the
        # registers that CPU saved in its crash note, whose pid must be
        # the one the shell printed before it panicked
        who = re.search(rf"^panic on cpu {cpu}, node {node}, pid "
                        rf"{live.pid} \(crash names no panic task: the cpu "
                        "is the kernel's panic_cpu", pan, re.M)
        whence = (f"{no_task}: the kernel's panic_cpu, and pid {live.pid} "
                  "from that CPU's crash note")
    tap.ok(live.pid is not None and who and
           re.search(verdict_re(scenario, node), pan, re.M | re.S),
           f"{name} crash> ktrepl -p: the panic on cpu {cpu} ({whence}), "
           f"and {verdict_desc(scenario, node)}",
           f"want cpu {cpu}, node {node}, pid {live.pid}\n{pan}")


def descriptor_offset(path):
    """File offset of the descriptor in an ELF dump: the magic at the
    start of a physical page (the module's own copy of the string is not
    page-aligned), found by hand, independent of the tools under test."""
    magic = b"KTREPL-VMCORE-D\0"
    segs = [s for s in ktvm.elf_segments(path) if s[0] == 1]
    with open(path, "rb") as f:
        data = f.read()
    at = data.find(magic)
    while at >= 0:
        for _, off, paddr, filesz in segs:
            if off <= at < off + filesz and (paddr + at - off) % 4096 == 0:
                return at
        at = data.find(magic, at + 1)
    return None


def check_read_excluded(path):
    """read across the end of a segment's file data, into pages the
    filter left out (p_memsz past p_filesz): the zeros are named."""
    name = "[x86_64 kexec-first makedumpfile -E, read into filtered pages]"
    edge = next((pa + filesz for t, _, pa, filesz, memsz in
                 ktvm.elf_program_headers(path)
                 if t == 1 and filesz >= 8 and memsz >= filesz + 8), None)
    if not tap.ok(edge is not None, f"{name} the dump has a segment with "
                  "filtered pages at its end (p_memsz past p_filesz)"):
        return
    rc, out, err = dump_tool("-j", "--vmcore", path, "read", hex(edge - 8),
                             "16")
    rec = json.loads(out) if rc == 0 and out.startswith("{") else {}
    tap.ok(rec.get("not_in_dump") == [{"pa": hex(edge), "len": 8}] and
           rec.get("bytes", "").endswith("0" * 16),
           f"{name} -j read {edge - 8:#x} 16: the last 8 bytes read as zeros "
           "and are named not_in_dump",
           f"rc {rc} got {out}{err}, want not_in_dump "
           f"[{{pa: {edge:#x}, len: 8}}]")
    rc, out, err = dump_tool("--vmcore", path, "read", hex(edge - 8), "16")
    tap.ok(rc == 0 and f"physical {edge:#x}-{edge + 8:#x} is not in this "
           "dump" in err,
           f"{name} read warns that {edge:#x}-{edge + 8:#x} is not in the "
           "dump", f"rc {rc}\n{out}{err}")


def check_damaged(path):
    """A descriptor whose fixed part changed after the module sealed it
    (memory reused, or damaged) is not trusted, and the tool says why."""
    name = "[x86_64 kexec-first makedumpfile -E, descriptor damaged]"
    at = descriptor_offset(path)
    if not tap.ok(at is not None, f"{name} the descriptor is in the dump"):
        return
    bad = path + ".damaged"
    with open(path, "rb") as f, open(bad, "wb") as g:
        data = bytearray(f.read())
        nodes_off, = struct.unpack_from("<I", data, at + 136)
        data[at + nodes_off + 4] ^= 0x40    # node 0's memory_nid
        g.write(data)
    rc, out, err = dump_tool("--vmcore", bad, "summary")
    os.unlink(bad)
    tap.ok(rc == 2 and "checksum does not match" in err and
           "passed over" in err,
           f"{name} summary exits 2: the damaged descriptor is passed over, "
           "its checksum named", f"rc {rc}\n{out}{err}")


for arch, scenario, formats in RUNS:
    why = kdump.missing(arch)
    if why:
        tap.skip(f"[{arch} {scenario}] kdump", why)
        continue
    outdir = os.path.join(tmp, f"{arch}-{scenario}")
    os.makedirs(outdir, exist_ok=True)
    conf = os.path.join(outdir, "scenario")
    with open(conf, "w") as f:
        f.write(scenario + "\n")
    tools = ([ktvm.tool("ktrepl-dump")] if arch == "x86_64"
             else ktvm.arm64_tools())
    cap = kdump.kdump_guest(arch, "2x2", SCRIPT, formats, outdir,
                            tools=tools,
                            files={"/etc/kdump-scenario": conf},
                            timeout=1500, keep_disk=scenario in TRAPPED)
    name = f"[{arch} {scenario}]"
    folded = tap.fold_guest(f"{name} guest", cap.first)
    tap.ok(folded > 0 and cap.error is None and
           any("KDUMP-CAPTURE-DONE" in x for x in cap.capture),
           f"{name} the guest panicked and the capture kernel ran",
           "\n".join([str(cap.error)] + cap.lines[-40:]))
    m = next((re.search(r"KDUMP-PANIC cpu=(\d+) node=(\d+)", x)
              for x in cap.first if "KDUMP-PANIC" in x), None)
    cpu, node = (int(m.group(1)), int(m.group(2))) if m else (-1, -1)
    live = Live(cap.first)
    for fmt in formats:
        saved = cap.saved.get(fmt)
        tap.diag(f"{name} {fmt}: makedumpfile rc, seconds, bytes = {saved}")
        if not tap.ok(fmt in cap.dumps,
                      f"{name} makedumpfile {' '.join(kdump.FORMATS[fmt])} "
                      f"-d {kdump.DUMP_LEVEL} wrote a dump",
                      "\n".join(x for x in cap.capture
                                if "makedumpfile" in x or "KDUMP" in x)):
            continue
        check_dump(arch, scenario, fmt, cap.dumps[fmt], node, cpu, live)
        if fmt == formats[0]:
            check_triage(arch, scenario, fmt, cap.dumps[fmt], node, cpu)
        if arch == "x86_64" and scenario != "unloaded" and \
                fmt in ("lzo", "elf"):
            check_crash(scenario, fmt, cap.dumps[fmt], node, cpu)
        if arch == "arm64" and scenario in ("kexec-first", "trap") and \
                fmt == "lzo":
            check_crash_arm64(scenario, fmt, cap.dumps[fmt], node, cpu,
                              live)
        if fmt == "elf" and scenario != "unloaded":
            check_readers_agree(arch, scenario, cap.dumps[fmt])
        if (arch, scenario, fmt) == ("x86_64", "kexec-first", "elf"):
            check_damaged(cap.dumps[fmt])
            check_read_excluded(cap.dumps[fmt])
        os.unlink(cap.dumps[fmt])
    if cap.disk:
        if cap.saved.get(formats[0], (1,))[0] == 0:
            check_boot_after(arch, scenario, formats[0], cap.disk, node, cpu,
                             tools)
        os.unlink(cap.disk)
tap.done()
