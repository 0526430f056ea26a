#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ktrepl-top's screen on a pseudo-terminal gives the terminal back as it
found it on every way out: q, SIGINT, SIGTERM, SIGHUP (exit 0), SIGQUIT
and abort() (killed by the signal), each checked on the terminal's own
settings; a SIGQUIT that the caller ignores stays ignored. It measures a
fake kernel: a kcore with VMCOREINFO and one RAM segment, a sysfs with
one node and CPU 0, a kallsyms; only the sampling is real, so it needs
perf_event_open on CPU 0 and skips without it. On the same fake kernel,
who may run it: root or CAP_PERFMON (checked as nobody, through setpriv,
when run as root)."""
import os
import pty
import resource
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.join(HERE, "..", "..", "build", "tools")
TOP = os.environ.get("KTREPL_TOP",
                     os.path.join(BUILD, "ktrepl-top", "ktrepl-top"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
from ktrepl_tap import Tap, perf_refused  # noqa: E402

tap = Tap(header=False)
ok = tap.ok


def fake_kernel(d):
    """x86_64, 4-level, no ktrepl: init_top_pgt at PA 0x1000 (empty)."""
    name = b"VMCOREINFO\0"
    desc = (b"OSRELEASE=6.1.0\nPAGESIZE=4096\n"
            b"SYMBOL(init_top_pgt)=ffffffff80001000\n"
            b"NUMBER(phys_base)=0\nNUMBER(pgtable_l5_enabled)=0\n")

    def pad4(b):
        return b + b"\0" * (-len(b) % 4)

    note = struct.pack("<III", len(name), len(desc), 0) + pad4(name) + \
        pad4(desc)
    note_off = 64 + 2 * 56
    load_off = (note_off + len(note) + 4095) & ~4095
    mem = bytes(16384)
    ehdr = struct.pack("<16sHHIQQQIHHHHHH",
                       b"\x7fELF\x02\x01\x01" + bytes(9), 4, 62, 1, 0, 64,
                       0, 0, 64, 56, 2, 0, 0, 0)
    notes = struct.pack("<IIQQQQQQ", 4, 0, note_off, 0, 0, len(note), 0, 0)
    ram = struct.pack("<IIQQQQQQ", 1, 7, load_off, 0xffff888000000000, 0,
                      len(mem), len(mem), 4096)
    img = ehdr + notes + ram + note
    with open(os.path.join(d, "kcore"), "wb") as f:
        f.write(img + bytes(load_off - len(img)) + mem)
    with open(os.path.join(d, "kallsyms"), "w") as f:
        f.write("ffffffff81000000 T _stext\nffffffff81200000 T _etext\n")
    open(os.path.join(d, "modules"), "w").close()
    sysfs = os.path.join(d, "sys", "devices", "system")
    os.makedirs(os.path.join(sysfs, "memory"))
    os.makedirs(os.path.join(sysfs, "node", "node0", "memory0"))
    with open(os.path.join(sysfs, "memory", "block_size_bytes"), "w") as f:
        f.write("8000000\n")
    with open(os.path.join(sysfs, "node", "node0", "cpulist"), "w") as f:
        f.write("0\n")
    return ["--kcore", os.path.join(d, "kcore"),
            "--kallsyms", os.path.join(d, "kallsyms"),
            "--modules", os.path.join(d, "modules"),
            "--sysfs", os.path.join(d, "sys"),
            "--debugfs", os.path.join(d, "no-debugfs")]


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT,
                signal.SIGABRT)


def as_from_a_shell(ignore=()):
    """The child's start: no core file, and the stop signals at their
    default as an interactive shell leaves them (a background job of a
    shell without job control, as CI may be, inherits SIGINT and SIGQUIT
    ignored), except those in `ignore`."""
    def start():
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        for sig in STOP_SIGNALS:
            signal.signal(sig, signal.SIG_IGN if sig in ignore
                          else signal.SIG_DFL)
    return start


def drain(master, until, secs):
    """Read the screen until `until` shows up, the child hangs up, or
    secs pass; returns what was read."""
    out = b""
    end = time.time() + secs
    while time.time() < end:
        r, _, _ = select.select([master], [], [], 0.1)
        if not r:
            continue
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
        if until and until in out:
            break
    return out


def session(args, stop, ignore=(), then=None):
    """Run the screen on a fresh pty, stop it with `stop` (a signal or a
    key), and, if `then` is a key, that key 1 s later; returns (started,
    returncode, settings before, during, after, output, alive after
    `stop`)."""
    master, slave = pty.openpty()
    attrs = termios.tcgetattr(slave)
    attrs[3] |= termios.ICANON | termios.ECHO   # a shell's cooked mode
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    before = termios.tcgetattr(slave)
    env = dict(os.environ, TERM="xterm", KTREPL_NO_ROOT_CHECK="1",
               LINES="24", COLUMNS="100")
    p = subprocess.Popen([TOP, "-d", "0.2", *args], stdin=slave,
                         stdout=slave, stderr=slave, env=env,
                         start_new_session=True,
                         preexec_fn=as_from_a_shell(ignore))
    out = drain(master, b"replication=", 15)
    started = b"replication=" in out and p.poll() is None
    during = termios.tcgetattr(slave)
    if started:
        time.sleep(0.3)
        if isinstance(stop, bytes):
            os.write(master, stop)
        else:
            p.send_signal(stop)
    else:
        p.kill()
    alive = None
    if started and then:
        out += drain(master, None, 1)
        alive = p.poll() is None
        os.write(master, then)
    try:
        # keep reading: a child blocked on a full pty never exits
        deadline = time.time() + 15
        while p.poll() is None and time.time() < deadline:
            out += drain(master, None, 0.2)
        rc = p.wait(timeout=1)
        # what it wrote on its way out is still in the pty: read it too
        out += drain(master, None, 0.3)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = p.wait()
    after = termios.tcgetattr(slave)
    os.close(master)
    os.close(slave)
    return started, rc, before, during, after, out, alive


def cooked(a):
    return bool(a[3] & termios.ICANON) and bool(a[3] & termios.ECHO)


tap.header()
tmp = tempfile.mkdtemp(prefix="ktrepl-tui-")
args = fake_kernel(tmp)
# only the kernel refusing perf, asked directly and not of the tool under
# test, is a reason to skip; anything else fails
refused = perf_refused()
if refused:
    shutil.rmtree(tmp, ignore_errors=True)
    tap.skip_all(f"ktrepl-top cannot sample here: {refused}")
probe = subprocess.run([TOP, "-b", "-n", "1", "-d", "0.1", *args],
                       capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, KTREPL_NO_ROOT_CHECK="1"))
reason = (probe.stdout + probe.stderr).strip()

cases = ((b"q", 0, "q"),
         (signal.SIGINT, 0, "SIGINT"),
         (signal.SIGTERM, 0, "SIGTERM"),
         (signal.SIGHUP, 0, "SIGHUP"),
         (signal.SIGQUIT, -signal.SIGQUIT, "SIGQUIT"),
         (signal.SIGABRT, -signal.SIGABRT, "SIGABRT (as abort() raises it)"))
# the probe; 3 for each case, 4 for one killed by its signal; 2 for the
# ignored SIGQUIT; 3 for who may sample
WHO_MAY_SAMPLE = ("not root, no CAP_PERFMON",
                  "not root, CAP_PERFMON",
                  "not root, CAP_PERFMON, kcore root-only")
tap.plan(1 + sum(4 if want < 0 else 3 for _, want, _ in cases) + 2 +
         len(WHO_MAY_SAMPLE))
ok(probe.returncode == 0, "ktrepl-top -b measures the fake kernel", reason)
for stop, want, name in cases:
    started, rc, before, during, after, out, _ = session(args, stop)
    if not started:
        ok(False, f"{name}: the screen starts",
           out.decode(errors="replace")[-2000:])
        continue
    ok(not cooked(during), f"{name}: the screen runs in cbreak/noecho")
    ok(rc == want, f"{name}: exit {want}", f"exit {rc}")
    ok(after == before, f"{name}: the terminal settings are restored",
       f"before {before}\nafter  {after}")
    if want < 0:
        ok(b"\x1b[?1049l" in out or b"\x1b[?1047l" in out,
           f"{name}: the alternate screen is left, the cursor shown",
           repr(out[-200:]))

# a SIGQUIT the caller ignores stays ignored (the screen goes on, and q
# still gives the terminal back): ktrepl-top catches it only to restore
# the terminal before the default action, which an ignored signal never has
started, rc, before, during, after, out, alive = session(
    args, signal.SIGQUIT, ignore=(signal.SIGQUIT,), then=b"q")
ok(started and alive and not cooked(during),
   "SIGQUIT ignored by the caller: the screen goes on in cbreak/noecho",
   out.decode(errors="replace")[-500:])
ok(rc == 0 and after == before,
   "SIGQUIT ignored by the caller: then q, exit 0, the terminal restored",
   f"exit {rc}\nbefore {before}\nafter  {after}")

# who may sample: root, or CAP_PERFMON without root
setpriv = shutil.which("setpriv")
if os.geteuid() == 0 and setpriv:
    os.chmod(tmp, 0o755)
    nobody = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
    for caps, gate in (([], True),
                       (["--inh-caps=+perfmon", "--ambient-caps=+perfmon"],
                        False)):
        r = subprocess.run([*nobody, *caps, TOP, "-b", "-n", "1", "-d",
                            "0.1", *args], capture_output=True, text=True,
                           timeout=60)
        refused = "needs root or the capabilities it lacks" in r.stderr
        if gate:
            ok(r.returncode == 2 and refused and
               "CAP_PERFMON (perf_event_open" in r.stderr,
               "not root, no CAP_PERFMON: exit 2, 'needs root or the "
               "capabilities it lacks: CAP_PERFMON'", r.stdout + r.stderr)
        else:
            ok(not refused and (r.returncode == 0 or
                                "perf_event_open" in r.stderr),
               "not root, CAP_PERFMON: let through to the sampler",
               r.stdout + r.stderr)
    # CAP_PERFMON alone, and a kcore only root may read: named, not let
    # through to fail later
    kcore = args[args.index("--kcore") + 1]
    os.chmod(kcore, 0o600)
    r = subprocess.run([*nobody, "--inh-caps=+perfmon",
                        "--ambient-caps=+perfmon", TOP, "-b", "-n", "1",
                        "-d", "0.1", *args], capture_output=True, text=True,
                       timeout=60)
    os.chmod(kcore, 0o644)
    ok(r.returncode == 2 and "CAP_DAC_READ_SEARCH (reading " + kcore
       in r.stderr and "CAP_PERFMON (" not in r.stderr,
       "not root, CAP_PERFMON, kcore root-only: exit 2, naming "
       "CAP_DAC_READ_SEARCH and only it", r.stdout + r.stderr)
else:
    for desc in WHO_MAY_SAMPLE:
        tap.skip(desc, "needs root and setpriv")

shutil.rmtree(tmp, ignore_errors=True)
tap.done()
