"""The tether's side of a run's summary and plots: the unit's ``figures`` (its unit.py names
``FIGURES``); the master imports nothing of it.

For every tether of the run (an instance whose FMU has the outputs ``EndTension``,
``AnchorTension`` and ``UnstretchedLength``: ``Tether.fmu``, docs/tether.md), summary.json gets
``tether.<instance>``: the largest and mean tension at the end and at the anchor, and the
unstretched length at the start and the end; ``auv-cosim run`` prints one line each, and
``tether.png`` plots the tensions and the length against time. A run without a tether gets
nothing from here.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from auv_cosim.master import KeptRows, Plan, RunData, rounded, write_whole
from auv_cosim.master.registry import RunFigures


OUTPUTS = ("EndTension", "AnchorTension", "UnstretchedLength")


def tethers(plan: Plan) -> list[str]:
    """The instances that are tethers (by the outputs their FMU declares)."""
    return [n for n, ip in plan.instances.items()
            if all(name in ip.vars and ip.vars[name].causality == "output" for name in OUTPUTS)]


def tether_figures(run: RunData, name: str) -> dict[str, Any]:
    end, anchor, length = (run.get(f"{name}.{output}") for output in OUTPUTS)
    if end is None or anchor is None or length is None or len(end) == 0:
        return {}
    return {"end_tension_max_N": rounded(float(np.max(end))), "end_tension_mean_N": rounded(float(np.mean(end))),
            "anchor_tension_max_N": rounded(float(np.max(anchor))),
            "anchor_tension_mean_N": rounded(float(np.mean(anchor))),
            "length_start_m": rounded(float(length[0])), "length_end_m": rounded(float(length[-1]))}


def run_figures(run: RunData) -> dict:
    names = tethers(run.plan)
    return {"tether": {n: tether_figures(run, n) for n in names}} if names else {}


def stream(plan: Plan, colmap: dict[str, int]):
    """None without a tether; with one, every row is kept for ``run_figures``."""
    return KeptRows(plan, colmap, run_figures) if tethers(plan) else None


def describe_run(summary: dict) -> list[str]:
    """One line per tether: its tensions and length."""
    lines = []
    for name, f in (summary.get("tether") or {}).items():
        if f.get("end_tension_max_N") is None:
            continue
        line = (f"{name}: end tension mean {f['end_tension_mean_N']:.3g} N, max {f['end_tension_max_N']:.3g} N; "
                f"anchor tension mean {f['anchor_tension_mean_N']:.3g} N, max {f['anchor_tension_max_N']:.3g} N")
        if f["length_end_m"] != f["length_start_m"]:
            line += f"; paid out from {f['length_start_m']:.4g} m to {f['length_end_m']:.4g} m"
        lines.append(line)
    return lines


def pyplot():
    """matplotlib's pyplot on the Agg canvas (files only, no display)."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def prepare_plots(run: RunData | None = None) -> None:
    """Called ahead, while the run steps, in the process that will draw the plots: imports what
    ``make_plots`` uses (once a process)."""
    pyplot()


def make_plots(run: RunData, out_dir) -> list[Path]:
    """``tether.png``: the tensions at the end and the anchor, and the unstretched length."""
    plt = pyplot()

    names = tethers(run.plan)
    if not names:
        return []
    figure, axes = plt.subplots(2, 1, figsize=(10, 6), sharex=True)
    for name in names:
        end, anchor, length = (run.get(f"{name}.{output}") for output in OUTPUTS)
        if end is None or anchor is None or length is None:
            continue
        axes[0].plot(run.t, end, lw=0.8, label=f"{name}: at the end")
        axes[0].plot(run.t, anchor, lw=0.8, label=f"{name}: at the anchor")
        axes[1].plot(run.t, length, lw=0.8, label=name)
    axes[0].set_ylabel("tension [N]")
    axes[0].legend(loc="upper right", fontsize=8)
    axes[1].set_ylabel("unstretched length [m]")
    axes[1].set_xlabel("time [s]")
    axes[0].set_title(f"{run.plan.name}: tether")
    for ax in axes:
        ax.grid(True, alpha=0.3)
    figure.tight_layout()
    path = write_whole(Path(out_dir) / "tether.png", lambda f: figure.savefig(f, format="png", dpi=110))
    plt.close(figure)
    return [path]


FIGURES = RunFigures(compute=run_figures, empty={}, describe=describe_run, plots=make_plots,
                     plot_files=("tether.png",), prepare_plots=prepare_plots, stream=stream)
