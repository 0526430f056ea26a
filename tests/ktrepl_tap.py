# SPDX-License-Identifier: GPL-2.0
"""The one TAP producer of the Python tests: the unit .t files use it as
it is, the guest tests through ktvm.Tap, which adds the guest's own lines.
A failed check prints what it got and wanted (diag), last lines first
kept."""


class Tap:
    def __init__(self, header=True):
        self.n = 0
        self.failed = 0
        if header:
            self.header()

    @staticmethod
    def header():
        print("TAP version 13", flush=True)

    def ok(self, cond, desc, diag=None):
        self.n += 1
        if not cond:
            self.failed += 1
        print(f"{'ok' if cond else 'not ok'} {self.n} - {desc}", flush=True)
        if not cond and diag:
            for line in str(diag).splitlines()[-40:]:
                print(f"# {line}", flush=True)
        return cond

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
        print(f"1..{self.n}", flush=True)
        raise SystemExit(1 if self.failed else 0)
