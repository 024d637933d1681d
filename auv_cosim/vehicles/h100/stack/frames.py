"""Frames of the H100's controllers: ZYX Euler angles (roll, pitch, yaw) to the rotation body ->
NED and the Euler-rate transformation (Fossen 2011 eqs. 2.18, 2.41).

In plain Python floats, not numpy: the controllers turn a handful of 3-vectors per control
period, and one numpy call on a 3-vector costs about as much as the whole product in floats.
A rotation is the tuple of its nine entries row by row, ``(r11, r12, r13, r21, ..., r33)``.

An attitude's sines, cosines and rotation are computed once (:class:`Attitude`) and shared by
every transformation of the control step that uses them: the navigation's dead reckoning and
the controllers' several changes of frame would otherwise recompute the same six
trigonometric functions eight to twelve times a step.
"""
from __future__ import annotations

import math
from typing import List, Sequence, Tuple

Rotation = Tuple[float, float, float, float, float, float, float, float, float]

#: the pitch is clamped this far short of +-90 deg where T(Theta) is singular
PITCH_LIMIT = 1.55


class Attitude:
    """ZYX Euler angles with their sines and cosines (``sr, cr`` of the roll, ``sp, cp`` of the
    pitch, ``sy, cy`` of the yaw) and ``r``, R (body to NED) of Fossen 2011 eq. 2.18::

        R = [[c psi c theta, -s psi c phi + c psi s theta s phi,  s psi s phi + c psi c phi s theta],
             [s psi c theta,  c psi c phi + s phi s theta s psi, -c psi s phi + s theta s psi c phi],
             [-s theta,       c theta s phi,                      c theta c phi]]

    ``euler`` is a copy of the angles it was computed from (a cache compares them)."""

    __slots__ = ("euler", "sr", "cr", "sp", "cp", "sy", "cy", "r")

    def __init__(self, euler: Sequence[float]):
        self.euler = [euler[0], euler[1], euler[2]]
        self.sr, self.cr = sr, cr = math.sin(euler[0]), math.cos(euler[0])
        self.sp, self.cp = sp, cp = math.sin(euler[1]), math.cos(euler[1])
        self.sy, self.cy = sy, cy = math.sin(euler[2]), math.cos(euler[2])
        self.r = (cy * cp, -sy * cr + cy * sp * sr, sy * sr + cy * cr * sp,
                  sy * cp, cy * cr + sr * sp * sy, -cy * sr + sp * sy * cr,
                  -sp, cp * sr, cp * cr)


def to_ned(r: Rotation, v: Sequence[float]) -> List[float]:
    """``R v``: a body-axis vector in NED."""
    return [r[0] * v[0] + r[1] * v[1] + r[2] * v[2],
            r[3] * v[0] + r[4] * v[1] + r[5] * v[2],
            r[6] * v[0] + r[7] * v[1] + r[8] * v[2]]


def to_body(r: Rotation, v: Sequence[float]) -> List[float]:
    """``R^T v``: an NED vector in body axes."""
    return [r[0] * v[0] + r[3] * v[1] + r[6] * v[2],
            r[1] * v[0] + r[4] * v[1] + r[7] * v[2],
            r[2] * v[0] + r[5] * v[1] + r[8] * v[2]]


def euler_rates(a: Attitude, omega: Sequence[float]) -> List[float]:
    """``T(Theta) omega``: the Euler angle rates of the body rates at the attitude ``a``
    (Fossen 2011 eq. 2.41)::

        T = [[1, s phi t theta, c phi t theta], [0, c phi, -s phi], [0, s phi / c theta, c phi / c theta]]

    singular at pitch +-90 deg, where the pitch is clamped to PITCH_LIMIT."""
    theta = a.euler[1]
    if -PITCH_LIMIT <= theta <= PITCH_LIMIT:
        tp, cp = math.tan(theta), a.cp
    else:
        pitch = max(min(theta, PITCH_LIMIT), -PITCH_LIMIT)
        tp, cp = math.tan(pitch), math.cos(pitch)
    sr, cr = a.sr, a.cr
    p, q, r = omega[0], omega[1], omega[2]
    return [p + sr * tp * q + cr * tp * r, cr * q - sr * r, (sr * q + cr * r) / cp]


def body_rates(a: Attitude, rates: Sequence[float]) -> List[float]:
    """``T(Theta)^-1 Theta'``: the body rates of Euler angle rates at the attitude ``a``::

        T^-1 = [[1, 0, -s theta], [0, c phi, c theta s phi], [0, -s phi, c theta c phi]]
    """
    sr, cr, sp, cp = a.sr, a.cr, a.sp, a.cp
    return [rates[0] - sp * rates[2], cr * rates[1] + cp * sr * rates[2], -sr * rates[1] + cp * cr * rates[2]]
