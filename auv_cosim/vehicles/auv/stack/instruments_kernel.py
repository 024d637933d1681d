"""The arithmetic of one sample of the survey AUV's instruments (auv_cosim.vehicles.auv.stack.instruments) compiled
with numba: one call a step over flat float64 arrays, where the plain Python made some forty
small ones (a lag's update, a wrap, a clamp per channel).

The kernel does the same floating-point operations, in the same order, as the plain Python
that `SensorSuite.sample` ran before it (`FirstOrderLag.update`, `AngleLag.update`,
`wrap_pi`, the clamps, ``max(a, 0.0)``, the bias and the noise added in that order): numba
without fastmath keeps IEEE semantics (no reassociation, no fused multiply-add), so the readings
are the same bit for bit; tests/stacks/auv/test_sensor_kernel.py compares it with that Python,
branch by branch, and with its own plain-Python execution (``sample_into.py_func``). What it
does not do stays in Python around it: the lags' coefficients ``exp(-dt/tau)`` (computed once
per step length, `filters.lag_coefficient`), the noise (drawn in blocks by numpy,
`noise.NormalStream`; the kernel reads the block) and the messages of a bad input.

The arrays (float64, C-contiguous, kept by `SensorSuite`):

* ``truth`` (TRUTH_SIZE): the inputs in the slave's order, Pos[1..3], Euler[1..3], Depth,
  Speed, Altitude, Vel[1..3];
* ``constants`` (CONSTANTS_SIZE): per channel (NOISE_CHANNELS' order) the bias, the noise std,
  the lag's time constant and its coefficient for the step length; then the three ranges;
* ``state`` (STATE_SIZE): per channel the lag's output and whether it has one (the Python's
  ``None``), then the DVL's held altitude and its bottom lock (0 or 1);
* ``readings`` (READINGS_SIZE): the Real outputs in the slave's order (depth, roll, pitch,
  heading, speed, altitude, north, east).

Compiled once and cached (numba's cache, shipped inside the AUV's instrument and control FMUs:
tools/build_fmus.py); without numba (or with ``AUV_NO_JIT=1``) the same function runs as plain
Python.
"""
from __future__ import annotations

import math

from ....compiled.jit import jit, jit_inlined

from ....stacks.kernel_laws import wrap_pi

#: the channels, as sensors.NOISE_CHANNELS
DEPTH, ROLL, PITCH, HEADING, SPEED, ALTITUDE, NORTH, EAST = range(8)
CHANNELS = 8

#: the layout of ``truth``
POS, EULER, TRUTH_DEPTH, TRUTH_SPEED, TRUTH_ALTITUDE, VEL = 0, 3, 6, 7, 8, 9
TRUTH_SIZE = 12

#: the layout of ``constants``: four rows of CHANNELS values, then the ranges
BIAS, STD, TAU, COEFFICIENT = 0, 8, 16, 24
DEPTH_RANGE, ATTITUDE_RANGE, DVL_RANGE = 32, 33, 34
CONSTANTS_SIZE = 35

#: the layout of ``state``
LAG_OUTPUT, LAG_STARTED = 0, 8
HELD_ALTITUDE, BOTTOM_LOCK = 16, 17
STATE_SIZE = 18

READINGS_SIZE = 8

#: what `sample_into` returns
SAMPLED, CHECK_INPUTS = 0, 1

@jit_inlined
def _lag(channel, x, constants, state, angle):
    """filters.FirstOrderLag.update (AngleLag.update when ``angle``) of one channel, its
    coefficient that of the step length (constants[COEFFICIENT + channel])."""
    if state[LAG_STARTED + channel] == 0.0 or constants[TAU + channel] <= 0.0:
        state[LAG_OUTPUT + channel] = x
        state[LAG_STARTED + channel] = 1.0
        return x
    a = constants[COEFFICIENT + channel]
    y = state[LAG_OUTPUT + channel]
    if angle:
        y = wrap_pi(y + (1.0 - a) * wrap_pi(x - y))
    else:
        y = a * y + (1.0 - a) * x
    state[LAG_OUTPUT + channel] = y
    return y


@jit_inlined
def _clamp(x, lo, hi):
    return lo if x < lo else hi if x > hi else x


@jit_inlined
def _reading(channel, x, constants, state, noise, at, angle):
    """lag(x) + bias + std z of one channel (wrapped for an angle afterwards by the caller)."""
    return (_lag(channel, x, constants, state, angle) + constants[BIAS + channel]
            + constants[STD + channel] * noise[at + channel])


@jit
def sample_into(truth, noise, at, constants, state, readings, checked):
    """One sample (sensors.SensorSuite.sample) of ``truth`` into ``readings``, the lags advanced
    by the step whose coefficients ``constants`` holds, the normals ``noise[at:at + 8]`` added.
    Returns CHECK_INPUTS, having changed nothing, when the inputs need TruthInputs.check's
    element-wise test (a sum that is NaN, or a depth + speed that is not finite) unless
    ``checked`` (the caller has run it and it passed), and when the roll or the heading is
    infinite (no wrap of it); else SAMPLED."""
    if math.isinf(truth[EULER]) or math.isinf(truth[EULER + 2]):
        return CHECK_INPUTS
    if not checked:
        pos = truth[POS] + truth[POS + 1] + truth[POS + 2]
        euler = truth[EULER] + truth[EULER + 1] + truth[EULER + 2]
        vel = truth[VEL] + truth[VEL + 1] + truth[VEL + 2]
        if math.isnan(pos + euler + vel) or not math.isfinite(truth[TRUTH_DEPTH] + truth[TRUTH_SPEED]):
            return CHECK_INPUTS
    # pressure depth
    d = _reading(DEPTH, truth[TRUTH_DEPTH], constants, state, noise, at, False)
    readings[DEPTH] = _clamp(d, 0.0, constants[DEPTH_RANGE])
    # AHRS
    attitude_range = constants[ATTITUDE_RANGE]
    r = wrap_pi(_reading(ROLL, truth[EULER], constants, state, noise, at, True))
    readings[ROLL] = _clamp(r, -attitude_range, attitude_range)
    p = _reading(PITCH, truth[EULER + 1], constants, state, noise, at, False)
    readings[PITCH] = _clamp(p, -attitude_range, attitude_range)
    readings[HEADING] = wrap_pi(_reading(HEADING, truth[EULER + 2], constants, state, noise, at, True))
    # DVL: water-track speed, bottom-track altitude
    readings[SPEED] = _reading(SPEED, truth[TRUTH_SPEED], constants, state, noise, at, False)
    alt = truth[TRUTH_ALTITUDE]
    if math.isfinite(alt) and 0.0 <= alt and alt <= constants[DVL_RANGE]:
        if state[BOTTOM_LOCK] == 0.0:
            state[LAG_STARTED + ALTITUDE] = 0.0     # re-acquisition: no lag from a stale value
        a = _reading(ALTITUDE, alt, constants, state, noise, at, False)
        state[HELD_ALTITUDE] = 0.0 if 0.0 > a else a     # Python's max(a, 0.0)
        state[BOTTOM_LOCK] = 1.0
    else:
        state[BOTTOM_LOCK] = 0.0                     # hold the last good value
    readings[ALTITUDE] = state[HELD_ALTITUDE]
    # navigation
    readings[NORTH] = _reading(NORTH, truth[POS], constants, state, noise, at, False)
    readings[EAST] = _reading(EAST, truth[POS + 1], constants, state, noise, at, False)
    return SAMPLED
