"""Benchmark of the AUV stack's own work per step: each slave's do_step as a Python object, with
no FMI boundary.

The three slaves of the survey stack (``Auv``, ``AuvSensors``, ``AuvControl``) are made as
Python objects (``Class(instance_name=...)``), initialised, and stepped at 0.1 s in cruise;
printed per slave, microseconds per call of

  do      ``do_step(t, 0.1)`` (FmuSlave's guard, the slave's step, its outputs refreshed);
  get     reading every output the master reads each step (``get_real`` and ``get_integer`` /
          ``get_boolean`` of the outputs).

Each figure is the best of many short timings (100 calls each): on a shared machine a longer
timing is almost always cut by another process, and the best short one is the cost of the
code. ``--before DIR`` times the same in a checkout of another commit (DIR on ``sys.path``,
e.g. ``git archive COMMIT | tar -x -C DIR``), in child interpreters interleaved with this
checkout's, and prints both side by side. The FMI boundary itself (fmpy -> the native wrapper
-> these objects) is ``benchmarks/bench_stack.py``'s (e).

    .venv/bin/python benchmarks/bench_auv_slaves.py [--repeats 3] [--before DIR]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CALLS = 100        # calls per timing
TIMINGS = 2000     # timings per figure (the best counts)

#: the vehicle in cruise at the survey's speed, deep water (as benchmarks/bench_stack.py)
VEHICLE_PARAMETERS = {"Pos0[3]": 30.0, "LocalVel0[1]": 1.4, "SeaFloorDepth": 1000.0}
VEHICLE_INPUTS = {"ThrustPower": 30.0, "RudderYaw": 0.01, "RudderDive": -0.02}
SENSOR_INPUTS = {"Pos[1]": 120.0, "Pos[2]": 50.0, "Pos[3]": 12.0, "Euler[1]": 0.01, "Euler[2]": -0.05,
                 "Euler[3]": 1.2, "Depth": 12.0, "Speed": 1.4, "Altitude": 20.0}
CONTROL_INPUTS = {"MeasuredDepth": 12.0, "MeasuredPitch": -0.05, "MeasuredHeading": 0.02,
                  "MeasuredSpeed": 1.4, "MeasuredAltitude": 20.0, "NavNorth": 120.0, "NavEast": 1.0}


def child(root: str) -> None:
    """In a fresh interpreter with ``root`` first on sys.path: time the three slaves."""
    sys.path.insert(0, root)
    from pythonfmu.variables import Boolean, Integer, Real

    from auv_cosim.vehicles.auv.stack.control_slave import AuvControl
    from auv_cosim.vehicles.auv.stack.instruments_slave import AuvSensors
    from auv_cosim.vehicles.auv.slave import Auv

    figures = {}
    for cls, parameters, inputs in ((Auv, VEHICLE_PARAMETERS, VEHICLE_INPUTS), (AuvSensors, {}, SENSOR_INPUTS),
                                    (AuvControl, {}, CONTROL_INPUTS)):
        slave = cls(instance_name=cls.__name__)
        vr = {v.name: ref for ref, v in slave.vars.items()}
        if parameters:
            slave.set_real([vr[n] for n in parameters], list(parameters.values()))
        slave.enter_initialization_mode()
        slave.exit_initialization_mode()
        slave.set_real([vr[n] for n in inputs], list(inputs.values()))
        outputs = {kind: [ref for ref, v in slave.vars.items() if v.causality.name == "output" and isinstance(v, kind)]
                   for kind in (Real, Integer, Boolean)}
        clock = [0.0]

        def do():
            slave.do_step(clock[0], 0.1)
            clock[0] += 0.1

        def get():
            slave.get_real(outputs[Real])
            if outputs[Integer]:
                slave.get_integer(outputs[Integer])
            if outputs[Boolean]:
                slave.get_boolean(outputs[Boolean])

        for _ in range(CALLS):
            do()
        figures[cls.__name__] = {name: min(timeit.repeat(f, number=CALLS, repeat=TIMINGS)) / CALLS * 1e6
                                 for name, f in (("do", do), ("get", get))}
    print(json.dumps(figures), flush=True)


def measure(root: Path) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", str(root)], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"bench_auv_slaves: the child for {root} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="interleaved child runs per checkout (the best counts)")
    parser.add_argument("--before", type=Path, help="another checkout, timed side by side")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    roots = {"this": ROOT}
    if args.before is not None:
        roots = {"before": args.before.resolve(), "this": ROOT}
    best: dict = {}
    for _ in range(args.repeats):
        for label, root in roots.items():
            for slave, parts in measure(root).items():
                for part, us in parts.items():
                    key = (label, slave, part)
                    best[key] = min(best.get(key, us), us)
    print(f"bench_auv_slaves: us per call, best of {TIMINGS} timings of {CALLS} calls, "
          f"{args.repeats} interleaved child runs per checkout")
    print(f"  {'slave':12s} {'part':5s}" + "".join(f"{label:>10s}" for label in roots)
          + ("   this/before" if len(roots) == 2 else ""))
    for slave in ("Auv", "AuvSensors", "AuvControl"):
        for part in ("do", "get"):
            values = [best[(label, slave, part)] for label in roots]
            ratio = f"   {values[1] / values[0]:10.2f}" if len(values) == 2 else ""
            print(f"  {slave:12s} {part:5s}" + "".join(f"{v:10.2f}" for v in values) + ratio)
    for label, root in roots.items():
        print(f"  {label}: {root}")


if __name__ == "__main__":
    main()
