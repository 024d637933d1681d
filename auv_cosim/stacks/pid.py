"""Discrete PID with output limits and anti-windup by conditional integration (clamping).

``u = clamp(ff + Kp e + I + D, out_min, out_max)`` at every control period dt, where

* ``e = ref - meas`` (wrapped to (-pi, pi] with ``wrap=True``, for headings);
* ``D = -Kd d(meas)/dt`` is the derivative **of the measurement** (no derivative kick on a
  reference step), from the difference of two successive measurements (wrapped when
  ``wrap=True``), smoothed by an exact first-order lag of time constant ``tf`` (0 = raw);
* ``I`` accumulates ``Ki e dt`` (forward Euler) **only** when that does not push an output
  that is already beyond a limit further beyond it (conditional integration). ``I`` is in
  addition kept within ``[i_min, i_max]`` (default: the output limits), so it can never
  hold more than the whole output range. With ``i_band`` the integrator also holds while
  ``|e| > i_band`` (integral separation: no integration during large transients).

Leaving saturation is therefore immediate once the error changes sign: the integrator never
stores the excess of a long saturation.
"""
from __future__ import annotations

import math
from typing import Optional

from .angles import wrap_pi
from .filters import lag_coefficient


def clamp(x: float, lo: float, hi: float) -> float:
    return lo if x < lo else hi if x > hi else x


class PID:
    def __init__(self, kp: float, ki: float = 0.0, kd: float = 0.0, *,
                 out_min: float = -math.inf, out_max: float = math.inf,
                 i_min: Optional[float] = None, i_max: Optional[float] = None,
                 tf: float = 0.0, wrap: bool = False, i_band: float = math.inf):
        if out_min > out_max:
            raise ValueError(f"PID output limits inverted: {out_min} > {out_max}")
        self.kp, self.ki, self.kd = float(kp), float(ki), float(kd)
        self.out_min, self.out_max = float(out_min), float(out_max)
        self.i_min = self.out_min if i_min is None else float(i_min)
        self.i_max = self.out_max if i_max is None else float(i_max)
        self.tf = float(tf)
        self.wrap = bool(wrap)
        if not i_band > 0.0:
            raise ValueError(f"PID integral band must be > 0, got {i_band!r}")
        self.i_band = float(i_band)
        self._lag_dt, self._lag_a = None, 0.0   # the last step length and its filter coefficient
        self.reset()

    def reset(self, integral: float = 0.0) -> None:
        self.integral = float(integral)
        self.prev_meas: Optional[float] = None
        self.deriv = 0.0            # filtered d(meas)/dt
        self.last_output = 0.0
        self.saturated = False

    def update(self, ref: float, meas: float, dt: float, ff: float = 0.0) -> float:
        """One control period. ``dt <= 0`` evaluates the law without advancing any state."""
        e = ref - meas
        wrap = self.wrap
        if wrap:
            e = wrap_pi(e)
        advance = dt > 0.0
        # derivative of the measurement
        deriv = self.deriv
        if advance and self.prev_meas is not None:
            dm = meas - self.prev_meas
            if wrap:
                dm = wrap_pi(dm)
            raw = dm / dt
            if dt != self._lag_dt:    # the filter's coefficient, computed once per step length
                self._lag_dt, self._lag_a = dt, lag_coefficient(dt, self.tf)
            a = self._lag_a
            deriv = a * deriv + (1.0 - a) * raw
        d_term = -self.kd * deriv
        p_term = self.kp * e

        integral = self.integral
        if advance and self.ki != 0.0 and abs(e) <= self.i_band:
            candidate = clamp(integral + self.ki * e * dt, self.i_min, self.i_max)
            u_try = ff + p_term + candidate + d_term
            pushes_up = candidate > integral
            pushes_down = candidate < integral
            if (u_try > self.out_max and pushes_up) or (u_try < self.out_min and pushes_down):
                candidate = integral       # hold: conditional integration
            integral = candidate
        u_raw = ff + p_term + integral + d_term
        out_min, out_max = self.out_min, self.out_max
        u = out_min if u_raw < out_min else out_max if u_raw > out_max else u_raw   # clamp
        if advance:
            self.integral = integral
            self.deriv = deriv
            self.prev_meas = meas
            self.last_output = u
            self.saturated = u != u_raw
        return u

    # state save/restore (JSON-friendly)
    def get_state(self) -> dict:
        return {"integral": self.integral, "prev_meas": self.prev_meas, "deriv": self.deriv,
                "last_output": self.last_output, "saturated": self.saturated}

    def set_state(self, s: dict) -> None:
        self.integral = float(s["integral"])
        self.prev_meas = None if s["prev_meas"] is None else float(s["prev_meas"])
        self.deriv = float(s["deriv"])
        self.last_output = float(s["last_output"])
        self.saturated = bool(s["saturated"])
