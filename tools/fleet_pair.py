#!/usr/bin/env python3
"""Two Auv.fmu instances in the project's master, each wired to the other's wake by one scenario
line (`wakes: [leader -> follower, follower -> leader]`, Step mode), against the same pair
flown by the vehicle library alone (references/wake_pair.py's `library_pair`): prints the largest
distance between the master's and the library's track of each vehicle, and how far the wake
moved the follower (against the pair flown with nothing wired).

    .venv/bin/python tools/fleet_pair.py [--seconds 40] [--gap 8] [--power 30]

tests/master/test_fleet.py checks the same at 40 s, 8 m, 30 W (1 mm; more than 10 cm).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from references.wake_pair import CRUISE_SPEED, library_pair, starts  # noqa: E402


def master_pair(seconds: float, gap: float, power: float, wired: bool, out: Path) -> dict:
    """The pair in the master: positions of both at every communication point."""
    from auv_cosim.master import run

    lead0, follow0 = ([float(x) for x in p] for p in starts(gap))
    scenario = {
        "name": "pair", "stop_time": seconds,
        "instances": {
            "leader": {"fmu": str(ROOT / "fmus" / "Auv.fmu"),
                       "parameters": {"Pos0": lead0, "LocalVel0": [CRUISE_SPEED, 0.0, 0.0]}},
            "follower": {"fmu": str(ROOT / "fmus" / "Auv.fmu"),
                         "parameters": {"Pos0": follow0, "LocalVel0": [CRUISE_SPEED, 0.0, 0.0]}}},
        "signals": {"leader.ThrustPower": power, "follower.ThrustPower": power},
    }
    if wired:
        scenario["wakes"] = ["leader -> follower", "follower -> leader"]
    res = run(scenario, out_dir=out, plots=False, progress=False)
    if res.status != "completed":
        raise SystemExit(f"the master's run failed: {res.reason}")
    return {v: np.column_stack([res.column(f"{v}.Pos[{i}]") for i in (1, 2, 3)]) for v in ("leader", "follower")}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=40.0)
    ap.add_argument("--gap", type=float, default=8.0)
    ap.add_argument("--power", type=float, default=30.0)
    args = ap.parse_args(argv)
    if not (ROOT / "fmus" / "Auv.fmu").is_file():
        print("error: fmus/Auv.fmu: no such file (build it: ./build.sh)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="fleet_pair-") as tmp:
        wired = master_pair(args.seconds, args.gap, args.power, True, Path(tmp) / "wired")
        alone = master_pair(args.seconds, args.gap, args.power, False, Path(tmp) / "alone")
    library = library_pair(args.seconds, args.gap, args.power, 0.1)
    print(f"two Auv.fmu in the master, {args.gap:g} m apart at {args.power:g} W, {args.seconds:g} s, wakes both ways:")
    for v in ("leader", "follower"):
        d = np.max(np.linalg.norm(wired[v] - library[v], axis=1))
        print(f"  {v:<8} largest distance to the library-only loop: {d:.3g} m")
    moved = wired["follower"][-1] - alone["follower"][-1]
    print(f"  the wake moved the follower by {np.linalg.norm(moved):.3f} m (north {moved[0]:+.3f}, "
          f"east {moved[1]:+.3f}, down {moved[2]:+.3f}) against the pair with nothing wired")
    return 0


if __name__ == "__main__":
    sys.exit(main())
