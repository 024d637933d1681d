"""Frames: the project's NED against MoorDyn's z-up frame, and the point of a rigid body the
tether's end is fastened to. Plain Python on 3-tuples (a handful of numbers per step: numpy's
call overhead would cost more than the arithmetic).
"""
from __future__ import annotations

from typing import Sequence, Tuple

Vector3 = Tuple[float, float, float]


def ned_to_moordyn(v: Sequence[float]) -> Vector3:
    """(north, east, down) -> MoorDyn's (x, y, z) = (north, -east, -down).

    Why: MoorDyn's z points up with the water surface at z = 0 (its seabed is z = -WtrDpth, its
    weight acts along -z), while the project is NED with the surface at down = 0. A half turn
    about north maps one onto the other and keeps the frame right-handed (a mirror, flipping
    only z, would turn every cross product MoorDyn forms); the surface stays at zero. The map is
    its own inverse: `moordyn_to_ned` is the same function."""
    return (float(v[0]), -float(v[1]), -float(v[2]))


#: the half turn is its own inverse
moordyn_to_ned = ned_to_moordyn


def cross(a: Sequence[float], b: Sequence[float]) -> Vector3:
    """a x b."""
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def rotate(q: Sequence[float], v: Sequence[float]) -> Vector3:
    """R(q) v for the unit quaternion q = (q0, q1, q2, q3) (scalar first, body to NED):
    v + 2 q0 (u x v) + 2 u x (u x v) with u = (q1, q2, q3), the rotation written with cross
    products (no matrix is formed for one vector)."""
    u = (q[1], q[2], q[3])
    t = cross(u, v)
    t = (2.0 * t[0], 2.0 * t[1], 2.0 * t[2])
    w = cross(u, t)
    return (v[0] + q[0] * t[0] + w[0], v[1] + q[0] * t[1] + w[1], v[2] + q[0] * t[2] + w[2])


def attachment_point(pos: Sequence[float], vel: Sequence[float], quater: Sequence[float],
                     omega: Sequence[float], offset: Sequence[float]) -> Tuple[Vector3, Vector3, Vector3]:
    """The fastening point P of a rigid body: (P, its velocity, the lever r = P - O), all NED.

    P = O + R r_b and v_P = v_O + R (omega x r_b), with O the body's reference point (`pos`,
    velocity `vel` NED), R = R(quater) body to NED, omega the angular velocity in the body frame
    and r_b = `offset` in the body frame: the kinematics of a point fixed to a rigid body. The
    lever gives the moment r x F of the tether's force about O in NED axes, what a vehicle's
    ExternalMoment takes."""
    lever = rotate(quater, offset)
    spin = rotate(quater, cross(omega, offset))
    return ((pos[0] + lever[0], pos[1] + lever[1], pos[2] + lever[2]),
            (vel[0] + spin[0], vel[1] + spin[1], vel[2] + spin[2]), lever)
