"""Benchmark of several vehicles in one run (docs/physics/environment.md#several-vehicles): how fast
two AUVs with their stacks and their wakes wired step, and that a vehicle alone steps as fast as it
did before.

Prints, measured side by side (the cases interleaved, repeat after repeat; the MEDIAN of the
repeats is kept, because the 2-core machine is shared and its load moves), each case's stepping
time and real-time factor (summary.json's ``stepping_time_s``, simulated time / stepping
time) and its microseconds per step:

  pair, wakes      two survey stacks (leader and follower, 10 m apart on one line, hold
                   guidance at 10 m and 1.4 m/s), each wired to the other's wake:
                   ``wakes: [leader -> follower, follower -> leader]`` (the bar: 1500x real time)
  pair, no wakes   the same two vehicles, nothing wired between them: what the wakes cost
  survey           ``auv-cosim run survey --no-plots`` (one vehicle, no wakes)
  survey, before   the same command from another checkout (``--before DIR``: e.g. ``git
                   archive main | tar -x -C DIR`` with its ``fmus/`` built or copied), run with
                   this interpreter: the bar is the same speed (ratio about 1)

    .venv/bin/python benchmarks/bench_fleet.py [--repeats 5] [--seconds 1200] [--before DIR]

The runs are ``python -m auv_cosim run ... --no-plots --no-progress`` in fresh interpreters.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from auv_cosim.master import find_scenario

ROOT = Path(__file__).resolve().parents[1]
STACK = find_scenario("stacks/survey")


def pair_scenario(seconds: float, wakes: bool) -> str:
    """Two AUVs cruising north in hold guidance, the follower 10 m behind the leader."""
    def vehicle(name, north, seed):
        return textwrap.indent(textwrap.dedent(f"""\
            {name}:
              include: {STACK}
              instances:
                vehicle: {{parameters: {{Pos0: [{north}, 0.0, 10.0], LocalVel0: [1.4, 0.0, 0.0], SeaFloorDepth: 60.0}}}}
                sensors: {{parameters: {{Seed: {seed}}}}}
                control: {{parameters: {{GuidanceMode: hold, DiveMode: depth}}}}
              signals: {{control.SpeedCommand: 1.4, control.DepthCommand: 10.0}}
            """), "  ")
    text = f"stop_time: {seconds}\nvehicles:\n" + vehicle("leader", 10.0, 1) + vehicle("follower", 0.0, 2)
    if wakes:
        text += "wakes:\n  - leader -> follower\n  - follower -> leader\n"
    return text


def run_once(args: list[str], cwd: Path, out: Path, pythonpath: Path | None = None) -> dict:
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    done = subprocess.run([sys.executable, "-m", "auv_cosim", "run", *args, "--no-plots", "--no-progress", "-q",
                           "--out", str(out)], cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return json.loads((out / "summary.json").read_text())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=1200.0, help="simulated seconds of the pair (default 1200)")
    ap.add_argument("--before", type=Path, help="another checkout: its survey run side by side")
    args = ap.parse_args(argv)
    if args.before is not None and not (args.before / "auv_cosim").is_dir():
        print(f"error: --before {args.before}: no auv_cosim package there", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="bench_fleet-") as tmp:
        tmp = Path(tmp)
        cases = {}
        for label, wakes in (("pair, wakes", True), ("pair, no wakes", False)):
            path = tmp / f"pair_{'wakes' if wakes else 'alone'}.yaml"
            path.write_text(pair_scenario(args.seconds, wakes))
            cases[label] = ([str(path)], ROOT, None)
        cases["survey"] = (["survey"], ROOT, None)
        if args.before is not None:
            cases["survey, before"] = (["survey"], args.before.resolve(), args.before.resolve())
        times = {label: [] for label in cases}
        simulated = {}
        for r in range(args.repeats):
            for label, (run_args, cwd, path) in cases.items():
                s = run_once(run_args, cwd, tmp / f"out-{len(times[label])}-{label.replace(' ', '').replace(',', '_')}", path)
                times[label].append(s["stepping_time_s"])
                simulated[label] = (s["simulated_time_s"], s["steps"])
    print(f"stepping, median of {args.repeats} (load average now {os.getloadavg()[0]:.2f}):")
    medians = {}
    for label, ts in times.items():
        sim, steps = simulated[label]
        m = medians[label] = statistics.median(ts)
        print(f"  {label:<16} {sim:7.1f} s simulated in {m:6.3f} s: {sim / m:7.0f}x real time, "
              f"{1e6 * m / steps:6.1f} us a step   (repeats {', '.join(f'{t:.3f}' for t in ts)})")
    ratio = medians["pair, wakes"] / medians["pair, no wakes"]
    print(f"  the wakes cost the pair x{ratio:.3f} of its stepping time; the bar of 1500x real time is "
          f"{'met' if simulated['pair, wakes'][0] / medians['pair, wakes'] >= 1500 else 'NOT met'}")
    if "survey, before" in medians:
        print(f"  survey against before: x{medians['survey'] / medians['survey, before']:.3f} of its stepping time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
