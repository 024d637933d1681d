"""Angle helpers. Every heading in this package is wrapped to (-pi, pi]."""
from __future__ import annotations

import math

TWO_PI = 2.0 * math.pi


def wrap_pi(angle: float) -> float:
    """Wrap an angle to the half-open interval (-pi, pi] (so -pi maps to +pi)."""
    a = math.fmod(angle, TWO_PI)          # (-2pi, 2pi), sign of angle
    if a > math.pi:
        a -= TWO_PI
    elif a <= -math.pi:
        a += TWO_PI
    return a


def angle_diff(a: float, b: float) -> float:
    """The shortest signed rotation from b to a, wrapped to (-pi, pi]."""
    return wrap_pi(a - b)
