"""The identification demonstration, end to end, through the project's own commands:

1. a trial: the vehicle's FMU with perturbed true parameters and its instruments' noise, flown
   through the identification manoeuvre by the master (`python -m master run ident_<vehicle>`
   with `--set` of the true values);
2. a second trial of a different manoeuvre, held out of the fit (`ident_<vehicle>_check`);
3. `python -m master identify` from the nominal values;
4. a table: each parameter's nominal, true and fitted value (with its standard error) and the
   error of the fit; the RMS position error of the nominal and the fitted model on the
   held-out manoeuvre.

    .venv/bin/python tools/identify_demo.py              # the AUV, then the H100 (a library trial)
    .venv/bin/python tools/identify_demo.py auv --out /tmp/demo
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# the true vehicles of the trials: FMU parameter -> true value (the nominal is the FMU default)
DEMOS = {
    "auv": {
        "scenario": "ident_auv",
        "check": "ident_auv_check",
        "truth": {"AxialDragCoeff": 0.25 * 1.2, "CrossFlowDragCoeff": 1.1 * 0.8, "RudderClMax": 0.8 * 1.15},
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
    _run("-m", "master", "run", d["scenario"], "--no-plots", "--no-progress", "-q", *sets, "--out", str(out / "trial"))
    _run("-m", "master", "run", d["check"], "--no-plots", "--no-progress", "-q", *sets, "--out", str(out / "check"))
    t1 = time.perf_counter()
    r = _run("-m", "master", "identify", str(out / "trial" / "results.csv"), "--vehicle", name,
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


def demo_h100_library(out: Path) -> None:
    """The H100 on a trial made with its library (identification/trials.py) while H100.fmu and
    an identification scenario of it are not on main: damping +30 %, added mass -20 %,
    thruster efficiency 0.85, the H100's instrument noise; fitted over 5 s windows."""
    sys.path.insert(0, str(REPO))
    import numpy as np

    from identification import excitation, identify, library_trial, rms_position_error, vehicle_adapter
    from identification.report import write_outputs
    from identification.trials import H100_NOISE

    adapter = vehicle_adapter("h100")
    nominal = adapter.nominal()
    truth = dict(nominal)
    truth["QuadraticDamping[1,1]"] *= 1.3
    truth["LinearDamping[3,3]"] *= 1.3
    truth["AddedMass[3,3]"] *= 0.8
    truth["ThrusterEfficiency"] = 0.85
    fit = ["QuadraticDamping[1,1]", "LinearDamping[3,3]", "AddedMass[3,3]", "ThrusterEfficiency"]
    noise = dict(H100_NOISE, north=0.0, east=0.0)
    t = np.round(np.arange(0.0, 100.01, 0.1), 10)
    log, _ = library_trial(adapter, truth, t, excitation(adapter, t), noise, seed=3)
    segments = [(2, 10, (0, 0, -15, 0, 0, 0)), (12, 22, (25, 0, 0, 0, 0, 0)), (25, 33, (0, 0, 20, 0, 0, 0)),
                (36, 44, (-15, 0, 0, 0, 0, 0))]
    th = np.round(np.arange(0.0, 46.01, 0.1), 10)
    check, _ = library_trial(adapter, truth, th, excitation(adapter, th, segments), noise, seed=4)
    t0 = time.perf_counter()
    fr = identify(log, adapter, fit)
    elapsed = time.perf_counter() - t0
    e_nom = rms_position_error(adapter, check, adapter.simulate(nominal, check, {}))
    e_fit = rms_position_error(adapter, check, adapter.simulate(fr.values, check, {}))
    write_outputs(fr, log, adapter, out / "fit", heldout={"rms_position_error_m": {"nominal": e_nom, "fitted": e_fit}})
    print(fr.report)
    print(f"h100 (a library trial, {t[-1]:g} s; H100.fmu not used): fit {elapsed:.1f} s, {fr.evaluations} simulations")
    print(f"  {'parameter':<24} {'nominal':>10} {'true':>10} {'fitted':>10} {'std err':>9} {'error':>8}")
    worst = 0.0
    for k in fit:
        v, se = fr.estimates[k]
        err = (v / truth[k] - 1) * 100
        worst = max(worst, abs(err))
        print(f"  {k:<24} {nominal[k]:>10.5g} {truth[k]:>10.5g} {v:>10.5g} {se:>9.2g} {err:>+7.2f} %")
    print(f"  largest error {worst:.2f} % (bar: 5 %)")
    print(f"  held-out manoeuvre (5 s windows): RMS position error nominal {e_nom:.4f} m, fitted {e_fit:.4f} m")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("vehicles", nargs="*", default=[*DEMOS, "h100"], help=f"of {', '.join(DEMOS)}, h100")
    p.add_argument("--out", default=str(REPO / "results" / "identify_demo"))
    args = p.parse_args()
    for name in args.vehicles:
        if name == "h100":
            demo_h100_library(Path(args.out) / name)
        else:
            demo(name, Path(args.out) / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
