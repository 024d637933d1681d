"""The analyses of scenarios with several vehicles (docs/physics/environment.md#several-vehicles),
registered with the master through entry points (pyproject.toml, ``auv_cosim.analyses``):

- ``convoy``: a follower on a leader's line, what the wake does to it: each one's energy per
  metre run, mean thrust and mean speed, the follower's against the leader's (ratios), the gap
  between them and the wake velocity the follower met;
- ``wake_passage``: a vehicle holding station while another's wake passes over it: the window
  the wake was on it (its ``WakeVelocity`` above a threshold), its position error against its
  control's reference in that window and before it (the station-keeping error the wake caused).

Every figure is computed from the run's columns, as the other analyses are.
"""

from __future__ import annotations

from typing import Annotated

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from auv_cosim.master import RunData, rounded, stats, suggest
from auv_cosim.master.registry import Analysis

Ident = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]


class _Options(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class ConvoyOptions(_Options):
    leader: Ident
    follower: Ident


class WakePassageOptions(_Options):
    vehicle: Ident                     # the vehicle the wake passes over
    control: Ident                     # its control (RefPosition: where it holds station)
    # |WakeVelocity| above which the wake is "on" the vehicle, m/s
    threshold: Annotated[float, Field(strict=True, allow_inf_nan=False, gt=0)] = 1e-3


def _columns(run: RunData, name: str, n: int):
    cols = [run.get(f"{name}[{i}]") for i in range(1, n + 1)]
    return None if any(c is None for c in cols) else np.column_stack(cols)


def energy_per_metre(energy_J: float | None, distance_m: float | None) -> float | None:
    """Energy drawn from the battery over the distance run, J/m: what the vehicle pays for a
    metre of track (thrust and hotel load alike, as the battery sees them)."""
    if energy_J is None or not distance_m:
        return None
    return energy_J / distance_m


def _vehicle(run: RunData, v: str, rows: slice) -> dict:
    """One vehicle's figures over ``rows``: distance run, energy, energy per metre, mean thrust
    and speed."""
    pos = _columns(run, f"{v}.Pos", 3)
    out: dict = {}
    if pos is not None:
        step = np.linalg.norm(np.diff(pos[rows], axis=0), axis=1)
        out["distance_run_m"] = rounded(np.sum(step[np.isfinite(step)]))
    bat = run.get(f"{v}.Battery")
    if bat is not None:
        out["energy_used_J"] = rounded(bat[rows][0] - bat[rows][-1])
    out["energy_per_m_J"] = rounded(energy_per_metre(out.get("energy_used_J"), out.get("distance_run_m")))
    for name, key in (("Thrust", "mean_thrust_N"), ("Speed", "mean_speed_m_s")):
        x = run.get(f"{v}.{name}")
        if x is not None:
            out[key] = rounded(np.mean(x[rows][1:]))
    return out


def _finished(run: RunData, vehicle: str):
    """The MissionFinished column of the control that drives ``vehicle`` (None if none)."""
    for c in run.plan.connections:
        if c.dst == vehicle and f"{c.src}.MissionFinished" in run:
            return run.get(f"{c.src}.MissionFinished")
    return None


def common_window(run: RunData, vehicles: list[str]) -> slice:
    """The rows where every one of ``vehicles`` is on its mission: from the start to the first
    point where one of their controls reports MissionFinished (after that it stops its thruster
    and surfaces, which says nothing of the wake); the whole run when none does."""
    end = len(run.t)
    for v in vehicles:
        fin = _finished(run, v)
        if fin is not None and (fin > 0.5).any():
            end = min(end, int(np.argmax(fin > 0.5)))
    return slice(0, max(end, 2))


def _ratio(a, b):
    return rounded(a / b, 5) if a is not None and b not in (None, 0) else None


def convoy(run: RunData, opts: ConvoyOptions) -> dict:
    """The follower against the leader while both fly their missions (``common_window``): each
    one's figures, the ratios follower / leader of the energy per metre and of the mean thrust,
    the gap between them (mean, min, final) and the wake velocity the follower met (its
    ``WakeVelocity``, mean and max of the magnitude)."""
    rows = common_window(run, [opts.leader, opts.follower])
    lead, follow = _vehicle(run, opts.leader, rows), _vehicle(run, opts.follower, rows)
    out = {"leader": {"vehicle": opts.leader, **lead}, "follower": {"vehicle": opts.follower, **follow},
           "follower_energy_per_m_ratio": _ratio(follow.get("energy_per_m_J"), lead.get("energy_per_m_J")),
           "follower_thrust_ratio": _ratio(follow.get("mean_thrust_N"), lead.get("mean_thrust_N"))}
    out["window_s"] = [rounded(run.t[rows][0]), rounded(run.t[rows][-1])]
    pa, pb = _columns(run, f"{opts.leader}.Pos", 3), _columns(run, f"{opts.follower}.Pos", 3)
    if pa is not None and pb is not None:
        gap = np.linalg.norm(pa[rows] - pb[rows], axis=1)
        out["gap_m"] = {"initial": rounded(gap[0]), "mean": rounded(np.mean(gap)), "min": rounded(np.min(gap)),
                        "final": rounded(gap[-1])}
    wake = _columns(run, f"{opts.follower}.WakeVelocity", 3)
    if wake is not None:
        speed = np.linalg.norm(wake[rows], axis=1)
        out["follower_wake_speed_m_s"] = {"mean": rounded(np.mean(speed)), "max": rounded(np.max(speed))}
    return out


def wake_passage(run: RunData, opts: WakePassageOptions) -> dict:
    """While another vehicle's wake was on ``vehicle`` (|WakeVelocity| > threshold): the window,
    the largest wake speed, and the 3-D position error against ``control.RefPosition`` in the
    window and before it (the same error the H100's figures use)."""
    v, c = opts.vehicle, opts.control
    wake = _columns(run, f"{v}.WakeVelocity", 3)
    pos, ref = _columns(run, f"{v}.Pos", 3), _columns(run, f"{c}.RefPosition", 3)
    if wake is None:
        return {"error": f"{v} has no WakeVelocity in the results (is a wake wired to it?)"}
    if pos is None or ref is None:
        return {"error": f"needs {v}.Pos[1..3] and {c}.RefPosition[1..3]"}
    t = run.t
    speed = np.linalg.norm(wake, axis=1)
    on = speed > opts.threshold
    error = np.linalg.norm(pos - ref, axis=1)
    out = {"threshold_m_s": opts.threshold, "max_wake_speed_m_s": rounded(np.max(speed)),
           "wake_passed": bool(on.any())}
    if not on.any():
        out["position_error_m"] = stats(error)
        return out
    first, last = int(np.argmax(on)), len(on) - 1 - int(np.argmax(on[::-1]))
    window = slice(first, last + 1)
    out.update({"wake_from_s": rounded(t[first]), "wake_to_s": rounded(t[last]),
                "position_error_m": stats(error[window]), "position_error_before_m": stats(error[:first]),
                "max_position_error_m": rounded(np.max(error[window]))})
    return out


def check_names(options, instances: list[str], signal_targets: list[str]) -> list[tuple[str, str]]:
    """The instances an analysis names exist in the scenario."""
    problems = []
    for fld in ("leader", "follower", "vehicle", "control"):
        value = getattr(options, fld, None)
        if value is not None and value not in instances:
            problems.append((fld, f"unknown instance '{value}' (instances: {', '.join(instances)})"
                             + suggest(value, instances)))
    return problems


def _fmt(x, nd=3):
    return "n/a" if x is None else f"{x:.{nd}g}"


def _ratio_text(x):
    return "n/a" if x is None else f"x{x:.4f}"


def describe_convoy(a: dict) -> str:
    lead, follow = a.get("leader") or {}, a.get("follower") or {}
    return (f"convoy: {follow.get('vehicle')} {_fmt(follow.get('energy_per_m_J'))} J/m against {lead.get('vehicle')} "
            f"{_fmt(lead.get('energy_per_m_J'))} J/m ({_ratio_text(a.get('follower_energy_per_m_ratio'))}), "
            f"mean thrust {_fmt(follow.get('mean_thrust_N'))} N against {_fmt(lead.get('mean_thrust_N'))} N "
            f"({_ratio_text(a.get('follower_thrust_ratio'))}), gap {_fmt((a.get('gap_m') or {}).get('mean'))} m")


def describe_wake_passage(a: dict) -> str:
    if not a.get("wake_passed"):
        return f"wake passage: no wake above {a.get('threshold_m_s')} m/s reached the vehicle"
    err, before = a.get("position_error_m") or {}, a.get("position_error_before_m") or {}
    return (f"wake passage {a['wake_from_s']}-{a['wake_to_s']} s (wake up to {_fmt(a['max_wake_speed_m_s'])} m/s): "
            f"position error rms {_fmt(err.get('rms'))} m, max {_fmt(err.get('max'))} m "
            f"(before it rms {_fmt(before.get('rms'))} m)")


CONVOY = Analysis(ConvoyOptions, convoy, describe_convoy, check_names)
WAKE_PASSAGE = Analysis(WakePassageOptions, wake_passage, describe_wake_passage, check_names)
