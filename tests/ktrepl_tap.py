# SPDX-License-Identifier: GPL-2.0
"""The one TAP producer of the Python tests: the unit .t files use it as
it is, the guest tests through ktvm.Tap, which adds the guest's own lines.
A failed check prints what it got and wanted (diag), last lines first
kept. The plan comes last, unless plan(n) gave it first: done() then
fails when the checks run are not n, so that a test that stops early
fails."""

import ctypes
import os
import platform
import struct
import subprocess

# tests/json-schema-check, and the schemas it reads (tests/schemas/)
SCHEMA_CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            "json-schema-check")


def perf_refused():
    """Why this machine refuses what ktrepl-top opens, asked of the kernel
    directly and not of the tool under test: a cpu-clock sampling event
    of kernel code on CPU 0, every task (perf_event_open(2), the 64-byte
    PERF_ATTR_SIZE_VER0). None when it opens."""
    nr = {"x86_64": 298, "aarch64": 241}.get(platform.machine())
    if nr is None:
        return f"no perf_event_open number known for {platform.machine()}"
    # type SOFTWARE (1), config CPU_CLOCK (0), a 1 ms period, IP samples;
    # flags: disabled (bit 0), exclude_user (bit 4), exclude_hv (bit 6)
    attr = struct.pack("<IIQQQQQIIQ", 1, 64, 0, 1000000, 1, 0,
                       (1 << 0) | (1 << 4) | (1 << 6), 0, 0, 0)
    buf = ctypes.create_string_buffer(attr, len(attr))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    fd = libc.syscall(ctypes.c_long(nr), buf, ctypes.c_int(-1),
                      ctypes.c_int(0), ctypes.c_int(-1), ctypes.c_ulong(0))
    if fd >= 0:
        os.close(fd)
        return None
    err = ctypes.get_errno()
    return f"perf_event_open of a cpu-clock event on CPU 0: {os.strerror(err)}"


class Tap:
    def __init__(self, header=True):
        self.n = 0
        self.failed = 0
        self.planned = None
        if header:
            self.header()

    @staticmethod
    def header():
        print("TAP version 13", flush=True)

    def plan(self, n):
        """1..n, after the header and before any check."""
        self.planned = n
        print(f"1..{n}", flush=True)

    def ok(self, cond, desc, diag=None):
        self.n += 1
        if not cond:
            self.failed += 1
        print(f"{'ok' if cond else 'not ok'} {self.n} - {desc}", flush=True)
        if not cond and diag:
            for line in str(diag).splitlines()[-40:]:
                print(f"# {line}", flush=True)
        return cond

    def ok_schema(self, schema, text, desc, lines=False):
        """ok when text, one JSON value (lines: one per line, ktrepl-top
        -j), is valid against tests/schemas/SCHEMA.schema.json; else the
        validator's errors (path into the document: message) as got"""
        try:
            r = subprocess.run([SCHEMA_CHECK, *(["--lines"] if lines else []),
                                schema, "-"], input=text,
                               capture_output=True, text=True, timeout=60)
            cond, got = r.returncode == 0, r.stdout + r.stderr
        except (OSError, subprocess.SubprocessError) as e:
            cond, got = False, f"{SCHEMA_CHECK}: {e}"
        head = " ".join(text.split())
        head = head if len(head) <= 300 else head[:300] + "..."
        return self.ok(cond, desc, f"want: valid against {schema}\n"
                       f"got: {got.rstrip()}\ndocument: {head}")

    def diag(self, text):
        for line in str(text).splitlines():
            print(f"# {line}", flush=True)

    def skip(self, desc, reason):
        self.n += 1
        print(f"ok {self.n} - {desc} # SKIP {reason}", flush=True)
        return True

    def skip_all(self, reason):
        print(f"1..0 # SKIP {reason}", flush=True)
        raise SystemExit(0)

    def done(self):
        if self.planned is None:
            print(f"1..{self.n}", flush=True)
        elif self.n != self.planned:
            print(f"# planned {self.planned}, ran {self.n}", flush=True)
            raise SystemExit(1)
        raise SystemExit(1 if self.failed else 0)
