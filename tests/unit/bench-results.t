#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/RESULTS.md's generator (bench/results.py): a met goal shows as
met, a missed one and one with no figure as missed, each goal gets its
table with the newest run first, the range and the number of runs, and a
second run adds to the history instead of replacing it."""
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))
from ktrepl_tap import Tap  # noqa: E402
import results  # noqa: E402

tap = Tap()
tap.plan(9)


def rec(name, figure, op, target, met, date, **kw):
    return results.record(name, figure, op, target, met, date=date,
                          commit=kw.get("commit", "abc1234"),
                          host="EPYC x2", kind=kw.get("kind", "native"),
                          samples=kw.get("samples"))


def row_of(md, heading, date):
    """The row for date in the table under ### heading"""
    part = md.split(f"### {heading}\n", 1)[1].split("\n### ", 1)[0]
    return next((x for x in part.splitlines()
                 if x.startswith(f"| {date} ")), "")


def latest_row(md, name):
    part = md.split("## Latest\n", 1)[1].split("\n### ", 1)[0]
    return next((x for x in part.splitlines()
                 if x.startswith(f"| [{name}]")), "")


first = [rec("byte check x raw", 0.24, ">=", 0.5, False, "2026-12-05",
             samples=[0.19, 0.24, 0.32]),
         rec("whole x byte check", 1.4, "<=", 2, True, "2026-12-05",
             samples=[1.3, 1.4, 1.6]),
         rec("load x memcpy", None, "<=", 2, False, "2026-12-05",
             kind="emulated")]
md = results.render(first)
row = latest_row(md, "byte check x raw")
tap.ok("**missed**" in row and "| met |" not in row and
       "0.24 (0.19-0.32, n=3)" in row,
       "a missed goal shows as missed, with its median, range and runs",
       f"got {row!r}")
row = latest_row(md, "whole x byte check")
tap.ok("| met |" in row and "missed" not in row and "<= 2" in row,
       "a met goal shows as met, with what it wants", f"got {row!r}")
row = latest_row(md, "load x memcpy")
tap.ok("no figure" in row and "**missed**" in row and "emulated" in row,
       "a goal with no figure is missed, and marked emulated",
       f"got {row!r}")
# a figure marked met by a caller, but with no figure, is still missed
bad = rec("claimed", None, "<=", 2, True, "2026-12-05")
row = latest_row(results.render([bad]), "claimed")
tap.ok("**missed**" in row, "no figure is never met, whatever met says",
       f"got {row!r}")

with tempfile.TemporaryDirectory() as d:
    js, mdp = os.path.join(d, "results.json"), os.path.join(d, "RESULTS.md")
    results.update(js, mdp, first)
    later = [rec("byte check x raw", 0.61, ">=", 0.5, True, "2026-12-06",
                 commit="def5678", samples=[0.55, 0.61, 0.70])]
    results.update(js, mdp, later)
    md = open(mdp).read()
    kept = results.load(js)
tap.ok(len(kept) == 4 and row_of(md, "byte check x raw", "2026-12-05") and
       "| met |" in row_of(md, "byte check x raw", "2026-12-06"),
       "a second run adds to the history: both runs are in the goal's "
       "table", f"{len(kept)} records\n{md}")
part = md.split("### byte check x raw\n", 1)[1]
tap.ok(0 <= part.find("2026-12-06") < part.find("2026-12-05") and
       "| met |" in latest_row(md, "byte check x raw"),
       "the newest run comes first, and Latest shows it",
       md)
tap.ok(md.count("\n### ") == 3 and "do not edit by hand" in md,
       "one table per goal, and the file says it is generated", md)
same_day = [rec("g", 2.5, "<=", 2, False, "2026-12-06", commit="aaa"),
            rec("g", 1.5, "<=", 2, True, "2026-12-06", commit="000")]
md = results.render(same_day)
part = md.split("### g\n", 1)[1]
tap.ok(0 <= part.find("| 1.5 |") < part.find("| 2.5 |"),
       "of two runs on one day, the one recorded later comes first "
       "(whatever the commits' names)", md)
days = same_day + [rec("g", 2.2, "<=", 2, False, "2026-12-06")]
row = latest_row(results.render(days), "g")
tap.ok("2.2 (1.5-2.5, n=3)" in row and "**missed**" in row,
       "Latest is the day's median over its runs, judged on it",
       f"got {row!r}")
tap.done()
