"""The AUV survey stack's side of a run's summary, analyses and plots, registered with the master
through the AUV's unit (unit.py: ``figures`` -> ``FIGURES``, ``analyses`` -> ``TURNING_CIRCLE``,
``DEPTH_STEP``, ...); the master imports nothing of this package.

- per vehicle (an instance with Pos[1..3] outputs): distance run, final position and depth,
  mean speed, energy and battery;
- per control stack (an instance with MissionFinished, CrossTrackError or DepthRef outputs):
  mission completion, waypoints reached, depth and cross-track error statistics over the
  mission;
- the analyses a scenario asks for under ``analysis:`` (turning circle, depth step, zig-zag,
  surfacing, battery), each with its options model;
- the PNG plots (``auv_cosim/vehicles/auv/host/plots.py``).
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Union

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt, StrictStr, StringConstraints

from auv_cosim.master import (ExactSum, First, KeptColumns, Plan, RunData, RunningStats, find_step, param, rounded,
                              suggest)
from auv_cosim.master.registry import Analysis, RunFigures

from auv_cosim.analyses.metrics import SeabedContacts, StepResponse

from .seabed_figures import SeabedTracking


def vehicles_of(plan: Plan) -> list[str]:
    return [n for n, ip in plan.instances.items() if all(f"Pos[{i}]" in ip.vars and ip.vars[f"Pos[{i}]"].causality == "output" for i in (1, 2, 3))]


def controls_of(plan: Plan) -> list[str]:
    keys = ("MissionFinished", "CrossTrackError", "DepthRef")
    return [n for n, ip in plan.instances.items() if any(k in ip.vars and ip.vars[k].causality == "output" for k in keys)]


def waypoints_of(text) -> list[tuple[float, float, float]]:
    """A control's ``Waypoints`` parameter, read by the controllers' own parser (strict: a
    malformed entry is a ``WaypointError`` naming it); none when the parameter is unset or
    empty.

    Imported on use, after a run's FMUs have loaded: imported first, the repository's
    ``auv_cosim.vehicles.auv.stack`` would be the copy the controller FMUs of the run share (pythonfmu slaves
    run in the master's interpreter), not the one they bundle."""
    from auv_cosim.stacks.waypoints import parse_waypoints

    return [] if text is None else parse_waypoints(text, allow_empty=True)


def scenario_waypoints(scenario: dict) -> list[tuple[float, float, float]]:
    """The waypoints of a resolved scenario mapping (scenario.resolved.yaml), for the 3-D view:
    those of the first instance with a non-empty ``Waypoints`` parameter. A malformed one is a
    ``WaypointError`` (a ValueError) naming the instance."""
    from auv_cosim.stacks.waypoints import parse_waypoints

    for name, spec in (scenario.get("instances") or {}).items():
        text = ((spec or {}).get("parameters") or {}).get("Waypoints")
        if text is not None:
            wps = parse_waypoints(text, name=f"{name}.Waypoints", allow_empty=True)
            if wps:
                return wps
    return []


def driven_vehicle(plan: Plan, control: str, vehicles: list[str]) -> str | None:
    for c in plan.connections:
        if c.src == control and c.dst in vehicles:
            return c.dst
    return vehicles[0] if vehicles else None


class VehicleFigures:
    """A vehicle's figures as the rows stream past: distance run (3-D and horizontal, the sum of
    the finite steps between consecutive rows), final position and depth, deepest depth, mean
    speed (over the values that are not NaN), energy used and what is left of the battery."""

    def __init__(self, colmap: dict[str, int], v: str):
        self.pos = [colmap.get(f"{v}.Pos[{i}]") for i in (1, 2, 3)]
        self.depth, self.speed = colmap.get(f"{v}.Depth"), colmap.get(f"{v}.Speed")
        self.bat, self.frac = colmap.get(f"{v}.Battery"), colmap.get(f"{v}.BatteryFraction")
        self.distance, self.horizontal = ExactSum(), ExactSum()
        self.previous = None   # the last row's position: the first step of the next block starts there
        self.last = None
        self.max_depth = None
        self.speed_sum, self.speed_count = ExactSum(), 0
        self.bat_first = First()
        self.contacts = SeabedContacts(colmap, v)

    def rows(self, block: np.ndarray) -> None:
        if not len(block):
            return
        self.contacts.rows(block)
        if self.pos[0] is not None:
            p = block[:, self.pos]
            steps = np.diff(p if self.previous is None else np.vstack([self.previous, p]), axis=0)
            dn, de, dz = steps[:, 0], steps[:, 1], steps[:, 2]
            ok = np.isfinite(dn) & np.isfinite(de) & np.isfinite(dz)
            self.distance.add(np.sqrt(dn[ok] ** 2 + de[ok] ** 2 + dz[ok] ** 2))
            self.horizontal.add(np.hypot(dn[ok], de[ok]))
            self.previous = p[-1:].copy()
        if self.depth is not None:
            deepest = np.nanmax(block[:, self.depth]) if not np.isnan(block[:, self.depth]).all() else np.nan
            self.max_depth = deepest if self.max_depth is None or np.isnan(self.max_depth) else np.fmax(self.max_depth, deepest)
        if self.speed is not None:
            speed = block[:, self.speed]
            speed = speed[~np.isnan(speed)]
            self.speed_sum.add(speed)
            self.speed_count += len(speed)
        if self.bat is not None:
            self.bat_first.add(block[:, self.bat])
        self.last = block[-1].copy()

    def result(self) -> dict:
        last = self.last
        out: dict[str, Any] = {}
        if self.pos[0] is not None:
            out["distance_run_m"] = rounded(self.distance.value)
            out["horizontal_distance_m"] = rounded(self.horizontal.value)
            out["final_position_m"] = [rounded(last[j]) for j in self.pos]
        if self.depth is not None:
            out["final_depth_m"] = rounded(last[self.depth])
            out["max_depth_m"] = rounded(self.max_depth)
        if self.speed is not None:
            out["mean_speed_m_s"] = rounded(self.speed_sum.value / self.speed_count if self.speed_count else math.nan)
        if self.bat is not None:
            out["energy_used_J"] = rounded(self.bat_first.value - last[self.bat])
            out["battery_final_J"] = rounded(last[self.bat])
        if self.frac is not None:
            out["battery_final_fraction"] = rounded(last[self.frac])
        out.update(self.contacts.result())
        return out


class ControlFigures:
    """A control stack's figures as the rows stream past: mission figures (GuidanceMode
    mission only) and the error statistics, over the rows where the mission is active (those
    where MissionFinished is not set)."""

    def __init__(self, plan: Plan, colmap: dict[str, int], c: str, v: str | None):
        self.mode = param(plan, c, "GuidanceMode", "mission")
        self.dive = param(plan, c, "DiveMode", "depth")
        self.c, self.v = c, v
        self.fin = colmap.get(f"{c}.MissionFinished")
        self.wpi = colmap.get(f"{c}.WaypointIndex")
        self.wps = waypoints_of(param(plan, c, "Waypoints")) if self.mode == "mission" else []
        self.depth = colmap.get(f"{v}.Depth") if v else None
        self.dref = colmap.get(f"{c}.DepthRef")
        self.xte = colmap.get(f"{c}.CrossTrackError")
        self.band = None
        if self.depth is not None and self.dive == "yoyo":
            lo, hi = param(plan, c, "YoyoMinDepth"), param(plan, c, "YoyoMaxDepth")
            if isinstance(lo, (int, float)) and isinstance(hi, (int, float)):
                self.band = (lo, hi)
        self.entered = False   # the depth has been inside the yo-yo band
        self.completed_at = None
        self.last = None
        self.depth_error = RunningStats()
        self.xte_stats = RunningStats()
        self.seabed = SeabedTracking(plan, colmap, c, v, self.dive)

    def rows(self, block: np.ndarray) -> None:
        if not len(block):
            return
        active = np.ones(len(block), dtype=bool)
        if self.mode == "mission" and self.fin is not None:
            done = block[:, self.fin] > 0.5
            if self.completed_at is None and done.any():
                self.completed_at = block[np.argmax(done), 0]
            active = ~done
        if self.band is not None:
            lo, hi = self.band
            depth = block[:, self.depth]
            m = active.copy()
            if not self.entered:
                inside = (depth >= lo) & (depth <= hi)
                entered = np.argmax(inside) if inside.any() else len(depth)
                m[:entered] = False
                self.entered = entered < len(depth)
            err = np.where(depth > hi, depth - hi, np.where(depth < lo, depth - lo, 0.0))
            self.depth_error.add(err[m])
        elif self.dive != "yoyo" and self.dref is not None and self.depth is not None:
            self.depth_error.add((block[:, self.depth] - block[:, self.dref])[active])
        if self.xte is not None and self.mode == "mission":
            self.xte_stats.add(block[:, self.xte][active])
        self.seabed.rows(block[active])
        self.last = block[-1].copy()

    def result(self) -> dict:
        out: dict[str, Any] = {"vehicle": self.v, "guidance_mode": self.mode, "dive_mode": self.dive}
        if self.mode == "mission":
            if self.fin is not None:
                out["mission_completed"] = bool(self.last[self.fin] > 0.5)
                out["mission_completed_at_s"] = rounded(self.completed_at) if self.completed_at is not None else None
            if self.wpi is not None:
                # WaypointIndex is the active waypoint (0-based): the number reached so far, and
                # it stays on the last one when the mission finishes
                reached = int(self.last[self.wpi])
                if out.get("mission_completed") and self.wps:
                    reached = len(self.wps)
                out["waypoints_reached"] = reached
            if self.wps:
                out["waypoint_count"] = len(self.wps)
        if self.band is not None:
            lo, hi = self.band
            out["depth_error_m"] = self.depth_error.result()
            out["depth_error_definition"] = (f"yo-yo: excursion outside the band {lo:g}..{hi:g} m, "
                                             f"from the first entry into the band")
        elif self.dive != "yoyo" and self.dref is not None and self.depth is not None:
            out["depth_error_m"] = self.depth_error.result()
            out["depth_error_definition"] = f"{self.v}.Depth - {self.c}.DepthRef"
        if self.xte is not None and self.mode == "mission":
            out["cross_track_error_m"] = self.xte_stats.result()
        out.update(self.seabed.result())
        return out


def _whole(stream, d: RunData):
    """A stream's figures of a run given whole (one block)."""
    stream.rows(d.data)
    return stream.result()


def _heading(d: RunData, v: str):
    h = d.get(f"{v}.Heading")
    if h is None:
        h = d.get(f"{v}.Euler[3]")
    return h


def turning_circle(plan: Plan, d: RunData, opts) -> dict:
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
                "turned_deg": rounded(math.degrees(total))}
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
        "diameter_m": rounded(2 * radius),
        "center_north_east_m": [rounded(cn), rounded(ce)],
        "fit_rms_residual_m": rounded(np.sqrt(np.mean(resid ** 2))),
        "turns_fitted": rounded(arc / (2 * math.pi), 4),
        "transient_skipped_s": rounded(d.t[i0] - d.t[0]),
        "yaw_rate_deg_s": rounded(math.degrees(yaw_rate)),
        "direction": "starboard" if yaw_rate > 0 else "port",
    }
    speed = d.get(f"{v}.Speed")
    if speed is not None:
        out["speed_m_s"] = rounded(np.mean(speed[i0:]))
    if isinstance(length, (int, float)) and length > 0:
        out["diameter_hull_lengths"] = rounded(2 * radius / length, 4)
    if arc < 2 * math.pi:
        out["warning"] = f"only {math.degrees(arc):.0f} deg of steady turn after the transient; run longer for a full circle"
    return out


class DepthStepStream:
    """The depth-step analysis as the rows stream past: the step response (``StepResponse``)
    of the vehicle's depth from the step of the signal that carries it."""

    def __init__(self, plan: Plan, colmap: dict[str, int], opts):
        self.error = None
        sig = next((s for s in plan.signals if s.target == opts.command), None)
        step = find_step(sig.spec) if sig is not None else None
        self.depth = colmap.get(f"{opts.vehicle}.Depth")
        if sig is None:
            self.error = f"no signal drives {opts.command}; the depth-step analysis needs one with a step"
        elif step is None:
            self.error = f"the signal on {opts.command} has no step term"
        elif self.depth is None:
            self.error = f"{opts.vehicle} has no Depth output"
        elif step[2] - step[1] == 0:
            self.error = "the step has zero size"
        if self.error is None:
            self.t_step, self.before, self.after = step
            self.response = StepResponse(self.before, self.after, band=opts.band)

    def rows(self, block: np.ndarray) -> None:
        if self.error is None:
            m = block[:, 0] >= self.t_step - 1e-9
            self.response.add(block[m, 0] - self.t_step, block[m, self.depth])

    def result(self) -> dict:
        if self.error is not None:
            return {"error": self.error}
        if self.response.count < 2:
            return {"error": f"the run ends before the step at t={self.t_step} s"}
        r = self.response.result()
        overshoot, settling, steady = r["overshoot_percent"], r["settling_time_s"], r["steady_state_error"]
        out = {
            "step_time_s": rounded(self.t_step), "from_m": rounded(self.before), "to_m": rounded(self.after),
            "overshoot_percent": rounded(overshoot, 4),
            "rise_time_10_90_s": rounded(r["rise_time_10_90_s"]) if r["rise_time_10_90_s"] is not None else None,
            "settling_time_s": rounded(settling) if settling is not None else None,
            "settling_band_m": rounded(r["settling_band"]),
            "steady_state_error_m": rounded(steady, 4),
            "acceptance": {  # docs/physics/auv.md#acceptance / seed 004, for a 1 m step at cruise
                "steady_error_below_0.1_m": steady < 0.1,
                "overshoot_below_5_percent": overshoot < 5.0,
                "settling_below_10_s": settling is not None and settling < 10.0,
            },
        }
        if settling is None:
            out["warning"] = "the depth had not settled within the band by the end of the run"
        return out


def depth_step(plan: Plan, d: RunData, opts) -> dict:
    return _whole(DepthStepStream(plan, d.colmap, opts), d)


class ZigzagStream:
    """The zig-zag analysis as the rows stream past: the rudder's reversals (the rows where its
    sign flips between two non-zero signs) and, for each stretch from one reversal to the next,
    the largest heading deviation beyond the check heading on the side the rudder turns the
    vehicle back from (a stretch of fewer than 2 rows is not one, nor a last one of fewer
    than 5); the largest rudder and deviation. Keeps one time per reversal, nothing per row."""

    def __init__(self, plan: Plan, colmap: dict[str, int], opts):
        v, c = opts.vehicle, opts.control
        self.psi = colmap.get(f"{v}.Heading", colmap.get(f"{v}.Euler[3]"))
        self.rud, self.cmd = colmap.get(f"{c}.RudderYaw"), colmap.get(f"{c}.HeadingCommand")
        self.error = f"needs {v}.Heading and {c}.RudderYaw" if self.psi is None or self.rud is None else None
        self.check = param(plan, c, "ZigZagHeading", 0.349)
        self.previous_sign = 0.0     # the rudder's sign in the last row
        self.moved = False
        self.t_rev: list[float] = []
        self.overs: list[float] = []
        self.stretch = None          # [s, largest s * deviation, rows] since the last reversal
        self.max_rudder = self.max_deviation = None

    def _close(self, last: bool) -> None:
        if self.stretch is None:
            return
        _s, largest, rows = self.stretch
        if not (rows < 2 or last and rows < 5):
            self.overs.append(math.degrees(max(0.0, float(largest) - self.check)))
        self.stretch = None

    def rows(self, block: np.ndarray) -> None:
        if self.error is not None or not len(block):
            return
        psi, rud = block[:, self.psi], block[:, self.rud]
        ref = block[:, self.cmd] if self.cmd is not None else np.zeros_like(psi)
        dev = np.angle(np.exp(1j * (psi - ref)))
        sgn = np.sign(rud)
        before = np.concatenate([[self.previous_sign], sgn[:-1]])
        reversals = np.nonzero((sgn != 0) & (before != 0) & (sgn != before))[0].tolist()
        bounds = [0] + reversals + [len(block)]
        for k in range(len(bounds) - 1):
            lo, hi = bounds[k], bounds[k + 1]
            if k > 0:   # a reversal at row lo: the stretch before it ends, its own begins
                self._close(last=False)
                self.t_rev.append(float(block[lo, 0]))
                self.stretch = [-sgn[lo], -np.inf, 0]
            if self.stretch is not None and hi > lo:
                s = self.stretch[0]
                self.stretch[1] = np.maximum(self.stretch[1], np.max(dev[lo:hi] * s))
                self.stretch[2] += hi - lo
        self.moved = self.moved or bool((sgn != 0).any())
        self.previous_sign = sgn[-1]
        largest_rudder, largest_deviation = np.max(np.abs(rud)), np.max(np.abs(dev))
        self.max_rudder = largest_rudder if self.max_rudder is None else np.maximum(self.max_rudder, largest_rudder)
        self.max_deviation = (largest_deviation if self.max_deviation is None
                              else np.maximum(self.max_deviation, largest_deviation))

    def result(self) -> dict:
        if self.error is not None:
            return {"error": self.error}
        if not self.moved:
            return {"error": "the rudder never moved"}
        self._close(last=True)
        overs, t_rev = self.overs, self.t_rev
        out = {
            "check_heading_deg": rounded(math.degrees(self.check)),
            "rudder_deg": rounded(math.degrees(float(self.max_rudder))),
            "reversals": len(t_rev),
            "reversal_times_s": [rounded(x) for x in t_rev[:20]],
            "overshoots_deg": [rounded(x, 4) for x in overs[:20]],
            "first_overshoot_deg": rounded(overs[0], 4) if overs else None,
            "second_overshoot_deg": rounded(overs[1], 4) if len(overs) > 1 else None,
            "max_heading_deviation_deg": rounded(math.degrees(float(self.max_deviation))),
        }
        if len(t_rev) >= 3:
            out["period_s"] = rounded(2 * float(np.mean(np.diff(t_rev))))
        return out


def zigzag(plan: Plan, d: RunData, opts) -> dict:
    return _whole(ZigzagStream(plan, d.colmap, opts), d)


class SurfacingStream:
    """The surfacing analysis as the rows stream past: first, last and shallowest depth, when
    the depth first reached ``surface_depth`` (and the mean ascent rate to it), the largest
    |thrust|."""

    def __init__(self, plan: Plan, colmap: dict[str, int], opts):
        v = opts.vehicle
        self.v, self.surface = v, opts.surface_depth
        self.depth, self.thrust = colmap.get(f"{v}.Depth"), colmap.get(f"{v}.Thrust")
        self.first = None     # the first row
        self.last = None
        self.min_depth = None
        self.up = None        # the first row at or above the surface depth
        self.max_thrust = None

    def rows(self, block: np.ndarray) -> None:
        if self.depth is None or not len(block):
            return
        if self.first is None:
            self.first = block[0].copy()
        depth = block[:, self.depth]
        shallowest = np.min(depth)
        self.min_depth = shallowest if self.min_depth is None else np.minimum(self.min_depth, shallowest)
        if self.up is None:
            up = np.nonzero(depth <= self.surface)[0]
            if len(up):
                self.up = block[up[0]].copy()
        if self.thrust is not None:
            largest = np.max(np.abs(block[:, self.thrust]))
            self.max_thrust = largest if self.max_thrust is None else np.maximum(self.max_thrust, largest)
        self.last = block[-1].copy()

    def result(self) -> dict:
        if self.depth is None:
            return {"error": f"{self.v} has no Depth output"}
        j, first = self.depth, self.first
        out = {"initial_depth_m": rounded(first[j]), "final_depth_m": rounded(self.last[j]),
               "min_depth_m": rounded(self.min_depth), "surface_depth_m": rounded(self.surface),
               "surfaced": self.up is not None}
        if self.up is not None:
            ts = float(self.up[0] - first[0])
            out["time_to_surface_s"] = rounded(ts)
            if ts > 0:
                out["mean_ascent_rate_m_s"] = rounded((first[j] - self.up[j]) / ts)
        if self.thrust is not None:
            out["max_thrust_N"] = rounded(self.max_thrust)
        return out


def surfacing(plan: Plan, d: RunData, opts) -> dict:
    return _whole(SurfacingStream(plan, d.colmap, opts), d)


class BatteryStream:
    """The battery analysis as the rows stream past: first and last charge, when it went flat,
    the thrust and speed at the end and the largest |thrust| after the battery went flat."""

    def __init__(self, plan: Plan, colmap: dict[str, int], opts):
        v = opts.vehicle
        self.v = v
        self.bat, self.frac, self.thrust, self.speed = (colmap.get(f"{v}.{k}") for k in
                                                        ("Battery", "BatteryFraction", "Thrust", "Speed"))
        self.first_bat = First()
        self.flat_at = None
        self.after_flat = None   # the largest |thrust| in the rows after the first flat one
        self.last = None

    def rows(self, block: np.ndarray) -> None:
        if self.bat is None or not len(block):
            return
        bat = block[:, self.bat]
        self.first_bat.add(bat)
        start = 0
        if self.flat_at is None:
            flat = np.nonzero(bat <= 0)[0]
            if not len(flat):
                self.last = block[-1].copy()
                return
            self.flat_at = block[flat[0], 0]
            start = flat[0] + 1
        if self.thrust is not None and start < len(block):
            largest = np.max(np.abs(block[start:, self.thrust]))
            self.after_flat = largest if self.after_flat is None else np.maximum(self.after_flat, largest)
        self.last = block[-1].copy()

    def result(self) -> dict:
        if self.bat is None:
            return {"error": f"{self.v} has no Battery output"}
        last, first = self.last, self.first_bat.value
        out = {"initial_J": rounded(first), "final_J": rounded(last[self.bat]),
               "energy_used_J": rounded(first - last[self.bat]), "battery_flat": bool(last[self.bat] <= 0),
               "flat_at_s": rounded(self.flat_at) if self.flat_at is not None else None}
        if self.frac is not None:
            out["final_fraction"] = rounded(last[self.frac])
        if self.thrust is not None:
            out["final_thrust_N"] = rounded(last[self.thrust])
            out["thruster_stopped"] = bool(abs(last[self.thrust]) < 1e-9)
            if self.flat_at is not None:
                out["max_thrust_after_flat_N"] = rounded(self.after_flat) if self.after_flat is not None else 0.0
        if self.speed is not None:
            out["final_speed_m_s"] = rounded(last[self.speed])
        return out


def battery(plan: Plan, d: RunData, opts) -> dict:
    return _whole(BatteryStream(plan, d.colmap, opts), d)




# --------------------------------------------------------------------------------------------
# the figures of every run
# --------------------------------------------------------------------------------------------

HEADLINE = {"distance_run_m": None, "energy_used_J": None, "mission_completed": None,
            "depth_error_m": None, "cross_track_error_m": None}


class AuvRunFigures:
    """The figures of every run as the rows stream past: those of every vehicle and every
    control stack, under their names. A run of one vehicle also has its headline figures at the
    top, as it always had (`HEADLINE`: its distance and energy, its control stack's mission and
    errors); a run of several has none there (whose would they be?), and its vehicles and
    control stacks come in the order of their names, so that the summary's figures are the same
    whatever the order the scenario declares them in."""

    def __init__(self, plan: Plan, colmap: dict[str, int]):
        vehicles = vehicles_of(plan)
        self.vehicles = {v: VehicleFigures(colmap, v) for v in vehicles}
        self.controls = {c: ControlFigures(plan, colmap, c, driven_vehicle(plan, c, vehicles)) for c in controls_of(plan)}

    def rows(self, block: np.ndarray) -> None:
        for stream in self.vehicles.values():
            stream.rows(block)
        for stream in self.controls.values():
            stream.rows(block)

    def result(self) -> dict:
        vfig = {v: s.result() for v, s in self.vehicles.items()}
        cfig = {c: s.result() for c, s in self.controls.items()}
        if len(vfig) > 1:
            return {"vehicles": dict(sorted(vfig.items())), "controls": dict(sorted(cfig.items()))}
        out: dict[str, Any] = dict(HEADLINE)
        if vfig:
            p = next(iter(vfig.values()))
            out["distance_run_m"] = p.get("distance_run_m")
            out["energy_used_J"] = p.get("energy_used_J")
        if cfig:
            p = next(iter(cfig.values()))
            out["mission_completed"] = p.get("mission_completed")
            out["depth_error_m"] = p.get("depth_error_m")
            out["cross_track_error_m"] = p.get("cross_track_error_m")
        out["vehicles"] = vfig
        out["controls"] = cfig
        return out


def run_figures(run: RunData) -> dict:
    """``AuvRunFigures`` of a run given whole."""
    return _whole(AuvRunFigures(run.plan, run.colmap), run)


def _fmt(x, unit="", nd=4):
    if x is None:
        return "n/a"
    return f"{x:.{nd}g}{unit}"


def describe_run(s: dict) -> list[str]:
    """The lines `auv-cosim run` prints about these figures: the headline figures of the one
    vehicle; of several, one line each, by name."""
    vehicles = s.get("vehicles") or {}
    if len(vehicles) > 1:
        return _describe_vehicles(vehicles, s.get("controls") or {})
    lines = []
    parts = []
    if s.get("distance_run_m") is not None:
        parts.append(f"distance {s['distance_run_m']:.0f} m")
    if s.get("energy_used_J") is not None:
        parts.append(f"energy {s['energy_used_J'] / 1000:.1f} kJ")
    if s.get("mission_completed") is not None:
        parts.append("mission completed" if s["mission_completed"] else "mission NOT completed")
    if parts:
        lines.append(", ".join(parts))
    first = next(iter((s.get("controls") or {}).values()), {})
    parts = _tracking(s, first.get("dive_mode"))
    if parts:
        lines.append(", ".join(parts))
    lines += _over_the_seabed(first)
    return lines + [line for f in vehicles.values() for line in _contacts(f)]


def _contacts(figures: dict, shown: int = 5) -> list[str]:
    """A line for each time the vehicle touched the seabed (the first `shown`), with its place."""
    contacts = figures.get("seabed_contacts") or []
    lines = [f"SEABED CONTACT at t={c['time_s']:g} s: north {c.get('north_m', math.nan):.1f} m, "
             f"east {c.get('east_m', math.nan):.1f} m, depth {c.get('depth_m', math.nan):.1f} m"
             + (f" ({c['latitude_deg']:.6f}, {c['longitude_deg']:.6f})" if "latitude_deg" in c else "")
             for c in contacts[:shown]]
    if len(contacts) > shown:
        lines.append(f"... and {len(contacts) - shown} more seabed contacts (summary.json)")
    return lines


def _tracking(figures: dict, dive_mode) -> list[str]:
    """The depth and cross-track errors of a control stack's figures, as printed."""
    depth_label = "depth excursion outside the yo-yo band" if dive_mode == "yoyo" else "depth error"
    parts = []
    for key, label in (("depth_error_m", depth_label), ("cross_track_error_m", "cross-track error")):
        st = figures.get(key)
        if st:
            parts.append(f"{label} rms {_fmt(st['rms'], ' m', 3)} (max {_fmt(st['max'], ' m', 3)})")
    return parts


def _over_the_seabed(figures: dict) -> list[str]:
    """The altitude mode's figures of a control stack, as printed (seabed_figures.py)."""
    st = figures.get("altitude_error_m")
    if not st:
        return []
    part = f"altitude error rms {_fmt(st['rms'], ' m', 3)} (lowest {_fmt(figures.get('lowest_altitude_m'), ' m', 3)}"
    if figures.get("bottom_lock_fraction") is not None:
        part += f", bottom lock {100.0 * figures['bottom_lock_fraction']:.0f} % of the time"
    part += ")"
    nav = figures.get("navigation_error_m")
    if nav:
        part += f", navigation error rms {_fmt(nav['rms'], ' m', 3)} (max {_fmt(nav['max'], ' m', 3)})"
    return [part]


def _describe_vehicles(vehicles: dict, controls: dict) -> list[str]:
    """One line per vehicle: its distance, energy and final position, then what the control
    stack driving it says (the mission, the depth and cross-track errors)."""
    lines = []
    for name, f in vehicles.items():
        bits = [f"distance {f['distance_run_m']:.0f} m" if f.get("distance_run_m") is not None else None,
                f"energy {f['energy_used_J'] / 1000:.1f} kJ" if f.get("energy_used_J") is not None else None,
                f"final position ({', '.join(f'{x:.1f}' for x in f['final_position_m'])}) m"
                if f.get("final_position_m") and None not in f["final_position_m"] else None]
        for c in (c for c in controls.values() if c.get("vehicle") == name):
            if c.get("mission_completed") is not None:
                bits.append("mission completed" if c["mission_completed"] else "mission NOT completed")
            bits += _tracking(c, c.get("dive_mode")) + _over_the_seabed(c)
        lines.append(f"{name}: " + ", ".join(b for b in bits if b))
        lines += [f"{name}: {line}" for line in _contacts(f)]
    return lines


def _plots(run: RunData, out_dir):
    from .plots import make_plots

    return make_plots(run, out_dir)


def prepare_plots(run: RunData | None = None) -> None:
    from .plots import prepare

    prepare(run)


FIGURES = RunFigures(compute=run_figures, empty=HEADLINE, describe=describe_run, plots=_plots,
                     plot_files=("track.png", "depth.png", "attitude.png", "actuators.png", "battery.png",
                                 "navigation.png", "terrain.png"),
                     prepare_plots=prepare_plots, waypoints=scenario_waypoints, stream=AuvRunFigures)


# --------------------------------------------------------------------------------------------
# the analyses: options (the scenario's `analysis:` entries) and how the CLI shows them
# --------------------------------------------------------------------------------------------


class _Options(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


Ident = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]
Number = Union[StrictInt, StrictFloat]


class TurningCircle(_Options):
    vehicle: Ident = "vehicle"
    skip_turns: Annotated[float, Field(strict=True, allow_inf_nan=False, ge=0)] = 1.0  # transient: the first turns are ignored


class DepthStep(_Options):
    vehicle: Ident = "vehicle"
    command: StrictStr = "control.DepthCommand"  # the signal that carries the step
    band: Annotated[float, Field(strict=True, allow_inf_nan=False, gt=0)] = 0.05  # settling band, fraction of the step


class ZigZag(_Options):
    vehicle: Ident = "vehicle"
    control: Ident = "control"


class Surfacing(_Options):
    vehicle: Ident = "vehicle"
    surface_depth: Number = 0.1  # axis depth at which the hull breaks the surface


class BatteryRun(_Options):
    vehicle: Ident = "vehicle"


def check_names(options, instances: list[str], signal_targets: list[str]) -> list[tuple[str, str]]:
    """The instances (``vehicle``, ``control``) and the signal (``command``) an analysis's
    options name exist in the scenario."""
    problems = []
    for fld in type(options).model_fields:
        value = getattr(options, fld)
        if fld in ("vehicle", "control") and value not in instances:
            problems.append((fld, f"unknown instance '{value}' (instances: {', '.join(instances)})"
                             + suggest(value, instances)))
        elif fld == "command" and value not in signal_targets:
            problems.append((fld, f"no signal drives '{value}'; the {_NAMES[type(options)]} analysis needs the "
                                  f"signal that carries the step" + suggest(value, signal_targets)))
    return problems


def _kept(plan: Plan, colmap: dict[str, int], opts, analysis, of_vehicle, of_control):
    """The stream of an analysis that reads its columns whole (a fit, the reversals of a
    manoeuvre): only the columns it reads are kept, of ``opts.vehicle`` and ``opts.control``."""
    names = [f"{opts.vehicle}.{n}" for n in of_vehicle] + [f"{getattr(opts, 'control', '')}.{n}" for n in of_control]
    return KeptColumns(plan, colmap, names, lambda run: analysis(plan, run, opts))


TURNING_CIRCLE = Analysis(
    TurningCircle, lambda run, o: turning_circle(run.plan, run, o),
    lambda a: (f"turning circle: diameter {_fmt(a.get('diameter_m'), ' m')} "
               f"({_fmt(a.get('diameter_hull_lengths'), ' hull lengths', 3)}), "
               f"yaw rate {_fmt(a.get('yaw_rate_deg_s'), ' deg/s', 3)}"), check_names,
    lambda plan, colmap, o: _kept(plan, colmap, o, turning_circle, ("Pos[1]", "Pos[2]", "Heading", "Euler[3]", "Speed"), ()))
DEPTH_STEP = Analysis(
    DepthStep, lambda run, o: depth_step(run.plan, run, o),
    lambda a: (f"depth step {a['from_m']} -> {a['to_m']} m: overshoot {_fmt(a['overshoot_percent'], ' %', 3)}, "
               f"settling {_fmt(a['settling_time_s'], ' s', 3)}, "
               f"steady error {_fmt(a['steady_state_error_m'], ' m', 3)}"), check_names, DepthStepStream)
ZIGZAG = Analysis(
    ZigZag, lambda run, o: zigzag(run.plan, run, o),
    lambda a: (f"zig-zag: overshoots {_fmt(a.get('first_overshoot_deg'), ' deg', 3)} / "
               f"{_fmt(a.get('second_overshoot_deg'), ' deg', 3)}, period {_fmt(a.get('period_s'), ' s', 3)}"), check_names,
    ZigzagStream)
SURFACING = Analysis(
    Surfacing, lambda run, o: surfacing(run.plan, run, o),
    lambda a: (f"surfacing: {'surfaced' if a['surfaced'] else 'did NOT surface'} after "
               f"{_fmt(a.get('time_to_surface_s'), ' s', 4)} from {_fmt(a['initial_depth_m'], ' m', 3)}"), check_names,
    SurfacingStream)
BATTERY = Analysis(
    BatteryRun, lambda run, o: battery(run.plan, run, o),
    lambda a: (f"battery: {'flat' if a['battery_flat'] else 'not flat'} at {_fmt(a.get('flat_at_s'), ' s', 5)}, "
               f"final thrust {_fmt(a.get('final_thrust_N'), ' N', 3)}"), check_names, BatteryStream)

_NAMES = {TurningCircle: "turning_circle", DepthStep: "depth_step", ZigZag: "zigzag", Surfacing: "surfacing",
          BatteryRun: "battery"}
