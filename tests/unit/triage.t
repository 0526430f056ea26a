#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ktrepl-dump triage on crash directories without a guest: what it does
with dumps it cannot judge. Real dumps with real panics are t14's (the
kdump rig on both arches); here a kdump-tools layout holds a file that is
no vmcore, a small ELF core with no ktrepl state (the healthy twin of
tests/upstream/libkdumpfile-strtab-past-eof), a capture cut short
(dump-incomplete) and a directory with no dump. Each dump gets the verdict
that names its state, the metrics are promtool-clean, a second run judges
nothing again and changes no file, and a libkdumpfile that hangs or
crashes costs one dump its verdict ("failed", or "damaged"), not the run."""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DUMP = os.environ.get("KTREPL_DUMP", os.path.join(
    HERE, "..", "..", "build", "tools", "ktrepl-dump", "ktrepl-dump"))
SHIM = os.environ.get("KTREPL_SHIM", os.path.join(
    HERE, "..", "..", "build", "unit", "kdump_shim.so"))
REPRO = os.path.join(HERE, "..", "upstream", "libkdumpfile-strtab-past-eof")
sys.path.insert(0, os.path.join(HERE, ".."))
from ktrepl_tap import Tap  # noqa: E402

tap = Tap()
tap.plan(16)
tmp = tempfile.mkdtemp(prefix="ktrepl-triage-")


def triage(crash, *extra, env=None, timeout=120):
    start = time.monotonic()
    try:
        r = subprocess.run([DUMP, "triage", "--crash-dir", crash, *extra],
                           capture_output=True, text=True, timeout=timeout,
                           env=dict(os.environ, **(env or {})))
    except subprocess.TimeoutExpired as e:
        return -1, str(e.stdout), f"no end in {timeout} s", timeout
    return r.returncode, r.stdout, r.stderr, time.monotonic() - start


def metrics(path):
    text = open(path).read()
    samples = dict(line.rsplit(" ", 1) for line in text.splitlines()
                   if line and not line.startswith("#"))
    r = subprocess.run(["promtool", "check", "metrics"], input=text,
                       capture_output=True, text=True)
    return samples, r.returncode == 0, text + r.stdout + r.stderr


def verdict(d):
    try:
        with open(os.path.join(d, "ktrepl-verdict.json")) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        return {"error": str(e)}


def tree(root):
    """every file under root: its bytes' digest and mtime"""
    out = {}
    for dirpath, _, files in os.walk(root):
        for name in files:
            p = os.path.join(dirpath, name)
            with open(p, "rb") as f:
                out[p] = (hashlib.sha256(f.read()).hexdigest(),
                          os.stat(p).st_mtime_ns)
    return out


# no crash directory: no dump was ever saved, and the metrics say none
prom = os.path.join(tmp, "none.prom")
rc, out, err, _ = triage(os.path.join(tmp, "absent"), f"--prometheus={prom}")
samples, clean, text = metrics(prom) if os.path.exists(prom) else ({}, 0, "")
tap.ok(rc == 0 and clean and samples.get("ktrepl_panic_dumps_total") == "0"
       and not any(k.startswith("ktrepl_panic_last") for k in samples),
       "a crash directory that does not exist: exit 0, no dumps, no last "
       "panic, promtool-clean", f"rc {rc}\n{out}{err}\n{text}")

crash = os.path.join(tmp, "crash")
stamps = {"202612010000": "garbage", "202612020000": "healthy",
          "202612030000": "incomplete", "202612040000": None}
for i, (stamp, what) in enumerate(sorted(stamps.items())):
    d = os.path.join(crash, stamp)
    os.makedirs(d)
    with open(os.path.join(d, f"dmesg.{stamp}"), "w") as f:
        f.write("[    0.000000] Linux version\n")
    if what == "garbage":
        path = os.path.join(d, f"dump.{stamp}")
        with open(path, "wb") as f:
            f.write(os.urandom(65536))
    elif what == "healthy":
        path = os.path.join(d, f"dump.{stamp}")
        subprocess.run([sys.executable, os.path.join(REPRO, "make-repro.py"),
                        path, "--healthy"], check=True)
    elif what == "incomplete":
        path = os.path.join(d, "dump-incomplete")
        with open(path, "wb") as f:
            f.write(b"KDUMP   " + bytes(4088))
    if what:
        # in stamp order; the healthy one is the newest
        t = 1796000000 + (3 - i if what != "healthy" else 10) * 3600
        os.utime(path, (t, t))

prom = os.path.join(tmp, "triage.prom")
before = tree(crash)
rc, out, err, _ = triage(crash, f"--prometheus={prom}")
got = {s: (v.get("verdict"), v.get("reason")) for s, v in
       ((s, verdict(os.path.join(crash, s))) for s in stamps)}
want = {"202612010000": ("damaged", "unreadable"),
        "202612020000": ("no_ktrepl", "no_descriptor"),
        "202612030000": ("damaged", "unreadable"),
        "202612040000": (None, None)}
tap.ok(rc == 0 and got == want,
       "each dump's verdict names its state: not a vmcore and a cut "
       "capture damaged, no descriptor no_ktrepl, no dump no verdict",
       f"rc {rc}\ngot {got}\nwant {want}\n{out}{err}")
v = verdict(os.path.join(crash, "202612030000"))
tap.ok(v.get("dump") == "dump-incomplete" and
       v.get("dump_complete") is False,
       "a capture kdump-tools left as dump-incomplete is judged, and "
       "marked incomplete", json.dumps(v))
v = verdict(os.path.join(crash, "202612010000"))
tap.ok("cannot be read" in v.get("summary", "") and
       "not a vmcore" in v.get("summary", ""),
       "the damaged dump's summary says why it cannot be read",
       json.dumps(v))
tap.ok(len(out.splitlines()) == 3 and all(
    f"{crash}/{s}/" in out for s in ("202612010000", "202612020000",
                                     "202612030000")),
       "one line per dump on standard output", out + err)
samples, clean, text = metrics(prom)
want_last = ('ktrepl_panic_last_diverged{node="",reason="no_descriptor",'
             'verdict="no_ktrepl"}')
tap.ok(clean and samples.get("ktrepl_panic_dumps_total") == "3" and
       samples.get('ktrepl_panic_dumps{verdict="damaged"}') == "2" and
       samples.get('ktrepl_panic_dumps{verdict="no_ktrepl"}') == "1" and
       samples.get(want_last) == "0" and
       samples.get("ktrepl_triage_failed") == "0",
       "the metrics are promtool-clean: 3 dumps, 2 damaged, 1 without "
       "ktrepl, and the newest (by mtime) is the last panic",
       f"want {want_last} 0\n{text}")
after = tree(crash)
tap.ok({p: x for p, x in after.items() if p in before} == before and
       len(after) == len(before) + 3,
       "no dump or dmesg changed; three verdict files were added, and "
       "no temporary one left",
       f"changed: {[p for p in before if after.get(p) != before[p]]}\n"
       f"added: {sorted(set(after) - set(before))}")

rc2, out2, err2, _ = triage(crash, f"--prometheus={prom}")
tap.ok(rc2 == 0 and out2.count("already judged") == 3 and
       tree(crash) == after,
       "a second run judges nothing again and changes no file",
       f"rc {rc2}\n{out2}{err2}")

rc, out, err, _ = triage(crash, "-j")
try:
    doc = json.loads(out)
except ValueError:
    doc = {}
keys = {k for d in doc.get("dumps", []) for k in d}
want_keys = {"dir", "dump", "judged_now", "verdict", "reason", "node",
             "summary"}
man = open(os.path.join(HERE, "..", "..", "docs", "man",
                        "ktrepl-dump.8")).read()
tap.ok(rc == 0 and doc.get("crash_dir") == crash and keys == want_keys and
       all(f"\\fB{k}\\fR" in man for k in want_keys | {"crash_dir"}),
       "-j: crash_dir and dumps with the keys the man page lists",
       f"got {sorted(keys)}\nwant {sorted(want_keys)}\n{out}{err}")

# a libkdumpfile that hangs: the dump's analysis is ended at --timeout,
# its probe with it, and the dump is judged "failed", not the run
hang = os.path.join(tmp, "hang")
os.makedirs(os.path.join(hang, "202612050000"))
subprocess.run([sys.executable, os.path.join(REPRO, "make-repro.py"),
                os.path.join(hang, "202612050000", "dump.202612050000"),
                "--healthy"], check=True)
prom = os.path.join(tmp, "hang.prom")
have_shim = os.path.exists(SHIM)
rc, out, err, took = triage(hang, "--timeout", "2", f"--prometheus={prom}",
                            env={"LD_PRELOAD": SHIM, "KT_SHIM": "hang",
                                 "KTREPL_DUMP_OPEN_TIMEOUT": "30",
                                 "KTREPL_DUMP_READER": "libkdumpfile"}
                            if have_shim else {}, timeout=20)
v = verdict(os.path.join(hang, "202612050000"))
tap.ok(have_shim and rc == 0 and took < 15 and
       (v.get("verdict"), v.get("reason")) == ("failed", "timed_out") and
       "did not finish in 2 s" in v.get("summary", ""),
       f"libkdumpfile hanging: the analysis is ended after --timeout 2 "
       f"({took:.1f} s, its probe too, or the pipe would stay open), and "
       "the verdict says it timed out",
       f"shim {SHIM} built: {have_shim}\nrc {rc}\n{json.dumps(v)}\n{err}")
samples, clean, text = metrics(prom) if os.path.exists(prom) else ({}, 0, "")
tap.ok(clean and samples.get("ktrepl_triage_failed") == "1" and
       samples.get('ktrepl_panic_dumps{verdict="failed"}') == "1",
       "its metrics count one dump that could not be judged", text)

crashing = os.path.join(tmp, "crashing")
os.makedirs(os.path.join(crashing, "202612060000"))
shutil.copy(os.path.join(hang, "202612050000", "dump.202612050000"),
            os.path.join(crashing, "202612060000", "dump.202612060000"))
rc, out, err, took = triage(crashing, env={"LD_PRELOAD": SHIM,
                                           "KT_SHIM": "crash",
                                           "KTREPL_DUMP_READER":
                                           "libkdumpfile"}
                            if have_shim else {}, timeout=60)
v = verdict(os.path.join(crashing, "202612060000"))
tap.ok(have_shim and rc == 0 and
       (v.get("verdict"), v.get("reason")) in
       (("damaged", "unreadable"), ("failed", "analysis_died")) and
       ("crashed" in v.get("summary", "") or
        "signal" in v.get("summary", "")),
       "libkdumpfile crashing: the dump gets a verdict saying so, the run "
       "exits 0", f"rc {rc}\n{json.dumps(v)}\n{err}")

for args, says in ((["--timeout", "0"], "--timeout wants seconds"),
                   (["--vmcore", "x"], "not --vmcore or --raw"),
                   (["extra"], "unexpected argument")):
    r = subprocess.run([DUMP, "triage", "--crash-dir", crash, *args],
                       capture_output=True, text=True, timeout=60)
    tap.ok(r.returncode == 2 and says in r.stderr,
           f"triage {' '.join(args)}: exit 2 saying '{says}'",
           f"rc {r.returncode}\n{r.stdout}{r.stderr}")
rc, out, err, _ = triage(os.path.join(crash, "202612010000",
                                      "dump.202612010000"))
tap.ok(rc == 2 and "Not a directory" in err,
       "a crash directory that is a file: exit 2 naming why",
       f"rc {rc}\n{out}{err}")
shutil.rmtree(tmp)
tap.done()
