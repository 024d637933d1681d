"""The H100 control stack's side of a run's summary and plots (docs/physics/h100.md#acceptance), registered with the
master through the H100's unit (unit.py: ``figures`` -> ``FIGURES``); the master imports nothing
of this package.

For every H100 control stack of the run (an instance with ``RefPosition[1..3]`` and
``ThrusterCommand[1..]`` outputs: the ``H100Control`` FMUs of any layout) and the vehicle its
commands drive, summary.json gets ``h100.<instance>``: the controller and mode, the figures of
:func:`auv_cosim.vehicles.h100.host.stack_figures.stack_figures` (3-D position error RMS and max, heading
error RMS, settling into 0.1 m, thrust effort and propulsive energy, and the track or manoeuvre
figures by mode: the truth against the stack's reference), the allocation's use of its
thrusters (most saturated at once, the time with any saturated, largest unmet wrench) and the layout: its rank and, below 6,
the wrench directions it cannot produce (from the vehicle's thruster parameters, as the vehicle
library's ``analyse_layout`` finds them), and the controllers' model of the vehicle (``belief``:
its own parameters, and a warning when the run set a parameter of the plant that the model
keeps at the vehicle file's value). Plots (auv_cosim/vehicles/h100/host/plots.py): ``thrusters.png`` and
``errors.png``. A run without an H100 stack gets nothing from here (the AUV's figures and the
H100's live side by side).
"""
from __future__ import annotations

import math
from typing import Any

from auv_cosim.master import KeptRows, Plan, RunData, param, rounded
from auv_cosim.master.registry import RunFigures


def h100_controls(plan: Plan) -> list[str]:
    """The instances that are H100 control stacks (by the outputs their FMU declares)."""
    def has(ip, name):
        return name in ip.vars and ip.vars[name].causality == "output"
    return [n for n, ip in plan.instances.items() if has(ip, "RefPosition[1]") and has(ip, "ThrusterCommand[1]")]


def driven_vehicle(plan: Plan, control: str) -> str | None:
    """The instance the stack's thruster commands go to."""
    for c in plan.connections:
        if c.src == control and c.src_var.name.startswith("ThrusterCommand["):
            return c.dst
    return None


def thruster_count(plan: Plan, control: str) -> int:
    outputs = plan.instances[control].vars
    n = 0
    while f"ThrusterCommand[{n + 1}]" in outputs:
        n += 1
    return n


def layout(plan: Plan, control: str, vehicle: str | None, rank: int | None) -> dict:
    """The layout's rank (the stack's ``LayoutRank``) and, below 6, what it cannot push: the
    unreachable directions of the vehicle's ``ThrusterPos`` / ``ThrusterDir`` as the run had
    them, in words ('0.09 sway + 1 roll')."""
    out: dict[str, Any] = {"thrusters": thruster_count(plan, control), "rank": rank}
    if rank is None or rank >= 6 or vehicle is None:
        return out
    n = out["thrusters"]
    pos = [[param(plan, vehicle, f"ThrusterPos[{i},{j}]") for j in (1, 2, 3)] for i in range(1, n + 1)]
    dirs = [[param(plan, vehicle, f"ThrusterDir[{i},{j}]") for j in (1, 2, 3)] for i in range(1, n + 1)]
    if any(v is None for row in pos + dirs for v in row):
        out["unreachable_error"] = f"{vehicle} has no ThrusterPos / ThrusterDir parameters for {n} thrusters"
        return out
    from auv_cosim.vehicles.h100.configuration import analyse_layout, describe_direction

    report = analyse_layout(pos, dirs)
    out["unreachable"] = [describe_direction(row) for row in report.unreachable]
    out["singular_values"] = [rounded(s, 3) for s in report.singular_values]
    return out


#: The vehicle's parameters the control stack's model of the vehicle (its belief, built from
#: the vehicle file the control FMU carries) also holds: a run that sets one of them for the
#: plant changes the plant and not the controllers' model.
BELIEVED = ("Mass", "Volume", "Rho", "CenterOfGravity", "CenterOfBuoyancy", "Inertia", "AddedMass", "LinearDamping",
            "QuadraticDamping", "QuadraticDampingTensor", "SignedQuadraticDampingTensor", "ThrusterPos", "ThrusterDir",
            "MaxThrustForward", "MaxThrustReverse", "ThrusterTimeConstant", "ThrusterEfficiency")
#: the control stack's own parameters of its belief, and the value that leaves it the file's
BELIEF_PARAMETERS = {"DampingScale": 1.0, "AddedMassScale": 1.0, "EfficiencyBelief": 1.0}


def belief(plan: Plan, control: str, vehicle: str | None) -> dict:
    """The controllers' model of the vehicle as the run had it: the control stack's belief
    parameters, and the vehicle's parameters the run set away from the vehicle file while the
    model kept the file's (``plant_only``, with a warning in words)."""
    out: dict[str, Any] = {name: param(plan, control, name, default) for name, default in BELIEF_PARAMETERS.items()}
    if vehicle is None or vehicle not in plan.instances:
        return out
    changed = []
    for var, value in plan.instances[vehicle].params:
        base = var.name.split("[")[0]
        if base in BELIEVED and var.start is not None:
            try:
                differs = float(value) != float(var.start)
            except (TypeError, ValueError):
                differs = str(value) != str(var.start)
            if differs:
                changed.append(var.name)
    if changed:
        out["plant_only"] = changed
        own = {"LinearDamping": "DampingScale", "QuadraticDamping": "DampingScale", "AddedMass": "AddedMassScale",
               "ThrusterEfficiency": "EfficiencyBelief"}
        hints = sorted({own[n.split("[")[0]] for n in changed if n.split("[")[0] in own})
        out["warning"] = (f"{vehicle}.{', '.join(changed)} set for the plant only: {control}'s model of the vehicle "
                          f"is its vehicle file's" + (f" (its own {', '.join(f'{control}.{h}' for h in hints)} "
                                                      f"set the model's)" if hints else ""))
    return out


def control_figures(run: RunData, control: str) -> dict:
    from .stack_figures import stack_figures

    plan = run.plan
    vehicle = driven_vehicle(plan, control)
    mode = param(plan, control, "Mode", "hold")
    out: dict[str, Any] = {"vehicle": vehicle, "controller": param(plan, control, "Controller", "pid"),
                           "mode": mode}
    rank = run.get(f"{control}.LayoutRank")
    out["layout"] = layout(plan, control, vehicle, int(rank[-1]) if rank is not None else None)
    out["belief"] = belief(plan, control, vehicle)
    if vehicle is None:
        return out

    def column(name):
        return run.t if name == "time" else run.get(name)

    out.update(stack_figures(column, control, vehicle, mode=mode, waypoints=param(plan, control, "Waypoints", "") or "",
                             rho=float(param(plan, vehicle, "Rho", 1000.0))))
    saturated, unmet = run.get(f"{control}.SaturatedThrusters"), run.get(f"{control}.UnmetWrench")
    if saturated is not None:
        out["max_saturated_thrusters"] = int(saturated.max())
        out["saturated_time_s"] = rounded(saturated_time(run.t, saturated))
    if unmet is not None:
        out["max_unmet_wrench_N"] = rounded(unmet.max())
    return out


def saturated_time(t, saturated) -> float:
    """The time, s, during which the allocation had at least one thruster at a limit: the sum of
    the communication steps whose row reports SaturatedThrusters > 0 (a row holds what the
    stack computed over the step that ends at it). Why: saturation is when the stack runs out
    of authority (a current, a tether pulling), and how long it lasts says more than how
    many thrusters saturated at once."""
    import numpy as np

    t, saturated = np.asarray(t, dtype=float), np.asarray(saturated)
    if len(t) < 2:
        return 0.0
    return float(np.sum(np.diff(t)[saturated[1:] > 0]))


def run_figures(run: RunData) -> dict:
    controls = h100_controls(run.plan)
    return {"h100": {c: control_figures(run, c) for c in controls}} if controls else {}


def stream(plan: Plan, colmap: dict[str, int]):
    """The figures' stream of a run: none without an H100 stack; with one, every row is kept
    for ``run_figures`` (the stack's figures read their columns whole)."""
    return KeptRows(plan, colmap, run_figures) if h100_controls(plan) else None


def describe_run(summary: dict) -> list[str]:
    """The lines ``auv-cosim run`` prints: one per H100 stack, and its layout if < 6."""
    lines = []
    for name, f in (summary.get("h100") or {}).items():
        if f.get("position_rms_m") is not None:
            settling, heading = f.get("settling_time_s"), f.get("heading_rms_rad")
            line = (f"{name} ({f['controller']}, {f['mode']}): position error rms {f['position_rms_m']:.3g} m, "
                    f"max {f['position_max_m']:.3g} m, settled into {f['settling_band_m']:g} m "
                    + ("never" if settling is None else f"after {settling:.3g} s")
                    + ("" if heading is None else f"; heading error rms {math.degrees(heading):.2g} deg"))
            if f.get("thrust_effort_N_s") is not None and f.get("propulsive_energy_J") is not None:
                line += (f"; thrust effort {f['thrust_effort_N_s']:.4g} N s, "
                         f"propulsive energy {f['propulsive_energy_J']:.4g} J")
            if f.get("saturated_time_s") is not None:
                line += f"; thrusters saturated {f['saturated_time_s']:.3g} s"
            lines.append(line)
        warning = (f.get("belief") or {}).get("warning")
        if warning:
            lines.append(f"warning: {warning}")
        lay = f.get("layout") or {}
        if lay.get("rank") is not None and lay["rank"] < 6:
            lines.append(f"{name}: {lay['thrusters']} thrusters, rank {lay['rank']}: cannot produce "
                         + "; ".join(lay.get("unreachable") or ["?"]))
    return lines


def _plots(run: RunData, out_dir) -> list:
    from .plots import make_plots

    return make_plots(run, out_dir)


def prepare_plots(run: RunData | None = None) -> None:
    """Called ahead, while the run steps, in the process that will draw the plots: imports
    matplotlib's Agg canvas and pyplot (once a process), what ``make_plots`` uses."""
    from .plots import pyplot

    pyplot()


FIGURES = RunFigures(compute=run_figures, empty={}, describe=describe_run, plots=_plots,
                     plot_files=("thrusters.png", "errors.png"), prepare_plots=prepare_plots,
                     stream=stream)
