"""The figures of an H100 run (docs/physics/h100.md#acceptance, seed 004's acceptance table), from its recorded columns:
plain functions of numpy arrays, which the master's summary calls by name.

Errors are the truth against the control stack's reference (``vehicle.Pos`` against
``control.RefPosition``): what the vehicle did, navigation errors included.

* :func:`station_keeping`: 3-D position error RMS and maximum (after ``skip`` seconds), heading
  error RMS, against the held point (the reference);
* :func:`tracking`: for waypoint tracks: mean and max cross-track error from the polyline of the
  waypoints (horizontal), max heading error, the steady tracking error (RMS of the 3-D error to
  the moving reference after ``skip``);
* :func:`manoeuvre`: for the S-shape and sway: the yaw lag (the delay that best aligns the
  heading with its reference, by cross-correlation), the max heading error, the lateral drift
  (RMS and maximum of the sideways error, across the reference heading) and the along drift;
* :func:`effort`: thrust effort ``int sum |F_i| dt`` (N s), RMS thrust, and the propulsive energy
  by momentum theory, ``int sum |F_i|^1.5 / sqrt(2 rho A) dt`` (J; the ideal power of a thruster
  of disk area ``A``: a lower bound of the electrical energy, which the T200 datasheet puts at
  about 3 times it at full thrust);
* :func:`settling_time`: when the 3-D error last leaves a band and stays within it;
* :func:`stack_figures`: all of the above that apply to one control stack's run, from its
  recorded columns by name (what summary.json and the controller comparison report).
"""
from __future__ import annotations

import math
from typing import Callable, Dict, Optional, Sequence

import numpy as np

#: Blue Robotics T200 propeller diameter (m): the disk of the momentum-theory power
T200_DIAMETER = 0.076

_trapezoid = getattr(np, "trapezoid", None) or np.trapz   # numpy >= 2 renamed it


def _r(x, digits=6):
    if x is None:
        return None
    x = float(x)
    return None if not math.isfinite(x) else float(f"{x:.{digits}g}")


def _wrap(a):
    return np.angle(np.exp(1j * np.asarray(a, dtype=float)))


def position_error(pos: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """3-D distance between the truth (n x 3) and the reference (n x 3)."""
    return np.linalg.norm(np.asarray(pos) - np.asarray(ref), axis=1)


def settling_time(t: np.ndarray, error: np.ndarray, band: float, start: float = 0.0) -> Optional[float]:
    """Seconds after ``start`` from which ``error`` stays within ``band``; 0 if always, None if never."""
    m = t >= start
    tt, e = t[m], error[m]
    outside = np.nonzero(e > band)[0]
    if len(outside) == 0:
        return 0.0
    if outside[-1] == len(e) - 1:
        return None
    return float(tt[outside[-1] + 1] - start)


def station_keeping(t, pos, ref, heading, ref_heading, skip: float = 0.0) -> Dict:
    m = t >= skip
    e = position_error(pos, ref)[m]
    h = _wrap(np.asarray(heading) - np.asarray(ref_heading))[m]
    return {"position_rms_m": _r(np.sqrt(np.mean(e ** 2))), "position_max_m": _r(np.max(e)),
            "horizontal_rms_m": _r(np.sqrt(np.mean(np.sum((pos[m, :2] - ref[m, :2]) ** 2, axis=1)))),
            "depth_rms_m": _r(np.sqrt(np.mean((pos[m, 2] - ref[m, 2]) ** 2))),
            "heading_rms_rad": _r(np.sqrt(np.mean(h ** 2))), "from_s": _r(skip), "samples": int(m.sum())}


def _cross_track(points: np.ndarray, path: Sequence[Sequence[float]]) -> np.ndarray:
    """Horizontal distance of each point to the polyline ``path`` (its closest leg)."""
    best = np.full(len(points), np.inf)
    p = points[:, :2]
    for a, b in zip(path[:-1], path[1:]):
        a, b = np.asarray(a[:2], float), np.asarray(b[:2], float)
        d = b - a
        length2 = float(d @ d)
        s = np.zeros(len(p)) if length2 == 0.0 else np.clip((p - a) @ d / length2, 0.0, 1.0)
        best = np.minimum(best, np.linalg.norm(p - (a + s[:, None] * d), axis=1))
    return best


def tracking(t, pos, ref, heading, ref_heading, path, skip: float = 10.0) -> Dict:
    m = t >= skip
    out = {"steady_tracking_error_rms_m": _r(np.sqrt(np.mean(position_error(pos, ref)[m] ** 2))),
           "max_heading_error_rad": _r(np.max(np.abs(_wrap(np.asarray(heading) - ref_heading)[m])))}
    if path is not None and len(path) >= 2:
        xte = _cross_track(np.asarray(pos)[m], path)
        out.update({"mean_cross_track_error_m": _r(np.mean(xte)), "max_cross_track_error_m": _r(np.max(xte))})
    return out


def manoeuvre(t, pos, ref, heading, ref_heading, skip: float = 10.0, max_lag: float = 5.0) -> Dict:
    m = t >= skip
    h, hr = np.unwrap(np.asarray(heading)[m]), np.unwrap(np.asarray(ref_heading)[m])
    dt = float(np.median(np.diff(t))) if len(t) > 1 else 0.1
    lag = None
    if np.std(hr) > 1e-6:
        a, b = hr - hr.mean(), h - h.mean()
        shifts = range(0, int(round(max_lag / dt)) + 1)
        scores = [float(a[: len(a) - k] @ b[k:]) / max(len(a) - k, 1) for k in shifts]
        lag = shifts[int(np.argmax(scores))] * dt
    e = np.asarray(pos)[m, :2] - np.asarray(ref)[m, :2]
    psi = np.asarray(ref_heading)[m]
    lateral = -np.sin(psi) * e[:, 0] + np.cos(psi) * e[:, 1]
    along = np.cos(psi) * e[:, 0] + np.sin(psi) * e[:, 1]
    return {"yaw_lag_s": _r(lag), "max_heading_error_rad": _r(np.max(np.abs(_wrap(h - hr)))),
            "lateral_drift_rms_m": _r(np.sqrt(np.mean(lateral ** 2))),
            "lateral_drift_max_m": _r(np.max(np.abs(lateral))), "along_drift_rms_m": _r(np.sqrt(np.mean(along ** 2)))}


def effort(t, thrust: np.ndarray, rho: float = 1000.0, diameter: float = T200_DIAMETER) -> Dict:
    """Thrust effort and momentum-theory energy of the thrusters' forces (n x m, N)."""
    f = np.abs(np.asarray(thrust, dtype=float))
    area = math.pi * diameter ** 2 / 4.0
    power = np.sum(f ** 1.5, axis=1) / math.sqrt(2.0 * rho * area)
    total = np.sum(f, axis=1)
    return {"thrust_effort_N_s": _r(_trapezoid(total, t)), "thrust_rms_N": _r(np.sqrt(np.mean(f ** 2))),
            "propulsive_energy_J": _r(_trapezoid(power, t)), "mean_propulsive_power_W": _r(np.mean(power))}


#: the 3-D error band of :func:`stack_figures`' settling time (m): the error then stays below
#: the seed's station-keeping bar in still water
SETTLING_BAND = 0.1


def stack_figures(column: Callable[[str], Optional[np.ndarray]], control: str = "control",
                  vehicle: str = "vehicle", mode: str = "hold", waypoints: str = "",
                  rho: float = 1000.0) -> Dict:
    """The figures of one H100 control stack's run (docs/physics/h100.md#acceptance), from the run's columns:
    ``column("instance.Variable")`` is that column (None if the run has none), ``"time"`` the
    time. The truth (``vehicle.Pos``, ``vehicle.Euler[3]``) against the stack's reference
    (``control.RefPosition``, ``control.RefHeading``): position and heading errors over the whole
    run (:func:`station_keeping`), the settling time into ``SETTLING_BAND``, the effort and
    energy of the vehicle's thrusters (``vehicle.Thrust[i]``), and by ``mode`` (the stack's
    ``Mode``) ``tracking`` (waypoints, the legs from the first position) or ``manoeuvre``
    (sshape, sway). Empty when a column is missing."""
    t = column("time")
    names = ([f"{vehicle}.Pos[{i}]" for i in (1, 2, 3)] + [f"{control}.RefPosition[{i}]" for i in (1, 2, 3)]
             + [f"{vehicle}.Euler[3]", f"{control}.RefHeading"])
    cols = [column(n) for n in names]
    if t is None or len(t) < 2 or any(c is None for c in cols):
        return {}
    pos, ref = np.column_stack(cols[:3]), np.column_stack(cols[3:6])
    heading, ref_heading = cols[6], cols[7]
    out = station_keeping(t, pos, ref, heading, ref_heading, skip=float(t[0]))
    settling = settling_time(t, position_error(pos, ref), SETTLING_BAND, start=float(t[0]))
    out["settling_time_s"] = _r(settling)
    out["settling_band_m"] = SETTLING_BAND
    thrust, i = [], 1
    while column(f"{vehicle}.Thrust[{i}]") is not None:
        thrust.append(column(f"{vehicle}.Thrust[{i}]"))
        i += 1
    if thrust:
        out.update(effort(t, np.column_stack(thrust), rho=rho))
    if mode == "waypoints":
        from auv_cosim.stacks.waypoints import parse_waypoints
        try:
            path = [tuple(pos[0])] + parse_waypoints(waypoints)
        except ValueError:
            path = None
        out["tracking"] = tracking(t, pos, ref, heading, ref_heading, path)
    elif mode in ("sshape", "sway"):
        out["manoeuvre"] = manoeuvre(t, pos, ref, heading, ref_heading)
    return out
