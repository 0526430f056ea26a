# SPDX-License-Identifier: GPL-2.0
"""bench/RESULTS.md: the judged goals of every `bench.py --markdown` run.

bench/results.json holds one record per goal per run (the source);
RESULTS.md is made from it alone, so an edit by hand is lost at the next
run. One table per goal, newest run first: the figure (the median, with
its range and the number of runs), the goal, met or missed, the date,
the commit, the host, and whether the figure is emulated (a TCG guest)
or native (this host). A goal with no figure is missed.
"""
import json
import os
import statistics

KEYS = ("goal", "figure", "low", "high", "n", "op", "target", "met", "date",
        "commit", "host", "kind")


def record(name, figure, op, target, met, *, samples=None, date, commit,
           host, kind):
    """One goal of one run, as results.json keeps it."""
    low = high = None
    if samples:
        low, high = min(samples), max(samples)
    return {"goal": name, "figure": figure, "low": low, "high": high,
            "n": len(samples) if samples else (1 if figure is not None
                                               else 0),
            "op": op, "target": target, "met": bool(met), "date": date,
            "commit": commit, "host": host, "kind": kind}


def load(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return json.load(f)


def save(path, records):
    with open(path, "w") as f:
        json.dump(records, f, indent=1, sort_keys=True)
        f.write("\n")


def num(x):
    return "-" if x is None else f"{x:.3g}"


def figure_cell(r):
    if r["figure"] is None:
        return "no figure"
    if r["low"] is None or r["n"] < 2:
        return num(r["figure"])
    return f"{num(r['figure'])} ({num(r['low'])}-{num(r['high'])}, " \
           f"n={r['n']})"


def status(r):
    return "met" if r["met"] and r["figure"] is not None else "**missed**"


def latest(rows):
    """The newest day's runs of one goal as one record: the median of
    their figures, their range and count, judged on the median (a single
    boot's figure is no verdict under TCG)"""
    day = [r for r in rows if r["date"] == rows[0]["date"]]
    figs = [r["figure"] for r in day if r["figure"] is not None]
    if len(day) < 2 or not figs:
        return dict(rows[0], runs=1)
    fig = statistics.median(figs)
    r = rows[0]
    met = fig <= r["target"] if r["op"] == "<=" else fig >= r["target"]
    return dict(r, figure=fig, low=min(figs), high=max(figs), n=len(figs),
                met=met and len(figs) == len(day), runs=len(day))


def anchor(name):
    """GitHub's anchor for a heading"""
    keep = "".join(c for c in name.lower()
                   if c.isalnum() or c in " -_").strip()
    return keep.replace(" ", "-")


def render(records):
    """The whole of RESULTS.md."""
    goals = {}
    # results.json only grows: of one day's runs, the later is the newer
    for i, r in enumerate(records):
        goals.setdefault(r["goal"], []).append((r["date"], i, r))
    for name, rows in goals.items():
        goals[name] = [r for _, _, r in sorted(rows, key=lambda x: x[:2],
                                                reverse=True)]
    out = ["# ktrepl benchmark results", "",
           "Made by `python3 bench/bench.py --markdown` from "
           "`bench/results.json`; do not edit by hand. Figures are "
           "ratios against a peer or a limit measured in the same run "
           "(see `bench/bench.py`); *emulated* ones come from QEMU/TCG "
           "guests, where only ratios mean anything.", "",
           "## Latest", "",
           "Each goal's newest day: with several runs that day, the "
           "median of their figures, their range and count, judged on "
           "the median (a run with no figure makes the day missed).", "",
           "| goal | figure | want | status | date | kind |",
           "|---|---|---|---|---|---|"]
    for name in sorted(goals):
        r = latest(goals[name])
        out.append(f"| [{name}](#{anchor(name)}) | {figure_cell(r)} | "
                   f"{r['op']} {r['target']:g} | {status(r)} | {r['date']} "
                   f"| {r['kind']} |")
    for name in sorted(goals):
        out += ["", f"### {name}", "",
                "| date | commit | host | kind | figure (median, range, "
                "runs) | want | status |",
                "|---|---|---|---|---|---|---|"]
        for r in goals[name]:
            out.append(f"| {r['date']} | {r['commit']} | {r['host']} | "
                       f"{r['kind']} | {figure_cell(r)} | {r['op']} "
                       f"{r['target']:g} | {status(r)} |")
    return "\n".join(out) + "\n"


def update(json_path, md_path, new):
    """Add this run's records, and write RESULTS.md again from them all."""
    records = load(json_path) + new
    save(json_path, records)
    with open(md_path, "w") as f:
        f.write(render(records))
    return records
