"""``master.run``: scenario in, results folder out."""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from .engine import simulate
from .plan import Plan, build_plan
from .scenario import SCENARIO_DIR, LoadedScenario, ScenarioError, display_path, load_scenario
from .summary import build_summary

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_SCENARIO = 2
EXIT_INTERRUPTED = 130

PLOT_FILES = ("track.png", "depth.png", "attitude.png", "actuators.png", "battery.png")
OWN_FILES = ("results.csv", "summary.json", "scenario.resolved.yaml") + PLOT_FILES


# the run's figures are always in summary.json, null when the run has none
NO_FIGURES = {"distance_run_m": None, "energy_used_J": None, "mission_completed": None,
              "depth_error_m": None, "cross_track_error_m": None}


@dataclass
class RunResult:
    status: str  # completed | failed | interrupted
    reason: str
    out_dir: Path
    results_csv: Path
    summary_path: Path
    summary: dict
    plots: list[Path] = field(default_factory=list)
    data: np.ndarray | None = None  # every value of every step: time, all outputs, signals
    colmap: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status == "completed"

    @property
    def exit_code(self) -> int:
        return {"completed": EXIT_OK, "interrupted": EXIT_INTERRUPTED}.get(self.status, EXIT_FAILED)

    def column(self, name: str) -> np.ndarray:
        """The values of ``instance.variable`` (or ``time``) at every recorded step."""
        if name == "time":
            return self.data[:, 0]
        return self.data[:, self.colmap[name]]


def find_scenario(text: str | os.PathLike) -> Path:
    """A scenario given as a path, or as a bare name of a file in scenarios/."""
    p = Path(text)
    if p.is_file():
        return p
    if not p.suffix and p.parent == Path("."):
        for ext in (".yaml", ".yml"):
            cand = SCENARIO_DIR / f"{p}{ext}"
            if cand.is_file():
                return cand
    return p  # let the loader report it


def _connections_doc(plan: Plan) -> dict:
    """The connections by what their destination reads (docs/master.md)."""
    return {
        "same_step": [c.text for c in plan.connections if c.kind == "forward"],
        "previous_step": [c.text for c in plan.connections if c.kind != "forward"],
    }


def run(scenario: str | os.PathLike | dict, out_dir: str | os.PathLike | None = None, stop_time: float | None = None,
        step: float | None = None, overrides: dict[str, Any] | None = None, progress: bool | None = None,
        plots: bool | None = None, echo_messages: bool = True) -> RunResult:
    """Run a scenario (a path, a bare scenario name, or an already loaded mapping).

    Raises :class:`ScenarioError` (before anything runs) for a malformed scenario or a missing
    FMU. Anything that goes wrong during the run is returned in the result (``status``,
    ``reason``; ``summary['failure']``), after every row computed so far has been written.
    """
    t_call = time.perf_counter()
    wall0 = time.time()
    if isinstance(scenario, LoadedScenario):
        if overrides:
            raise ValueError("overrides apply while loading; pass the scenario file or mapping instead")
        source, loaded = scenario.file, scenario
    else:
        source = scenario if isinstance(scenario, dict) else find_scenario(scenario)
        loaded = load_scenario(source, overrides)
    plan = build_plan(loaded, stop_time=stop_time, step=step)

    out = Path(out_dir) if out_dir is not None else Path("results") / plan.name
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ScenarioError("--out", str(out), f"cannot create the output folder: {e}") from None
    for name in OWN_FILES:
        try:
            (out / name).unlink()
        except FileNotFoundError:
            pass
    resolved = loaded.model.model_dump(mode="json", by_alias=True, exclude_none=True)
    resolved.pop("include", None)
    resolved["stop_time"] = plan.stop_time
    resolved["step"] = plan.step
    with open(out / "scenario.resolved.yaml", "w", encoding="utf-8") as f:
        f.write(f"# {plan.name}: the scenario as run (includes merged, overrides applied)\n")
        yaml.safe_dump(resolved, f, sort_keys=False, width=120)

    csv_path = out / "results.csv"
    outcome = simulate(plan, csv_path, progress=progress, echo_messages=echo_messages, t_call=t_call)

    simulated = outcome.time - plan.start_time
    summary: dict[str, Any] = {
        "scenario": plan.name,
        "scenario_file": display_path(loaded.file) if not isinstance(source, dict) else None,
        "description": loaded.model.description,
        "status": outcome.status,
        "reason": outcome.reason,
    }
    if outcome.failure:
        summary["failure"] = outcome.failure
    summary.update({
        "started": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(wall0)),
        "simulated_time_s": round(simulated, 9),
        "stop_time_s": plan.stop_time,
        "step_s": plan.step,
        "steps": outcome.steps_done,
        "startup_time_s": round(outcome.startup_time, 4),
        "stepping_time_s": round(outcome.stepping_time, 4),
        "real_time_factor": round(simulated / outcome.stepping_time, 2) if outcome.stepping_time > 0 else None,
    })
    try:
        # no figures from a run that never got past its initial state
        figures = build_summary(plan, outcome.data, outcome.colmap) if len(outcome.data) >= 2 else dict(NO_FIGURES)
    except Exception as e:
        figures = {"summary_error": f"{type(e).__name__}: {e}"}
    summary.update(figures)
    summary["algorithm"] = plan.algorithm
    summary["step_order"] = plan.order
    summary["init_order"] = plan.init_order
    summary["connections"] = _connections_doc(plan)
    if plan.signals:
        from .signals import describe

        summary["signals"] = {s.target: describe(s.spec) for s in plan.signals}
    if plan.stops:
        summary["stop_when"] = [s.text + (f" (+{s.after:g} s)" if s.after else "") for s in plan.stops]
        summary["stopped_by"] = outcome.stop_condition
    if plan.unconnected_inputs:
        summary["unconnected_inputs"] = plan.unconnected_inputs
    summary["fmus"] = {n: display_path(ip.fmu_path) for n, ip in plan.instances.items()}
    summary["fmu_messages"] = {"warnings": outcome.message_counts["warning"], "errors": outcome.message_counts["error"],
                               "first": outcome.messages[:20]}

    plot_files: list[Path] = []
    want_plots = plan.model.plots if plots is None else plots
    if want_plots and len(outcome.data) >= 2:
        try:
            from .plots import make_plots

            plot_files = make_plots(plan, outcome.data, outcome.colmap, out)
        except Exception as e:
            summary["plot_error"] = f"{type(e).__name__}: {e}"
    summary["files"] = {"results": display_path(csv_path), "summary": display_path(out / "summary.json"),
                        "plots": [display_path(p) for p in plot_files]}
    summary["rows"] = int(len(outcome.data))
    summary["wall_time_s"] = round(time.perf_counter() - t_call, 4)
    with open(out / "summary.json", "w", encoding="utf-8") as f:
        json.dump(_clean(summary), f, indent=2, allow_nan=False, default=_json_default)
        f.write("\n")
    return RunResult(outcome.status, outcome.reason, out, csv_path, out / "summary.json", summary, plot_files,
                     outcome.data, outcome.colmap)


def _json_default(o):
    if isinstance(o, (np.floating,)):
        return float(o)
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.bool_,)):
        return bool(o)
    if isinstance(o, Path):
        return str(o)
    return str(o)


def _clean(o):
    """NaN and infinities become null, so summary.json is strict JSON."""
    if isinstance(o, dict):
        return {k: _clean(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_clean(v) for v in o]
    if isinstance(o, (float, np.floating)):
        return float(o) if np.isfinite(o) else None
    return o
