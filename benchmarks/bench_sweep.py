"""Benchmark of the whole `python -m master sweep` on 1 and on 2 local workers (issue 15: the
2-worker sweep >= 1.6x faster): 12 runs of the depth_step scenario (noise seeds 1..12) of
1200 s each, the command timed end to end (cluster start, runs, campaign table and plots), the
worker counts alternated repeat after repeat, the median kept; and whether both wrote the same
results.csv files, run by run.

    .venv/bin/python benchmarks/bench_sweep.py [--repeats 1] [--runs 12] [--stop-time 1200]

On a machine shared with other work the other processes take cores from the workers and lower
the speed-up: the load average is printed before and after.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def sweep(out: Path, workers: int, runs: int, stop_time: float) -> float:
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "master", "sweep", "depth_step", "--seeds", str(runs),
                             "--stop-time", str(stop_time), "--workers", str(workers), "--out", str(out),
                             "--no-progress"], cwd=str(ROOT), capture_output=True, text=True)
    wall = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"bench_sweep: the sweep on {workers} worker(s) failed:\n{result.stdout}\n{result.stderr}")
    return wall


def digests(out: Path) -> dict:
    return {p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(out.rglob("results.csv"))}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--runs", type=int, default=12)
    parser.add_argument("--stop-time", type=float, default=1200.0)
    args = parser.parse_args(argv)
    load = os.getloadavg()[0]
    walls = {1: [], 2: []}
    same = True
    with tempfile.TemporaryDirectory(prefix="bench-sweep-") as folder:
        for r in range(args.repeats):
            outs = {}
            for workers in (1, 2):
                outs[workers] = Path(folder) / f"w{workers}-{r}"
                walls[workers].append(sweep(outs[workers], workers, args.runs, args.stop_time))
            a, b = digests(outs[1]), digests(outs[2])
            same = same and len(a) == args.runs and a == b
    one, two = statistics.median(walls[1]), statistics.median(walls[2])
    print(f"bench_sweep: python -m master sweep depth_step --seeds {args.runs} --stop-time {args.stop_time:g}, "
          f"median of {args.repeats}; {os.cpu_count()} CPUs, load average {load:.2f} before, "
          f"{os.getloadavg()[0]:.2f} after")
    print(f"  1 worker : {one:6.1f} s ({one / args.runs:.2f} s a run)")
    print(f"  2 workers: {two:6.1f} s ({two / args.runs:.2f} s a run)")
    print(f"  speed-up {one / two:.2f} (target >= 1.6); results.csv identical run by run: {'yes' if same else 'NO'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
