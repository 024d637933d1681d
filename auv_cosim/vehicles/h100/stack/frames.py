"""Frames of the H100's controllers: ZYX Euler angles (roll, pitch, yaw) to the rotation body ->
NED (Fossen 2011 eq. 2.18); the compiled control step (control_kernel.py) turns vectors and
Euler rates with what an :class:`Attitude` holds.

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
from typing import Sequence, Tuple

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
