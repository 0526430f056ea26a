# SPDX-License-Identifier: GPL-2.0
"""Real NUMA guests for ktrepl tests.

Builds a busybox initramfs holding the module, the tools and a guest
script, boots it under QEMU/TCG with a NUMA topology, streams the serial
console, and can dump guest memory through QMP. Every QEMU started here
runs in its own process group with a hard deadline, and is killed by pid
on every exit path, so no stray QEMU outlives a test.
"""

import atexit
import functools
import gzip
import lzma
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import threading
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests"))
import ktrepl_tap  # noqa: E402
# the kernel profile guests boot (scripts/kernels/NAME.conf), and the one
# the smoke suite boots
KERNEL = os.environ.get("KTREPL_KERNEL", "6.1")
OTHER_KERNEL = os.environ.get("KTREPL_OTHER_KERNEL",
                              "6.1" if KERNEL == "6.12" else "6.12")
CACHE = os.environ.get("KTREPL_CACHE", "/var/cache/ktrepl")
BUILD = os.path.join(ROOT, "build")

ARCHES = {
    "x86_64": {
        "deb": "amd64",
        "qemu": "qemu-system-x86_64",
        "machine": ["-M", "q35"],
        "console": "ttyS0",
        "busybox": "/bin/busybox",
        # multi-threaded TCG loses cross-CPU code modification on x86
        # guests: enabling the function tracer then hangs in
        # text_poke_sync now and then, with or without ktrepl loaded
        "accel": "tcg,thread=single",
        "extra_modules": [],
    },
    "arm64": {
        "deb": "arm64",
        "qemu": "qemu-system-aarch64",
        # max's pointer authentication computes QARMA5 in software on
        # every signed return, and Debian's kernels sign them all
        # (ARM64_PTR_AUTH_KERNEL): pauth-impdef keeps the feature, with
        # QEMU's cheap algorithm. module-arm64.sh: 138 s -> 25 s
        "machine": ["-M", "virt", "-cpu", "max,pauth-impdef=on"],
        "console": "ttyAMA0",
        "accel": "tcg",
        "busybox": os.path.join(CACHE, "arm64-busybox", "bin", "busybox"),
        "extra_modules": [],
    },
}

_live = set()


def arch_selected(arch):
    """KTREPL_GUEST_ARCHES=x86_64,arm64: the arches whose guests a test
    file boots (default: both). run-all.sh runs a timing-sensitive file's
    x86_64 guests (one TCG thread each) beside another such file, and its
    arm64 ones (a thread per vCPU) alone."""
    sel = os.environ.get("KTREPL_GUEST_ARCHES", "")
    unknown = [a for a in sel.split(",") if a not in ARCHES] if sel else []
    if unknown:
        # a typo would otherwise select nothing: a plan of 1..0, a skip
        print(f"Bail out! KTREPL_GUEST_ARCHES={sel}: unknown arch "
              f"{','.join(unknown)} (have {','.join(ARCHES)})", flush=True)
        sys.exit(2)
    return not sel or arch in sel.split(",")


def _kill_all():
    for proc in list(_live):
        _kill(proc)


def _kill(proc):
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
    _live.discard(proc)


atexit.register(_kill_all)
for _sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(_sig, lambda s, f: (_kill_all(), os._exit(128 + s)))


def kernel_profile(name=None):
    """NAME=value pairs of a kernel profile, the default one if None."""
    return _read_profile(name or KERNEL)


@functools.lru_cache(maxsize=None)
def _read_profile(name):
    path = os.path.join(ROOT, "scripts", "kernels", f"{name}.conf")
    conf = {}
    with open(path) as f:
        for line in f:
            k, sep, v = line.strip().partition("=")
            if sep and not k.startswith("#"):
                # the shell sources these files too: values with spaces
                # are quoted
                conf[k] = v.strip('"')
    return conf


def kernel_release(arch, kernel=None):
    key = "KERNEL_X86" if arch == "x86_64" else "KERNEL_ARM64"
    return kernel_profile(kernel)[key]


def _kernel_root(arch, kernel=None):
    return os.path.join(CACHE, "kernels", kernel_release(arch, kernel))


def kernel_image(arch, kernel=None):
    return os.path.join(_kernel_root(arch, kernel), "boot",
                        f"vmlinuz-{kernel_release(arch, kernel)}")


def module_dir(arch, kernel=None):
    return os.path.join(_kernel_root(arch, kernel), "lib", "modules",
                        kernel_release(arch, kernel))


def ktrepl_ko(arch, kernel=None, test=False):
    """The shipped module, or with test the test build (make kernel-test:
    fault injection and the test parameters), which guests get as
    /lib/modules/ktrepl-test.ko."""
    return os.path.join(BUILD, f"kernel-{kernel_release(arch, kernel)}"
                        f"{'-test' if test else ''}", "ktrepl.ko")


def debug_vmlinux(kernel=None):
    """x86_64 only: Debian's crash on amd64 reads only x86_64 dumps."""
    return os.path.join(_kernel_root("x86_64", kernel), "usr", "lib",
                        "debug", "boot",
                        f"vmlinux-{kernel_release('x86_64', kernel)}")


def parse_topology(spec):
    """'2x2' -> 2 memory nodes of 2 CPUs; '+memless' adds a CPU-only node;
    '+late' a last node with neither, offline at boot, that a DIMM
    hot-added through QMP (Guest.hotplug_dimm) brings online."""
    m = re.fullmatch(r"(\d+)x(\d+)(\+memless)?(\+late)?", spec)
    if not m:
        raise ValueError(f"bad topology {spec!r}: want NxC, NxC+memless "
                         "or either +late")
    nodes, cpus = int(m.group(1)), int(m.group(2))
    topo = [{"cpus": cpus, "memory": True} for _ in range(nodes)]
    if m.group(3):
        # same CPU count as the others, so sockets map onto nodes evenly
        topo.append({"cpus": cpus, "memory": False})
    if m.group(4):
        topo.append({"cpus": 0, "memory": False, "late": True})
    return topo


def _shared_libs(binary):
    out = subprocess.run(["ldd", binary], capture_output=True, text=True,
                         check=True).stdout
    libs = []
    for line in out.splitlines():
        m = re.search(r"(/\S+)\s+\(0x", line)
        if m:
            libs.append(m.group(1))
    return libs


ARM64_LIBDIRS = ["/usr/lib/aarch64-linux-gnu", "/lib/aarch64-linux-gnu"]


def _cross_libs(binary, libdirs, seen=None):
    """NEEDED libraries of a foreign binary, recursively, from libdirs."""
    seen = {} if seen is None else seen
    out = subprocess.run(["readelf", "-d", "-l", binary], capture_output=True,
                         text=True, check=True).stdout
    names = re.findall(r"\(NEEDED\)\s+Shared library: \[(\S+)\]", out)
    interp = re.search(r"Requesting program interpreter: (\S+)\]", out)
    if interp:
        for d in libdirs:
            cand = os.path.join(d, os.path.basename(interp.group(1)))
            if os.path.exists(cand):
                seen[interp.group(1)] = os.path.realpath(cand)
    for name in names:
        if any(os.path.basename(k) == name for k in seen):
            continue
        for d in libdirs:
            cand = os.path.join(d, name)
            if os.path.exists(cand):
                seen[os.path.join("/lib/aarch64-linux-gnu", name)] = \
                    os.path.realpath(cand)
                _cross_libs(cand, libdirs, seen)
                break
        else:
            raise FileNotFoundError(f"{binary} needs {name}, not found")
    return seen


def helper(arch, name):
    """A test helper built for arch by make helpers (tests/vm/helpers/)."""
    return os.path.join(BUILD, "helpers", arch, name)


def arm64_tools():
    """The cross-built tools for arm64 guests, if they were built."""
    paths = [os.path.join(BUILD, "tools-arm64", t, t)
             for t in ("ktrepl-dump", "ktrepl-top")]
    return [p for p in paths if os.path.exists(p)]


def pack_initramfs(tree, out):
    """tree as a gzipped newc cpio archive at out, as the kernel unpacks
    an initramfs."""
    listing = subprocess.run(["find", "."], cwd=tree, capture_output=True,
                             check=True).stdout
    cpio = subprocess.run(["cpio", "-o", "-H", "newc", "--quiet"],
                          cwd=tree, input=listing, capture_output=True,
                          check=True).stdout
    with gzip.open(out, "wb", compresslevel=1) as f:
        f.write(cpio)


def build_initramfs(arch, script, out, tools=(), files=None, kernel=None):
    """Pack busybox, modules, tools (with their libraries) and script."""
    files = dict(files or {})
    with tempfile.TemporaryDirectory() as tmp:
        for d in ("bin", "sbin", "proc", "sys", "dev", "tmp", "lib",
                  "lib64", "root", "etc", "mnt", "run"):
            os.makedirs(os.path.join(tmp, d), exist_ok=True)
        shutil.copy(ARCHES[arch]["busybox"], os.path.join(tmp, "bin",
                                                          "busybox"))
        shutil.copy(os.path.join(ROOT, "tests", "vm", "guest", "init"),
                    os.path.join(tmp, "init"))
        shutil.copy(os.path.join(ROOT, "tests", "vm", "guest", "lib.sh"),
                    os.path.join(tmp, "lib.sh"))
        shutil.copy(os.path.join(ROOT, "tests", "tap.sh"),
                    os.path.join(tmp, "tap.sh"))
        shutil.copy(script, os.path.join(tmp, "test.sh"))
        moddir = module_dir(arch, kernel)
        files["/lib/modules/qemu_fw_cfg.ko"] = kernel_module(
            moddir, "kernel/drivers/firmware/qemu_fw_cfg.ko")
        files.setdefault("/lib/modules/ktrepl.ko", ktrepl_ko(arch, kernel))
        # the test build, where it was built for this kernel (t08 boots a
        # DKMS-built module on a kernel the suite has no test build for)
        if os.path.exists(ktrepl_ko(arch, kernel, test=True)):
            files.setdefault("/lib/modules/ktrepl-test.ko",
                             ktrepl_ko(arch, kernel, test=True))
        for tool in tools:
            files["/bin/" + os.path.basename(tool)] = tool
            if arch == "x86_64":
                for lib in _shared_libs(tool):
                    files[lib] = lib
            else:
                files.update(_cross_libs(tool, ARM64_LIBDIRS))
        for dest, src in files.items():
            path = os.path.join(tmp, dest.lstrip("/"))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            # 6.12 ships its modules xz-compressed; busybox insmod wants
            # them plain
            if src.endswith(".xz") and not dest.endswith(".xz"):
                with lzma.open(src) as fin, open(path, "wb") as fout:
                    shutil.copyfileobj(fin, fout)
            else:
                shutil.copy(src, path)
        for p in ("init", "test.sh", "lib.sh", "tap.sh"):
            os.chmod(os.path.join(tmp, p), 0o755)
        pack_initramfs(tmp, out)
    return out


# Kernel thresholds sized for emulation: under TCG on a busy host a round
# of tens of thousands of text pokes can hold a CPU past a real machine's
# 20 s soft-lockup threshold. A storm's control and its module run boot
# with the same values, so the module is judged against the control.
EMULATION = "watchdog_thresh=60 rcupdate.rcu_cpu_stall_timeout=120"


def note_guest_time(what, seconds):
    """Every boot's wall time, by test file, in build/guest-times.log:
    where make check's minutes go (run-all.sh prints the longest)."""
    test = os.path.basename(sys.argv[0])
    try:
        with open(os.path.join(BUILD, "guest-times.log"), "a") as f:
            f.write(f"{seconds:.0f}\t{test}\t{what}\n")
    except OSError:
        pass


class Guest:
    """One booted guest. Use as a context manager."""

    def __init__(self, arch, topology, initrd, cmdline="", cpu=None,
                 timeout=300, log=None, mem_per_node=512, extra_args=(),
                 keep_panicked=False, kernel=None, prealloc=False):
        """prealloc: the host backs all guest RAM before boot. Else it
        faults each page in at its first touch, a cost the guest charges
        to whatever writes the page first (bench.py load: the zeroing at
        allocation, never the memset baseline, which reuses the pages)."""
        self.arch = arch
        self.what = f"{arch} {topology}{' ' + cmdline if cmdline else ''}"
        self.topo = parse_topology(topology)
        self.tmp = tempfile.mkdtemp(prefix="ktvm-")
        self.qmp_path = os.path.join(self.tmp, "qmp.sock")
        self.deadline = time.monotonic() + timeout
        self.lines = []
        self.cond = threading.Condition()
        self.log = log
        a = ARCHES[arch]
        ncpus = sum(n["cpus"] for n in self.topo)
        nmem = sum(1 for n in self.topo if n["memory"])
        sockets = sum(1 for n in self.topo if n["cpus"])
        mem = f"{mem_per_node * nmem}M"
        # room for one DIMM of a node's size on the late node
        self.late_node = next((i for i, n in enumerate(self.topo)
                               if n.get("late")), None)
        self.dimm_mb = mem_per_node
        if self.late_node is not None:
            mem += f",slots=1,maxmem={mem_per_node * (nmem + 1)}M"
        args = [a["qemu"], *a["machine"], "-accel",
                os.environ.get("KTREPL_ACCEL", a["accel"]),
                "-smp", f"{ncpus},sockets={sockets},"
                f"cores={self.topo[0]['cpus']},threads=1", "-m", mem,
                "-kernel", kernel_image(arch, kernel), "-initrd", initrd,
                # keep_panicked: a panicked guest stays up (panic=0) and
                # QEMU pauses it, so its memory can still be dumped
                "-append", f"console={a['console']} "
                f"panic={0 if keep_panicked else -1} quiet "
                f"loglevel=4 {cmdline}".strip(),
                "-display", "none", "-serial", "stdio", "-monitor", "none",
                "-qmp", f"unix:{self.qmp_path},server=on,wait=off",
                "-device", "vmcoreinfo", "-no-reboot",
                *(["-action", "panic=pause"] if keep_panicked else []),
                *extra_args]
        if cpu:
            args += ["-cpu", cpu]
        cpu_id = 0
        for nid, node in enumerate(self.topo):
            cpus = f"{cpu_id}-{cpu_id + node['cpus'] - 1}"
            cpu_id += node["cpus"]
            if node.get("late"):
                args += ["-numa", f"node,nodeid={nid}"]
            elif node["memory"]:
                args += ["-object", f"memory-backend-ram,id=mem{nid},"
                         f"size={mem_per_node}M"
                         f"{',prealloc=on' if prealloc else ''}",
                         "-numa", f"node,nodeid={nid},cpus={cpus},"
                         f"memdev=mem{nid}"]
            else:
                args += ["-numa", f"node,nodeid={nid},cpus={cpus}"]
        # a memoryless node is nearer to the last memory node than to the
        # others, so "nearest" is not simply the lowest node number; QEMU
        # wants every pair once any distance is given
        mem_nodes = [i for i, n in enumerate(self.topo) if n["memory"]]
        if len(mem_nodes) < len(self.topo) and len(mem_nodes) > 1:
            for a in range(len(self.topo)):
                for b in range(a + 1, len(self.topo)):
                    if self.topo[a]["memory"] and self.topo[b]["memory"]:
                        d = 20
                    else:
                        d = 15 if mem_nodes[-1] in (a, b) else 25
                    args += ["-numa", f"dist,src={a},dst={b},val={d}"]
        self.args = args
        self.proc = None

    def __enter__(self):
        self.started = time.monotonic()
        self.proc = subprocess.Popen(self.args, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT,
                                     start_new_session=True)
        _live.add(self.proc)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        return self

    def __exit__(self, *exc):
        self.kill()
        shutil.rmtree(self.tmp, ignore_errors=True)
        note_guest_time(self.what, time.monotonic() - self.started)

    def kill(self):
        if self.proc:
            _kill(self.proc)

    def _read(self):
        for raw in iter(self.proc.stdout.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            if self.log:
                self.log.write(line + "\n")
                self.log.flush()
            with self.cond:
                self.lines.append(line)
                self.cond.notify_all()
        with self.cond:
            self.cond.notify_all()

    def remaining(self):
        return self.deadline - time.monotonic()

    def wait_for(self, pattern, start=0):
        """Wait for a console line matching pattern; return (index, match)."""
        rx = re.compile(pattern)
        i = start
        with self.cond:
            while True:
                while i < len(self.lines):
                    m = rx.search(self.lines[i])
                    if m:
                        return i, m
                    i += 1
                if self.proc.poll() is not None and not self.reader.is_alive():
                    raise RuntimeError(f"guest exited before /{pattern}/")
                left = self.remaining()
                if left <= 0:
                    raise TimeoutError(f"guest timed out waiting for "
                                       f"/{pattern}/")
                self.cond.wait(min(left, 1.0))

    def send(self, text):
        self.proc.stdin.write(text.encode())
        self.proc.stdin.flush()

    def run_to_end(self):
        """Wait for the guest script to finish; return (rc, console lines)."""
        i, m = self.wait_for(r"^KTREPL-GUEST-EXIT (\d+)")
        self.proc.wait(timeout=max(self.remaining(), 1))
        return int(m.group(1)), self.lines[:i]

    def qmp(self, *commands):
        """Run QMP commands in one session; return their 'return' values."""
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(max(self.remaining(), 1))
        s.connect(self.qmp_path)
        f = s.makefile("rw")
        json.loads(f.readline())

        def call(cmd, **kw):
            f.write(json.dumps({"execute": cmd, "arguments": kw}) + "\n")
            f.flush()
            while True:
                msg = json.loads(f.readline())
                if "return" in msg:
                    return msg["return"]
                if "error" in msg:
                    raise RuntimeError(f"QMP {cmd}: {msg['error']}")

        call("qmp_capabilities")
        out = [call(c, **kw) for c, kw in commands]
        s.close()
        return out

    def hotplug_dimm(self):
        """A DIMM of a node's size on the '+late' node: ACPI memory
        hotplug, which onlines the node in the guest."""
        self.qmp(("object-add", {"qom-type": "memory-backend-ram",
                                 "id": "late-mem",
                                 "size": self.dimm_mb << 20}),
                 ("device_add", {"driver": "pc-dimm", "id": "late-dimm",
                                 "memdev": "late-mem",
                                 "node": self.late_node}))

    def wait_panic(self):
        """Wait for the guest's panic; its memory stays dumpable."""
        return self.wait_for(r"Kernel panic - not syncing")

    def dump(self, path, fmt="elf"):
        """dump-guest-memory; fmt 'elf', 'kdump-zlib' (made non-flat with
        makedumpfile -R), or 'kdump-zlib-flat' (QEMU's flattened output
        as it is)."""
        flat = fmt.endswith("-flat")
        qfmt = fmt[:-len("-flat")] if flat else fmt
        target = path if fmt == "elf" or flat else path + ".flat"
        self.qmp(("stop", {}),
                 ("dump-guest-memory", {"paging": False,
                                        "protocol": f"file:{target}",
                                        **({} if fmt == "elf" else
                                           {"format": qfmt})}))
        if fmt != "elf" and not flat:
            with open(target, "rb") as src:
                r = subprocess.run(["makedumpfile", "-R", path], stdin=src,
                                   stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT)
            if r.returncode:
                raise RuntimeError("makedumpfile -R failed: " +
                                   r.stdout.decode(errors="replace"))
            os.unlink(target)
        return path


class Tap(ktrepl_tap.Tap):
    """Host-side TAP producer; guest TAP lines are folded in, renumbered."""

    def fold_guest(self, prefix, lines):
        """Re-emit the guest's ok/not ok lines; return how many there were.
        A guest that panicked on purpose said how many it had printed
        (lib.sh's before_panic): each of them must have arrived."""
        seen = 0
        before_panic = None
        for line in lines:
            m = re.match(r"^(ok|not ok) \d+ - (.*)$", line)
            if m:
                seen += 1
                self.ok(m.group(1) == "ok", f"{prefix} {m.group(2)}")
            elif line.startswith("# "):
                print(line, flush=True)
            elif line.startswith("@@guest_checks@@ "):
                before_panic = int(line.split()[1])
        if before_panic is not None:
            self.ok(seen >= before_panic,
                    f"{prefix} the guest's {before_panic} checks before the "
                    f"panic all reached the host", f"got {seen}")
        return seen

    def ok_crash(self, needs, cond, desc, diag=None, kernel=None):
        """A check on crash's output that needs what crash_limit() names
        (None: only crash> ktrepl), skipped where the kernel's profile says
        its crash cannot do that."""
        why = crash_limit(needs, kernel)
        if why:
            return self.skip(desc, why)
        return self.ok(cond, desc, diag)


def run_guest(tap, arch, topology, script, tools=(), name=None, files=None,
              kernel=None, **kw):
    """Boot, run a guest script to the end, fold its TAP; return lines."""
    name = name or f"[{arch} {topology}]"
    initrd = os.path.join(BUILD, f"initrd-{arch}-{os.getpid()}.gz")
    build_initramfs(arch, script, initrd, tools=tools, files=files,
                    kernel=kernel)
    lines = []
    try:
        with Guest(arch, topology, initrd, kernel=kernel, **kw) as g:
            try:
                rc, lines = g.run_to_end()
            except (TimeoutError, RuntimeError) as e:
                tap.ok(False, f"{name} guest script finished", "\n".join(
                    [str(e)] + g.lines[-30:]))
                return g.lines
            folded = tap.fold_guest(name, lines)
            tap.ok(rc == 0 and folded > 0,
                   f"{name} guest script passed ({folded} guest checks)",
                   "\n".join(lines[-30:]))
    finally:
        os.unlink(initrd)
    return lines


def dump_guest(script, cores, panic=False, arch="x86_64", topo="2x2",
               tools=(), timeout=300, files=None, kernel=None, cmdline=""):
    """Boot, run script until it prints KTREPL-READY-FOR-DUMP (or, with
    panic, until the kernel panics), and dump memory to every (path,
    format) in cores. Returns (console lines up to that point, error);
    error is None when every dump was written."""
    initrd = os.path.join(BUILD, f"dump-initrd-{os.getpid()}.gz")
    build_initramfs(arch, script, initrd, tools=tools, files=files,
                    kernel=kernel)
    try:
        with Guest(arch, topo, initrd, timeout=timeout,
                   keep_panicked=panic, kernel=kernel, cmdline=cmdline) as g:
            try:
                if panic:
                    end, _ = g.wait_panic()
                    end += 1
                else:
                    end, _ = g.wait_for(r"^KTREPL-READY-FOR-DUMP")
                for path, fmt in cores:
                    g.dump(path, fmt)
                return g.lines[:end], None
            except Exception as e:  # report, never hang
                return list(g.lines), str(e)
    finally:
        os.unlink(initrd)


def script_with(name, replace=()):
    """A copy of guest/NAME with the given (old, new) text replacements,
    each of which must apply: a script that no longer has the text would
    otherwise run its default silently. Removed when the process exits."""
    with open(os.path.join(os.path.dirname(__file__), "guest", name)) as f:
        text = f.read()
    for old, new in replace:
        if old not in text:
            raise SystemExit(f"ktvm: guest/{name} no longer has {old!r}")
        text = text.replace(old, new)
    fd, path = tempfile.mkstemp(prefix=f"{os.getpid()}-", suffix=f"-{name}",
                                dir=BUILD)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    atexit.register(lambda: os.path.exists(path) and os.unlink(path))
    return path


def kernel_module(moddir, rel):
    """A Debian module's file, compressed (6.12) or not (6.1)."""
    path = os.path.join(moddir, rel)
    return path if os.path.exists(path) or not os.path.exists(
        path + ".xz") else path + ".xz"


# modules a test guest must not load: self-tests and torture tests run at
# load, watchdogs may reset it, and crash-test modules
MODULE_SKIP = re.compile(r"watchdog|/test_|_test\.ko|kunit|torture|lkdtm|"
                         r"/kvm|xen|hyperv|vboxguest|/sound/")


def module_load_order(moddir):
    """modules.order, each module after what it depends on (modinfo):
    what a guest loads to carry a server's worth of modules (t11, bench)"""
    order = [x.strip() for x in open(os.path.join(moddir, "modules.order"))]
    by_name = {}
    for rel in order:
        by_name[os.path.basename(rel)[:-3].replace("-", "_")] = rel
    out, seen = [], set()

    def visit(rel, depth=0):
        if rel in seen or depth > 32:
            return
        seen.add(rel)
        path = kernel_module(moddir, rel)
        deps = subprocess.run(["modinfo", "-F", "depends", path],
                              capture_output=True, text=True).stdout.strip()
        for d in filter(None, deps.split(",")):
            if d.replace("-", "_") in by_name:
                visit(by_name[d.replace("-", "_")], depth + 1)
        out.append(rel)

    for rel in order:
        if not MODULE_SKIP.search(rel):
            visit(rel)
    return [r for r in out if os.path.exists(kernel_module(moddir, r))]


def many_modules(moddir, tmpdir):
    """module_load_order()'s modules for a guest's /lib/modules/many,
    named NNNN-NAME.ko in that order, and their list, one name a line
    (guest/many-modules.sh and bench/guest/preloaded.sh read it): the
    initramfs files, and how many modules they hold"""
    files, names = {}, []
    for i, rel in enumerate(module_load_order(moddir)):
        name = f"{i:04d}-{os.path.basename(rel)[:-3]}.ko"
        files[f"/lib/modules/many/{name}"] = kernel_module(moddir, rel)
        names.append(name)
    listing = os.path.join(tmpdir, "list")
    with open(listing, "w") as f:
        f.write("\n".join(names) + "\n")
    files["/lib/modules/many/list"] = listing
    return files, len(names)


def fs_modules(arch, kernel=None):
    """The Debian modules the module-replication tests load, by their
    initramfs path: a ramdisk, vfat and its code pages."""
    base = module_dir(arch, kernel)
    rels = ["kernel/drivers/block/brd.ko", "kernel/fs/fat/fat.ko",
            "kernel/fs/fat/vfat.ko"] + [
        f"kernel/fs/nls/{m}.ko" for m in ("nls_cp437", "nls_iso8859-1",
                                          "nls_utf8", "nls_ascii")]
    paths = {"/lib/modules/extra/" + os.path.basename(r):
             kernel_module(base, r) for r in rels}
    return {d: p for d, p in paths.items() if os.path.exists(p)}


def big_modules(kernel=None):
    """The x86_64 modules module-cycles.sh loads past a failed map's
    tables, by their initramfs path: 2.4 MiB, more than the rest of any
    2 MiB of the module area."""
    base = module_dir("x86_64", kernel)
    rels = ["kernel/lib/libcrc32c.ko", "kernel/fs/xfs/xfs.ko",
            "kernel/virt/lib/irqbypass.ko", "kernel/arch/x86/kvm/kvm.ko"]
    paths = {"/lib/modules/extra/" + os.path.basename(r):
             kernel_module(base, r) for r in rels}
    return {d: p for d, p in paths.items() if os.path.exists(p)}


def elf_program_headers(path):
    """(p_type, p_offset, p_paddr, p_filesz, p_memsz) of each program
    header of an ELF core, read by hand (independent of the tools under
    test); p_memsz past p_filesz is what a dump filter left out."""
    segs = []
    with open(path, "rb") as f:
        ehdr = f.read(64)
        phoff, = struct.unpack_from("<Q", ehdr, 32)
        phentsize, phnum = struct.unpack_from("<HH", ehdr, 54)
        for i in range(phnum):
            f.seek(phoff + i * phentsize)
            (p_type, _flags, p_offset, _vaddr, p_paddr, p_filesz,
             p_memsz, _align) = struct.unpack("<IIQQQQQQ", f.read(56))
            segs.append((p_type, p_offset, p_paddr, p_filesz, p_memsz))
    return segs


def elf_segments(path):
    """(p_type, p_offset, p_paddr, p_filesz) of each program header."""
    return [s[:4] for s in elf_program_headers(path)]


def crash_session(vmlinux, core, commands, arch="x86_64", timeout=1200):
    """One crash session running commands ({tag: command}), each output
    after an echoed marker: (exit status, whole output, {tag: output})."""
    script = []
    for tag, cmd in commands.items():
        script += [f"echo @@{tag}@@\\n", cmd]
    rc, out = crash(vmlinux, core, *script, arch=arch, timeout=timeout)
    outs, tag = {}, None
    for line in out.splitlines():
        m = re.match(r"@@(\w+)@@", line)
        if m:
            tag = m.group(1)
            outs[tag] = []
        elif tag:
            outs[tag].append(line)
    return rc, out, {k: "\n".join(v) for k, v in outs.items()}


def elf_phys_offset(path, pa):
    """File offset of physical address pa in an ELF core; None when no
    PT_LOAD holds it."""
    for p_type, p_offset, p_paddr, p_filesz in elf_segments(path):
        if p_type == 1 and p_paddr <= pa < p_paddr + p_filesz:
            return p_offset + pa - p_paddr
    return None


def tool(name):
    """A native tool as `make tools` builds it (OUTPUT=build/tools/)."""
    return os.path.join(BUILD, "tools", name, name)


# the crash extension as `make crash-ext` builds it
CRASH_EXT = os.path.join(BUILD, "crash-ext", "ktrepl.so")


# Locality, stated once for t03, t05 and t07. A ktrepl-top figure is
# {local, remote, local_pct}; its resolved samples are local + remote.
# What a node's CPUs ran through a node's own set (on_sets; under percpu
# that is the node's whole figure) fetches locally: at least
# LOCAL_MIN_RESOLVED resolved samples, and at least LOCAL_OWN_SET_PCT of
# them local, per class of text. Core text is all replicated before any
# CPU moves. A module's text is replicated once it is loaded, and a
# module being loaded runs its init from its loader's pages until then
# (t03's reloads: 2 of 363 fetches remote once, arm64, 2026-12-04).
# The master node's set is the master's tables, local with or without
# replication: its rows are labelled and not judged.
LOCAL_MIN_RESOLVED = 100
LOCAL_OWN_SET_PCT = {"core": 99, "module": 95}


def own_set_local(fig, text="core"):
    """(verdict, resolved samples, local %) of a figure of one class of
    text through a node's own set, by the rule above; too few samples is
    a failed verdict."""
    resolved = fig["local"] + fig["remote"]
    pct = 100.0 * fig["local"] / resolved if resolved else None
    return (resolved >= LOCAL_MIN_RESOLVED and
            pct >= LOCAL_OWN_SET_PCT[text], resolved, pct)


def own_set_desc(resolved, pct, text="core"):
    shown = "no" if pct is None else f"{pct:.1f}%"
    return (f"{shown} local through its own set ({resolved} resolved "
            f"samples; want >= {LOCAL_MIN_RESOLVED}, >= "
            f"{LOCAL_OWN_SET_PCT[text]}%)")


def walk_disagreements(lines, node):
    """The guest's pgtables/nodeN records (@@pgtN@@) against ktrepl-dump
    walk --node N (@@walkN@@): (every pgtables mapping, those the walk
    does not give with the same PA, size, flags and PA node)."""
    try:
        walk = json.loads("".join(records(lines, f"walk{node}")))
    except ValueError:
        walk = {}
    mine = {int(m["va"], 16): m for m in walk.get("mappings", [])
            if m["present"]}
    pgt = [kv(r) for r in records(lines, f"pgt{node}")]
    bad = []
    for p in pgt:
        m = mine.get(int(p["va"], 16))
        flags = ",".join(p["flags"].split(",")[1:])
        if not m or int(m["pa"], 16) != int(p["pa"], 16) or \
                m["size"] != int(p["size"]) or m["flags"] != flags or \
                m["pa_node"] != int(p["pa_node"]):
            bad.append((p["va"], p["pa"], p["flags"], m))
    return pgt, bad


@functools.lru_cache(maxsize=None)
def crash_version():
    r = subprocess.run(["crash", "--version"], capture_output=True,
                       text=True)
    m = re.search(r"crash (\S+)", r.stdout)
    return m.group(1) if m else "?"


# crash reads dumps of the architecture it was built for. For arm64 dumps
# on another host: Debian's arm64 crash, which scripts/deps.sh unpacks
# into this overlay on / (with the libraries the host has not installed
# for arm64), run by qemu-aarch64-static -L, with `make crash-ext-arm64`'s
# extension. On an arm64 host the native crash and `make crash-ext`.
ARM64_CRASH_ROOT = os.path.join(CACHE, "arm64-crash")
CRASH_EXT_ARM64 = os.path.join(BUILD, "crash-ext-arm64", "ktrepl.so")
_HOST_ARCH = {"aarch64": "arm64"}.get(os.uname().machine, os.uname().machine)


def crash_argv(arch="x86_64"):
    """(the command that runs a crash reading arch's dumps, the extension
    it loads), or (None, why not) when this host has none."""
    if arch == _HOST_ARCH:
        return ["crash"], CRASH_EXT
    if arch != "arm64":
        return None, f"no crash for {arch} dumps on an {_HOST_ARCH} host"
    qemu = shutil.which("qemu-aarch64-static")
    binary = os.path.join(ARM64_CRASH_ROOT, "usr", "bin", "crash")
    if not qemu:
        return None, ("no qemu-aarch64-static to run Debian's arm64 crash "
                      "(make check-deps installs qemu-user-static)")
    if not os.path.exists(binary):
        return None, (f"no {binary}: Debian's arm64 crash is not unpacked "
                      "(make check-deps)")
    return [qemu, "-L", ARM64_CRASH_ROOT, binary], CRASH_EXT_ARM64


def crash_vmlinux(arch="x86_64", kernel=None):
    """The -dbg vmlinux crash needs for arch's dumps (arm64: one file of
    linux-image-<release>-dbg, from scripts/deps.sh for the suite's
    kernel)."""
    if arch == "x86_64":
        return debug_vmlinux(kernel)
    rel = kernel_release(arch, kernel)
    return os.path.join(_kernel_root(arch, kernel), "usr", "lib", "debug",
                        "boot", f"vmlinux-{rel}")


def crash(vmlinux, core, *cmds, extend=True, timeout=600, kernel=None,
          arch="x86_64"):
    """crash -s on a dump of arch (crash_argv(): the host's crash, or
    arm64's under qemu-aarch64-static), with the kernel profile's
    CRASH_ARGS, our extension loaded first unless extend is False, cmds
    run: (exit status, stdout and stderr)."""
    argv, ext = crash_argv(arch)
    if argv is None:
        raise FileNotFoundError(ext)
    args = kernel_profile(kernel).get("CRASH_ARGS", "").split()
    lines = ([f"extend {ext}"] if extend else []) + [*cmds, "quit"]

    def session():
        r = subprocess.run([*argv, "-s", *args, vmlinux, core],
                           input="\n".join(lines) + "\n",
                           capture_output=True, text=True, timeout=timeout)
        return r.returncode, r.stdout + r.stderr

    rc, out = session()
    # No rerun: a rerun that keeps the passing try would hide a fault
    # that depends on layout or uninitialised data (Debian's arm64 crash
    # under qemu-aarch64-static died once by SIGSEGV, 2026-12-02). The
    # caller's check fails on the status; this says why.
    if rc < 0:
        print(f"# crash ({os.path.basename(argv[0])}) died by signal {-rc}; "
              f"its last output: {out[-600:]!r}", flush=True)
    return rc, out


CRASH_LIMIT_WORDS = {
    "own": "run its own commands (sys, bt) on this kernel's dumps",
    "tasks": "read this kernel's tasks, so ktrepl -p finds no panic task",
    "modules": "read this kernel's modules (struct module changed in 6.4), "
               "so it has no module symbols",
}


def crash_limit(needs, kernel=None):
    """Why the kernel's crash cannot do what a check needs ("own": crash's
    own commands, "tasks": the panic task and its stack, "modules": module
    symbols), from the profile's
    CRASH_LIMITS; None where it can."""
    prof = kernel_profile(kernel)
    if needs not in prof.get("CRASH_LIMITS", "").split():
        return None
    return (f"crash {crash_version()} cannot {CRASH_LIMIT_WORDS[needs]}; "
            f"run as crash {prof.get('CRASH_ARGS', '')}, crash> ktrepl "
            "reads the dump")


def records(lines, tag):
    """The guest's @@tag@@ records, tag stripped."""
    pre = f"@@{tag}@@ "
    return [line[len(pre):] for line in lines if line.startswith(pre)]



def json_records(tap, lines, tag):
    """The tag's records parsed as JSON; one that is not becomes a diag."""
    out = []
    for r in records(lines, tag):
        try:
            out.append(json.loads(r))
        except ValueError:
            tap.diag(f"not JSON: {r[:200]}")
    return out

def kv(line):
    """A key=value record as a dict (values stay strings)."""
    return dict(f.split("=", 1) for f in line.split() if "=" in f)
