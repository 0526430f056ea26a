#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The Debian packages: dpkg-buildpackage builds ktrepl-dkms, ktrepl-tools
and crash-ktrepl from a copy of the tree; lintian finds no error; they
install on this host; DKMS builds the module for every cached kernel
(both series, both arches); and guests of the newest 6.1 ABI and of 6.12
boot the DKMS-built modules: ktrepl.ko by insmod, then both as DKMS
installs them, through kmod's modprobe, for ktrepl-bench text (the
shipped 32 MiB bench module, no --module) and by hand (the bench module
replicated, verify healthy). The packages are purged again at the end."""
import glob
import json
import os
import re
import shutil
import subprocess

import ktvm

HERE = os.path.dirname(__file__)
tap = ktvm.Tap()
PKGS = ("ktrepl-dkms", "ktrepl-tools", "crash-ktrepl")
VERSION = open(os.path.join(ktvm.ROOT, "VERSION")).read().strip()
GUEST_KERNEL = "6.1.0-57"


def sh(*cmd, env=None, cwd=None, timeout=900):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env,
                       cwd=cwd, timeout=timeout)
    return r.returncode, r.stdout + r.stderr


def purge():
    sh("dkms", "remove", f"ktrepl/{VERSION}", "--all")
    sh("dpkg", "--purge", *PKGS)


if os.geteuid() != 0:
    tap.skip_all("installing packages needs root")
purge()
work = os.path.join(ktvm.BUILD, "pkg")
shutil.rmtree(work, ignore_errors=True)
src = os.path.join(work, "src")
os.makedirs(src)
files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"],
                       cwd=ktvm.ROOT, capture_output=True, text=True,
                       check=True).stdout.split()
for f in files:
    if f.startswith("build/") or not os.path.isfile(
            os.path.join(ktvm.ROOT, f)):
        continue
    os.makedirs(os.path.dirname(os.path.join(src, f)), exist_ok=True)
    shutil.copy2(os.path.join(ktvm.ROOT, f), os.path.join(src, f))

rc, out = sh("dpkg-buildpackage", "-us", "-uc", "-b", cwd=src)
debs = {p: glob.glob(os.path.join(work, f"{p}_{VERSION}_*.deb"))
        for p in PKGS}
tap.ok(rc == 0 and all(debs.values()),
       "dpkg-buildpackage -us -uc -b builds " + ", ".join(PKGS),
       out[-3000:])
if rc:
    tap.done()
changes = glob.glob(os.path.join(work, "*.changes"))
rc, out = sh("lintian", "--no-cfg", *changes)
errors = [x for x in out.splitlines() if x.startswith("E:")]
tap.diag("lintian: " + (", ".join(sorted(set(
    x.split(": ", 2)[-1].split()[0] for x in out.splitlines()
    if re.match(r"[EWI]: ", x)))) or "no tags"))
tap.ok(changes and not errors, "lintian: no errors", "\n".join(errors))

rc, out = sh("dpkg", "-i", *(d for p in PKGS for d in debs[p]))
tap.ok(rc == 0, "the three packages install on this host", out[-2000:])
rc, out = sh("/usr/sbin/ktrepl-dump", "-V")
tap.ok(rc == 0 and out.startswith(f"ktrepl-dump {VERSION}"),
       "/usr/sbin/ktrepl-dump runs", out)
for path in ("/usr/sbin/ktrepl-top", "/usr/lib/crash/extensions/ktrepl.so",
             "/usr/share/man/man8/ktrepl-dump.8.gz",
             "/usr/share/man/man8/ktrepl-top.8.gz",
             "/usr/share/bash-completion/completions/ktrepl-dump",
             "/usr/share/bash-completion/completions/ktrepl-top",
             "/lib/systemd/system/ktrepl-verify.service",
             "/lib/systemd/system/ktrepl-verify.timer",
             "/lib/systemd/system/ktrepl-top-metrics.service",
             "/lib/systemd/system/ktrepl-top-metrics.timer",
             "/lib/systemd/system/ktrepl-triage.service",
             "/usr/share/ktrepl/prometheus/ktrepl-alerts.yml",
             f"/usr/src/ktrepl-{VERSION}/dkms.conf"):
    tap.ok(os.path.exists(path), f"installed: {path}")
enabled = sorted(os.path.basename(p) for p in
                 glob.glob("/etc/systemd/system/*/ktrepl-*"))
tap.ok(enabled == ["ktrepl-triage.service"],
       "the timers and their services are installed disabled, the triage "
       "at boot enabled", f"got enabled {enabled}\nwant "
       "['ktrepl-triage.service']")
if shutil.which("systemd-analyze"):
    rc, out = sh("systemd-analyze", "verify",
                 "/lib/systemd/system/ktrepl-verify.timer",
                 "/lib/systemd/system/ktrepl-verify.service",
                 "/lib/systemd/system/ktrepl-top-metrics.timer",
                 "/lib/systemd/system/ktrepl-top-metrics.service",
                 "/lib/systemd/system/ktrepl-triage.service")
    tap.ok(rc == 0 and "ktrepl" not in out,
           "systemd-analyze verify accepts the timers and the services", out)
ext = "/usr/lib/crash/extensions/ktrepl.so"
rc, out = sh("nm", "-D", ext)
tap.ok(rc == 0 and "ktrepl" in out, "the crash extension is a loadable "
       "shared object", out[-500:])

# DKMS, for every cached kernel's headers, cross-building for arm64
built = {}
for prof in sorted(glob.glob(os.path.join(ktvm.ROOT, "scripts", "kernels",
                                          "*.conf"))):
    kernel = os.path.basename(prof)[:-5]
    for arch, dkms_arch, env in (
            ("x86_64", "x86_64", {}),
            ("arm64", "aarch64", {"ARCH": "arm64",
                                  "CROSS_COMPILE": "aarch64-linux-gnu-"})):
        rel = ktvm.kernel_release(arch, kernel)
        hdr = os.path.join(ktvm.CACHE, "kernels", rel, "usr", "src",
                           f"linux-headers-{rel}")
        if not os.path.isdir(hdr):
            tap.ok(False, f"dkms build for {rel}: headers cached",
                   f"no {hdr}: make check-deps")
            continue
        rc, out = sh("dkms", "build", "-m", "ktrepl", "-v", VERSION,
                     "-k", rel, "-a", dkms_arch, "--kernelsourcedir", hdr,
                     env=dict(os.environ, **env))
        ko = glob.glob(f"/var/lib/dkms/ktrepl/{VERSION}/{rel}/{dkms_arch}/"
                       "module/ktrepl.ko*")
        built[(kernel, arch)] = ko[0] if ko else None
        tap.ok(rc == 0 and ko, f"dkms build for {rel} ({arch})",
               out[-2000:])

# an untested series: DKMS refuses it (BUILD_EXCLUSIVE_KERNEL), with the
# headers of a tested one so that nothing else could be the reason
rel = ktvm.kernel_release("x86_64")
hdr = os.path.join(ktvm.CACHE, "kernels", rel, "usr", "src",
                   f"linux-headers-{rel}")
rc, out = sh("dkms", "build", "-m", "ktrepl", "-v", VERSION,
             "-k", "6.5.0-99-amd64", "-a", "x86_64", "--kernelsourcedir", hdr)
tap.ok(rc != 0 and "BUILD_EXCLUSIVE" in out and not glob.glob(
    f"/var/lib/dkms/ktrepl/{VERSION}/6.5.0-99-amd64/x86_64/module/*"),
    "dkms build refuses an untested kernel series (6.5.0-99-amd64)",
    f"got exit {rc}: {out[-1500:]}\nwant a BUILD_EXCLUSIVE refusal")
for key, k in built.items():
    if not k:
        continue
    rc, out = sh("modinfo", "-p", k)
    bad = [p for p in ("fault_inject", "fail_alloc", "bench", "propagate")
           if re.search(rf"^{p}:", out, re.M)]
    tap.ok(rc == 0 and not bad and "allow_untested:" in out,
           f"the DKMS-built module for {key[0]} {key[1]} has no test "
           "parameter (modinfo -p)", f"got {bad} in:\n{out}")

# guests of the newest 6.1 ABI and of 6.12 run the DKMS-built modules:
# ktrepl.ko by insmod, then both as DKMS installs them (updates/dkms,
# depmod) through kmod's modprobe, for the packaged ktrepl-bench and by
# hand
def staged_modules(kernel, ko):
    """/lib/modules/RELEASE as DKMS leaves it, for the guest's files."""
    rel = ktvm.kernel_release("x86_64", kernel)
    stage = os.path.join(work, f"modules-{rel}")
    dest = os.path.join(stage, "lib", "modules", rel, "updates", "dkms")
    os.makedirs(dest, exist_ok=True)
    bench = glob.glob(os.path.join(os.path.dirname(ko),
                                   "ktrepl_bench_text.ko*"))
    for m in [ko] + bench:
        shutil.copy(m, dest)
    rc, out = sh("depmod", "-b", stage, rel)
    try:
        with open(os.path.join(stage, "lib", "modules", rel,
                               "modules.dep")) as f:
            dep = f.read()
    except OSError as e:
        dep = str(e)
    indexed = all(f"updates/dkms/{m}.ko" in dep
                  for m in ("ktrepl", "ktrepl_bench_text"))
    out += f"\nmodules.dep:\n{dep}"
    files = {}
    for dirpath, _, names in os.walk(stage):
        for n in names:
            path = os.path.join(dirpath, n)
            files["/" + os.path.relpath(path, stage)] = path
    return rc == 0 and bench and indexed, files, out


for kernel in (GUEST_KERNEL, "6.12"):
    ko = built.get((kernel, "x86_64"))
    rel = ktvm.kernel_release("x86_64", kernel)
    if not ko:
        tap.ok(False, f"a DKMS-built module for {rel} to boot")
        continue
    srcversion = os.path.join(work, "srcversion")
    rc, out = sh("modinfo", "-F", "srcversion", ko)
    with open(srcversion, "w") as f:
        f.write(out.strip() + "\n")
    staged, guest_files, out = staged_modules(kernel, ko)
    tap.ok(staged, f"{rel}: DKMS built ktrepl_bench_text.ko beside "
           "ktrepl.ko, and depmod indexes both", out)
    guest_files.update({"/lib/modules/ktrepl.ko": ko,
                        "/srcversion": srcversion,
                        "/sbin/modprobe": "/usr/bin/kmod"})
    lines = ktvm.run_guest(tap, "x86_64", "2x2",
                           os.path.join(HERE, "guest", "dkms-module.sh"),
                           tools=[ktvm.tool("ktrepl-dump"),
                                  "/usr/sbin/ktrepl-bench", "/usr/bin/kmod"],
                           name=f"[x86_64 {rel} dkms]", kernel=kernel,
                           files=guest_files, timeout=900)
    doc = (ktvm.json_records(tap, lines, "text") or [{}])[0]
    rc = ktvm.records(lines, "text_rc")
    bench = (doc.get("benchmarks") or [{}])[0]
    nodes = sorted(n.get("node") for n in bench.get("nodes", []))
    want_nodes = list(range(len(ktvm.parse_topology("2x2"))))
    tap.ok(rc == ["0"] and nodes == want_nodes and
           all(n.get("before_ns", 0) > 0 and n.get("after_ns", 0) > 0
               for n in bench.get("nodes", [])),
           f"{rel}: ktrepl-bench text through modprobe measured every "
           "node, off and on",
           f"got exit {rc}, nodes {nodes}: {json.dumps(bench)[:1500]}\n"
           f"stderr: {' '.join(ktvm.records(lines, 'text_err'))[-1500:]}\n"
           f"want exit 0, nodes {want_nodes}, each before and after")
    tap.ok(bench.get("text_bytes") == 32 << 20,
           f"{rel}: it ran the shipped bench module's 32 MiB body",
           f"got text_bytes {bench.get('text_bytes')}, want {32 << 20}")
    summary = ktvm.records(lines, "summary")
    size = re.search(r"\bsize=(\d+)", summary[0]) if summary else None
    tap.ok(size and int(size.group(1)) >= 32 << 20,
           f"{rel}: ktrepl.ko lists the 32 MiB bench module as replicated",
           f"got {summary}")

# the arm64 binary packages, cross-built on this host from the same tree
# (in their own directory: the amd64 .debs above are the ones installed)
work64 = os.path.join(ktvm.BUILD, "pkg-arm64")
shutil.rmtree(work64, ignore_errors=True)
src64 = os.path.join(work64, "src")
for f in files:
    if f.startswith("build/") or not os.path.isfile(
            os.path.join(ktvm.ROOT, f)):
        continue
    os.makedirs(os.path.dirname(os.path.join(src64, f)), exist_ok=True)
    shutil.copy2(os.path.join(ktvm.ROOT, f), os.path.join(src64, f))
rc, out = sh("dpkg-buildpackage", "-us", "-uc", "-aarm64", "-B",
             cwd=src64)
debs64 = {p: glob.glob(os.path.join(work64, f"{p}_{VERSION}_arm64.deb"))
          for p in ("ktrepl-tools", "crash-ktrepl")}
tap.ok(rc == 0 and all(debs64.values()),
       "dpkg-buildpackage -aarm64 -B cross-builds ktrepl-tools and "
       "crash-ktrepl for arm64", out[-3000:])
if all(debs64.values()):
    rc, listing = sh("dpkg-deb", "-c", debs64["crash-ktrepl"][0])
    so = os.path.join(work64, "ktrepl.so")
    r = subprocess.run(f"dpkg-deb --fsys-tarfile "
                       f"{debs64['crash-ktrepl'][0]} | tar -xO "
                       "./usr/lib/crash/extensions/ktrepl.so",
                       shell=True, capture_output=True)
    with open(so, "wb") as f:
        f.write(r.stdout)
    rc, what = sh("readelf", "-h", so)
    machine = re.search(r"Machine:\s+(.*)", what)
    tap.ok("./usr/lib/crash/extensions/ktrepl.so" in listing and machine and
           "AArch64" in machine.group(1),
           "crash-ktrepl_arm64 holds an AArch64 ktrepl.so in "
           "/usr/lib/crash/extensions",
           f"got {machine and machine.group(1)}\n{listing}")
    rc, deps = sh("dpkg-deb", "-f", debs64["crash-ktrepl"][0], "Depends")
    tap.ok(deps.startswith("crash,") and "libelf1" in deps,
           "crash-ktrepl_arm64 depends on crash and its shared libraries",
           deps)
    changes = glob.glob(os.path.join(work64, "*_arm64.changes"))
    rc, out = sh("lintian", "--no-cfg", *changes)
    errors = [x for x in out.splitlines() if x.startswith("E:")]
    tap.ok(changes and not errors, "lintian on the arm64 packages: no "
           "errors", "\n".join(errors))
shutil.rmtree(work64, ignore_errors=True)

purge()
rc, out = sh("dpkg-query", "-W", *PKGS)
tap.ok(all(f"no packages found matching {p}" in out for p in PKGS),
       "purged again", out)
shutil.rmtree(work, ignore_errors=True)
tap.done()
