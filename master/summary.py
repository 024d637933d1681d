"""The figures of a run, for summary.json: per vehicle (distance, energy, battery), per control
stack (mission completion, depth and cross-track error statistics) and the analyses a scenario
asks for (turning circle, depth step, zig-zag, surfacing, battery)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import signals as sigmod
from .plan import Plan


class Data:
    """Column access by ``instance.variable`` over the in-memory run data."""

    def __init__(self, data: np.ndarray, colmap: dict[str, int]):
        self.data = data
        self.colmap = colmap
        self.t = data[:, 0]

    def __contains__(self, name):
        return name in self.colmap

    def get(self, name: str):
        i = self.colmap.get(name)
        return None if i is None else self.data[:, i]


def _f(x, nd=6):
    """JSON-friendly float, rounded for reading (None for NaN/inf)."""
    if x is None:
        return None
    x = float(x)
    if not math.isfinite(x):
        return None
    return float(f"{x:.{nd}g}")


def stats(x: np.ndarray | None) -> dict | None:
    if x is None or len(x) == 0:
        return None
    x = x[np.isfinite(x)]
    if len(x) == 0:
        return None
    a = np.abs(x)
    return {"mean_abs": _f(a.mean()), "rms": _f(np.sqrt(np.mean(x * x))), "max": _f(a.max()), "samples": int(len(x))}


def vehicles_of(plan: Plan) -> list[str]:
    return [n for n, ip in plan.instances.items() if all(f"Pos[{i}]" in ip.vars and ip.vars[f"Pos[{i}]"].causality == "output" for i in (1, 2, 3))]


def controls_of(plan: Plan) -> list[str]:
    keys = ("MissionFinished", "CrossTrackError", "DepthRef")
    return [n for n, ip in plan.instances.items() if any(k in ip.vars and ip.vars[k].causality == "output" for k in keys)]


def param(plan: Plan, inst: str, name: str, default=None):
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


def parse_waypoints(text: str | None) -> list[tuple[float, ...]]:
    out = []
    if not text:
        return out
    for part in str(text).replace("\n", ";").split(";"):
        part = part.strip()
        if not part:
            continue
        try:
            out.append(tuple(float(x) for x in part.split(",")))
        except ValueError:
            return []
    return out


def driven_vehicle(plan: Plan, control: str, vehicles: list[str]) -> str | None:
    for c in plan.connections:
        if c.src == control and c.dst in vehicles:
            return c.dst
    return vehicles[0] if vehicles else None


def vehicle_figures(plan: Plan, d: Data, v: str) -> dict:
    n, e, z = d.get(f"{v}.Pos[1]"), d.get(f"{v}.Pos[2]"), d.get(f"{v}.Pos[3]")
    out: dict[str, Any] = {}
    if n is not None:
        dn, de, dz = np.diff(n), np.diff(e), np.diff(z)
        ok = np.isfinite(dn) & np.isfinite(de) & np.isfinite(dz)
        out["distance_run_m"] = _f(np.sum(np.sqrt(dn[ok] ** 2 + de[ok] ** 2 + dz[ok] ** 2)))
        out["horizontal_distance_m"] = _f(np.sum(np.hypot(dn[ok], de[ok])))
        out["final_position_m"] = [_f(n[-1]), _f(e[-1]), _f(z[-1])]
    depth = d.get(f"{v}.Depth")
    if depth is not None:
        out["final_depth_m"] = _f(depth[-1])
        out["max_depth_m"] = _f(np.nanmax(depth))
    speed = d.get(f"{v}.Speed")
    if speed is not None:
        out["mean_speed_m_s"] = _f(np.nanmean(speed))
    bat = d.get(f"{v}.Battery")
    if bat is not None:
        out["energy_used_J"] = _f(bat[0] - bat[-1])
        out["battery_final_J"] = _f(bat[-1])
    frac = d.get(f"{v}.BatteryFraction")
    if frac is not None:
        out["battery_final_fraction"] = _f(frac[-1])
    return out


def control_figures(plan: Plan, d: Data, c: str, v: str | None) -> dict:
    """Mission figures (GuidanceMode mission only) and the error statistics, over the part of
    the run where the mission is active (not after MissionFinished)."""
    mode = param(plan, c, "GuidanceMode", "mission")
    dive = param(plan, c, "DiveMode", "depth")
    out: dict[str, Any] = {"vehicle": v, "guidance_mode": mode, "dive_mode": dive}
    active = np.ones(len(d.t), dtype=bool)
    fin = d.get(f"{c}.MissionFinished")
    if mode == "mission":
        if fin is not None:
            done = fin > 0.5
            out["mission_completed"] = bool(done[-1])
            out["mission_completed_at_s"] = _f(d.t[np.argmax(done)]) if done.any() else None
            active = ~done
        wpi = d.get(f"{c}.WaypointIndex")
        wps = parse_waypoints(param(plan, c, "Waypoints"))
        if wpi is not None:
            # WaypointIndex is the active waypoint (0-based): the number reached so far, and
            # it stays on the last one when the mission finishes
            reached = int(wpi[-1])
            if out.get("mission_completed") and wps:
                reached = len(wps)
            out["waypoints_reached"] = reached
        if wps:
            out["waypoint_count"] = len(wps)
    depth = d.get(f"{v}.Depth") if v else None
    dref = d.get(f"{c}.DepthRef")
    if depth is not None and dive == "yoyo":
        lo, hi = param(plan, c, "YoyoMinDepth"), param(plan, c, "YoyoMaxDepth")
        if isinstance(lo, (int, float)) and isinstance(hi, (int, float)):
            inside = (depth >= lo) & (depth <= hi)
            entered = np.argmax(inside) if inside.any() else len(depth)
            err = np.where(depth > hi, depth - hi, np.where(depth < lo, depth - lo, 0.0))
            m = active.copy()
            m[:entered] = False
            out["depth_error_m"] = stats(err[m])
            out["depth_error_definition"] = (f"yo-yo: excursion outside the band {lo:g}..{hi:g} m, "
                                             f"from the first entry into the band")
    elif dref is not None and depth is not None:
        out["depth_error_m"] = stats((depth - dref)[active])
        out["depth_error_definition"] = f"{v}.Depth - {c}.DepthRef"
    xte = d.get(f"{c}.CrossTrackError")
    if xte is not None and mode == "mission":
        out["cross_track_error_m"] = stats(xte[active])
    return out


# --------------------------------------------------------------------------------------------
# analyses
# --------------------------------------------------------------------------------------------


def _heading(d: Data, v: str):
    h = d.get(f"{v}.Heading")
    if h is None:
        h = d.get(f"{v}.Euler[3]")
    return h


def turning_circle(plan: Plan, d: Data, opts) -> dict:
    v = opts.vehicle
    n, e, psi = d.get(f"{v}.Pos[1]"), d.get(f"{v}.Pos[2]"), _heading(d, v)
    if n is None or psi is None:
        return {"error": f"{v} has no Pos[1..2] and Heading outputs"}
    turned = np.unwrap(psi) - np.unwrap(psi)[0]
    total = abs(turned[-1])
    skip = opts.skip_turns * 2 * math.pi
    idx = np.nonzero(np.abs(turned) >= skip)[0]
    if len(idx) == 0 or len(d.t) - idx[0] < 10:
        return {"error": f"the vehicle turned {math.degrees(total):.0f} deg in all; the analysis skips the first "
                         f"{opts.skip_turns:g} turn(s) as transient, so nothing is left to fit (run longer)",
                "turned_deg": _f(math.degrees(total))}
    i0 = idx[0]
    x, y = n[i0:], e[i0:]
    A = np.column_stack([2 * x, 2 * y, np.ones_like(x)])
    sol, *_ = np.linalg.lstsq(A, x * x + y * y, rcond=None)
    cn, ce = sol[0], sol[1]
    radius = math.sqrt(sol[2] + cn * cn + ce * ce)
    resid = np.hypot(x - cn, y - ce) - radius
    arc = abs(turned[-1] - turned[i0])
    dt = d.t[-1] - d.t[i0]
    yaw_rate = (turned[-1] - turned[i0]) / dt if dt > 0 else float("nan")
    length = param(plan, v, "Length", None)
    out = {
        "diameter_m": _f(2 * radius),
        "center_north_east_m": [_f(cn), _f(ce)],
        "fit_rms_residual_m": _f(np.sqrt(np.mean(resid ** 2))),
        "turns_fitted": _f(arc / (2 * math.pi), 4),
        "transient_skipped_s": _f(d.t[i0] - d.t[0]),
        "yaw_rate_deg_s": _f(math.degrees(yaw_rate)),
        "direction": "starboard" if yaw_rate > 0 else "port",
    }
    speed = d.get(f"{v}.Speed")
    if speed is not None:
        out["speed_m_s"] = _f(np.mean(speed[i0:]))
    if isinstance(length, (int, float)) and length > 0:
        out["diameter_hull_lengths"] = _f(2 * radius / length, 4)
    if arc < 2 * math.pi:
        out["warning"] = f"only {math.degrees(arc):.0f} deg of steady turn after the transient; run longer for a full circle"
    return out


def depth_step(plan: Plan, d: Data, opts) -> dict:
    sig = next((s for s in plan.signals if s.target == opts.command), None)
    if sig is None:
        return {"error": f"no signal drives {opts.command}; the depth-step analysis needs one with a step"}
    step = sigmod.find_step(sig.spec)
    if step is None:
        return {"error": f"the signal on {opts.command} has no step term"}
    t_step, before, after = step
    depth = d.get(f"{opts.vehicle}.Depth")
    if depth is None:
        return {"error": f"{opts.vehicle} has no Depth output"}
    size = after - before
    if size == 0:
        return {"error": "the step has zero size"}
    sgn = 1.0 if size > 0 else -1.0
    m = d.t >= t_step - 1e-9
    t, z = d.t[m] - t_step, depth[m]
    if len(t) < 2:
        return {"error": f"the run ends before the step at t={t_step} s"}
    prog = (z - before) / size  # 0 before, 1 at the new depth
    overshoot = max(0.0, float(np.max(sgn * (z - after)))) / abs(size) * 100.0
    def first(cond):
        i = np.nonzero(cond)[0]
        return float(t[i[0]]) if len(i) else None
    t10, t90 = first(prog >= 0.1), first(prog >= 0.9)
    band = opts.band * abs(size)
    outside = np.nonzero(np.abs(z - after) > band)[0]
    if len(outside) == 0:
        settling = 0.0
    elif outside[-1] == len(z) - 1:
        settling = None  # never settled
    else:
        settling = float(t[outside[-1] + 1])
    tail = t >= t[-1] - min(10.0, 0.2 * t[-1])
    steady = float(abs(np.mean(z[tail]) - after))
    out = {
        "step_time_s": _f(t_step), "from_m": _f(before), "to_m": _f(after),
        "overshoot_percent": _f(overshoot, 4),
        "rise_time_10_90_s": _f(t90 - t10) if (t10 is not None and t90 is not None) else None,
        "settling_time_s": _f(settling) if settling is not None else None,
        "settling_band_m": _f(band),
        "steady_state_error_m": _f(steady, 4),
        "acceptance": {  # SPEC 4 / seed 004, for a 1 m step at cruise
            "steady_error_below_0.1_m": steady < 0.1,
            "overshoot_below_5_percent": overshoot < 5.0,
            "settling_below_10_s": settling is not None and settling < 10.0,
        },
    }
    if settling is None:
        out["warning"] = "the depth had not settled within the band by the end of the run"
    return out


def zigzag(plan: Plan, d: Data, opts) -> dict:
    v, c = opts.vehicle, opts.control
    psi = _heading(d, v)
    rud = d.get(f"{c}.RudderYaw")
    if psi is None or rud is None:
        return {"error": f"needs {v}.Heading and {c}.RudderYaw"}
    cmd = d.get(f"{c}.HeadingCommand")
    ref = cmd if cmd is not None else np.zeros_like(psi)
    dev = np.angle(np.exp(1j * (psi - ref)))
    check = param(plan, c, "ZigZagHeading", 0.349)
    sgn = np.sign(rud)
    nz = np.nonzero(sgn != 0)[0]
    if len(nz) == 0:
        return {"error": "the rudder never moved"}
    rev = [i for i in range(nz[0] + 1, len(sgn)) if sgn[i] != 0 and sgn[i] != sgn[i - 1] and sgn[i - 1] != 0]
    t_rev = [float(d.t[i]) for i in rev]
    overs = []
    for j, i in enumerate(rev):
        end = rev[j + 1] if j + 1 < len(rev) else len(dev)
        if end - i < 2 or j + 1 >= len(rev) and end - i < 5:
            continue
        s = -sgn[i]  # the rudder now turns the vehicle back; the overshoot is on the previous side
        seg = dev[i:end] * s
        overs.append(math.degrees(max(0.0, float(seg.max()) - check)))
    out = {
        "check_heading_deg": _f(math.degrees(check)),
        "rudder_deg": _f(math.degrees(float(np.max(np.abs(rud))))),
        "reversals": len(rev),
        "reversal_times_s": [_f(x) for x in t_rev[:20]],
        "overshoots_deg": [_f(x, 4) for x in overs[:20]],
        "first_overshoot_deg": _f(overs[0], 4) if overs else None,
        "second_overshoot_deg": _f(overs[1], 4) if len(overs) > 1 else None,
        "max_heading_deviation_deg": _f(math.degrees(float(np.max(np.abs(dev))))),
    }
    if len(t_rev) >= 3:
        out["period_s"] = _f(2 * float(np.mean(np.diff(t_rev))))
    return out


def surfacing(plan: Plan, d: Data, opts) -> dict:
    v = opts.vehicle
    depth = d.get(f"{v}.Depth")
    if depth is None:
        return {"error": f"{v} has no Depth output"}
    up = np.nonzero(depth <= opts.surface_depth)[0]
    out = {"initial_depth_m": _f(depth[0]), "final_depth_m": _f(depth[-1]), "min_depth_m": _f(np.min(depth)),
           "surface_depth_m": _f(opts.surface_depth), "surfaced": bool(len(up))}
    if len(up):
        ts = float(d.t[up[0]] - d.t[0])
        out["time_to_surface_s"] = _f(ts)
        if ts > 0:
            out["mean_ascent_rate_m_s"] = _f((depth[0] - depth[up[0]]) / ts)
    thrust = d.get(f"{v}.Thrust")
    if thrust is not None:
        out["max_thrust_N"] = _f(np.max(np.abs(thrust)))
    return out


def battery(plan: Plan, d: Data, opts) -> dict:
    v = opts.vehicle
    bat, frac, thrust, speed = (d.get(f"{v}.{k}") for k in ("Battery", "BatteryFraction", "Thrust", "Speed"))
    if bat is None:
        return {"error": f"{v} has no Battery output"}
    flat = np.nonzero(bat <= 0)[0]
    out = {"initial_J": _f(bat[0]), "final_J": _f(bat[-1]), "energy_used_J": _f(bat[0] - bat[-1]),
           "battery_flat": bool(bat[-1] <= 0), "flat_at_s": _f(d.t[flat[0]]) if len(flat) else None}
    if frac is not None:
        out["final_fraction"] = _f(frac[-1])
    if thrust is not None:
        out["final_thrust_N"] = _f(thrust[-1])
        out["thruster_stopped"] = bool(abs(thrust[-1]) < 1e-9)
        if len(flat):
            out["max_thrust_after_flat_N"] = _f(np.max(np.abs(thrust[flat[0] + 1:]))) if flat[0] + 1 < len(thrust) else 0.0
    if speed is not None:
        out["final_speed_m_s"] = _f(speed[-1])
    return out


ANALYSES = {"turning_circle": turning_circle, "depth_step": depth_step, "zigzag": zigzag,
            "surfacing": surfacing, "battery": battery}


def build_summary(plan: Plan, data: np.ndarray, colmap: dict[str, int]) -> dict:
    d = Data(data, colmap)
    vehicles = vehicles_of(plan)
    controls = controls_of(plan)
    out: dict[str, Any] = {"distance_run_m": None, "energy_used_J": None, "mission_completed": None,
                           "depth_error_m": None, "cross_track_error_m": None}
    vfig = {v: vehicle_figures(plan, d, v) for v in vehicles}
    cfig = {c: control_figures(plan, d, c, driven_vehicle(plan, c, vehicles)) for c in controls}
    if vehicles:
        p = vfig[vehicles[0]]
        out["distance_run_m"] = p.get("distance_run_m")
        out["energy_used_J"] = p.get("energy_used_J")
    if controls:
        p = cfig[controls[0]]
        out["mission_completed"] = p.get("mission_completed")
        out["depth_error_m"] = p.get("depth_error_m")
        out["cross_track_error_m"] = p.get("cross_track_error_m")
    out["vehicles"] = vfig
    out["controls"] = cfig
    analysis = {}
    for name, fn in ANALYSES.items():
        opts = getattr(plan.model.analysis, name)
        if opts is None:
            continue
        try:
            analysis[name] = fn(plan, d, opts)
        except Exception as e:  # an analysis must never hide the run's own outcome
            analysis[name] = {"error": f"{type(e).__name__}: {e}"}
    if analysis:
        out["analysis"] = analysis
    return out
