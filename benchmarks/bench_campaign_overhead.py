"""Benchmark of a campaign run's overhead on a warm worker (target: <= 0.3 s a run): what a
run costs beyond its stepping once the worker process has imported everything and loaded
numba's cache, as ``auv_cosim.campaigns``'s worker runs it (``master.run`` in the worker's process,
the CSV formatted inline, no per-run plots unless asked).

    .venv/bin/python benchmarks/bench_campaign_overhead.py [--runs 5] [--stop-time 1200]

One process plays the warm worker: a short warm-up run first (imports, FMU extraction, numba's
cache), then ``--runs`` runs of the depth_step scenario (noise seeds 1, 2, ...), alternately
without and with the run's plots (``--run-plots`` of ``master sweep``). Printed per case, the
median over the runs, in wall and CPU seconds of this process: the whole run, its FMU start-up
(summary.json's ``startup_time_s``), its stepping (``stepping_time_s``) and the rest (the
recorder's close and CSV, summary.json, the plots when on): the overhead is the whole run minus
its stepping.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from auv_cosim.master import find_scenario

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def one_run(out: Path, seed: int, stop_time: float, plots: bool) -> dict:
    from auv_cosim.master import run

    cpu, wall = time.process_time(), time.perf_counter()
    result = run(str(find_scenario("depth_step")), out_dir=out, stop_time=stop_time, progress=False,
                 plots=plots, echo_messages=False, overrides={"sensors.Seed": seed})
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if result.status != "completed":
        sys.exit(f"bench_campaign_overhead: the run failed: {result.reason}")
    s = result.summary
    return {"wall": wall, "cpu": cpu, "startup": s["startup_time_s"], "stepping": s["stepping_time_s"],
            "overhead": wall - s["stepping_time_s"]}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per case (default 5)")
    parser.add_argument("--stop-time", type=float, default=1200.0, help="simulated seconds per run (default 1200)")
    args = parser.parse_args(argv)
    os.environ.setdefault("AUV_MASTER_CSV_WRITER", "inline")     # as auv_cosim.campaigns's worker does
    load = os.getloadavg()[0]
    figures = {False: [], True: []}
    with tempfile.TemporaryDirectory(prefix="bench-campaign-overhead-") as folder:
        one_run(Path(folder) / "warm-up", 99, 2.0, plots=True)    # the worker's one-time costs
        for i in range(args.runs):
            for plots in (False, True):
                figures[plots].append(one_run(Path(folder) / f"run-{i}-{plots}", i + 1, args.stop_time, plots))
    print(f"bench_campaign_overhead: depth_step, {args.stop_time:g} s simulated a run, {args.runs} runs a case in "
          f"one warm process, CSV inline; medians; {os.cpu_count()} CPUs, load average {load:.2f} before, "
          f"{os.getloadavg()[0]:.2f} after")
    print(f"{'case':26s} {'run wall s':>10s} {'run CPU s':>9s} {'start-up s':>10s} {'stepping s':>10s} "
          f"{'overhead s':>10s}")
    for plots, label in ((False, "run, no plots"), (True, "run with its plots")):
        rows = figures[plots]
        med = {key: statistics.median(r[key] for r in rows) for key in rows[0]}
        print(f"{label:26s} {med['wall']:10.3f} {med['cpu']:9.3f} {med['startup']:10.3f} {med['stepping']:10.3f} "
              f"{med['overhead']:10.3f}")
    overhead = statistics.median(r["overhead"] for r in figures[False])
    print(f"target: overhead <= 0.3 s a run (no plots): {'met' if overhead <= 0.3 else 'NOT met'} ({overhead:.3f} s)")
    sys.stdout.flush()
    os._exit(0)  # pythonfmu 0.7.0 double-frees at interpreter exit (see tests/conftest.py)


if __name__ == "__main__":
    sys.exit(main())
