"""Benchmark of the H100 stack's first run on a fresh clone against its second run:
the same `auv-cosim run` twice, each in a fresh interpreter, from an empty FMU extraction
cache (what a fresh clone's first run meets: the FMUs extracted, numba's shipped cache loaded,
anything missing from it compiled) and then from the warm one.

    .venv/bin/python benchmarks/bench_h100_first_run.py [--controller lqr] [--stop-time 20]

Printed per run: wall and CPU seconds of the whole command (the child process), and the
start-up and stepping seconds its summary.json reports. The FMUs are fmus/ as built (bring them
up to date with ./build.sh first).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_once(cache: Path, out: Path, controller: str, stop_time: float) -> dict:
    env = dict(os.environ, AUV_MASTER_FMU_CACHE=str(cache))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "auv_cosim", "run", "h100_depth_step", "--no-plots", "-q",
                             "--set", f"control.Controller={controller}", "--stop-time", str(stop_time),
                             "--out", str(out)], cwd=str(ROOT), env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        sys.exit(f"bench_h100_first_run: the run failed:\n{result.stdout}\n{result.stderr}")
    summary = json.loads((out / "summary.json").read_text())
    return {"wall": wall, "cpu": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
            "startup": summary["startup_time_s"], "stepping": summary["stepping_time_s"]}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--controller", default="lqr", help="control.Controller (default lqr)")
    parser.add_argument("--stop-time", type=float, default=20.0, help="simulated seconds (default 20)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-h100-first-") as folder:
        cache = Path(folder) / "fmu-cache"       # empty: the first run extracts
        load = os.getloadavg()[0]
        first = run_once(cache, Path(folder) / "first", args.controller, args.stop_time)
        second = run_once(cache, Path(folder) / "second", args.controller, args.stop_time)
    print(f"bench_h100_first_run: auv-cosim run h100_depth_step --set control.Controller="
          f"{args.controller} --stop-time {args.stop_time:g} --no-plots; {os.cpu_count()} CPUs, load average "
          f"{load:.2f} before, {os.getloadavg()[0]:.2f} after")
    print(f"{'run':34s} {'wall s':>7s} {'CPU s':>7s} {'start-up s':>10s} {'stepping s':>10s}")
    for label, r in (("first (empty FMU extraction cache)", first), ("second (warm)", second)):
        print(f"{label:34s} {r['wall']:7.1f} {r['cpu']:7.1f} {r['startup']:10.2f} {r['stepping']:10.2f}")
    print(f"first / second: {first['wall'] / second['wall']:.2f} (wall), {first['cpu'] / second['cpu']:.2f} (CPU)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
