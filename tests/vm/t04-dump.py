#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ktrepl-dump: live checks in a guest, the same answers from its vmcore,
walks that agree with the kernel's own tables, and the bad-input table."""
import glob
import json
import random
import os
import re
import shutil
import struct
import subprocess
import time
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import ktvm  # noqa: E402

HERE = os.path.dirname(__file__)
tap = ktvm.Tap()
DUMP = ktvm.tool("ktrepl-dump")
VMLINUX = ktvm.debug_vmlinux()


def run(*args, env=None):
    r = subprocess.run([DUMP, *args], capture_output=True, text=True,
                       env=env, timeout=600)
    return r.returncode, r.stdout, r.stderr


def mapping_key(m):
    return (m["va"], m["size"], m["pa"], m["flags"])


tmp = tempfile.mkdtemp(prefix="ktrepl-t04-", dir=ktvm.BUILD)
elf_core = os.path.join(tmp, "vmcore.elf")
kdump_core = os.path.join(tmp, "vmcore.kdump")
flat_core = os.path.join(tmp, "vmcore.flat")
lines, error = ktvm.dump_guest(os.path.join(HERE, "guest", "dump-live.sh"),
                               [(elf_core, "elf"), (kdump_core, "kdump-zlib"),
                                (flat_core, "kdump-zlib-flat")],
                               tools=[DUMP], timeout=400)
if error:
    tap.ok(False, "guest reached the dump point",
           "\n".join([error] + lines[-40:]))
    tap.done()
tap.fold_guest("[x86_64 2x2]", lines)

summ = [ktvm.kv(r) for r in ktvm.records(lines, "summary")]


def summary_fields():
    """summary's header keys in order, from kernel/include/ktrepl_summary.h
    (the enum gives the order, the table each name), read by hand."""
    with open(os.path.join(ktvm.ROOT, "kernel", "include",
                           "ktrepl_summary.h")) as f:
        text = f.read()
    enum = re.search(r"enum ktrepl_summary_field \{(.*?)\};", text, re.S)
    order = re.findall(r"(KTREPL_S_\w+),", enum.group(1)) if enum else []
    names = dict(re.findall(r"\[(KTREPL_S_\w+)\] = \{\s*\"(\w+)\"", text))
    return [names.get(e) for e in order]


header = next((r for r in ktvm.records(lines, "summary")
               if r.startswith("abi=")), "")
got = [kv.split("=", 1)[0] for kv in header.split()]
want = summary_fields()
tap.ok(got == want and len(want) > 30,
       f"summary's header line is ktrepl_summary.h's {len(want)} fields, in "
       "order", f"got {got}\nwant {want}")
rep = next(int(m.group(1)) for m in (re.match(r"REPLICA-NODE (\d+)", x)
                                      for x in lines) if m)
edges = next(x.split()[1:] for x in lines if x.startswith("EDGES "))
ts, te, rs, re_ = (int(v, 16) for v in edges)

# walk against the kernel's own answer (pgtables/nodeN), every mapping
for node in sorted({int(s["node"]) for s in summ if "node" in s and
                    "role" in s}):
    pgt, bad = ktvm.walk_disagreements(lines, node)
    tap.ok(pgt and not bad, f"walk of node {node} agrees with the kernel's "
           f"pgtables/node{node} on all {len(pgt)} mappings", bad[:5])

live = json.loads("".join(ktvm.records(lines, "verify")))
viol = [v for v in live["violations"] if v["check"] == "bytes"]
tap.ok(len(viol) == 5 and live["violation_count"] == 5,
       f"live verify reports exactly the 5 injected flips "
       f"({live['violation_count']})", json.dumps(live)[:2000])
by_va = {int(v["va"], 16): v for v in viol}
for what, va in (("first byte of text", ts), ("last byte of text", te - 1),
                 ("first byte of rodata", rs),
                 ("last byte of rodata", re_ - 1)):
    v = by_va.get(va)
    tap.ok(v is not None and v["node"] == rep and v["len"] == 1 and
           not v["sym"].startswith("0x"),
           f"verify names the {what}: node {rep} {hex(va)} "
           f"{v['sym'] if v else '-'}")
vr = [v for v in viol if v["sym"] == "vfs_read+0x3"]
tap.ok(len(vr) == 1 and vr[0]["node"] == rep,
       "verify names vfs_read+0x3 on the replica node")
text = ktvm.records(lines, "verify_text")
tap.ok(any(f"bytes: node {rep} " in x and "vfs_read+0x3" in x for x in text)
       and any("DIVERGED: 5 violations" in x for x in text),
       "plain output has one line per violation and a summary")
taplines = ktvm.records(lines, "tap")
tap.ok(any(x.startswith("not ok 1 - bytes (5 violations)") for x in taplines)
       and any(x.startswith("ok 2 - locality") for x in taplines),
       "--tap reports the bytes check failing and the rest passing")

# the vmcore gives the same answers as the live kernel
for fmt, core in (("ELF", elf_core), ("kdump", kdump_core),
                  ("flattened kdump, read natively", flat_core)):
    rc, out, err = run("-j", "--vmcore", core, "--vmlinux", VMLINUX,
                       "verify")
    ok = rc == 1
    off = json.loads(out) if out.startswith("{") else {}
    tap.ok(ok and off.get("violation_count") == 5,
           f"vmcore ({fmt}) verify exits 1 with the same 5 violations",
           out[:1500] + err)
    key = lambda v: (v["check"], v["node"], v["va"], v["len"], v["master"],
                     v["replica"], v["kind"])
    tap.ok(sorted(map(key, off.get("violations", []))) ==
           sorted(map(key, live["violations"])),
           f"vmcore ({fmt}) violations equal the live ones byte for byte")
    # several names share an address (_text, _stext); functions must agree
    tap.ok(any(v.get("sym") == "vfs_read+0x3"
               for v in off.get("violations", [])),
           f"vmcore ({fmt}) names vfs_read+0x3 from the vmlinux's symbols")
    rc, out, err = run("-j", "--vmcore", core, "walk", "--node", str(rep))
    lw = json.loads("".join(ktvm.records(lines, "live_walk")))["mappings"]
    vw = json.loads(out)["mappings"] if rc == 0 else []
    tap.ok(rc == 0 and list(map(mapping_key, vw)) ==
           list(map(mapping_key, lw)),
           f"vmcore ({fmt}) walk of node {rep} equals the live walk "
           f"({len(vw)} mappings)", err)

# the master's text against the vmlinux file: boot and runtime patching
# (alternatives, retpolines, ftrace, static calls, KASLR relocations) is
# told apart from anything else
# what the kernel patches depends on its series: paravirt sites became
# alternatives in 6.8, sealed ENDBRs and runtime constants are 6.2 and
# 6.11; 6.9 strips .rela.text (relocations are inferred by value)
SECTIONS = subprocess.run(["readelf", "-SW", VMLINUX], capture_output=True,
                          text=True).stdout
WANT_KINDS = {"kaslr": 100, "ftrace": 100, "return_thunk": 100,
              "alternative": 100, "static_call": 100}
for kind, section, least in (("paravirt", " .parainstructions ", 100),
                             ("endbr_seal", " .ibt_endbr_seal ", 100),
                             ("runtime_const", " runtime_ptr_", 10)):
    if section in SECTIONS:
        WANT_KINDS[kind] = least
vd = {}
for fmt, core in (("ELF", elf_core), ("kdump", kdump_core),
                  ("flattened", flat_core)):
    rc, out, err = run("-j", "--vmcore", core, "--vmlinux", VMLINUX, "diff",
                       "--against-vmlinux")
    vd[fmt] = json.loads(out) if out.startswith("{") else {}
    k = vd[fmt].get("kinds", {})
    tap.ok(rc == 0 and vd[fmt].get("unexplained") == 0 and not
           vd[fmt].get("diffs"),
           f"vmcore ({fmt}): the master's text differs from the vmlinux only "
           "where the kernel patches or relocates it", f"rc={rc} {err} "
           f"{out[:600]}")
    tap.ok(all(k.get(x, 0) >= n for x, n in WANT_KINDS.items()),
           f"vmcore ({fmt}): {', '.join(WANT_KINDS)} are each recognised "
           f"({k})")
tap.ok(vd["ELF"].get("kinds") == vd["kdump"].get("kinds") ==
       vd["flattened"].get("kinds"),
       "ELF, kdump and flattened dumps classify the same ranges")
# --all prints every range, each with the kind the summary counted it as
rc, out, err = run("-j", "--vmcore", elf_core, "--vmlinux", VMLINUX, "diff",
                   "--against-vmlinux", "--all")
va = json.loads(out) if out.startswith("{") else {}
per_kind = {}
for d in va.get("diffs", []):
    per_kind[d.get("kind")] = per_kind.get(d.get("kind"), 0) + 1
tap.ok(rc == 0 and va.get("unexplained") == 0 and
       per_kind == {k: n for k, n in vd["ELF"].get("kinds", {}).items() if n}
       and sum(per_kind.values()) >= 500,
       "vmcore (ELF): diff --against-vmlinux --all lists every range, as "
       "many of each kind as the summary counts",
       f"rc={rc} got {per_kind}\nwant {vd['ELF'].get('kinds')}\n{err}")
slide = vd["ELF"].get("kaslr_slide", 0)
nm = subprocess.run(["nm", VMLINUX], capture_output=True, text=True).stdout
isqrt = next((int(x.split()[0], 16) for x in nm.splitlines()
              if x.endswith(" int_sqrt")), 0) + slide
summ0 = next((ktvm.kv(x) for x in ktvm.records(lines, "summary")
              if x.startswith("abi=")), {})
master = summ0.get("master_node", "0")
rc, out, err = run("-j", "--vmcore", elf_core, "walk", "--node", master,
                   "--va", hex(isqrt))
walk = json.loads(out) if out.startswith("{") else {}
pa = next((int(m["pa"], 16) for m in walk.get("mappings", [])
           if m.get("present")), None)
off = ktvm.elf_phys_offset(elf_core, pa) if pa is not None else None
tap.ok(off is not None, f"int_sqrt of the master is found in the dump "
       f"(pa {pa}, file offset {off})", f"{rc} {out[:300]} {err}")
if off is not None:
    # one byte inside int_sqrt's ftrace site (after its ENDBR64 where the
    # kernel has IBT, as 6.12), one in its plain code
    with open(elf_core, "rb") as f:
        f.seek(off)
        fsite = 4 if f.read(4) == b"\xf3\x0f\x1e\xfa" else 0
    bad = os.path.join(tmp, "master-flipped.elf")
    shutil.copy(elf_core, bad)
    with open(bad, "r+b") as f:
        for delta in (fsite + 1, 0x10):
            f.seek(off + delta)
            b = f.read(1)
            f.seek(off + delta)
            f.write(bytes([b[0] ^ 0xff]))
    rc, out, err = run("-j", "--vmcore", bad, "--vmlinux", VMLINUX, "diff",
                       "--against-vmlinux")
    bd = json.loads(out) if out.startswith("{") else {}
    got = sorted((int(d["va"], 16) - isqrt, d["sym"], d["kind"])
                 for d in bd.get("diffs", []))
    tap.ok(rc == 1 and bd.get("unexplained") == 2 and got == [
        (fsite, f"int_sqrt+{fsite:#x}", "unknown"),
        (0x10, "int_sqrt+0x10", "unknown")],
           "bytes changed in the master's own text are the unexplained "
           "ranges, exit 1: int_sqrt+0x10, and int_sqrt's ftrace site, whose "
           "bytes are no NOP or call", f"rc={rc} {got} {err}")
    os.unlink(bad)
rc, out, err = run("--vmcore", elf_core, "diff", "--against-vmlinux")
tap.ok(rc == 2 and "needs --vmlinux" in err,
       "diff --against-vmlinux without --vmlinux: exit 2 and says so", err)
rc, out, err = run("--vmcore", elf_core, "--vmlinux", "/bin/ls", "diff",
                   "--against-vmlinux")
tap.ok(rc == 2 and "does not match the dump" in err,
       "diff --against-vmlinux with another build's file: exit 2", err)

# symbols from a System.map (made from the vmlinux, as a distro ships it)
smap = os.path.join(tmp, "System.map")
with open(smap, "w") as f:
    subprocess.run(["nm", "-n", VMLINUX], stdout=f, check=True)
rc, out, err = run("-j", "--vmcore", elf_core, "--system-map", smap, "verify")
sm = json.loads(out) if out.startswith("{") else {}
tap.ok(rc == 1 and any(v.get("sym") == "vfs_read+0x3"
                       for v in sm.get("violations", [])),
       "vmcore verify with a System.map names vfs_read+0x3", err)

# a replica-only trap kills the box on that node; the dump says where
panic_core = os.path.join(tmp, "panic.elf")
plines, error = ktvm.dump_guest(os.path.join(HERE, "guest", "dump-panic.sh"),
                                [(panic_core, "elf")], panic=True,
                                tools=[DUMP])
# the guest's scenario checks its log before it starts the workload
tap.fold_guest("[x86_64 2x2 panic]", plines)
plines += [f"ERROR {error}"] if error else []
prep = next((int(m.group(1)) for m in (re.match(r"REPLICA-NODE (\d+)", x)
                                       for x in plines) if m), None)
oops = "\n".join(plines)
tap.ok("invalid opcode" in oops and f"ktrepl_work/{prep}" in oops,
       f"node {prep}'s worker hit the planted trap and the box panicked",
       oops[-3000:])
rc, out, err = run("-j", "--vmcore", panic_core, "--vmlinux", VMLINUX,
                   "verify")
pv = json.loads(out) if out.startswith("{") else {}
names = [(v["node"], v.get("sym"), v.get("kind"))
         for v in pv.get("violations", [])]
# ud2 is 0f 0b over a 0f 1f.. nop: the bytes differ from +0x1 on
tap.ok(rc == 1 and any(n == prep and sym in ("int_sqrt+0x0", "int_sqrt+0x1")
                       and kind == "unknown" for n, sym, kind in names),
       f"verify on the panic dump names int_sqrt on node {prep} "
       "(not a patch site)", f"{rc} {names} {err}")

# the fleet's view of the same dump: verify --prometheus, options after
# the command, checked by promtool
prom = os.path.join(tmp, "ktrepl.prom")
rc, out, err = run("--vmcore", elf_core, "verify", f"--prometheus={prom}",
                   "--vmlinux", VMLINUX)
text = open(prom).read() if os.path.exists(prom) else ""
samples = dict(line.rsplit(" ", 1) for line in text.splitlines()
               if line and not line.startswith("#"))
tap.ok(rc == 1 and samples.get("ktrepl_verify_up") == "1" and
       samples.get("ktrepl_healthy") == "0" and
       samples.get('ktrepl_violations{check="bytes"}') == "5" and
       int(samples.get(f'ktrepl_replica_bytes{{node="{rep}",'
                       'role="replica"}', "0")) > 0,
       "vmcore verify --prometheus=FILE: exit 1, unhealthy, 5 byte "
       "violations, node's replica bytes", text + err)
r = subprocess.run(["promtool", "check", "metrics"], input=text,
                   capture_output=True, text=True)
tap.ok(r.returncode == 0 and text, "promtool check metrics accepts it",
       r.stdout + r.stderr)

# crash> ktrepl on the same dumps, through the same library


def crash(core, *cmds):
    return ktvm.crash(VMLINUX, core, *cmds)[1]


out = crash(elf_core, "ktrepl", "ktrepl -v", f"ktrepl -t vfs_read -n {rep}",
            "help ktrepl", "ktrepl -x")
tap.ok(f"master node {summ[0]['master_node']}" in out and
       "REGION" in out, "crash> ktrepl shows the summary from the dump")
tap.ok("DIVERGED: 5 violations" in out and
       f"bytes: node {rep} " in out and "vfs_read+0x3" in out,
       "crash> ktrepl -v finds the same 5 violations as ktrepl-dump",
       out[-3000:])
rc, wout, err = run("-j", "--vmcore", elf_core, "walk", "--node", str(rep),
                    "--va", hex(next(int(v["va"], 16) for v in viol
                                     if v["sym"] == "vfs_read+0x3") - 3))
wpa = json.loads(wout)["mappings"][0]["pa"] if rc == 0 else "?"
m = re.search(rf"node {rep} 0x[0-9a-f]+-0x[0-9a-f]+ .* pa (0x[0-9a-f]+)",
              out)
tap.ok(m is not None and int(m.group(1), 16) == int(wpa, 16),
       f"crash> ktrepl -t vfs_read -n {rep} agrees with ktrepl-dump walk "
       f"--va ({m.group(1) if m else '-'} vs {wpa})", out[-2000:])
tap.ok("SYNOPSIS" in out and "ktrepl [-v | -p | -c | -f | -d" in out and
       "EXAMPLE" in out,
       "help ktrepl renders NAME, SYNOPSIS, DESCRIPTION and EXAMPLE")
tap.ok("Usage:" in out and "ktrepl [-v | -p | -c | -f | -d" in out,
       "a bad option prints the usage")
pout = crash(panic_core, "ktrepl -v", "ktrepl -p", "ktrepl -c", "ktrepl -f")
tap.ok(f"bytes: node {prep} " in pout and "int_sqrt+0x" in pout,
       "crash> ktrepl -v on the panic dump names int_sqrt on the "
       "panicking node", pout[-2000:])
tap.ok_crash("tasks", re.search(rf"panic task \d+ \(ktrepl_work/{prep}\) on cpu \d+, "
                 rf"node {prep}", pout) is not None,
       f"crash> ktrepl -p finds the panic on node {prep}'s worker",
       pout[-2500:])
if ktvm.crash_limit("tasks"):
    # crash names no task, or cannot unwind it: -p names the panic CPU
    # (the kernel's panic_cpu), and a QEMU dump has no crash note with
    # its registers, so the verdict is unknown and says why
    tap.ok(re.search(rf"^panic (task \d+ \(\S+\) )?on cpu \d+, node {prep}",
                     pout, re.M) is not None and
           re.search(r"verdict: unknown: (this crash cannot read the panic "
                     r"task's stack on this kernel|no CPU saved its "
                     rf"registers [^;]*); \d+ ranges? differs? on node "
                     rf"{prep}", pout) is not None,
           "crash> ktrepl -p where crash cannot find the panic task or read "
           f"its stack: the panic on node {prep}, and the verdict unknown, "
           "saying why", pout[-2500:])
tap.ok_crash("tasks", re.search(r"int_sqrt\+0x0 +IN A DIVERGED RANGE: "
                                r"int_sqrt\+0x1", pout)
       is not None and "a replica divergence is the likely cause" in pout,
       "crash> ktrepl -p says the PC is in the diverged range, with bytes",
       pout[-2500:])

tap.ok_crash("tasks", re.search(r"master text vs \S+: 0 changed ranges", pout) and
       re.search(r"^0 ranges explained by no patch site or relocation$",
                 pout, re.M),
       "crash> ktrepl -p and -f: the master's own text differs from crash's "
       "vmlinux only where the kernel patches or relocates it",
       pout[-2500:])

cpu_lines = re.findall(r"^(\d+) +(\d+) +(0x[0-9a-f]+) +(0x[0-9a-f]+) +(.*)$",
                       pout, re.M)
tap.ok(len(cpu_lines) == 4 and
       any(int(node) == prep and loaded == want and "its node's" in what
           for _, node, loaded, want, what in cpu_lines),
       f"crash> ktrepl -c: the panicking CPU of node {prep} had its node's "
       "root loaded", "\n".join(map(str, cpu_lines)) + pout[-1500:])

# a panic unrelated to replication is not blamed on it
clean_core = os.path.join(tmp, "clean-panic.elf")
clines, error = ktvm.dump_guest(
    os.path.join(HERE, "guest", "dump-clean-panic.sh"), [(clean_core, "elf")],
    panic=True, tools=[DUMP])
tap.fold_guest("[x86_64 2x2 clean panic]", clines)
if error:
    tap.diag(f"clean panic: {error}")
cout = crash(clean_core, "ktrepl -p") if os.path.exists(clean_core) else ""
tap.ok_crash("tasks", "verdict: not in a diverged range" in cout and
       "sysrq_handle_crash" in cout and "IN A DIVERGED" not in cout,
       "crash> ktrepl -p on a clean panic: not in a diverged range",
       cout[-2000:])

# arm64: the descriptor is found by scanning, the answers are the same
a64_core = os.path.join(tmp, "arm64.elf")
alines, error = ktvm.dump_guest(os.path.join(HERE, "guest", "dump-arm64.sh"),
                                [(a64_core, "elf")], arch="arm64",
                                tools=ktvm.arm64_tools())
tap.fold_guest("[arm64 2x2]", alines)
alive = json.loads("".join(ktvm.records(alines, "verify")) or "{}")
rc, out, err = run("-j", "--vmcore", a64_core, "verify")
aoff = json.loads(out) if out.startswith("{") else {}
akey = lambda v: (v["check"], v["node"], v["va"], v["len"], v["master"],
                  v["replica"])
tap.ok(error is None and rc == 1 and alive.get("violation_count") == 1 and
       sorted(map(akey, aoff.get("violations", []))) ==
       sorted(map(akey, alive.get("violations", []))),
       "arm64 vmcore (descriptor found by scan): verify equals the live one",
       f"{error} {rc} {out[:800]} {err}")
# no symbol option (Debian ships no arm64 -dbg vmlinux): the name comes
# from the dump's own kallsyms
tap.ok([v.get("sym") for v in aoff.get("violations", [])] ==
       ["int_sqrt+0x4"], "arm64 vmcore, no symbol file: verify names the "
       "flip int_sqrt+0x4 from the dump's kallsyms",
       f"{aoff.get('violations')} {err}")

# arm64 percpu: a panic on a non-master node's CPU; the dump's descriptor
# records the root each CPU was switched to (no dump format has TTBR1)
pcore = os.path.join(tmp, "arm64-panic.elf")
plines, error = ktvm.dump_guest(
    os.path.join(HERE, "guest", "dump-arm64-panic.sh"), [(pcore, "elf")],
    panic=True, arch="arm64", tools=ktvm.arm64_tools(), timeout=400)
tap.fold_guest("[arm64 2x2 percpu panic]", plines)
m = next((re.match(r"PANIC-CPU (\d+) NODE (\d+)", x) for x in plines
          if x.startswith("PANIC-CPU")), None)
live = {r["cpu"]: r for r in map(ktvm.kv, ktvm.records(plines, "pgds"))}
rc, out, err = run("-j", "--vmcore", pcore, "summary")
psum = json.loads(out) if out.startswith("{") else {}
cpus = psum.get("cpus", [])
tap.ok(error is None and m and psum.get("activation") == "percpu" and
       len(cpus) == len(live) > 0 and
       all(c["recorded_root_pa"] == c["expected_root_pa"] ==
           live[str(c["cpu"])]["loaded_root_pa"] for c in cpus),
       "arm64 percpu panic dump: every CPU's recorded root is its node's, "
       "and the one it had live", f"{error} {m} {cpus} {live} {err}")
panic_cpu = [c for c in cpus if m and c["cpu"] == int(m.group(1))]
tap.ok(panic_cpu and panic_cpu[0]["node"] == int(m.group(2)) and
       panic_cpu[0]["recorded_root_pa"] != psum.get("master_root_pa"),
       f"the panicking CPU ({m.group(1) if m else '?'}) ran on node "
       f"{m.group(2) if m else '?'}'s root, not the master's",
       f"{panic_cpu}")
rc, out, err = run("--vmcore", pcore, "verify")
tap.ok(rc == 0 and "healthy" in out,
       "arm64 percpu panic dump: verify (bytes, every table level, CPU "
       "roots) is healthy", out[-1500:] + err)
tap.diag("crash> ktrepl on arm64 dumps needs a crash built for arm64 "
         "(Debian's is host-only); ktrepl-dump reads them on any host")

# the bad-input table: each exits 2 and says what and where
fake = os.path.join(tmp, "fake-debugfs")
os.makedirs(fake)
with open(os.path.join(fake, "abi"), "w") as f:
    f.write("99\n")
trunc = os.path.join(tmp, "truncated.elf")
with open(elf_core, "rb") as src, open(trunc, "wb") as dst:
    dst.write(src.read(os.path.getsize(elf_core) // 8))
trunc_flat = os.path.join(tmp, "truncated.flat")
with open(flat_core, "rb") as src, open(trunc_flat, "wb") as dst:
    dst.write(src.read(os.path.getsize(flat_core) // 2))
notcore = os.path.join(tmp, "not-a-core")
with open(notcore, "w") as f:
    f.write("hello\n")
corrupt = os.path.join(tmp, "corrupt-debugfs")
os.makedirs(corrupt)
with open(os.path.join(corrupt, "abi"), "w") as f:
    f.write("1\n")
with open(os.path.join(corrupt, "summary"), "w") as f:
    f.write("abi=1 arch=x86_64 garbage\n")
nobody = shutil.which("setpriv")
cases = [
    ("a missing vmcore", ["--vmcore", "/nonexistent/vmcore", "verify"],
     r"/nonexistent/vmcore: No such file"),
    ("a file that is no dump", ["--vmcore", notcore, "verify"],
     re.escape(notcore) + r": not a vmcore"),
    ("a truncated vmcore", ["--vmcore", trunc, "verify"],
     re.escape(trunc) + r": truncated vmcore: segment"),
    ("a truncated flattened vmcore", ["--vmcore", trunc_flat, "verify"],
     re.escape(trunc_flat) + r": truncated flattened vmcore"),
    ("a vmlinux from another build",
     ["--vmcore", elf_core, "--vmlinux", "/bin/ls", "verify"],
     r"/bin/ls does not match the dump: build id"),
    ("an unknown ABI version", ["--debugfs", fake, "verify"],
     r"ABI version 99; this tool reads versions 1\.\.1"),
    ("a corrupt summary", ["--debugfs", corrupt, "verify"],
     re.escape(corrupt) + r"/summary:1: summary header lacks"),
    ("an unknown command", ["frobnicate"], r"unknown command 'frobnicate'"),
    ("a bad node", ["--vmcore", elf_core, "diff", "--node", "7"],
     r"no node '7'"),
]
for desc, args, pattern in cases:
    rc, out, err = run(*args)
    tap.ok(rc == 2 and re.search(pattern, err) is not None,
           f"bad input, {desc}: exit 2 and says so", f"rc={rc} {err}")
rc, out, err = run("-j", "--vmcore", "/nonexistent/vmcore", "verify")
tap.ok(rc == 2 and json.loads(out).get("error", "").startswith(
    "/nonexistent/vmcore"), "under -j the error is a JSON object", out)
if nobody:
    r = subprocess.run([nobody, "--reuid=65534", "--regid=65534",
                        "--clear-groups", DUMP, "--debugfs", fake, "verify"],
                       capture_output=True, text=True)
    tap.ok(r.returncode == 2 and "needs root" in r.stderr,
           "bad input, not root: exit 2 and says so", r.stderr)
# Damaged headers (issue 17). The issue's own mutation, the strtab size
# that crashed libkdumpfile, then random header mutations of the ELF and
# kdump dumps above: every run exits 0, 1 or 2 within 60 s. The files are
# damaged in place and restored after each run. KTREPL_FUZZ_ITER sets how
# many random runs per format (default 25, bounded for CI).
def damaged_run(path, edits):
    with open(path, "r+b") as f:
        saved = []
        for off, val in edits:
            f.seek(off)
            saved.append((off, f.read(1)))
            f.seek(off)
            f.write(bytes([val]))
    start = time.monotonic()
    try:
        r = subprocess.run([DUMP, "--vmcore", path, "verify"],
                           capture_output=True, timeout=90)
        rc = r.returncode
        # names read from a damaged dump can be any bytes: the tool
        # escapes what is no UTF-8, so its messages always decode
        try:
            err = r.stderr.decode()
        except UnicodeDecodeError:
            rc, err = "stderr not UTF-8", r.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired:
        rc, err = "timeout", ""
    took = time.monotonic() - start
    with open(path, "r+b") as f:
        for off, byte in saved:
            f.seek(off)
            f.write(byte)
    return rc, err, took


def elf_header_span(path):
    """Bytes before the first PT_LOAD: headers, sections, notes."""
    return min(off for t, off, _, _ in ktvm.elf_segments(path) if t == 1)


with open(elf_core, "rb") as f:
    head = f.read(4096)
shoff, = struct.unpack_from("<Q", head, 0x28)
undamaged_rc, _, _ = damaged_run(elf_core, [])
issue = [(o, head[o] ^ 0xff) for o in (0x38, 0xa8, 0x18d, 0x1f4)]
rc, err, took = damaged_run(elf_core, issue)
tap.ok(rc == 2 and took < 60,
       "the issue's 4-byte header mutation of a real ELF dump: exit 2 "
       f"({rc}, {took:.1f} s: {err[-200:]})")
strtab_size = shoff + 64 + 0x20 + 1       # section 1, sh_size byte 1
rc, err, took = damaged_run(elf_core, [(strtab_size, 0x80)])
tap.ok(rc == 2 and "section header 1" in err,
       "the strtab size that crashed libkdumpfile: exit 2 naming section "
       f"header 1 ({rc}: {err[-200:]})")
iters = int(os.environ.get("KTREPL_FUZZ_ITER", "25"))
rng = random.Random(17)
for fmt, core, span in (("ELF", elf_core, elf_header_span(elf_core)),
                        ("kdump", kdump_core, 3 * 4096)):
    results, worst, slowest = {}, [], 0.0
    for _ in range(iters):
        edits = [(rng.randrange(span),
                  rng.choice([rng.randrange(256), 0, 0xff, 0x80]))
                 for _ in range(rng.randrange(1, 5))]
        rc, err, took = damaged_run(core, edits)
        results[rc] = results.get(rc, 0) + 1
        slowest = max(slowest, took)
        if rc not in (0, 1, 2) or took >= 60:
            worst.append((edits, rc, round(took, 1)))
    tap.ok(not worst, f"{iters} random {fmt} header mutations: every run "
           f"exits 0, 1 or 2 within 60 s, its messages UTF-8 (exits "
           f"{results}, slowest "
           f"{slowest:.1f} s)", str(worst[:3]))
rc, _, _ = damaged_run(elf_core, [])
tap.ok(rc == undamaged_rc == 1, "the restored ELF dump verifies as before "
       f"the damage (exit {rc}: the 5 injected flips)")
# activation=mm: the bound processes travel in the descriptor, and a bound
# mm on another node's set is found offline, by ktrepl-dump and by crash
mm_core = os.path.join(tmp, "vmcore.mm")
mlines, error = ktvm.dump_guest(os.path.join(HERE, "guest", "dump-mm.sh"),
                                [(mm_core, "elf")], tools=[DUMP])
if error:
    tap.ok(False, "mm guest reached the dump point",
           "\n".join([error] + mlines[-40:]))
else:
    tap.fold_guest("[x86_64 2x2 mm]", mlines)
    victim, other = next(x.split()[1:3] for x in mlines
                         if x.startswith("VICTIM "))
    live = sorted(int(ktvm.kv(r)["pid"])
                  for r in ktvm.records(mlines, "bind"))
    rc, out, err = run("-j", "--vmcore", mm_core, "--vmlinux", VMLINUX,
                       "summary")
    ms = json.loads(out) if rc == 0 else {}
    tap.ok(ms.get("activation") == "mm" and
           sorted(b["pid"] for b in ms.get("bound", [])) == live,
           f"the dump's descriptor lists the bound processes {live}",
           f"{rc} {err} {ms.get('bound')}")
    rc, out, err = run("-j", "--vmcore", mm_core, "--vmlinux", VMLINUX,
                       "verify")
    mv = json.loads(out) if out.startswith("{") else {}
    hits = [v for v in mv.get("violations", []) if v["check"] == "mm-entry"]
    tap.ok(rc == 1 and len(hits) == 1 and hits[0]["pid"] == int(victim),
           f"verify on the dump: pid {victim}'s mm is on node {other}'s "
           "set, not its own (mm-entry)", f"{rc} {err} {hits}")
    cout = crash(mm_core, "ktrepl", "ktrepl -v")
    tap.ok(f"mm-entry: pid {victim} " in cout and "PID" in cout,
           "crash> ktrepl lists the bound processes and -v names the "
           "wrong mm", cout[-2000:])

# a bound process panics: crash> ktrepl -p names the set it ran on
bp_core = os.path.join(tmp, "mm-panic.elf")
blines, error = ktvm.dump_guest(os.path.join(HERE, "guest",
                                             "dump-mm-panic.sh"),
                                [(bp_core, "elf")], panic=True, tools=[DUMP])
tap.fold_guest("[x86_64 2x2 mm panic]", blines)
bp = next((x.split()[1:3] for x in blines if x.startswith("BOUND-PANIC ")),
          None)
bout = crash(bp_core, "ktrepl -p") if os.path.exists(bp_core) else ""
tap.ok_crash("tasks", bp is not None and
       f"its process {bp[0]} is bound to node {bp[1]}'s set" in bout and
       "verdict: not in a diverged range" in bout,
       f"crash> ktrepl -p: the panicking task's process was bound to node "
       f"{bp[1] if bp else '?'}'s set, and no divergence is blamed",
       f"{error} {bout[-2000:]}")

# module copies travel in the descriptor; their leaves are found in each
# node's tables, and a flipped module byte is found offline
mod_core = os.path.join(tmp, "vmcore.mods")
dlines, error = ktvm.dump_guest(os.path.join(HERE, "guest", "dump-mods.sh"),
                                [(mod_core, "elf")], tools=[DUMP],
                                files=ktvm.fs_modules("x86_64"))
if error:
    tap.ok(False, "modules guest reached the dump point",
           "\n".join([error] + dlines[-40:]))
else:
    tap.fold_guest("[x86_64 2x2 modules]", dlines)
    node, addr = next(x.split()[1:3] for x in dlines
                      if x.startswith("FLIPPED "))
    rc, out, err = run("-j", "--vmcore", mod_core, "--vmlinux", VMLINUX,
                       "summary")
    ms = json.loads(out) if rc == 0 else {}
    names = [r.get("region") for r in ms.get("regions", [])]
    tap.ok("module:vfat" in names and "module:brd" in names,
           "the dump's descriptor lists the replicated modules", f"{names}")
    rc, out, err = run("-j", "--vmcore", mod_core, "--vmlinux", VMLINUX,
                       "verify")
    mv = json.loads(out) if out.startswith("{") else {}
    hits = [v for v in mv.get("violations", []) if v["check"] == "bytes"]
    want = int(addr, 16) + 4
    tap.ok(rc == 1 and len(hits) == 1 and hits[0]["node"] == int(node) and
           int(hits[0]["va"], 16) == want,
           f"verify on the dump: exactly the flipped vfat byte on node "
           f"{node} (0x{want:x})", f"{rc} {err} {mv.get('violations')}")
    rc, out, err = run("--vmcore", mod_core, "--vmlinux", VMLINUX, "diff",
                       "--region", "module:vfat")
    tap.ok(rc == 1 and f"0x{want:x}" in out,
           "diff --region module:vfat on the dump shows the byte",
           f"{rc} {out} {err}")
    cout = crash(mod_core, "ktrepl -v", f"ktrepl -t vfat_lookup -n {node}")
    tap.ok_crash("modules", "vfat_lookup+0x4" in cout,
           "crash> ktrepl -v names vfat_lookup+0x4", cout[-2000:])
    rc, wout, err = run("-j", "--vmcore", mod_core, "walk", "--node", node,
                        "--va", f"0x{addr}")
    wpa = json.loads(wout)["mappings"][0]["pa"] if rc == 0 else "?"
    m = re.search(rf"node {node} 0x[0-9a-f]+-0x[0-9a-f]+ .* pa "
                  r"(0x[0-9a-f]+)", cout)
    tap.ok_crash("modules", m is not None and wpa != "?" and
           int(m.group(1), 16) == int(wpa, 16),
           f"crash> ktrepl -t vfat_lookup -n {node} agrees with ktrepl-dump "
           f"walk --va on the module copy ({m.group(1) if m else '-'} vs "
           f"{wpa})", cout[-2000:])

# make check: the ASan and UBSan build of ktrepl-dump on every dump above
SAN_DUMP = os.environ.get("KTREPL_SANITIZED_DUMP")
if SAN_DUMP:
    env = dict(os.environ, ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", ""))
    for core in sorted(glob.glob(os.path.join(tmp, "*"))):
        if os.path.getsize(core) < (16 << 20):
            continue        # the cut and damaged copies were run above
        for cmd in (["summary"], ["verify"], ["diff"], ["walk", "--node", "0"]):
            r = subprocess.run([SAN_DUMP, "--vmcore", core, "-j", *cmd],
                               capture_output=True, text=True, env=env,
                               timeout=600)
            report = [x for x in r.stderr.splitlines()
                      if "Sanitizer" in x or "runtime error" in x]
            tap.ok(0 <= r.returncode <= 2 and not report,
                   f"ASan/UBSan ktrepl-dump --vmcore {os.path.basename(core)} "
                   f"{' '.join(cmd)}: exit {r.returncode}, no sanitizer report",
                   "\n".join(report + r.stderr.splitlines()[-20:]))

shutil.rmtree(tmp)
tap.done()
