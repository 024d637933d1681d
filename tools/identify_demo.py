"""The identification demonstration, end to end, through the project's own commands:

1. a trial: the vehicle's FMU with perturbed true parameters and its instruments' noise, flown
   through the identification manoeuvre by the master (`auv-cosim run ident_<vehicle>`
   with `--set` of the true values);
2. a second trial of a different manoeuvre, held out of the fit (`ident_<vehicle>_check`);
3. `auv-cosim identify` from the nominal values;
4. a table: each parameter's nominal, true and fitted value (with its standard error) and the
   error of the fit; the RMS position error of the nominal and the fitted model on the
   held-out manoeuvre.

    .venv/bin/python tools/identify_demo.py              # the AUV, then the H100
    .venv/bin/python tools/identify_demo.py h100 --out /tmp/demo
    .venv/bin/python tools/identify_demo.py h100 --seeds 8   # and how honest the standard errors are
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]

# the true vehicles of the trials: FMU parameter -> true value (the nominal is the FMU default)
DEMOS = {
    "auv": {
        "scenario": "ident_auv",
        "check": "ident_auv_check",
        "truth": {"AxialDragCoeff": 0.25 * 1.2, "CrossFlowDragCoeff": 1.1 * 0.8, "RudderClMax": 0.8 * 1.15},
        "instance": "vehicle",
    },
    "h100": {
        "scenario": "ident_h100",
        "check": "ident_h100_check",
        # surge quadratic and heave linear damping +30 %, heave added mass -20 %, efficiency 0.85
        "truth": {"QuadraticDamping[1,1]": 141.0 * 1.3, "LinearDamping[3,3]": 33.0 * 1.3,
                  "AddedMass[3,3]": 18.68 * 0.8, "ThrusterEfficiency": 0.85},
        "instance": "vehicle",
    },
}


def _python(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return subprocess.run([sys.executable, *args], cwd=REPO, env=env, capture_output=True, text=True)


def _run(*args: str) -> subprocess.CompletedProcess:
    r = _python(*args)
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(args)}\n{r.stdout}\n{r.stderr[-3000:]}")
    return r


def demo(name: str, out: Path) -> None:
    d = DEMOS[name]
    sets = [a for k, v in d["truth"].items() for a in ("--set", f"{d['instance']}.{k}={v!r}")]
    t0 = time.perf_counter()
    _run("-m", "auv_cosim", "run", d["scenario"], "--no-plots", "--no-progress", "-q", *sets, "--out", str(out / "trial"))
    _run("-m", "auv_cosim", "run", d["check"], "--no-plots", "--no-progress", "-q", *sets, "--out", str(out / "check"))
    t1 = time.perf_counter()
    r = _run("-m", "auv_cosim", "identify", str(out / "trial" / "results.csv"), "--vehicle", name,
             "--fit", ",".join(d["truth"]), "--check", str(out / "check" / "results.csv"), "--out", str(out / "fit"))
    t2 = time.perf_counter()
    print(r.stdout)
    est = json.loads((out / "fit" / "estimates.json").read_text())
    fit = json.loads((out / "fit" / "fit.json").read_text())
    print(f"{name}: trial {fit['duration_s']:g} s, fitted from the nominal values "
          f"(trials flown in {t1 - t0:.1f} s, fit {t2 - t1:.1f} s, {fit['evaluations']} simulations)")
    print(f"  {'parameter':<24} {'nominal':>10} {'true':>10} {'fitted':>10} {'std err':>9} {'error':>8}")
    worst = 0.0
    for k, truth in d["truth"].items():
        e = est[k]
        err = (e["value"] / truth - 1) * 100
        worst = max(worst, abs(err))
        print(f"  {k:<24} {e['nominal']:>10.5g} {truth:>10.5g} {e['value']:>10.5g} {e['stderr']:>9.2g} {err:>+7.2f} %")
    held = fit["heldout"]["rms_position_error_m"]
    print(f"  largest error {worst:.2f} % (bar: 5 %)")
    print(f"  held-out manoeuvre ({d['check']}): RMS position error nominal {held['nominal']:.3f} m, "
          f"fitted {held['fitted']:.3f} m")


def calibration(name: str, out: Path, seeds: int) -> None:
    """How honest the standard errors are: the trial flown again with other instrument-noise
    seeds, each fitted; per parameter the RMS over the seeds of (fitted - true) / standard
    error, for the errors the fit reports and for lmfit's independent-residual ones. About 1
    for honest errors; above 1: too small."""
    d = DEMOS[name]
    sets = [a for k, v in d["truth"].items() for a in ("--set", f"{d['instance']}.{k}={v!r}")]
    ratios: dict[str, list] = {k: [] for k in d["truth"]}
    for seed in range(1, seeds + 1):
        trial = out / f"seed{seed}"
        _run("-m", "auv_cosim", "run", d["scenario"], "--no-plots", "--no-progress", "-q", *sets,
             "--set", f"sensors.Seed={seed}", "--out", str(trial / "trial"))
        _run("-m", "auv_cosim", "identify", str(trial / "trial" / "results.csv"), "--vehicle", name,
             "--fit", ",".join(d["truth"]), "--out", str(trial / "fit"))
        est = json.loads((trial / "fit" / "estimates.json").read_text())
        for k, truth in d["truth"].items():
            e = est[k]
            ratios[k].append(((e["value"] - truth) / e["stderr"], (e["value"] - truth) / e.get("stderr_iid", e["stderr"]),
                              e["value"] - truth))
    method = json.loads((out / "seed1" / "fit" / "fit.json").read_text()).get("stderr_method", "iid")
    print(f"{name}: standard errors over {seeds} noise seeds (reported: {method})")
    print(f"  {'parameter':<24} {'mean error':>11} {'RMS error':>10} {'RMS err/se':>11} {'RMS err/se iid':>15}")
    for k, rows in ratios.items():
        a = np.array(rows)
        rms = np.sqrt(np.mean(a ** 2, axis=0))
        print(f"  {k:<24} {a[:, 2].mean():>+11.3g} {rms[2]:>10.3g} {rms[0]:>11.2f} {rms[1]:>15.2f}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("vehicles", nargs="*", default=list(DEMOS), help=f"of {', '.join(DEMOS)}")
    p.add_argument("--out", default=str(REPO / "results" / "identify_demo"))
    p.add_argument("--seeds", type=int, default=0,
                   help="also fly the trial with this many instrument-noise seeds and print how honest the "
                        "standard errors are (RMS of error / standard error)")
    args = p.parse_args()
    for name in args.vehicles:
        demo(name, Path(args.out) / name)
        if args.seeds:
            calibration(name, Path(args.out) / name / "seeds", args.seeds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
