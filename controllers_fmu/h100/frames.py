"""Frames of the H100's controllers: ZYX Euler angles (roll, pitch, yaw) to the rotation body ->
NED and the Euler-rate transformation (Fossen 2011 eqs. 2.18, 2.41); the rotations themselves
come from vehicle_model.rotation."""
from __future__ import annotations

import math

import numpy as np

from vehicle_model.rotation import quaternion_from_euler, rotation_matrix


def rotation_of(euler) -> np.ndarray:
    """R (body to NED) of ZYX Euler angles (roll, pitch, yaw)."""
    return rotation_matrix(np.asarray(quaternion_from_euler(float(euler[0]), float(euler[1]), float(euler[2]))))


def euler_rate_matrix(euler) -> np.ndarray:
    """T(Theta): Euler angle rates = T omega (Fossen 2011 eq. 2.41); singular at pitch +-90 deg,
    where the pitch is clamped a hair short of it."""
    roll, pitch = float(euler[0]), max(min(float(euler[1]), 1.55), -1.55)
    sr, cr = math.sin(roll), math.cos(roll)
    tp, cp = math.tan(pitch), math.cos(pitch)
    return np.array([[1.0, sr * tp, cr * tp],
                     [0.0, cr, -sr],
                     [0.0, sr / cp, cr / cp]])


def euler_rate_matrix_inverse(euler) -> np.ndarray:
    """T(Theta)^-1: body rates = T^-1 Euler angle rates."""
    roll, pitch = float(euler[0]), float(euler[1])
    sr, cr = math.sin(roll), math.cos(roll)
    sp, cp = math.sin(pitch), math.cos(pitch)
    return np.array([[1.0, 0.0, -sp],
                     [0.0, cr, cp * sr],
                     [0.0, -sr, cp * cr]])
