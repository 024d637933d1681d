"""Benchmark of `auv-cosim identify` on trials nobody tuned it to (references/ident_trial.py: the
vehicle's FMU flown through fmpy with perturbed true parameters, noise added): each parameter's
nominal, true and fitted value, its standard error, the error, and the fit's wall time.

    .venv/bin/python benchmarks/bench_identify.py                    # H100, 180 s, the nine parameters
    .venv/bin/python benchmarks/bench_identify.py --seeds 8          # and the err/se table over 8 noise seeds
    .venv/bin/python benchmarks/bench_identify.py --vehicle auv      # the AUV's three

The wall time is that of the whole command (a fresh interpreter: imports, reading the log, the
fit, the outputs); the bar is 2 minutes for the H100's 180 s trial on the project's 2-core machine.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from references.ident_trial import AUV_TRUTH, H100_TRUTH, make_trial  # noqa: E402

TRUTH = {"h100": H100_TRUTH, "auv": AUV_TRUTH}


def identify(log: Path, vehicle: str, names, out: Path) -> tuple[float, int, dict, dict]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "auv_cosim", "identify", str(log), "--vehicle", vehicle,
                        "--fit", ",".join(names), "--out", str(out)], cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if r.returncode == 2:
        sys.exit(r.stderr)
    return wall, r.returncode, json.loads((out / "estimates.json").read_text()), json.loads((out / "fit.json").read_text())


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--vehicle", choices=("h100", "auv"), default="h100")
    p.add_argument("--duration", type=float, default=None, help="s (default: H100 180, AUV 120)")
    p.add_argument("--seeds", type=int, default=1, help="noise seeds 1..N (N > 1: the err/se table)")
    p.add_argument("--out", default=None, help="folder for the trials and fits (default: a temporary one)")
    args = p.parse_args()
    truth = TRUTH[args.vehicle]
    duration = args.duration or (180.0 if args.vehicle == "h100" else 120.0)
    root = Path(args.out or tempfile.mkdtemp(prefix="bench_identify_"))
    rows = []
    for seed in range(1, args.seeds + 1):
        log = make_trial(args.vehicle, root / f"seed{seed}" / "trial", duration=duration, seed=seed)
        wall, rc, est, fit = identify(log, args.vehicle, list(truth), root / f"seed{seed}" / "fit")
        rows.append(est)
        if seed == 1:
            print(f"{args.vehicle}: trial {duration:g} s (tools/ident_trial.py, seed 1), fitted from the nominal values: "
                  f"wall time {wall:.1f} s, {fit['evaluations']} evaluations, exit {rc}")
            print(f"  standard errors: {fit['stderr_method']}")
            print(f"  {'parameter':<24} {'nominal':>10} {'true':>10} {'fitted':>10} {'std err':>9} {'error':>9} {'err/se':>7}")
            for k, v in truth.items():
                e = est[k]
                print(f"  {k:<24} {e['nominal']:>10.5g} {v:>10.5g} {e['value']:>10.5g} {e['stderr']:>9.2g} "
                      f"{(e['value'] / v - 1) * 100:>+8.2f} % {(e['value'] - v) / e['stderr']:>+7.2f}")
            worst = max(abs(est[k]["value"] / v - 1) * 100 for k, v in truth.items())
            print(f"  largest error {worst:.2f} % (bar: 5 %); warnings: "
                  + (", ".join(w["code"] for w in fit["warnings"]) or "none"))
        else:
            print(f"  seed {seed}: wall {wall:.1f} s, largest error "
                  f"{max(abs(est[k]['value'] / v - 1) * 100 for k, v in truth.items()):.2f} %, "
                  f"warnings {', '.join(w['code'] for w in fit['warnings']) or 'none'}")
    if args.seeds > 1:
        print(f"  over {args.seeds} noise seeds: RMS of error / standard error (1: honest; the bar: within a factor of 2)")
        for k, v in truth.items():
            z = np.array([(r[k]["value"] - v) / r[k]["stderr"] for r in rows])
            err = np.array([r[k]["value"] / v - 1 for r in rows]) * 100
            print(f"  {k:<24} RMS err/se {np.sqrt(np.mean(z ** 2)):5.2f}   largest error {np.abs(err).max():5.2f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
