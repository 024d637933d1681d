"""The arithmetic of the H100's control step compiled with numba: the controllers' laws
(controllers.py) and the allocation's fast path (auv_cosim/vehicles/h100/stack/allocation.py) over flat float64
arrays, one call where the plain Python of a step made some hundred small ones.

Each kernel does the same floating-point operations, in the same order, as the Python it
replaces (numba without fastmath keeps IEEE semantics: no reassociation, no fused multiply-add),
so a run's results stay the same bit for bit; the tests compare every kernel with its own
plain-Python execution (``kernel.py_func``) and the stack with the recorded results. What a
kernel cannot reproduce stays in Python around it: the products of small matrices (numpy's dot
through BLAS, whose summation order a loop does not reproduce: the LQR gain and the
allocation's pseudo-inverse), ``math.hypot`` (CPython's own algorithm, not the C library's: the
kernel reports when the speed limit may bind and takes the norm from the caller), the
vehicle library's motion wrench (its own compiled function, called between two kernels) and
Python's ``round`` of the LQR schedule.

The arrays (all float64, C-contiguous, preallocated by their owners):

* ``io`` (24): the estimate (position 0:3, Euler angles 3:6, body velocity and rates 6:12) and
  the reference (position 12:15, velocity 15:18, acceleration 18:21, heading rate 21, heading
  acceleration 22), and the wrapped heading error ``ref.heading - estimate heading`` 23;
* ``x``: the belief's state vector on which the motion wrench is evaluated (position 0:3,
  quaternion 3:7, body velocity 7:13; the rest, the thrusters, stays as the belief set it);
* ``work``: each controller's intermediate vectors between its two kernels;
* ``tau`` (6): the desired wrench.

Compiled once and cached (numba's cache, shipped inside every FMU that carries this package:
tools/build_fmus.py, auv_cosim/compiled/shipped_cache.py); without numba (or with ``AUV_NO_JIT=1``) the
same functions run as plain Python.
"""
from __future__ import annotations

import math

from ....compiled.jit import jit

from ....stacks.kernel_laws import (
    LOOP_CONSTANTS_SIZE,
    LOOP_DERIV,
    LOOP_HAS_PREV,
    LOOP_I_BAND,
    LOOP_I_MAX,
    LOOP_I_MIN,
    LOOP_INTEGRAL,
    LOOP_KD,
    LOOP_KI,
    LOOP_KP,
    LOOP_LAG,
    LOOP_LAST_OUTPUT,
    LOOP_OUT_MAX,
    LOOP_OUT_MIN,
    LOOP_PREV_MEAS,
    LOOP_SATURATED,
    LOOP_STATE_SIZE,
    pid_update,
)
from .frames import PITCH_LIMIT

#: the layout of ``io``
EST_POS, EST_EULER, EST_NU = 0, 3, 6
REF_POS, REF_VEL, REF_ACC, REF_HEADING_RATE, REF_HEADING_ACC, HEADING_ERROR = 12, 15, 18, 21, 22, 23
IO_SIZE = 24



# ------------------------------------------------------------------------------ frames
@jit
def rotation_into(roll, pitch, yaw, r):
    """R (body to NED) of ZYX Euler angles, row by row into ``r`` (9), written as
    frames.Attitude writes it (Fossen 2011 eq. 2.18); returns (sr, cr, sp, cp, sy, cy)."""
    sr, cr = math.sin(roll), math.cos(roll)
    sp, cp = math.sin(pitch), math.cos(pitch)
    sy, cy = math.sin(yaw), math.cos(yaw)
    r[0] = cy * cp
    r[1] = -sy * cr + cy * sp * sr
    r[2] = sy * sr + cy * cr * sp
    r[3] = sy * cp
    r[4] = cy * cr + sr * sp * sy
    r[5] = -cy * sr + sp * sy * cr
    r[6] = -sp
    r[7] = cp * sr
    r[8] = cp * cr
    return sr, cr, sp, cp, sy, cy


@jit
def to_body_into(r, v0, v1, v2, out, at):
    """``R^T v`` into ``out[at:at + 3]``: an NED vector in body axes (R of Fossen 2011 eq. 2.18)."""
    out[at] = r[0] * v0 + r[3] * v1 + r[6] * v2
    out[at + 1] = r[1] * v0 + r[4] * v1 + r[7] * v2
    out[at + 2] = r[2] * v0 + r[5] * v1 + r[8] * v2


@jit
def body_rates_into(sr, cr, sp, cp, rate0, rate1, rate2, out, at):
    """``T(Theta)^-1 Theta'`` into ``out[at:at + 3]``: the body rates of Euler angle rates::

        T^-1 = [[1, 0, -s theta], [0, c phi, c theta s phi], [0, -s phi, c theta c phi]]
    """
    out[at] = rate0 - sp * rate2
    out[at + 1] = cr * rate1 + cp * sr * rate2
    out[at + 2] = -sr * rate1 + cp * cr * rate2


@jit
def quaternion_into(roll, pitch, yaw, x):
    """The unit quaternion (scalar first) of ZYX Euler angles into ``x[3:7]``: the same
    products as auv_cosim.vehicles.rotation.quaternion_from_euler (the state the motion wrench is
    evaluated on; a test holds them equal bit for bit)."""
    cr, sr = math.cos(roll / 2), math.sin(roll / 2)
    cp, sp = math.cos(pitch / 2), math.sin(pitch / 2)
    cy, sy = math.cos(yaw / 2), math.sin(yaw / 2)
    x[3] = cr * cp * cy + sr * sp * sy
    x[4] = sr * cp * cy - cr * sp * sy
    x[5] = cr * sp * cy + sr * cp * sy
    x[6] = cr * cp * sy - sr * sp * cy


@jit
def pose_into(io, x):
    """The estimate's position and attitude (as a quaternion) into the state ``x`` the motion
    wrench is evaluated on (belief.motion_wrench)."""
    x[0] = io[EST_POS]
    x[1] = io[EST_POS + 1]
    x[2] = io[EST_POS + 2]
    quaternion_into(io[EST_EULER], io[EST_EULER + 1], io[EST_EULER + 2], x)


@jit
def mass_times_one(mass, diagonal, v, j):
    """``(M v)_j``, M the believed mass matrix (belief.mass_array; its diagonal alone when ``diagonal``)."""
    if diagonal:
        return mass[j, j] * v[j]
    s = 0.0
    for k in range(6):
        if mass[j, k] != 0.0:
            s += mass[j, k] * v[k]
    return s


@jit
def reference_body_motion_into(io, r, sr, cr, sp, cp, nu_out, nu_at, acc_out, acc_at):
    """The reference's velocity (``nu_out[nu_at:nu_at + 6]``) and acceleration
    (``acc_out[acc_at:acc_at + 6]``) in body axes (controllers.reference_body_motion)."""
    to_body_into(r, io[REF_VEL], io[REF_VEL + 1], io[REF_VEL + 2], nu_out, nu_at)
    body_rates_into(sr, cr, sp, cp, 0.0, 0.0, io[REF_HEADING_RATE], nu_out, nu_at + 3)
    to_body_into(r, io[REF_ACC], io[REF_ACC + 1], io[REF_ACC + 2], acc_out, acc_at)
    body_rates_into(sr, cr, sp, cp, 0.0, 0.0, io[REF_HEADING_ACC], acc_out, acc_at + 3)


@jit
def clip_into(tau, limits):
    """Each axis of ``tau`` within ``[-limit, limit]`` in place; True if any was clipped
    (controllers._Controller._clip and the comparison of the clipped list with the raw one)."""
    clipped = False
    for j in range(6):
        t, limit = tau[j], limits[j]
        if t < -limit:
            tau[j] = -limit
            clipped = True
        elif t > limit:
            tau[j] = limit
            clipped = True
    return clipped


# ------------------------------------------------------------------------------ navigation
@jit
def dead_reckoning(north, east, roll, pitch, yaw, u, v, w, dt):
    """The position (north, east) dead-reckoned over dt with the body velocity (u, v, w) at the
    attitude (roll, pitch, yaw): ``p_ne + (R nu)_ne dt``, R's first two rows written as
    frames.Attitude writes them (navigation.Navigation.update)."""
    sr, cr = math.sin(roll), math.cos(roll)
    sp, cp = math.sin(pitch), math.cos(pitch)
    sy, cy = math.sin(yaw), math.cos(yaw)
    r0 = cy * cp
    r1 = -sy * cr + cy * sp * sr
    r2 = sy * sr + cy * cr * sp
    r3 = sy * cp
    r4 = cy * cr + sr * sp * sy
    r5 = -cy * sr + sp * sy * cr
    return north + (r0 * u + r1 * v + r2 * w) * dt, east + (r3 * u + r4 * v + r5 * w) * dt


# ------------------------------------------------------------------------------ cascade PID
#: ``work`` of the cascade PID: the desired velocity 0:6, the reference's body acceleration 6:12,
#: the rotation 12:21, the horizontal desired velocity before its limit 21:23
PID_WORK_SIZE = 23


@jit
def pid_outer(io, gains, horizontal, x, work):
    """The outer loops and the feed-forward's motion (controllers.CascadePid.desired_velocity
    and reference_body_motion): ``nu_d`` into ``work[0:6]``, the reference's body velocity into
    ``x[7:13]`` (where the motion wrench reads it), its acceleration into ``work[6:12]``, the
    pose into ``x[0:7]``. ``gains`` = (PositionGain, AttitudeGain, HeadingGain, MaxSpeed,
    MaxYawRate). ``horizontal`` is ``hypot`` of the horizontal desired velocity when the caller
    computed it, negative otherwise: then when the speed limit may bind (the squared norm within
    a part in 1e9 of the limit's or beyond) nothing is written and False returned, the caller
    computing the norm with math.hypot (CPython's, which no compiled loop reproduces) and calling
    again."""
    position_gain, attitude_gain, heading_gain, max_speed, max_yaw_rate = gains[0], gains[1], gains[2], gains[3], gains[4]
    v0 = io[REF_VEL] + position_gain * (io[REF_POS] - io[EST_POS])
    v1 = io[REF_VEL + 1] + position_gain * (io[REF_POS + 1] - io[EST_POS + 1])
    v2 = io[REF_VEL + 2] + position_gain * (io[REF_POS + 2] - io[EST_POS + 2])
    work[21] = v0
    work[22] = v1
    if horizontal < 0.0:
        if v0 * v0 + v1 * v1 >= max_speed * max_speed * (1.0 - 1e-9):
            return False
    elif horizontal > max_speed:
        scale = max_speed / horizontal
        v0 *= scale
        v1 *= scale
    m = v2 if v2 < max_speed else max_speed
    v2 = m if m > -max_speed else -max_speed
    yaw_rate = io[REF_HEADING_RATE] + heading_gain * io[HEADING_ERROR]
    m = yaw_rate if yaw_rate < max_yaw_rate else max_yaw_rate
    yaw_rate = m if m > -max_yaw_rate else -max_yaw_rate
    r = work[12:21]
    sr, cr, sp, cp, _, _ = rotation_into(io[EST_EULER], io[EST_EULER + 1], io[EST_EULER + 2], r)
    to_body_into(r, v0, v1, v2, work, 0)
    body_rates_into(sr, cr, sp, cp, attitude_gain * -io[EST_EULER], attitude_gain * -io[EST_EULER + 1], yaw_rate,
                    work, 3)
    reference_body_motion_into(io, r, sr, cr, sp, cp, x, 7, work, 6)
    pose_into(io, x)
    return True


@jit
def pid_inner(io, work, holding, mass, diagonal, feed_forward, loops, constants, dt, tau):
    """The inner loops (controllers.CascadePid.wrench): per body axis the PID on ``nu_d - nu``
    with the feed-forward ``M nu_ref' + holding`` (``holding`` the motion wrench; zero without
    ``feed_forward``), into ``tau``."""
    for j in range(6):
        ff = mass_times_one(mass, diagonal, work[6:12], j) + holding[j] if feed_forward else 0.0
        tau[j] = pid_update(loops[j], constants[j], work[j], io[EST_NU + j], dt, ff, False)


# ------------------------------------------------------------------------------ LQR
#: ``work`` of the LQR: the reference's body acceleration 16:22, the rotation 22:31 (0:16 unused)
LQR_WORK_SIZE = 31


@jit
def lqr_state(io, integral, dt, x, state, work):
    """The LQR's state (controllers.Lqr.wrench) into ``state`` (16: position error in the heading
    frame, attitude, body velocity error, integrals): estimate - reference, the integrals
    advanced by dt (kept by the caller only while the wrench is not limited); the reference's
    body velocity into ``x[7:13]``, its acceleration into ``work[16:22]``, the pose into
    ``x[0:7]``."""
    r = work[22:31]
    sr, cr, sp, cp, sy, cy = rotation_into(io[EST_EULER], io[EST_EULER + 1], io[EST_EULER + 2], r)
    e0 = io[REF_POS] - io[EST_POS]
    e1 = io[REF_POS + 1] - io[EST_POS + 1]
    e2 = io[REF_POS + 2] - io[EST_POS + 2]
    d0 = -(cy * e0 + sy * e1)
    d1 = -(-sy * e0 + cy * e1)
    d2 = -e2
    reference_body_motion_into(io, r, sr, cr, sp, cp, x, 7, work, 16)
    state[0] = d0
    state[1] = d1
    state[2] = d2
    state[3] = -(-io[EST_EULER])
    state[4] = -(-io[EST_EULER + 1])
    state[5] = -io[HEADING_ERROR]
    for j in range(6):
        state[6 + j] = io[EST_NU + j] - x[7 + j]
    state[12] = integral[0] + dt * d0
    state[13] = integral[1] + dt * d1
    state[14] = integral[2] + dt * d2
    state[15] = integral[3] - dt * io[HEADING_ERROR]
    pose_into(io, x)


@jit
def lqr_wrench(state, work, feedback, holding, mass, diagonal, feed_forward, limits, dt, integral, tau):
    """``tau = ff - K x`` clipped to each axis' reach (``feedback`` = K x, numpy's product),
    ``ff = M nu_ref' + holding`` (zero without ``feed_forward``); the integrals of
    ``state[12:16]`` kept when dt > 0 and nothing was clipped (anti-windup)."""
    for j in range(6):
        ff = mass_times_one(mass, diagonal, work[16:22], j) + holding[j] if feed_forward else 0.0
        tau[j] = ff - feedback[j]
    clipped = clip_into(tau, limits)
    if dt > 0.0 and not clipped:
        for k in range(4):
            integral[k] = state[12 + k]


# ------------------------------------------------------------------------------ sliding mode
#: ``work`` of the sliding mode: the integrals advanced 0:6, nu_r' 6:12, s 12:18, the rotation
#: 18:27, scratch 27:45
SMC_WORK_SIZE = 45


@jit
def smc_surface(io, integral, lam, with_integral, dt, x, work):
    """The sliding mode's reference velocity and sliding variable (controllers.SlidingMode.wrench):
    ``nu_r`` into ``x[7:13]`` (where the motion wrench reads it), ``nu_r'`` into ``work[6:12]``,
    ``s = nu - nu_r`` into ``work[12:18]``, the integrals advanced by dt into ``work[0:6]``, the
    pose into ``x[0:7]``."""
    r = work[18:27]
    sr, cr, sp, cp, _, _ = rotation_into(io[EST_EULER], io[EST_EULER + 1], io[EST_EULER + 2], r)
    err = work[27:33]
    ref_rate = work[33:39]
    ref_acc = work[39:45]
    for i in range(3):
        err[i] = -(io[REF_POS + i] - io[EST_POS + i])
        ref_rate[i] = io[REF_VEL + i]
        ref_acc[i] = io[REF_ACC + i]
    err[3] = -(-io[EST_EULER])
    err[4] = -(-io[EST_EULER + 1])
    err[5] = -io[HEADING_ERROR]
    ref_rate[3] = 0.0
    ref_rate[4] = 0.0
    ref_rate[5] = io[REF_HEADING_RATE]
    ref_acc[3] = 0.0
    ref_acc[4] = 0.0
    ref_acc[5] = io[REF_HEADING_ACC]
    for j in range(6):
        work[j] = integral[j] + dt * err[j]
    # eta~' from the estimate: J nu - eta'_ref (R nu_linear, and T(Theta) omega of Fossen 2011
    # eq. 2.41, the pitch clamped to PITCH_LIMIT)
    n0, n1, n2 = io[EST_NU], io[EST_NU + 1], io[EST_NU + 2]
    rate0 = r[0] * n0 + r[1] * n1 + r[2] * n2
    rate1 = r[3] * n0 + r[4] * n1 + r[5] * n2
    rate2 = r[6] * n0 + r[7] * n1 + r[8] * n2
    theta = io[EST_EULER + 1]
    if -PITCH_LIMIT <= theta <= PITCH_LIMIT:
        tp, cpl = math.tan(theta), cp
    else:
        # max(min(theta, PITCH_LIMIT), -PITCH_LIMIT) as Python's builtins take it
        m = PITCH_LIMIT if PITCH_LIMIT < theta else theta
        pitch = -PITCH_LIMIT if -PITCH_LIMIT > m else m
        tp, cpl = math.tan(pitch), math.cos(pitch)
    p, q, w = io[EST_NU + 3], io[EST_NU + 4], io[EST_NU + 5]
    rate3 = p + sr * tp * q + cr * tp * w
    rate4 = cr * q - sr * w
    rate5 = (sr * q + cr * w) / cpl
    err_rate0 = rate0 - ref_rate[0]
    err_rate1 = rate1 - ref_rate[1]
    err_rate2 = rate2 - ref_rate[2]
    err_rate3 = rate3 - ref_rate[3]
    err_rate4 = rate4 - ref_rate[4]
    err_rate5 = rate5 - ref_rate[5]
    # eta_r' into ref_rate and eta_r'' into ref_acc, in place
    if with_integral:
        for j in range(6):
            ref_rate[j] = ref_rate[j] - 2.0 * lam * err[j] - lam * lam * work[j]
        ref_acc[0] = ref_acc[0] - 2.0 * lam * err_rate0 - lam * lam * err[0]
        ref_acc[1] = ref_acc[1] - 2.0 * lam * err_rate1 - lam * lam * err[1]
        ref_acc[2] = ref_acc[2] - 2.0 * lam * err_rate2 - lam * lam * err[2]
        ref_acc[3] = ref_acc[3] - 2.0 * lam * err_rate3 - lam * lam * err[3]
        ref_acc[4] = ref_acc[4] - 2.0 * lam * err_rate4 - lam * lam * err[4]
        ref_acc[5] = ref_acc[5] - 2.0 * lam * err_rate5 - lam * lam * err[5]
    else:
        for j in range(6):
            ref_rate[j] = ref_rate[j] - lam * err[j]
        ref_acc[0] = ref_acc[0] - lam * err_rate0
        ref_acc[1] = ref_acc[1] - lam * err_rate1
        ref_acc[2] = ref_acc[2] - lam * err_rate2
        ref_acc[3] = ref_acc[3] - lam * err_rate3
        ref_acc[4] = ref_acc[4] - lam * err_rate4
        ref_acc[5] = ref_acc[5] - lam * err_rate5
    to_body_into(r, ref_rate[0], ref_rate[1], ref_rate[2], x, 7)
    body_rates_into(sr, cr, sp, cp, ref_rate[3], ref_rate[4], ref_rate[5], x, 10)
    to_body_into(r, ref_acc[0], ref_acc[1], ref_acc[2], work, 6)
    body_rates_into(sr, cr, sp, cp, ref_acc[3], ref_acc[4], ref_acc[5], work, 9)
    for j in range(6):
        work[12 + j] = io[EST_NU + j] - x[7 + j]
    pose_into(io, x)


@jit
def smc_wrench(work, holding, mass, diagonal, damping_gain, switching, layer, limits, dt, integral, tau):
    """``tau = M nu_r' + n(eta, nu_r) - K_d M s - K sat(s / phi)`` clipped to each axis' reach
    (``holding`` = n(eta, nu_r), the motion wrench); the integrals of ``work[0:6]`` kept when
    dt > 0 and nothing was clipped."""
    s = work[12:18]
    for j in range(6):
        model = mass_times_one(mass, diagonal, work[6:12], j) + holding[j]
        damping = mass_times_one(mass, diagonal, s, j)
        ratio = s[j] / layer
        m = ratio if ratio < 1.0 else 1.0
        saturation = m if m > -1.0 else -1.0
        tau[j] = model - damping_gain * damping - switching[j] * saturation
    clipped = clip_into(tau, limits)
    if dt > 0.0 and not clipped:
        for j in range(6):
            integral[j] = work[j]


# ------------------------------------------------------------------------------ allocation
@jit
def clear_commands(forces, bounds, unsaturated, full_forward, full_reverse, commands):
    """The allocation's usual case (allocation.QpAllocator._solve's least-norm shortcut and
    _Allocator._limited's first pass): 0 if a force is not strictly within its limits
    (``bounds``, n x 2); 1 if one is within the saturation margin of a limit (``unsaturated``);
    2 when every force is clear, the commands ``sgn(F) sqrt(|F| / (eta_hat k))`` (at most 1; 0
    without authority) then written into ``commands`` (allocation._commands_of)."""
    n = forces.shape[0]
    for i in range(n):
        if not bounds[i, 0] < forces[i] < bounds[i, 1]:
            return 0
    for i in range(n):
        if not unsaturated[i, 0] < forces[i] < unsaturated[i, 1]:
            return 1
    for i in range(n):
        force = forces[i]
        if force >= 0.0:
            k_forward = full_forward[i]
            command = math.sqrt(force / k_forward) if k_forward > 0.0 else 0.0
            commands[i] = command if command < 1.0 else 1.0
        elif full_reverse[i] > 0.0:
            command = math.sqrt(-force / full_reverse[i])
            commands[i] = -command if command < 1.0 else -1.0
        else:
            commands[i] = 0.0
    return 2


@jit
def unmet_norm(tau, achieved):
    """``|tau - achieved|``, the squares summed from zero left to right (allocation._Allocator.command)."""
    s = 0.0
    for j in range(tau.shape[0]):
        d = tau[j] - achieved[j]
        s += d * d
    return math.sqrt(s)
