#!/usr/bin/env python3
"""Bake time of two vatbake binaries on the same models (docs/PERFORMANCE.md, "Bake
time at default"): the whole `vatbake bake MODEL -o OUT -q` process, the two binaries'
runs alternated so that the shared machine's load falls on both alike; wall and CPU
(user + sys of the process) medians, and their ratios. Prints a Markdown table.

Usage: scripts/bench-bake-time.py BEFORE AFTER MODEL... [--runs 21] [-- FLAG...]
  BEFORE, AFTER: vatbake binaries (e.g. a release build of an older commit in a worktree,
  and target/release/vatbake). MODEL: a path. Flags after `--` go to both bakes.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time


def run(binary, model, out, flags):
    shutil.rmtree(out, ignore_errors=True)
    start = time.perf_counter()
    child = subprocess.Popen([binary, "bake", model, "-o", out, "-q", *flags])
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{binary} bake {model} failed")
    return wall * 1000, (usage.ru_utime + usage.ru_stime) * 1000


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("models", nargs="+")
    parser.add_argument("--runs", type=int, default=21)
    args, flags = parser.parse_known_args()
    flags = [f for f in flags if f != "--"]
    out = tempfile.mkdtemp(prefix="vat-bake-time.")
    print("| model | before ms | after ms | wall | before CPU ms | after CPU ms | CPU |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for model in args.models:
        times = {"before": [], "after": []}
        for _ in range(args.runs):
            for name in ("before", "after"):
                times[name].append(run(getattr(args, name), model, os.path.join(out, name), flags))
        wall = {k: statistics.median(t[0] for t in v) for k, v in times.items()}
        cpu = {k: statistics.median(t[1] for t in v) for k, v in times.items()}
        print(
            f"| {os.path.basename(model)} | {wall['before']:.1f} | {wall['after']:.1f} | "
            f"{wall['after'] / wall['before']:.2f}× | {cpu['before']:.1f} | {cpu['after']:.1f} | "
            f"{cpu['after'] / cpu['before']:.2f}× |",
            flush=True,
        )
    shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
