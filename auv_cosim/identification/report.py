"""What a fit writes: estimates.json, residuals.csv, fit.png (measured against predicted) and a
vehicle file with the fitted values."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from .fit import FitResult, unusable
from .log import TrialLog


def write_outputs(fr: FitResult, log: TrialLog, adapter, out_dir: Path, vehicle_file=None,
                  heldout: dict | None = None) -> dict[str, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    files = {}
    doc = {
        name: {"value": v, "stderr": se, "nominal": fr.nominal[name],
               "correlations": fr.correlations.get(name, {}),
               **({"stderr_iid": fr.stderr_iid.get(name)} if fr.stderr_method.startswith("window") else {})}
        for name, (v, se) in fr.estimates.items()
    }
    files["estimates"] = out_dir / "estimates.json"
    files["estimates"].write_text(json.dumps(_clean(doc), indent=2) + "\n", encoding="utf-8")

    fit_doc = {
        "vehicle": fr.vehicle, "log": str(log.path), "columns": log.columns, "samples": int(len(log.time)),
        "duration_s": float(log.time[-1] - log.time[0]), "evaluations": fr.evaluations, "converged": fr.success,
        "message": fr.message, "stderr_method": fr.stderr_method, "noise_levels": fr.weights, "initial_state": fr.nuisance,
        "residual_rms": {c: float(np.sqrt(np.mean(r ** 2))) for c, r in fr.residuals.items()},
        "rms_position_error_m": {"nominal": _rms_pos(adapter, log, fr.predicted_nominal),
                                 "fitted": _rms_pos(adapter, log, fr.predicted)},
    }
    if heldout:
        fit_doc["heldout"] = heldout
    fit_doc["condition_at_start"] = fr.condition_at_start
    fit_doc["assumed"] = list(log.assumed)
    fit_doc["warnings"] = list(fr.warnings)
    fit_doc["unusable"] = unusable(fr.warnings)
    files["fit"] = out_dir / "fit.json"
    files["fit"].write_text(json.dumps(_clean(fit_doc), indent=2) + "\n", encoding="utf-8")

    files["residuals"] = out_dir / "residuals.csv"
    chans = list(fr.residuals)
    with open(files["residuals"], "w", encoding="utf-8") as f:
        f.write("time," + ",".join(f"{c}_measured,{c}_predicted,{c}_residual" for c in chans) + "\n")
        for k, t in enumerate(log.time):
            f.write(f"{t:.10g}," + ",".join(
                f"{log.measured[c][k]:.10g},{fr.predicted[c][k]:.10g},{fr.residuals[c][k]:.6g}" for c in chans) + "\n")

    target = out_dir / adapter.vehicle_file_name
    if unusable(fr.warnings):       # no vehicle file of an unusable fit (one of an earlier fit goes)
        target.unlink(missing_ok=True)
    else:
        files["vehicle"] = adapter.write_vehicle_file(
            fr.values, target, vehicle_file=vehicle_file,
            note=", ".join(f"{n} = {fr.estimates[n][0]:.6g}" for n in fr.fitted))
    try:
        files["plot"] = plot_fit(fr, log, adapter, out_dir / "fit.png")
    except Exception as e:  # a missing display or font must not lose the estimates
        print(f"warning: no plot: {type(e).__name__}: {e}")
    (out_dir / "report.txt").write_text(fr.report + "\n", encoding="utf-8")
    files["report"] = out_dir / "report.txt"
    return files


def _rms_pos(adapter, log, pred) -> float:
    from .fit import rms_position_error

    return rms_position_error(adapter, log, pred)


def plot_fit(fr: FitResult, log: TrialLog, adapter, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    chans = list(fr.residuals)
    fig, axes = plt.subplots(len(chans), 1, figsize=(9, 1.7 * len(chans) + 0.8), sharex=True)
    axes = np.atleast_1d(axes)
    for ax, c in zip(axes, chans):
        ch = adapter.channel(c)
        scale = (180.0 / math.pi) if ch.angle else 1.0
        unit = "deg" if ch.angle else ch.unit
        ax.plot(log.time, log.measured[c] * scale, ".", ms=1.5, color="0.55", label="measured")
        ax.plot(log.time, fr.predicted_nominal[c] * scale, "-", lw=1.0, color="tab:red", label="nominal model")
        ax.plot(log.time, fr.predicted[c] * scale, "-", lw=1.2, color="tab:blue", label="fitted model")
        ax.set_ylabel(f"{c} ({unit})", fontsize=8)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7, ncol=3, loc="best")
    axes[-1].set_xlabel("time (s)")
    fig.suptitle(f"{fr.vehicle}: measured and predicted (" + ", ".join(
        f"{n} {fr.estimates[n][0]:.4g}" for n in fr.fitted) + ")", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def _clean(o):
    if isinstance(o, dict):
        return {k: _clean(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_clean(v) for v in o]
    if isinstance(o, (float, np.floating)):
        return float(o) if math.isfinite(o) else None
    if isinstance(o, np.integer):
        return int(o)
    return o
