"""Benchmark of the tether (Tether.fmu on MoorDyn): what the scenario's cable costs and what it
gives away against a fine cable. Prints, measured side by side in one run:

  stack     h100_tether_hold and h100_untethered_hold (the same station, current and noise,
            without the tether) through the master, interleaved, best of --repeats: the master's
            stepping wall time and real-time factor (what `auv-cosim run` prints), and the
            stepping's CPU time (read by a pacer that never waits, at the first step and after
            the last), which a shared machine does not inflate (the load average is printed);
  cable     the tether library alone (no FMI) on the scenario's cable (7 segments, EA 2e4 N,
            dtM 4 ms) and on a fine one (35 segments of 1 m, EA 2e5 N, dtM 0.3 ms): CPU real-time
            factor at the 0.1 s communication step;
  accuracy  both cables with the end held at the station in the scenario's current: the
            settled end force (after 180 s); and h100_tether_hold flown through the master on each
            cable (the fine one set with --set-style overrides): the controller's RMS position error,
            the RMS distance between the two tracks, the mean pull at the ROV, the RMS difference of
            its 10-s means after the first two minutes (what the ROV's mass feels), and the largest
            pull (the stiff fine cable rings axially: spikes the ROV filters out).

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


class _CpuClock:
    """A pacer (auv_cosim.master.Pacer) that never waits and reads the process's CPU clock when
    the loop starts stepping and when it has made its last step: the stepping's CPU time, the
    FMUs' steps and the master's loop (the FMUs run in this process), start-up left out."""

    every = 10 ** 9     # called at the first point and after the last step only

    def __init__(self):
        self.first = self.last = None

    def pace(self, t: float) -> None:
        now = time.process_time()
        if self.first is None:
            self.first = now
        self.last = now

    @property
    def cpu(self) -> float:
        return self.last - self.first


def stack_speed(seconds: float, repeats: int) -> None:
    """The master's real-time factor (what `auv-cosim run` prints: simulated time over the stepping
    wall time) and the stepping's CPU real-time factor (`_CpuClock`), which a machine shared with
    other work does not inflate as it does the wall clock."""
    from auv_cosim.master import run

    best = {}
    with tempfile.TemporaryDirectory() as folder:
        for repeat in range(repeats):
            for name in ("h100_tether_hold", "h100_untethered_hold"):
                clock = _CpuClock()
                result = run(name, out_dir=Path(folder) / f"{name}{repeat}", stop_time=seconds, plots=False,
                             echo_messages=False, keep_rows=False, pacer=clock)
                if result.status != "completed":
                    raise SystemExit(f"{name}: {result.status}: {result.reason}")
                wall = result.summary["stepping_time_s"]
                old = best.get(name, (math.inf, math.inf))
                best[name] = (min(old[0], wall), min(old[1], clock.cpu))
    print(f"stack ({seconds:g} s simulated, best of {repeats}; load average {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} CPUs):")
    for name, (wall, cpu) in best.items():
        print(f"  {name:22s} stepping {wall:7.3f} s wall = {seconds / wall:7.1f}x real time (as auv-cosim run "
              f"prints it); stepping CPU {cpu:7.3f} s = {seconds / cpu:7.1f}x")
    ratio = best["h100_tether_hold"][1] / best["h100_untethered_hold"][1]
    print(f"  the tether costs {ratio:.2f}x the stack's stepping CPU")


def settled(config: dict):
    """EndForce after SETTLE seconds of a cable whose end holds the station, and the CPU time of
    its steps."""
    cable = Tether(TetherConfig(**config), STATION)
    cpu = 0.0
    for _ in range(int(round(SETTLE / STEP))):
        c0 = time.process_time()
        loads = cable.step(STATION, (0.0, 0.0, 0.0), STEP)
        cpu += time.process_time() - c0
    cable.close()
    return np.array(loads.end_force), cpu


def _overrides(config: dict) -> dict:
    return {f"tether.{name}": config[name] for name in ("SegmentCount", "AxialStiffness", "TimeStep")}


def _flown(folder: Path, config: dict, seconds: float):
    """(summary, vehicle positions, tether EndForce rows) of h100_tether_hold on the cable."""
    import csv

    from auv_cosim.master import run

    result = run("h100_tether_hold", out_dir=folder, stop_time=seconds, plots=False, echo_messages=False,
                 overrides=_overrides(config))
    if result.status != "completed":
        raise SystemExit(f"h100_tether_hold on {config}: {result.status}: {result.reason}")
    with open(folder / "results.csv", newline="") as f:
        rows = list(csv.reader(f))
    header, data = rows[0], np.array(rows[1:], dtype=float)

    def vector(name):
        return np.column_stack([data[:, header.index(f"{name}[{i}]")] for i in (1, 2, 3)])

    return result.summary, vector("vehicle.Pos"), vector("tether.EndForce")


def accuracy(seconds: float) -> None:
    print("cable alone, end held at the station in the 0.2 m/s cross current:")
    forces = {}
    for name, config in (("chosen", CHOSEN), ("fine", FINE)):
        forces[name], cpu = settled(config)
        f = forces[name]
        print(f"  {name:6s} {config['SegmentCount']:2d} segments, EA {config['AxialStiffness']:.0e} N, dtM "
              f"{config['TimeStep'] * 1000:g} ms: {SETTLE / cpu:8.1f}x real time (CPU); settled EndForce "
              f"({f[0]:+.4f}, {f[1]:+.4f}, {f[2]:+.4f}) N")
    error = np.linalg.norm(forces["chosen"] - forces["fine"]) / np.linalg.norm(forces["fine"])
    print(f"  settled force: chosen against fine {100 * error:.2f} % of |F|")
    print(f"h100_tether_hold ({seconds:g} s) through the master on each cable:")
    with tempfile.TemporaryDirectory() as folder:
        flown = {name: _flown(Path(folder) / name, config, seconds) for name, config in (("chosen", CHOSEN),
                                                                                       ("fine", FINE))}
    late = int(120.0 / STEP)    # after the current has bowed the tether (MoorDyn starts it in still water)
    window = int(10.0 / STEP)

    def means(force):
        usable = (len(force) - late) // window * window
        return force[late:late + usable].reshape(-1, window, 3).mean(axis=1)

    fine_summary, fine_pos, fine_force = flown["fine"]
    for name, (summary, pos, force) in flown.items():
        pull = np.linalg.norm(force[late:], axis=1)
        track = math.sqrt(np.mean(np.sum((pos - fine_pos) ** 2, axis=1)))
        slow = math.sqrt(np.mean(np.sum((means(force) - means(fine_force)) ** 2, axis=1)))
        print(f"  {name:6s} position error RMS {summary['h100']['control']['position_rms_m']:.4f} m; track from the "
              f"fine one's {track:.4f} m RMS; pull mean {pull.mean():.3f} N, max {pull.max():.3f} N; 10-s means "
              f"from the fine one's {slow:.3f} N RMS")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=300.0, help="simulated time of the stack runs")
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    accuracy(args.seconds)
    stack_speed(args.seconds, args.repeats)


if __name__ == "__main__":
    main()
