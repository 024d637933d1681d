"""Benchmark: what the wake ports of the vehicle FMUs (docs/physics/environment.md#wakes) cost a run
that uses no wakes, side by side with a checkout from before them.

Measured interleaved (before, after, before, after ...: the machine is shared and its load
moves), the median and the best of the repeats printed with the ratio before / after:

  survey    ``auv-cosim run survey --no-plots`` in a fresh interpreter, each checkout's own
            master and FMUs (the whole mission, about 34 simulated minutes): the stepping time
            and real-time factor of summary.json, and whether results.csv is the same bytes;
  Auv.fmu   each checkout's Auv.fmu alone through fmpy's low-level calls in cruise (set the 6
            inputs, fmi2DoStep 0.1 s, get the 22 outputs of docs/physics/auv.md#fmu-interface),
            microseconds per step; and, after only, the same with another vehicle's row wired in (15
            more inputs set, WakeVelocity read): what meeting a wake costs.

    .venv/bin/python benchmarks/bench_wake_ports.py --before DIR [--repeats 5] [--steps 20000]

DIR is a checkout from before the wake ports with its FMUs built (e.g. `git worktree add
--detach DIR COMMIT`, then its fmus/ built or copied from a build of that commit). Both
checkouts run with this interpreter. Exit 2 naming what is missing.
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

ROOT = Path(__file__).resolve().parents[1]

#: The outputs of Auv.fmu (docs/physics/auv.md#fmu-interface), the ones the survey stack reads (no
#: wake port)
OUTPUTS = ([f"Pos[{i}]" for i in (1, 2, 3)] + [f"Vel[{i}]" for i in (1, 2, 3)] + [f"Quater[{i}]" for i in (1, 2, 3, 4)]
           + [f"Euler[{i}]" for i in (1, 2, 3)] + ["Heading", "Pitch", "Depth", "Speed", "Altitude", "SeaDepth",
                                                  "Battery", "BatteryFraction", "Thrust"])
INPUTS = ["ThrustPower", "RudderYaw", "RudderDive"] + [f"ExternalForce[{i}]" for i in (1, 2, 3)]

#: run in a child: one Auv.fmu, `steps` steps in cruise; argv: fmu, steps, wired (0/1); prints us/step
_FMU_CHILD = r"""
import sys, time
from fmpy import extract, read_model_description
from fmpy.fmi2 import FMU2Slave
fmu, steps, wired = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
OUTPUTS, INPUTS = %r, %r
md = read_model_description(fmu)
vr = {v.name: v.valueReference for v in md.modelVariables}
f = FMU2Slave(guid=md.guid, unzipDirectory=extract(fmu), modelIdentifier=md.coSimulation.modelIdentifier,
              instanceName="auv")
f.instantiate()
f.setupExperiment(startTime=0.0)
f.enterInitializationMode()
f.setReal([vr["Pos0[3]"], vr["LocalVel0[1]"]], [30.0, 1.438])
f.exitInitializationMode()
ins = [vr[n] for n in INPUTS]
outs = [vr[n] for n in OUTPUTS]
values = [30.0, 0.0, 0.0, 0.0, 0.0, 0.0]
if wired:   # a leader 1 m ahead's row at cruise: the follower in its wake all along (it moves with it)
    ins += [vr[f"WakeSources[1,{j}]"] for j in range(1, 16)]
    outs += [vr[f"WakeVelocity[{i}]"] for i in (1, 2, 3)]
row = [0.0, 0.0, 30.0, 0.0, 0.0, 30.0, -1.0, 0.0, 0.0, 1.438, 9.0, 9.0, 0.2, 0.12, 1025.0]
t = 0.0
start = time.perf_counter()
for k in range(steps):
    if wired:
        row[0] = row[3] = 6.0 + 0.1438 * k
        f.setReal(ins, values + row)
    else:
        f.setReal(ins, values)
    f.doStep(currentCommunicationPoint=t, communicationStepSize=0.1)
    f.getReal(outs)
    t += 0.1
print(1e6 * (time.perf_counter() - start) / steps)
f.terminate(); f.freeInstance()
""" % (OUTPUTS, INPUTS)


def survey(root: Path, folder: Path) -> dict:
    """`auv-cosim run survey --no-plots` of the checkout `root` in a fresh interpreter."""
    env = dict(os.environ, PYTHONPATH=str(root))
    proc = subprocess.run([sys.executable, "-m", "auv_cosim", "run", "survey", "--no-plots", "--quiet",
                           "--out", str(folder)], cwd=root, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"bench_wake_ports: the survey of {root} failed: {proc.stderr[-2000:]}")
    summary = json.loads((folder / "summary.json").read_text())
    return {"stepping_s": summary["stepping_time_s"], "x_real_time": summary["real_time_factor"],
            "csv": hashlib.sha256((folder / "results.csv").read_bytes()).hexdigest()}


def fmu_alone(root: Path, steps: int, wired: bool) -> float:
    proc = subprocess.run([sys.executable, "-c", _FMU_CHILD, str(root / "fmus" / "Auv.fmu"), str(steps),
                           "1" if wired else "0"], cwd="/", env=dict(os.environ, PYTHONPATH=""),
                          capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"bench_wake_ports: Auv.fmu of {root} failed: {proc.stderr[-2000:]}")
    return float(proc.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, metavar="DIR")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--steps", type=int, default=20000, help="steps of Auv.fmu alone per repeat")
    args = parser.parse_args(argv)
    roots = {"before": args.before.resolve(), "after": ROOT}
    for root in roots.values():
        if not (root / "fmus" / "Auv.fmu").is_file():
            print(f"bench_wake_ports: {root}/fmus/Auv.fmu is missing (./build.sh there)", file=sys.stderr)
            return 2
    figures = {key: [] for key in ("before survey", "after survey", "before fmu", "after fmu", "after wired")}
    digests = set()
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.repeats):
            for who, root in roots.items():
                run = survey(root, Path(tmp) / f"{who}{r}")
                figures[f"{who} survey"].append(run)
                digests.add(run["csv"])
                figures[f"{who} fmu"].append(fmu_alone(root, args.steps, wired=False))
            figures["after wired"].append(fmu_alone(ROOT, args.steps, wired=True))
            print(f"  repeat {r + 1}: load {os.getloadavg()[0]:.2f}", file=sys.stderr)
    print(f"bench_wake_ports: {args.repeats} interleaved repeats, load {os.getloadavg()[0]:.2f} at the end")
    print(f"  before: {roots['before']}\n  after:  {roots['after']}")
    print(f"{'figure':44s} {'before':>10s} {'after':>10s} {'before/after':>13s}")

    def line(label, before, after, fmt="{:10.3f}"):
        ratio = before / after if after else float("nan")
        print(f"{label:44s} {fmt.format(before)} {fmt.format(after)} {ratio:13.3f}")

    for pick, name in ((statistics.median, "median"), (min, "best")):
        line(f"survey stepping, s ({name})", pick(x["stepping_s"] for x in figures["before survey"]),
             pick(x["stepping_s"] for x in figures["after survey"]))
    for pick, name in ((statistics.median, "median"), (min, "best")):
        line(f"Auv.fmu alone, us per 0.1 s step ({name})", pick(figures["before fmu"]), pick(figures["after fmu"]))
    x_before = statistics.median(x["x_real_time"] for x in figures["before survey"])
    x_after = statistics.median(x["x_real_time"] for x in figures["after survey"])
    print(f"survey x real time (median): before {x_before:.0f}, after {x_after:.0f}")
    print(f"Auv.fmu meeting a wake (one row wired, WakeVelocity read), us per step: median "
          f"{statistics.median(figures['after wired']):.1f}, best {min(figures['after wired']):.1f}")
    print(f"survey results.csv the same bytes before and after, every repeat: {'yes' if len(digests) == 1 else 'NO'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
