"""Benchmark of the whole `auv-cosim sweep` on 1 and on 2 local workers (target: the
2-worker sweep >= 1.6x faster): 12 runs of the depth_step scenario (noise seeds 1..12) of
1200 s each, the command timed end to end (cluster start, runs, campaign table and plots), the
worker counts alternated repeat after repeat, the median kept; and whether both wrote the same
results.csv files, run by run.

    .venv/bin/python benchmarks/bench_sweep.py [--repeats 1] [--runs 12] [--stop-time 1200]
                                               [--before DIR] [--levers] [--timeline]

``--before DIR`` adds the same two sweeps of another checkout of the project (e.g. ``git
archive COMMIT | tar -x -C DIR`` with its ``fmus/`` built), run with this interpreter from DIR
(``auv-cosim`` there imports DIR's master, and the Dask workers inherit its path),
interleaved with this tree's: a before/after side by side under the same load. Its results.csv
files must equal this tree's too.

``--levers`` adds this tree's sweeps without its start-up and plot levers (Dask's spawned
workers, ``AUV_CAMPAIGN_WORKER_START=spawn``; the campaign plots drawn in the sweep's process
after the runs, ``AUV_MASTER_PLOTS=serial``), interleaved too: what those two levers gain, apart
from everything else that differs from ``--before``.

``--timeline`` prints, for the last repeat of each case, where the time went, from the files
the sweep writes (their modification times, and each run's summary.json: its worker, its
wall time in the worker, its FMU start-up): when the campaign folder was set up (the plan
done), when each worker started its first run (the cluster up) and how long that run's FMU
start-up took (the worker's imports), each run's start and end per worker, the tail (the
time between the first worker's last run and the last one's: one worker idle), the final
campaign.csv, the plots, and the command's end. Times are seconds from the command's start.

Before the timed sweeps, each tree sweeps once untimed (``warm_caches``): its FMUs are then in
the machine's extraction cache for all the timed ones, whichever worker count comes first.

On a machine shared with other work the other processes take cores from the workers and lower
the speed-up: the load average is printed before and after.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


#: the environment of the ``--levers`` case: workers spawned by Dask, the plots drawn in the sweep
WITHOUT_LEVERS = {"AUV_CAMPAIGN_WORKER_START": "spawn", "AUV_MASTER_PLOTS": "serial"}


def sweep(out: Path, workers: int, runs: int, stop_time: float, tree: Path = ROOT,
          env: dict | None = None) -> tuple[float, float]:
    """(wall seconds, the command's start as time.time()) of one sweep of ``tree``'s master."""
    epoch = time.time()
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "auv_cosim", "sweep", "depth_step", "--seeds", str(runs),
                             "--stop-time", str(stop_time), "--workers", str(workers), "--out", str(out),
                             "--no-progress"], cwd=str(tree), capture_output=True, text=True,
                            env=dict(os.environ, **(env or {})))
    wall = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"bench_sweep: the sweep on {workers} worker(s) of {tree} failed:\n{result.stdout}\n{result.stderr}")
    return wall, epoch


def warm_caches(tree: Path) -> None:
    """One untimed sweep of ``tree`` (1 run of 1 s on 1 worker, no plots): the machine's FMU
    extraction cache (auv_cosim/master/fmu_cache.py) gets ``tree``'s FMUs, which a sweep otherwise unzips
    in its first run. Without it the first timed sweep of a tree after its FMUs were built,
    always the 1-worker one, paid for that alone: its first FMU start-up took 0.59 s against
    0.21-0.28 s for the 2-worker sweep after it on the 2-core machine, and a sweep with an empty
    cache (``AUV_MASTER_FMU_CACHE`` set to a new folder) had a slower first start-up than the
    next one with the same folder in 4 of 4 pairs (1.06-1.95 s against 0.57-1.23 s, at load 3).
    The speed-up looked larger than it is."""
    with tempfile.TemporaryDirectory(prefix="bench-sweep-warm-") as folder:
        result = subprocess.run([sys.executable, "-m", "auv_cosim", "sweep", "depth_step", "--seeds", "1", "--stop-time",
                                 "1", "--workers", "1", "--out", str(Path(folder) / "warm"), "--no-progress",
                                 "--no-plots"], cwd=str(tree), capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"bench_sweep: the warm-up sweep of {tree} failed:\n{result.stdout}\n{result.stderr}")


def digests(out: Path) -> dict:
    return {p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(out.rglob("results.csv"))}


def timeline(out: Path, epoch: float, wall: float) -> list[str]:
    """The sweep's timeline (see the module's doc), as lines to print."""
    def at(path: Path) -> float:
        return path.stat().st_mtime - epoch

    runs = []
    for path in sorted((out / "runs").glob("*/summary.json")):
        s = json.loads(path.read_text())
        camp = s.get("campaign", {})
        end = at(path)
        runs.append({"worker": str(camp.get("worker", "?")).rsplit(":", 1)[-1], "id": path.parent.name,
                     "start": end - float(camp.get("run_wall_time_s") or 0.0), "end": end,
                     "startup": s.get("startup_time_s"), "stepping": s.get("stepping_time_s")})
    lines = [f"    {at(out / 'campaign.yaml'):6.2f}  campaign folder set up (the plan done)"]
    workers = sorted({r["worker"] for r in runs}, key=lambda w: min(r["start"] for r in runs if r["worker"] == w))
    for w in workers:
        mine = sorted((r for r in runs if r["worker"] == w), key=lambda r: r["start"])
        first = mine[0]
        busy = sum(r["end"] - r["start"] for r in mine)
        lines.append(f"    {first['start']:6.2f}  worker {w}: first run (its FMU start-up {first['startup'] or 0:.2f} s); "
                     f"{len(mine)} runs, busy {busy:.2f} s, last ends {mine[-1]['end']:.2f}")
        lines.append("            " + "  ".join(f"{r['start']:.2f}-{r['end']:.2f}" for r in mine))
    if runs:
        ends = sorted(max(r["end"] for r in runs if r["worker"] == w) for w in workers)
        lines.append(f"    {ends[-1]:6.2f}  last run ends; tail (one worker idle) {ends[-1] - ends[0]:.2f} s; "
                     f"stepping {statistics.median(r['stepping'] or 0 for r in runs):.2f} s a run (median), "
                     f"FMU start-up of a warm worker {statistics.median(r['startup'] or 0 for r in runs[1:] or runs):.2f} s")
    lines.append(f"    {at(out / 'campaign.csv'):6.2f}  campaign.csv written")
    for png in sorted((out / "plots").glob("*.png")):
        lines.append(f"    {at(png):6.2f}  {png.relative_to(out)}")
    lines.append(f"    {wall:6.2f}  the command ends")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--runs", type=int, default=12)
    parser.add_argument("--stop-time", type=float, default=1200.0)
    parser.add_argument("--before", help="another checkout of the project (with its fmus/) to sweep side by side")
    parser.add_argument("--levers", action="store_true",
                        help="also this tree without the forkserver and the plot process (interleaved)")
    parser.add_argument("--timeline", action="store_true", help="print where the time went in each case's last repeat")
    args = parser.parse_args(argv)
    trees = {"now": ROOT}
    envs = {"now": None}
    if args.levers:
        trees["no levers"] = ROOT
        envs["no levers"] = WITHOUT_LEVERS
    if args.before:
        trees["before"] = Path(args.before).resolve()
        if not (trees["before"] / "master").is_dir():
            sys.exit(f"bench_sweep: --before {args.before}: no auv_cosim/master/ there")
    load = os.getloadavg()[0]
    walls: dict[tuple[str, int], list[float]] = {(t, w): [] for t in trees for w in (1, 2)}
    lines: dict[tuple[str, int], list[str]] = {}
    same = True
    for tree in dict.fromkeys(trees.values()):
        warm_caches(tree)
    with tempfile.TemporaryDirectory(prefix="bench-sweep-") as folder:
        for r in range(args.repeats):
            outs = {}
            for workers in (1, 2):
                for tree in trees:
                    outs[tree, workers] = Path(folder) / f"{tree.replace(' ', '-')}-w{workers}-{r}"
                    wall, epoch = sweep(outs[tree, workers], workers, args.runs, args.stop_time, trees[tree],
                                        envs.get(tree))
                    walls[tree, workers].append(wall)
                    if args.timeline:
                        lines[tree, workers] = timeline(outs[tree, workers], epoch, wall)
            first = digests(outs["now", 1])
            same = same and len(first) == args.runs and all(digests(o) == first for o in outs.values())
    print(f"bench_sweep: auv-cosim sweep depth_step --seeds {args.runs} --stop-time {args.stop_time:g}, "
          f"median of {args.repeats}; {os.cpu_count()} CPUs, load average {load:.2f} before, "
          f"{os.getloadavg()[0]:.2f} after")
    for tree in trees:
        one, two = statistics.median(walls[tree, 1]), statistics.median(walls[tree, 2])
        name = {"now": "", "no levers": " without the levers"}.get(tree, f" before ({args.before})")
        print(f"  1 worker{name} : {one:6.1f} s ({one / args.runs:.2f} s a run)")
        print(f"  2 workers{name}: {two:6.1f} s ({two / args.runs:.2f} s a run)")
        print(f"  speed-up{name} {one / two:.2f} (target >= 1.6)")
        if args.repeats > 1:  # the spread: on a shared machine it can be as large as any change
            print(f"    each repeat: 1 worker {' '.join(f'{w:.1f}' for w in walls[tree, 1])} s; "
                  f"2 workers {' '.join(f'{w:.1f}' for w in walls[tree, 2])} s; speed-up "
                  f"{' '.join(f'{a / b:.2f}' for a, b in zip(walls[tree, 1], walls[tree, 2]))}")
    for other in [t for t in trees if t != "now"]:
        for w in (1, 2):
            print(f"  {w} worker(s): now / {other} wall "
                  f"{statistics.median(walls['now', w]) / statistics.median(walls[other, w]):.2f}")
    print(f"  results.csv identical run by run{' (in every case)' if len(trees) > 1 else ''}: {'yes' if same else 'NO'}")
    for key, text in lines.items():
        print(f"  timeline, {key[0]}, {key[1]} worker(s) (s from the command's start):")
        print("\n".join(text))
    return 0


if __name__ == "__main__":
    sys.exit(main())
