"""Two Auv.fmu instances driven by fmpy alone (no project master), each wired to the other's
wake: the figures that show the FMUs' wake ports do what docs/physics/environment.md#wakes says
(the pair itself: references/wake_pair.py).

A leader cruises north at `--power` W, 30 m deep, and a follower starts `--gap` m behind it on
the same line at the same speed (the cruise speed of 30 W, 1.438 m/s), both with CastWake =
true; at every communication point each one's WakeSource[1..15] is read, then set into the
other's WakeSources[1,1..15], then both step (a Jacobi exchange: what either sees does not
depend on which steps first). Printed:

* the follower's WakeVelocity against the field of the wake law
  (docs/physics/environment.md#wake-field), transcribed without the library
  (references/wake_oracle.py), at its position at each step's start from the leader's row then
  ("Step" mode holds that value over the step): the largest difference over the run;
* the trajectories against a loop of the vehicle library alone (AuvModel and VehicleSimulator,
  the rows handed over by `wake.with_sources`): the largest distance between the two, each
  vehicle;
* what the wake did: the follower's position at the end against the same follower flown with
  no wake wired (its surge gain, its distance to the leader).

    .venv/bin/python tools/wake_pair.py                       # 40 s, 8 m behind, 30 W
    .venv/bin/python tools/wake_pair.py --seconds 60 --gap 5 --update Evaluation

Exit 2 naming the FMU when fmus/Auv.fmu is missing (build it: ./build.sh).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from references.wake_pair import fmu_pair, library_pair, oracle_errors  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fmu", type=Path, default=ROOT / "fmus" / "Auv.fmu")
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--gap", type=float, default=8.0, help="follower's start behind the leader, m (default 8)")
    parser.add_argument("--power", type=float, default=30.0, help="propulsion power of both, W (default 30)")
    parser.add_argument("--step", type=float, default=0.1, help="communication step, s (default 0.1)")
    parser.add_argument("--update", choices=("Step", "Evaluation"), default="Step", help="ExternalWakeUpdate")
    args = parser.parse_args(argv)
    if not args.fmu.is_file():
        print(f"wake_pair: {args.fmu}: no such FMU (build it: ./build.sh)", file=sys.stderr)
        return 2
    common = dict(seconds=args.seconds, gap=args.gap, power=args.power, step=args.step, update=args.update)
    fmus = fmu_pair(args.fmu, **common)
    library = library_pair(**common)
    alone = library_pair(**common, wired=False)

    print(f"two Auv.fmu instances by fmpy alone, each wired to the other's WakeSource: {args.seconds:g} s, "
          f"follower {args.gap:g} m behind, {args.power:g} W, step {args.step:g} s, ExternalWakeUpdate {args.update}")
    errors = oracle_errors(fmus)
    if args.update == "Step":
        print(f"  follower's WakeVelocity against the wake law's field (references/wake_oracle.py): largest difference "
              f"{errors.max():.3g} m/s over {len(errors)} steps (largest |WakeVelocity| "
              f"{np.linalg.norm(fmus['wake'], axis=1).max():.4f} m/s)")
    else:
        print(f"  follower's WakeVelocity (Evaluation: the field at the end position) largest "
              f"{np.linalg.norm(fmus['wake'], axis=1).max():.4f} m/s")
    for who in ("leader", "follower"):
        gap = np.linalg.norm(fmus[who] - library[who], axis=1).max()
        print(f"  {who}'s trajectory against the library-only loop: largest distance {gap:.3g} m")
    moved = fmus["follower"][-1] - alone["follower"][-1]
    print(f"  the wake moved the follower by {np.linalg.norm(moved):.3f} m over {args.seconds:g} s "
          f"(north {moved[0]:+.3f}, east {moved[1]:+.3f}, down {moved[2]:+.3f} m against it flown alone); "
          f"distance to the leader {np.linalg.norm(fmus['leader'][-1] - fmus['follower'][-1]):.3f} m "
          f"(alone {np.linalg.norm(alone['leader'][-1] - alone['follower'][-1]):.3f} m)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
