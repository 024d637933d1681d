"""Benchmark of the H100 stack (H100, H100Sensors, H100Control) through the master at the 0.1 s
control period: simulated time, stepping wall time, real-time factor and microseconds per
communication step, for each controller; and the control stack alone in plain Python (no FMI),
microseconds per control step.

    .venv/bin/python benchmarks/bench_h100_stack.py [--seconds 600] [--repeats 3]

The scenario is h100_hold (station keeping, instrument noise on, recorder on, plots off). The
controllers are interleaved repeat after repeat and the best repeat is kept (the machine is
shared). The real-time factor is simulated time over the stepping wall time (the master's
``stepping_time_s``: start-up and writing excluded).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CONTROLLERS = ("pid", "lqr", "smc")


def run_stack(controller: str, seconds: float, out: Path) -> dict:
    from master import run

    res = run(str(ROOT / "scenarios" / "h100_hold.yaml"), out_dir=out, stop_time=seconds, progress=False,
              plots=False, echo_messages=False, overrides={"control.Controller": controller})
    if res.status != "completed":
        sys.exit(f"bench_h100_stack: the {controller} run failed: {res.reason}")
    s = res.summary
    return {"sim": s["simulated_time_s"], "wall": s["stepping_time_s"], "steps": s["steps"]}


def control_alone(controller: str, steps: int) -> float:
    """Microseconds per H100ControlStack.step, plain Python, CPU time of this process."""
    from controllers_fmu.h100.belief import VehicleBelief
    from controllers_fmu.h100.controllers import ControllerConfig
    from controllers_fmu.h100.guidance import Commands, GuidanceConfig
    from controllers_fmu.h100.navigation import Measurements
    from controllers_fmu.h100.stack import H100ControlStack
    from vehicle_model.h100 import load_vehicle

    stack = H100ControlStack(VehicleBelief(load_vehicle().params), GuidanceConfig(Mode="hold"),
                             ControllerConfig(Controller=controller))
    m = Measurements(euler=(0.01, 0.02, 0.1), omega=(0.01, 0.0, 0.0), velocity=(0.01, 0.02, 0.0), depth=5.0,
                     usbl=(0.0, 0.0, 5.0), usbl_fix_time=0.0, usbl_fix_count=1)
    commands = Commands(depth=5.0)
    stack.initialize(m, commands)
    for _ in range(100):
        stack.step(m, commands, 0.1)
    start = time.process_time()
    for _ in range(steps):
        stack.step(m, commands, 0.1)
    return (time.process_time() - start) / steps * 1e6


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=600.0, help="simulated seconds per run")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    best: dict = {}
    with tempfile.TemporaryDirectory() as folder:
        for controller in CONTROLLERS:       # a warm-up run each: extraction, imports, LQR design
            run_stack(controller, 10.0, Path(folder) / f"warm-{controller}")
        for repeat in range(args.repeats):
            for controller in CONTROLLERS:
                r = run_stack(controller, args.seconds, Path(folder) / f"{controller}-{repeat}")
                if controller not in best or r["wall"] < best[controller]["wall"]:
                    best[controller] = r
    print(f"H100 stack through the master, h100_hold, {args.seconds:.0f} s simulated at 0.1 s, "
          f"best of {args.repeats}")
    print(f"{'controller':10s} {'wall [s]':>9s} {'x real time':>12s} {'us/step':>9s} {'control alone us/step':>22s}")
    for controller in CONTROLLERS:
        r = best[controller]
        alone = control_alone(controller, 2000)
        print(f"{controller:10s} {r['wall']:9.2f} {r['sim'] / r['wall']:12.0f} {r['wall'] / r['steps'] * 1e6:9.0f} "
              f"{alone:22.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
