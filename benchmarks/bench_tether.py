"""Benchmark of the tether (Tether.fmu on MoorDyn): what the scenario's cable costs and what it
gives away against a fine cable. Prints, measured side by side in one run:

  stack     h100_tether_hold and h100_untethered_hold (the same station, current and noise,
            without the tether) through the master, interleaved, best of --repeats: simulated
            time, the master's stepping wall time and real-time factor, and the CPU time of the
            run's process over the stepping (the machine is shared: the load average is printed);
  cable     the tether library alone (no FMI) on the scenario's cable (7 segments, EA 2e4 N,
            dtM 4 ms) and on a fine one (35 segments of 1 m, EA 2e5 N, dtM 0.3 ms): CPU real-time
            factor at the 0.1 s communication step;
  accuracy  both cables with the end at the station in the scenario's current: the settled end
            force (after 180 s), and over 120 s of the end moving as a station-keeping ROV does (a surge of
            0.2 m at 0.1 Hz and a heave of 0.1 m at 0.23 Hz), the RMS difference of EndForce
            from the fine cable's, against the fine cable's RMS force.

    .venv/bin/python benchmarks/bench_tether.py [--seconds 300] [--repeats 2]
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from auv_cosim.master.threads import single_threaded_blas  # noqa: E402

single_threaded_blas()

import numpy as np  # noqa: E402

from auv_cosim.components.tether import Tether, TetherConfig  # noqa: E402

STEP = 0.1
#: long enough for the current to blow the tether into its shape (MoorDyn starts it in still water)
SETTLE = 180.0
STATION = (20.0, 0.0, 10.0)
CURRENT = (0.0, 0.2, 0.0)   # across the line, as in h100_tether_hold
#: the scenario's tether (auv_cosim/vehicles/h100/scenarios/stacks/h100_tether.yaml) and a fine one
COMMON = dict(Length=35.0, Diameter=0.0076, MassPerLength=0.05, Rho=1000.0, Gravity=9.82, WaterDepth=30.0,
              CurrentVelocity=CURRENT)
CHOSEN = dict(COMMON, SegmentCount=7, AxialStiffness=2.0e4, TimeStep=0.004)
FINE = dict(COMMON, SegmentCount=35, AxialStiffness=2.0e5, TimeStep=0.0003)


def stack_speed(seconds: float, repeats: int) -> None:
    from auv_cosim.master import run

    best = {}
    with tempfile.TemporaryDirectory() as folder:
        for repeat in range(repeats):
            for name in ("h100_tether_hold", "h100_untethered_hold"):
                cpu0 = time.process_time()
                result = run(name, out_dir=Path(folder) / f"{name}{repeat}", stop_time=seconds, plots=False,
                             echo_messages=False, keep_rows=False)
                cpu = time.process_time() - cpu0
                if result.status != "completed":
                    raise SystemExit(f"{name}: {result.status}: {result.reason}")
                wall = result.summary["stepping_time_s"]
                if name not in best or wall < best[name][0]:
                    best[name] = (wall, cpu)
    print(f"stack ({seconds:g} s simulated, best of {repeats}; load average {os.getloadavg()[0]:.1f}):")
    for name, (wall, cpu) in best.items():
        print(f"  {name:22s} stepping {wall:7.3f} s wall = {seconds / wall:7.1f}x real time;"
              f" run's CPU {cpu:7.3f} s = {seconds / cpu:7.1f}x (start-up included)")
    ratio = best["h100_tether_hold"][0] / best["h100_untethered_hold"][0]
    print(f"  the tether costs {ratio:.2f}x the stack's stepping wall time")


def drive(config: dict, seconds: float, moving: bool):
    """EndForce rows of a cable whose end holds the station (moving: as a station-keeping ROV
    does), and the CPU time of the steps."""
    cable = Tether(TetherConfig(**config), STATION)
    rows, cpu = [], 0.0
    for k in range(int(round(seconds / STEP))):
        t = k * STEP
        if moving:
            pos = (STATION[0] + 0.2 * math.sin(2 * math.pi * 0.1 * t), 0.0, STATION[2] + 0.1 * math.sin(2 * math.pi * 0.23 * t))
            vel = (0.2 * 2 * math.pi * 0.1 * math.cos(2 * math.pi * 0.1 * t), 0.0,
                   0.1 * 2 * math.pi * 0.23 * math.cos(2 * math.pi * 0.23 * t))
        else:
            pos, vel = STATION, (0.0, 0.0, 0.0)
        c0 = time.process_time()
        loads = cable.step(pos, vel, STEP)
        cpu += time.process_time() - c0
        rows.append(loads.end_force)
    cable.close()
    return np.array(rows), cpu


def accuracy(seconds: float) -> None:
    print("cable alone and its accuracy (end at the station, 0.2 m/s cross current):")
    settled = {}
    for name, config in (("chosen", CHOSEN), ("fine", FINE)):
        rows, cpu = drive(config, SETTLE, moving=False)
        settled[name] = rows[-1]
        print(f"  {name:6s} {config['SegmentCount']:2d} segments, EA {config['AxialStiffness']:.0e} N, dtM "
              f"{config['TimeStep'] * 1000:g} ms: {SETTLE / cpu:8.1f}x real time (CPU); settled EndForce "
              f"({rows[-1][0]:+.4f}, {rows[-1][1]:+.4f}, {rows[-1][2]:+.4f}) N")
    error = np.linalg.norm(settled["chosen"] - settled["fine"]) / np.linalg.norm(settled["fine"])
    print(f"  settled force: chosen against fine {100 * error:.2f} % of |F|")
    chosen, _ = drive(CHOSEN, seconds, moving=True)
    fine, _ = drive(FINE, seconds, moving=True)
    skip = int(10.0 / STEP)     # the first 10 s: both start from MoorDyn's static equilibrium
    diff = chosen[skip:] - fine[skip:]
    rms_diff = math.sqrt(np.mean(np.sum(diff ** 2, axis=1)))
    rms_fine = math.sqrt(np.mean(np.sum(fine[skip:] ** 2, axis=1)))
    swing = math.sqrt(np.mean(np.sum((fine[skip:] - fine[skip:].mean(axis=0)) ** 2, axis=1)))
    print(f"  end moving ({seconds:g} s): RMS |EndForce| fine {rms_fine:.4f} N, its swing about the mean "
          f"{swing:.4f} N; RMS difference chosen - fine {rms_diff:.4f} N = {100 * rms_diff / rms_fine:.2f} % "
          f"of the force, {100 * rms_diff / swing:.1f} % of the swing")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=300.0, help="simulated time of the stack runs")
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    accuracy(120.0)
    stack_speed(args.seconds, args.repeats)


if __name__ == "__main__":
    main()
