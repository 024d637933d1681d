"""What the compiled kernels of both vehicles share: the wrap of an angle and the PID law of
auv_cosim.stacks.pid over one loop's flat state and constants (the AUV's instruments,
auv_cosim/vehicles/auv/stack/instruments_kernel.py, and control, auv_cosim/vehicles/auv/stack/control_kernel.py; the H100's
control, auv_cosim/vehicles/h100/stack/control_kernel.py).

Each is compiled into every kernel that calls it (`jit_inlined`), doing the same floating-point
operations in the same order as the plain Python it stands for (the kernels' tests compare
them bit for bit). numba's cache of a kernel follows a change here (auv_cosim/compiled/numba_cache.py
`callees_stamp`).
"""
from __future__ import annotations

import math

import numpy as np

from ..compiled.jit import jit_inlined

TWO_PI = 2.0 * math.pi

#: a PID loop's state (pid.PID's attributes), LOOP_STATE_SIZE values
LOOP_INTEGRAL, LOOP_PREV_MEAS, LOOP_HAS_PREV, LOOP_DERIV, LOOP_LAST_OUTPUT, LOOP_SATURATED = range(6)
LOOP_STATE_SIZE = 6
#: a PID loop's constants (gains, limits, the derivative filter's coefficient for the step
#: length), LOOP_CONSTANTS_SIZE values
LOOP_KP, LOOP_KI, LOOP_KD, LOOP_OUT_MIN, LOOP_OUT_MAX, LOOP_I_MIN, LOOP_I_MAX, LOOP_I_BAND, LOOP_LAG = range(9)
LOOP_CONSTANTS_SIZE = 9


@jit_inlined
def wrap_pi(angle):
    """auv_cosim.stacks.angles.wrap_pi of a finite angle, into (-pi, pi] (numpy's fmod: numba
    has no math.fmod; both are the C library's, whose result is exact). Python's math.fmod
    refuses an infinite angle: the kernels' callers refuse one before it gets here."""
    a = np.fmod(angle, TWO_PI)
    if a > math.pi:
        a -= TWO_PI
    elif a <= -math.pi:
        a += TWO_PI
    return a


@jit_inlined
def pid_update(loop, k, ref, meas, dt, ff, wrap):
    """One period of auv_cosim.stacks.pid.PID.update on the loop's state ``loop`` (LOOP_*) and
    constants ``k`` (LOOP_K*..., LOOP_LAG): ``u = clamp(ff + Kp e + I + D)``, e = ref - meas
    (wrapped with ``wrap``), D = -Kd times the lagged derivative of the measurement (no kick on
    a reference step), I integrated only when that does not push a saturated output further
    and |e| <= i_band (conditional integration: no wind-up). The state advances when dt > 0."""
    e = ref - meas
    if wrap:
        e = wrap_pi(e)
    advance = dt > 0.0
    deriv = loop[LOOP_DERIV]
    if advance and loop[LOOP_HAS_PREV] != 0.0:
        dm = meas - loop[LOOP_PREV_MEAS]
        if wrap:
            dm = wrap_pi(dm)
        raw = dm / dt
        a = k[LOOP_LAG]
        deriv = a * deriv + (1.0 - a) * raw
    d_term = -k[LOOP_KD] * deriv
    p_term = k[LOOP_KP] * e
    integral = loop[LOOP_INTEGRAL]
    if advance and k[LOOP_KI] != 0.0 and abs(e) <= k[LOOP_I_BAND]:
        candidate = integral + k[LOOP_KI] * e * dt
        i_min, i_max = k[LOOP_I_MIN], k[LOOP_I_MAX]
        candidate = i_min if candidate < i_min else i_max if candidate > i_max else candidate
        u_try = ff + p_term + candidate + d_term
        pushes_up = candidate > integral
        pushes_down = candidate < integral
        if (u_try > k[LOOP_OUT_MAX] and pushes_up) or (u_try < k[LOOP_OUT_MIN] and pushes_down):
            candidate = integral
        integral = candidate
    u_raw = ff + p_term + integral + d_term
    out_min, out_max = k[LOOP_OUT_MIN], k[LOOP_OUT_MAX]
    u = out_min if u_raw < out_min else out_max if u_raw > out_max else u_raw
    if advance:
        loop[LOOP_INTEGRAL] = integral
        loop[LOOP_DERIV] = deriv
        loop[LOOP_PREV_MEAS] = meas
        loop[LOOP_HAS_PREV] = 1.0
        loop[LOOP_LAST_OUTPUT] = u
        loop[LOOP_SATURATED] = 1.0 if u != u_raw else 0.0
    return u
