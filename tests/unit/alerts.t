#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The Prometheus alerting rules (tools/prometheus/ktrepl-alerts.yml):
promtool accepts them, its unit tests fire and quiet each alert, every
metric and check label they read is one ktrepl-dump writes, the stale
threshold is three of the timer's periods, and each alert's test fails
when its rule can no longer fire (the rules broken one at a time)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP_DIR = os.path.join(HERE, "..", "..")
PROM = os.path.join(TOP_DIR, "tools", "prometheus")
RULES = os.path.join(PROM, "ktrepl-alerts.yml")
TESTS = os.path.join(PROM, "ktrepl-alerts.test.yml")
sys.path.insert(0, os.path.join(HERE, ".."))
from ktrepl_tap import Tap  # noqa: E402

tap = Tap()
rules = open(RULES).read()
alerts = re.findall(r"^\s*- alert: (\S+)", rules, re.M)
tap.plan(7 + len(alerts))
promtool = shutil.which("promtool")


def promtool_run(*args, cwd=PROM):
    if not promtool:
        return 127, "promtool not found (Debian: prometheus; make deps)"
    r = subprocess.run([promtool, *args], capture_output=True, text=True,
                       cwd=cwd, timeout=120)
    return r.returncode, r.stdout + r.stderr


rc, out = promtool_run("check", "rules", RULES)
tap.ok(rc == 0 and f"{len(alerts)} rules found" in out,
       f"promtool check rules: {len(alerts)} alerts", out)
rc, out = promtool_run("test", "rules", TESTS)
tap.ok(rc == 0, "promtool test rules: each alert fires and stays quiet "
       "where its test says", out)

# the names the rules read are the names the tools write
src = open(os.path.join(TOP_DIR, "tools", "lib", "ktrepl",
                        "prometheus.c")).read()
written = set(re.findall(r'"(ktrepl_[a-z_]+)', src))
read = set(re.findall(r"\b(ktrepl_[a-z_]+)", rules))
tap.ok(read and read <= written,
       f"every metric the rules read ({len(read)}) is one verify "
       "--prometheus writes", f"got unknown: {sorted(read - written)}\n"
       f"want among: {sorted(written)}")
names = open(os.path.join(TOP_DIR, "tools", "lib", "ktrepl",
                          "verify.c")).read()
checks = set(re.findall(r'\[KT_V_[A-Z_]+\] = "([a-z-]+)"', names))
used = set(re.findall(r'check[!=]~?"([a-z-]+)"', rules))
used |= set(re.findall(r'check="([a-z-]+)"',
                       open(TESTS).read()))
tap.ok(used and used <= checks,
       f"every check label the rules and tests use ({sorted(used)}) is a "
       "verify check", f"got unknown: {sorted(used - checks)}\n"
       f"want among: {sorted(checks)}")

# the panic labels the tests write are words triage writes
lib = os.path.join(TOP_DIR, "tools", "lib", "ktrepl")
verdicts = set(re.findall(r'\[KT_TRIAGE_[A-Z_]+\] = "([a-z_]+)"',
                          open(os.path.join(lib, "panic.c")).read()))
reasons = set(re.findall(r'\[R_[A-Z_]+\] = "([a-z_]+)"', open(os.path.join(
    TOP_DIR, "tools", "ktrepl-dump", "triage.c")).read()))
tests = open(TESTS).read()
used_v = set(re.findall(r'verdict="([a-z_]+)"', tests))
used_r = set(re.findall(r'reason="([a-z_]+)"', tests))
tap.ok(used_v and used_r and used_v <= verdicts and used_r <= reasons,
       f"every verdict ({sorted(used_v)}) and reason ({sorted(used_r)}) "
       "label the tests use is one triage writes",
       f"got unknown: {sorted((used_v - verdicts) | (used_r - reasons))}\n"
       f"want among: {sorted(verdicts)} and {sorted(reasons)}")

# stale after three periods of the timer, its spread included
timer = open(os.path.join(TOP_DIR, "debian",
                          "ktrepl-tools.ktrepl-verify.timer")).read()
period = int(re.search(r"OnUnitActiveSec=(\d+)min", timer).group(1)) * 60
spread = int(re.search(r"RandomizedDelaySec=(\d+)s", timer).group(1))
want = f"> 3 * {period + spread}"
tap.ok(want in rules, f"KtreplVerifyStale: {want} (the timer: "
       f"{period} s, {spread} s spread)",
       f"want '{want}' in the rule, the timer's three periods")

# each alert's own test must fail once its rule cannot fire: break the
# rule (an expression that is never true), run the tests again
tmp = tempfile.mkdtemp(prefix="ktrepl-alerts-")
shutil.copy(TESTS, tmp)
for name in alerts:
    broken = re.sub(r"(- alert: %s\n\s*expr: ).*" % re.escape(name),
                    r"\1vector(0) > 1", rules)
    with open(os.path.join(tmp, "ktrepl-alerts.yml"), "w") as f:
        f.write(broken)
    rc, out = promtool_run("test", "rules", "ktrepl-alerts.test.yml",
                           cwd=tmp)
    tap.ok(broken != rules and rc != 0 and f"alertname: {name}" in out,
           f"{name} never firing fails its test", f"got exit {rc}:\n{out}")
# and the quiet cases: a rule that always fires fails them too
broken = re.sub(r"(- alert: KtreplReplicasDiverged\n\s*expr: ).*",
                r"\1vector(1) > 0", rules)
with open(os.path.join(tmp, "ktrepl-alerts.yml"), "w") as f:
    f.write(broken)
rc, out = promtool_run("test", "rules", "ktrepl-alerts.test.yml", cwd=tmp)
tap.ok(rc != 0 and "KtreplReplicasDiverged" in out,
       "KtreplReplicasDiverged always firing fails the healthy host's test",
       f"got exit {rc}:\n{out}")
shutil.rmtree(tmp)
tap.done()
