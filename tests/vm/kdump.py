# SPDX-License-Identifier: GPL-2.0
"""Real kdump in ktrepl's test guests, as fleets capture a panic.

The first kernel loads a crash kernel with Debian's kexec-tools (`kexec
-p`, as kdump-tools does at boot), the guest script panics it, the same
kernel image boots as the capture kernel with a busybox initramfs that
saves /proc/vmcore with Debian's makedumpfile onto an ext2 virtio disk in
every format asked for, and powers off. The host then reads the dump
files back from the disk image (debugfs from e2fsprogs).

What is not Debian's own here: the stub libxenctrl.so.4.17 that
kexec-tools is linked against (no Xen in a guest; every entry point says
"not under Xen"), built from tests/vm/kdump/xenctrl-stub.c, and the
arm64 `_text` line kexec-tools needs (README: "kdump on arm64").
"""

import lzma
import os
import re
import shutil
import subprocess
import tempfile

import ktvm

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE_DIR = os.path.join(ktvm.CACHE, "kdump")
STUB_SRC = os.path.join(HERE, "kdump", "xenctrl-stub.c")
STUB_MAP = os.path.join(HERE, "kdump", "xenctrl-stub.map")

# makedumpfile output formats at -d 31, by the name the dump file gets.
# Debian's makedumpfile 1.7.2 is built with lzo and zlib only: no -p
# (snappy), no -z (zstd).
FORMATS = {
    "lzo": ["-l"],
    "zlib": ["-c"],
    "elf": ["-E"],
    "flat": ["-F", "-l"],
}
DUMP_LEVEL = 31
CRASHKERNEL = "crashkernel=256M"

DEB_ARCH = {"x86_64": "amd64", "arm64": "arm64"}
CROSS_CC = {"x86_64": "cc", "arm64": "aarch64-linux-gnu-gcc"}
CAPTURE_MODULES = {
    "x86_64": ["virtio_pci", "virtio_blk"],
    "arm64": ["virtio_mmio", "virtio_blk"],
}
DISK_DEVICE = {"x86_64": "virtio-blk-pci", "arm64": "virtio-blk-device"}


def unpacked(pkg, arch):
    """Directory of Debian package pkg:arch unpacked by make check-deps."""
    return os.path.join(CACHE_DIR, f"{pkg}-{DEB_ARCH[arch]}")


def missing(arch):
    """Why this arch cannot run kdump here, or None."""
    for pkg in ("kexec-tools", "makedumpfile") if arch == "arm64" else \
            ("kexec-tools",):
        if not os.path.isdir(unpacked(pkg, arch)):
            return (f"{pkg}:{DEB_ARCH[arch]} is not in {CACHE_DIR} "
                    "(make check-deps)")
    for tool in ("debugfs", "mke2fs", CROSS_CC[arch]):
        if not shutil.which(tool):
            return f"{tool} not installed (make check-deps)"
    return None


def _makedumpfile(arch):
    if arch == "x86_64":
        return shutil.which("makedumpfile") or "/usr/bin/makedumpfile"
    return os.path.join(unpacked("makedumpfile", arch), "usr", "bin",
                        "makedumpfile")


def _xenctrl_stub(arch):
    out = os.path.join(ktvm.BUILD, "kdump", arch, "libxenctrl.so.4.17")
    if (os.path.exists(out) and
            os.path.getmtime(out) >= os.path.getmtime(STUB_SRC)):
        return out
    os.makedirs(os.path.dirname(out), exist_ok=True)
    subprocess.run([CROSS_CC[arch], "-shared", "-fPIC", "-O2", "-Wall",
                    "-Werror", "-o", out, STUB_SRC,
                    f"-Wl,--version-script={STUB_MAP}",
                    "-Wl,-soname,libxenctrl.so.4.17"], check=True)
    return out


def _binary_files(arch, binary, dest):
    """binary at dest, and the libraries it needs, for an initramfs."""
    files = {dest: binary}
    if arch == "x86_64":
        r = subprocess.run(["ldd", binary], capture_output=True, text=True)
        for line in r.stdout.splitlines():
            m = re.search(r"(/\S+)\s+\(0x", line)
            if m:
                files[m.group(1)] = m.group(1)
    else:
        files.update(ktvm._cross_libs(binary, ktvm.ARM64_LIBDIRS))
    return files


def _modules_with_deps(arch, names, kernel=None):
    """Module files, dependencies first (modinfo's depends: the cached
    kernel tree has no modules.dep)."""
    moddir = ktvm.module_dir(arch, kernel)
    files = {}
    for root, _, entries in os.walk(os.path.join(moddir, "kernel")):
        for e in entries:
            if ".ko" in e:
                files[e.split(".ko")[0].replace("-", "_")] = \
                    os.path.join(root, e)
    order = []

    def add(name):
        path = files.get(name)
        if not path or path in order:
            return
        r = subprocess.run(["modinfo", "-F", "depends", path],
                           capture_output=True, text=True, check=True)
        for dep in filter(None, r.stdout.strip().split(",")):
            add(dep.replace("-", "_"))
        order.append(path)

    for name in names:
        add(name)
    return order


CAPTURE_INIT = r"""#!/bin/busybox sh
# PID 1 of the capture kernel: save /proc/vmcore in every format asked
# for onto the virtio disk, as kdump-tools' capture step does.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
export PATH=/bin:/sbin
echo "KDUMP-CAPTURE-KERNEL $(uname -r) up=$(cut -d' ' -f1 /proc/uptime)"
for m in $(cat /modules.order); do insmod /lib/modules/$m; done
i=0
while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
mount -t ext2 /dev/vda /mnt || echo "KDUMP-NO-DISK"
echo "KDUMP-VMCORE $(stat -c %s /proc/vmcore 2>/dev/null) up=$(cut -d' ' -f1 /proc/uptime)"
while read -r name opts; do
	t0=$(date +%s)
	if [ "$name" = flat ]; then
		makedumpfile $opts /proc/vmcore > /mnt/$name 2> /tmp/err
	else
		makedumpfile $opts /proc/vmcore /mnt/$name > /tmp/err 2>&1
	fi
	rc=$?
	sed "s/^/@@makedumpfile-$name@@ /" /tmp/err | tail -n 5
	echo "KDUMP-SAVED $name rc=$rc seconds=$(($(date +%s) - t0)) bytes=$(wc -c < /mnt/$name)"
done < /formats
sync
umount /mnt
echo "KDUMP-CAPTURE-DONE up=$(cut -d' ' -f1 /proc/uptime)"
poweroff -f
"""


def build_capture_initramfs(arch, formats, out, kernel=None):
    """The capture kernel's initramfs: busybox, virtio modules, makedumpfile
    and the list of formats to write."""
    files = _binary_files(arch, _makedumpfile(arch), "/bin/makedumpfile")
    mods = _modules_with_deps(arch, CAPTURE_MODULES[arch], kernel)
    with tempfile.TemporaryDirectory() as tmp:
        for d in ("bin", "sbin", "proc", "sys", "dev", "tmp", "mnt",
                  "lib/modules"):
            os.makedirs(os.path.join(tmp, d), exist_ok=True)
        shutil.copy(ktvm.ARCHES[arch]["busybox"],
                    os.path.join(tmp, "bin", "busybox"))
        for dest, src in files.items():
            path = os.path.join(tmp, dest.lstrip("/"))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            shutil.copy(src, path)
        names = []
        for src in mods:
            name = os.path.basename(src)
            if name.endswith(".xz"):
                name = name[:-3]
                with lzma.open(src) as fin, \
                        open(os.path.join(tmp, "lib", "modules", name),
                             "wb") as fout:
                    shutil.copyfileobj(fin, fout)
            else:
                shutil.copy(src, os.path.join(tmp, "lib", "modules", name))
            names.append(name)
        with open(os.path.join(tmp, "modules.order"), "w") as f:
            f.write("\n".join(names) + "\n")
        with open(os.path.join(tmp, "formats"), "w") as f:
            for name in formats:
                opts = FORMATS[name] + ["-d", str(DUMP_LEVEL)]
                f.write(f"{name} {' '.join(opts)}\n")
        with open(os.path.join(tmp, "init"), "w") as f:
            f.write(CAPTURE_INIT)
        os.chmod(os.path.join(tmp, "init"), 0o755)
        ktvm.pack_initramfs(tmp, out)
    return out


def first_kernel_files(arch, capture, kernel=None):
    """What the first kernel's initramfs needs to load the crash kernel:
    Debian's kexec with its libraries (the Xen one a stub), the kernel
    image and the capture initramfs."""
    kexec = os.path.join(unpacked("kexec-tools", arch), "sbin", "kexec")
    stub = _xenctrl_stub(arch)
    files = {"/boot/vmlinuz": ktvm.kernel_image(arch, kernel),
             "/boot/capture.gz": capture, "/sbin/kexec": kexec}
    if arch == "x86_64":
        r = subprocess.run(["ldd", kexec], capture_output=True, text=True,
                           env={**os.environ,
                                "LD_LIBRARY_PATH": os.path.dirname(stub)},
                           check=True)
        for line in r.stdout.splitlines():
            m = re.search(r"(/\S+)\s+\(0x", line)
            if m:
                files[m.group(1)] = m.group(1)
        files["/lib/x86_64-linux-gnu/libxenctrl.so.4.17"] = stub
    else:
        files.update(ktvm._cross_libs(
            kexec, [os.path.dirname(stub)] + ktvm.ARM64_LIBDIRS))
    return files


def extract(disk, name, out):
    """Copy /name out of the ext2 image disk; False where it is absent."""
    r = subprocess.run(["debugfs", "-R", f"dump /{name} {out}", disk],
                       capture_output=True, text=True)
    return r.returncode == 0 and os.path.exists(out) and \
        os.path.getsize(out) > 0


class Capture:
    """What one kdump boot left: console lines of both kernels, and the
    dump files by format name."""

    def __init__(self):
        self.lines = []
        self.first = []
        self.capture = []
        self.dumps = {}
        self.saved = {}
        self.error = None
        self.disk = None


def kdump_guest(arch, topo, script, formats, outdir, tools=(), files=None,
                kernel=None, timeout=900, mem_per_node=512, keep_disk=False):
    """Boot with a crash kernel reservation and a dump disk, run script
    (which loads the crash kernel with `kexec -p` when it wants to, and
    panics), let the capture kernel save the dump in each format, and
    read the files back into outdir. Returns a Capture; with keep_disk,
    its disk is the dump disk, for the boot after (disk_args()), and the
    caller removes it."""
    cap = Capture()
    os.makedirs(outdir, exist_ok=True)
    pid = os.getpid()
    capture = os.path.join(ktvm.BUILD, f"capture-{arch}-{pid}.gz")
    initrd = os.path.join(ktvm.BUILD, f"kdump-initrd-{arch}-{pid}.gz")
    disk = os.path.join(outdir, "dumps.ext2")
    build_capture_initramfs(arch, formats, capture, kernel)
    allfiles = dict(files or {})
    allfiles.update(first_kernel_files(arch, capture, kernel))
    ktvm.build_initramfs(arch, script, initrd, tools=tools, files=allfiles,
                         kernel=kernel)
    if os.path.exists(disk):
        os.unlink(disk)
    subprocess.run(["mke2fs", "-q", "-F", "-t", "ext2", disk, "2048M"],
                   check=True)
    extra = disk_args(arch, disk)
    try:
        with ktvm.Guest(arch, topo, initrd, cmdline=CRASHKERNEL,
                        timeout=timeout, extra_args=extra, kernel=kernel,
                        mem_per_node=mem_per_node) as g:
            try:
                g.wait_for(r"KDUMP-CAPTURE-DONE")
                g.proc.wait(timeout=max(g.remaining(), 1))
            except (TimeoutError, RuntimeError) as e:
                cap.error = str(e)
            cap.lines = list(g.lines)
    finally:
        for p in (capture, initrd):
            if os.path.exists(p):
                os.unlink(p)
    start = next((i for i, x in enumerate(cap.lines)
                  if "KDUMP-CAPTURE-KERNEL" in x), len(cap.lines))
    cap.first = cap.lines[:start]
    cap.capture = cap.lines[start:]
    for line in cap.capture:
        m = re.search(r"KDUMP-SAVED (\S+) rc=(\d+) seconds=(\d+) "
                      r"bytes=(\d+)", line)
        if m:
            cap.saved[m.group(1)] = (int(m.group(2)), int(m.group(3)),
                                     int(m.group(4)))
    for name in formats:
        out = os.path.join(outdir, f"vmcore.{name}")
        if cap.saved.get(name, (1,))[0] == 0 and extract(disk, name, out):
            cap.dumps[name] = out
    if keep_disk:
        cap.disk = disk
    else:
        os.unlink(disk)
    return cap


def disk_args(arch, disk):
    """QEMU's arguments for the dump disk, /dev/vda in the guest."""
    return ["-drive", f"file={disk},format=raw,if=none,id=kdump",
            "-device", f"{DISK_DEVICE[arch]},drive=kdump"]


def disk_modules(arch, outdir, kernel=None):
    """The modules a first kernel needs to mount the dump disk, as
    {guest path: host path} under /lib/modules/disk/ with a
    modules.order there (insmod them in that order): the capture
    kernel's, unpacked into outdir."""
    files = {}
    names = []
    for src in _modules_with_deps(arch, CAPTURE_MODULES[arch], kernel):
        name = os.path.basename(src)
        dest = os.path.join(outdir, name)
        if name.endswith(".xz"):
            name = name[:-3]
            dest = os.path.join(outdir, name)
            with lzma.open(src) as fin, open(dest, "wb") as fout:
                shutil.copyfileobj(fin, fout)
        else:
            shutil.copy(src, dest)
        files[f"/lib/modules/disk/{name}"] = dest
        names.append(name)
    order = os.path.join(outdir, "modules.order")
    with open(order, "w") as f:
        f.write("\n".join(names) + "\n")
    files["/lib/modules/disk/modules.order"] = order
    return files
