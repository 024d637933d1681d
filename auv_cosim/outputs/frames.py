"""The vehicles' frames as Foxglove's 3-D panel and ROS expect them: written once, here.

The project's world is NED (x north, y east, z down, the origin the scenario's NED origin) and
its body frame FRD (x forward, y starboard, z down); its attitudes are quaternions body -> NED
(scalar first; from ``Quater[1..4]``, or from the ZYX Euler angles ``Euler[1..3]`` roll, pitch,
yaw). Foxglove's 3-D panel draws z up, and ROS (REP 103) uses ENU for the world (x east, y
north, z up) and FLU for a body (x forward, y port, z up). The channels of ``foxglove`` and the
messages of ``rosbag`` are therefore given in

- the world frame ``world``: ENU with its origin at the scenario's NED origin; a point
  ``(n, e, d)`` is ``(e, n, -d)`` there (exact in floating point: a swap and a sign);
- each vehicle's body frame ``<vehicle>``: FLU; ``(x, y, z)`` FRD is ``(x, -y, -z)`` there.

The attitude body -> world of a vehicle is then

    q_ENU<-FLU = q_ENU<-NED * q_NED<-FRD * q_FRD<-FLU,

with q_ENU<-NED = (0, 1/sqrt2, 1/sqrt2, 0) (half a turn about the axis halfway between north
and east) and q_FRD<-FLU = (0, 1, 0, 0) (half a turn about x). Multiplied out, for
q_NED<-FRD = (w, x, y, z):

    q_ENU<-FLU = (w + z, x + y, x - y, w - z) / sqrt2

A vehicle level and heading north (q = (1, 0, 0, 0)) is a quarter turn about z up in ENU: its
x (forward) points along the world's y (north), as it should. tests/outputs/test_frames.py
checks the closed form against the product of the rotation matrices.
"""

from __future__ import annotations

import math

import numpy as np

WORLD_FRAME = "world"
SQRT_HALF = math.sqrt(0.5)


def ned_to_enu(ned: np.ndarray) -> np.ndarray:
    """Points or vectors (..., 3) from NED to ENU: (n, e, d) -> (e, n, -d)."""
    ned = np.asarray(ned, dtype=float)
    return np.stack([ned[..., 1], ned[..., 0], -ned[..., 2]], axis=-1)


def frd_to_flu(v: np.ndarray) -> np.ndarray:
    """Body vectors (..., 3) from FRD to FLU: (x, y, z) -> (x, -y, -z) (angular rates too)."""
    v = np.asarray(v, dtype=float)
    return np.stack([v[..., 0], -v[..., 1], -v[..., 2]], axis=-1)


def attitude_to_enu_flu(q: np.ndarray) -> np.ndarray:
    """Attitudes (..., 4) body FRD -> NED (w, x, y, z) as body FLU -> ENU (w, x, y, z): the
    closed form of the module's docstring."""
    q = np.asarray(q, dtype=float)
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return SQRT_HALF * np.stack([w + z, x + y, x - y, w - z], axis=-1)


def euler_to_quaternion(roll, pitch, yaw) -> np.ndarray:
    """ZYX Euler angles (body -> NED) to quaternions (..., 4), scalar first."""
    roll, pitch, yaw = (np.asarray(a, dtype=float) for a in (roll, pitch, yaw))
    cr, sr = np.cos(roll / 2), np.sin(roll / 2)
    cp, sp = np.cos(pitch / 2), np.sin(pitch / 2)
    cy, sy = np.cos(yaw / 2), np.sin(yaw / 2)
    return np.stack([cr * cp * cy + sr * sp * sy, sr * cp * cy - cr * sp * sy,
                     cr * sp * cy + sr * cp * sy, cr * cp * sy - sr * sp * cy], axis=-1)


def to_xyzw(q: np.ndarray) -> tuple[float, float, float, float]:
    """One quaternion (w, x, y, z) as the (x, y, z, w) of Foxglove's and ROS's messages."""
    return float(q[1]), float(q[2]), float(q[3]), float(q[0])


def stamp(t: float, t0: float) -> tuple[int, int, int]:
    """A message's time from simulated time t of a run that started at t0: (nanoseconds, sec,
    nanosec) since the run's start (Foxglove's timeline and ROS stamps start at zero), rounded
    to the nanosecond."""
    ns = int(round((t - t0) * 1e9))
    return ns, ns // 1_000_000_000, ns % 1_000_000_000
