"""Rotations and quaternion kinematics (seed 003), scalar-first quaternions, body to NED."""
import math

import numpy as np

from ..compiled.jit import jit


@jit
def cross(a, b):
    """The cross product a x b of two 3-vectors."""
    out = np.empty(3)
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]
    return out


@jit
def skew(a):
    """The matrix S(a) with S(a) b = a x b."""
    out = np.zeros((3, 3))
    out[0, 1] = -a[2]
    out[0, 2] = a[1]
    out[1, 0] = a[2]
    out[1, 2] = -a[0]
    out[2, 0] = -a[1]
    out[2, 1] = a[0]
    return out


@jit
def rotate(r, v):
    """R v, written out: numba's generic 3 x 3 product costs more than the arithmetic."""
    out = np.empty(3)
    for i in range(3):
        out[i] = r[i, 0] * v[0] + r[i, 1] * v[1] + r[i, 2] * v[2]
    return out


@jit
def rotate_back(r, v):
    """R^T v, written out (see `rotate`)."""
    out = np.empty(3)
    for i in range(3):
        out[i] = r[0, i] * v[0] + r[1, i] * v[1] + r[2, i] * v[2]
    return out


@jit
def rotation_matrix(q):
    """R(q), body to NED, for the quaternion q = (q0, q1, q2, q3), scalar first.

    R = [[1 - 2(q2^2 + q3^2), 2(q1 q2 - q0 q3),   2(q1 q3 + q0 q2)],
         [2(q1 q2 + q0 q3),   1 - 2(q1^2 + q3^2), 2(q2 q3 - q0 q1)],
         [2(q1 q3 - q0 q2),   2(q2 q3 + q0 q1),   1 - 2(q1^2 + q2^2)]]
    The norm-restoring term of the kinematics keeps |q| at one, so the unit-norm form is used.
    """
    q0, q1, q2, q3 = q[0], q[1], q[2], q[3]
    r = np.empty((3, 3))
    r[0, 0] = 1.0 - 2.0 * (q2 * q2 + q3 * q3)
    r[0, 1] = 2.0 * (q1 * q2 - q0 * q3)
    r[0, 2] = 2.0 * (q1 * q3 + q0 * q2)
    r[1, 0] = 2.0 * (q1 * q2 + q0 * q3)
    r[1, 1] = 1.0 - 2.0 * (q1 * q1 + q3 * q3)
    r[1, 2] = 2.0 * (q2 * q3 - q0 * q1)
    r[2, 0] = 2.0 * (q1 * q3 - q0 * q2)
    r[2, 1] = 2.0 * (q2 * q3 + q0 * q1)
    r[2, 2] = 1.0 - 2.0 * (q1 * q1 + q2 * q2)
    return r


@jit
def rotation_matrix_derivatives(q):
    """dR/dq_k for k = 0..3, as an array of shape (4, 3, 3), of `rotation_matrix`."""
    q0, q1, q2, q3 = q[0], q[1], q[2], q[3]
    d = np.zeros((4, 3, 3))
    # d/dq0
    d[0, 0, 1] = -2.0 * q3
    d[0, 0, 2] = 2.0 * q2
    d[0, 1, 0] = 2.0 * q3
    d[0, 1, 2] = -2.0 * q1
    d[0, 2, 0] = -2.0 * q2
    d[0, 2, 1] = 2.0 * q1
    # d/dq1
    d[1, 0, 1] = 2.0 * q2
    d[1, 0, 2] = 2.0 * q3
    d[1, 1, 0] = 2.0 * q2
    d[1, 1, 1] = -4.0 * q1
    d[1, 1, 2] = -2.0 * q0
    d[1, 2, 0] = 2.0 * q3
    d[1, 2, 1] = 2.0 * q0
    d[1, 2, 2] = -4.0 * q1
    # d/dq2
    d[2, 0, 0] = -4.0 * q2
    d[2, 0, 1] = 2.0 * q1
    d[2, 0, 2] = 2.0 * q0
    d[2, 1, 0] = 2.0 * q1
    d[2, 1, 2] = 2.0 * q3
    d[2, 2, 0] = -2.0 * q0
    d[2, 2, 1] = 2.0 * q3
    d[2, 2, 2] = -4.0 * q2
    # d/dq3
    d[3, 0, 0] = -4.0 * q3
    d[3, 0, 1] = -2.0 * q0
    d[3, 0, 2] = 2.0 * q1
    d[3, 1, 0] = 2.0 * q0
    d[3, 1, 1] = -4.0 * q3
    d[3, 1, 2] = 2.0 * q2
    d[3, 2, 0] = 2.0 * q1
    d[3, 2, 1] = 2.0 * q2
    return d


@jit
def quaternion_rate_matrix(q):
    """T(q), 4 x 3, with 1/2 q (x) (0, omega) = T(q) omega.

    T = 1/2 [[-q1, -q2, -q3],
             [ q0, -q3,  q2],
             [ q3,  q0, -q1],
             [-q2,  q1,  q0]]
    """
    t = np.empty((4, 3))
    t[0, 0], t[0, 1], t[0, 2] = -q[1], -q[2], -q[3]
    t[1, 0], t[1, 1], t[1, 2] = q[0], -q[3], q[2]
    t[2, 0], t[2, 1], t[2, 2] = q[3], q[0], -q[1]
    t[3, 0], t[3, 1], t[3, 2] = -q[2], q[1], q[0]
    return 0.5 * t


@jit
def quaternion_derivative(q, omega, convergence_time):
    """q' = 1/2 q (x) (0, omega) + (1 - |q|^2) q / (2 tau)   (seed 003, OmegaToQDot).

    The product T(q) omega of `quaternion_rate_matrix` is written out.
    """
    norm_gain = (1.0 - (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])) / (2.0 * convergence_time)
    p, qq, r = omega[0], omega[1], omega[2]
    out = np.empty(4)
    out[0] = 0.5 * (-q[1] * p - q[2] * qq - q[3] * r) + norm_gain * q[0]
    out[1] = 0.5 * (q[0] * p - q[3] * qq + q[2] * r) + norm_gain * q[1]
    out[2] = 0.5 * (q[3] * p + q[0] * qq - q[1] * r) + norm_gain * q[2]
    out[3] = 0.5 * (-q[2] * p + q[1] * qq + q[0] * r) + norm_gain * q[3]
    return out


@jit
def quaternion_derivative_jacobian(q, omega, convergence_time):
    """d q' / d q, 4 x 4: 1/2 W(omega) + ((1 - |q|^2) I - 2 q q^T) / (2 tau).

    W(omega) = [[0, -p, -q, -r], [p, 0, r, -q], [q, -r, 0, p], [r, q, -p, 0]].
    """
    p, qq, r = omega[0], omega[1], omega[2]
    w = np.array([[0.0, -p, -qq, -r], [p, 0.0, r, -qq], [qq, -r, 0.0, p], [r, qq, -p, 0.0]])
    norm_error = 1.0 - (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    return 0.5 * w + (norm_error * np.eye(4) - 2.0 * np.outer(q, q)) / (2.0 * convergence_time)


@jit
def euler_angles(r):
    """Roll, pitch, yaw (ZYX) of the body-to-NED matrix R: phi = atan2(R32, R33),
    theta = -asin(R31), psi = atan2(R21, R11). Yaw in (-pi, pi], pitch positive nose up."""
    sin_pitch = -r[2, 0]
    if sin_pitch > 1.0:
        sin_pitch = 1.0
    elif sin_pitch < -1.0:
        sin_pitch = -1.0
    out = np.empty(3)
    out[0] = math.atan2(r[2, 1], r[2, 2])
    out[1] = math.asin(sin_pitch)
    out[2] = math.atan2(r[1, 0], r[0, 0])
    return out


def quaternion_from_euler(roll, pitch, yaw):
    """The unit quaternion (scalar first) of ZYX Euler angles, for initial conditions."""
    cr, sr = math.cos(roll / 2), math.sin(roll / 2)
    cp, sp = math.cos(pitch / 2), math.sin(pitch / 2)
    cy, sy = math.cos(yaw / 2), math.sin(yaw / 2)
    return np.array([
        cr * cp * cy + sr * sp * sy,
        sr * cp * cy - cr * sp * sy,
        cr * sp * cy + sr * cp * sy,
        cr * cp * sy - sr * sp * cy,
    ])
