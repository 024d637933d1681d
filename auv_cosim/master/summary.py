"""The figures of a run, for summary.json. The master knows no vehicle: what a run's figures
are (distance, energy, mission completion ...), the analyses a scenario can ask for under
``analysis:`` and the plots come from the packages registered through entry points
(``registry.figures()``, ``registry.analyses()``; the AUV's are in ``auv_cosim/analyses/auv.py``). This
module gives them the run (``RunData``) and the helpers every one of them needs."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import registry
from .plan import Plan


class RunData:
    """A run as the registered figures, analyses and plots see it: the resolved plan and the
    values of every step, by ``instance.variable`` (``t``: the time of every row)."""

    def __init__(self, plan: Plan, data: np.ndarray, colmap: dict[str, int]):
        self.plan = plan
        self.data = data
        self.colmap = colmap
        self.t = data[:, 0]

    def __contains__(self, name):
        return name in self.colmap

    def get(self, name: str):
        i = self.colmap.get(name)
        return None if i is None else self.data[:, i]


def rounded(x, nd=6):
    """JSON-friendly float, rounded for reading (None for NaN/inf)."""
    if x is None:
        return None
    x = float(x)
    if not math.isfinite(x):
        return None
    return float(f"{x:.{nd}g}")


def stats(x: np.ndarray | None) -> dict | None:
    """mean |x|, rms, max |x| and the sample count over the finite values (None if none)."""
    if x is None or len(x) == 0:
        return None
    x = x[np.isfinite(x)]
    if len(x) == 0:
        return None
    a = np.abs(x)
    return {"mean_abs": rounded(a.mean()), "rms": rounded(np.sqrt(np.mean(x * x))), "max": rounded(a.max()),
            "samples": int(len(x))}


def param(plan: Plan, inst: str, name: str, default=None):
    """The value an instance's parameter had in the run: set by the scenario, else its start
    value, else ``default``."""
    ip = plan.instances.get(inst)
    if ip is None:
        return default
    for var, val in ip.params:
        if var.name == name:
            return val
    v = ip.vars.get(name)
    if v is not None and v.start is not None:
        if v.type == "Real":
            try:
                return float(v.start)
            except ValueError:
                return default
        return v.start
    return default


def empty_figures() -> dict:
    """The figures' keys of every registered contributor, null: a run without figures."""
    out: dict[str, Any] = {}
    for figures in registry.figures().values():
        out.update(figures.empty)
    return out


def build_summary(plan: Plan, data: np.ndarray, colmap: dict[str, int]) -> dict:
    run = RunData(plan, data, colmap)
    out: dict[str, Any] = {}
    for figures in registry.figures().values():
        out.update(figures.compute(run))
    analysis = {}
    available = registry.analyses()
    for name, opts in plan.model.analysis.items():
        try:
            analysis[name] = available[name].run(run, opts)
        except Exception as e:  # an analysis must never hide the run's own outcome
            analysis[name] = {"error": f"{type(e).__name__}: {e}"}
    if analysis:
        out["analysis"] = analysis
    return out


def make_plots(plan: Plan, data: np.ndarray, colmap: dict[str, int], out_dir) -> list:
    """The plots of every registered contributor, into ``out_dir``."""
    run = RunData(plan, data, colmap)
    files = []
    for figures in registry.figures().values():
        if figures.plots is not None:
            files += figures.plots(run, out_dir)
    return files


def plot_files() -> tuple[str, ...]:
    """Every file name a registered contributor may plot into a results folder."""
    return tuple(n for figures in registry.figures().values() for n in figures.plot_files)
