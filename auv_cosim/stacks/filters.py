"""First-order lags, discretised exactly for an input held over the step.

Continuous model ``tau y' = x - y``. With the input held constant over a step of length dt
(zero-order hold) the exact update is ``y+ = a y + (1 - a) x`` with ``a = exp(-dt / tau)``.
A time constant of 0 (or below) is a pass-through: ``y+ = x`` exactly, bit for bit.
"""
from __future__ import annotations

import math
from typing import Optional

from .angles import wrap_pi


def lag_coefficient(dt: float, tau: float) -> float:
    """``exp(-dt/tau)``; 0 for a pass-through (tau <= 0) or a non-positive step."""
    if tau <= 0.0:
        return 0.0
    if dt <= 0.0:
        return 1.0
    return math.exp(-dt / tau)


class FirstOrderLag:
    """Scalar first-order lag. The first sample initialises the state (no start-up transient).
    The coefficient of the last step length is kept: a fixed control period costs no exp."""

    def __init__(self, tau: float):
        self.tau = float(tau)
        self.y: Optional[float] = None
        self._dt, self._a = None, 0.0     # the last step length and its lag_coefficient

    def coefficient(self, dt: float) -> float:
        """``lag_coefficient(dt, tau)``, computed once per step length."""
        if dt != self._dt:
            self._dt, self._a = dt, lag_coefficient(dt, self.tau)
        return self._a

    def reset(self, value: Optional[float] = None) -> None:
        self.y = None if value is None else float(value)

    def update(self, x: float, dt: float) -> float:
        x = float(x)
        y = self.y
        if y is None or self.tau <= 0.0:
            self.y = x
            return x
        a = self._a if dt == self._dt else self.coefficient(dt)   # every step of a fixed period
        self.y = y = a * y + (1.0 - a) * x
        return y

    # state save/restore (JSON-friendly)
    def get_state(self):
        return self.y

    def set_state(self, state) -> None:
        self.y = None if state is None else float(state)


class AngleLag(FirstOrderLag):
    """First-order lag of an angle, on the circle: it filters the wrapped error.

    ``y+ = wrap(y + (1 - a) wrap(x - y))``, so a heading crossing +-pi is lagged the short
    way round and the output stays in (-pi, pi]. With tau = 0 it returns x unchanged.
    """

    def update(self, x: float, dt: float) -> float:
        x = float(x)
        y = self.y
        if y is None or self.tau <= 0.0:
            self.y = x
            return x
        a = self._a if dt == self._dt else self.coefficient(dt)
        self.y = y = wrap_pi(y + (1.0 - a) * wrap_pi(x - y))
        return y
