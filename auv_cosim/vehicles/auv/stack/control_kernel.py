"""The arithmetic of one step of the survey AUV's control stack (auv_cosim.vehicles.auv.stack.control) compiled
with numba: guidance, dive guidance and the three (four) PID loops in one call a step over flat
float64 arrays, where the plain Python made some sixty small ones.

The kernel does the same floating-point operations, in the same order, as the plain Python
that `ControlStack.step` ran before it (`WaypointManager.update`, `LineOfSight`,
`YoyoGuidance.update`, `PID.update`, `wrap_pi`, `angle_diff`, Python's ``max``): numba without
fastmath keeps IEEE semantics (no reassociation, no fused multiply-add), so the commands are
the same bit for bit; tests/stacks/auv/test_control_kernel.py compares it with that Python,
branch by branch, and with its own plain-Python execution (``step_into.py_func``). Three things
stay out of it, because the compiled code would round them differently from CPython:

* ``math.hypot`` (CPython's own algorithm, not the C library's: they differ in the last bit
  of about 1 result in 200): the segment's length is computed in Python when a segment
  starts (`SEGMENT`), and the distance to the active waypoint, which only decides whether it
  is reached, is decided in the kernel when the squared distance is clearly away from the
  acceptance radius (a margin of 1e-6 relative, far more than the few units in the last place
  either way) and otherwise asked from Python (NEED_DISTANCE);
* ``x ** 2`` (CPython calls the C library's pow, which rounds x*x differently in about 1 case
  in 1000; numba and LLVM turn a power of a constant 2 into x*x): the kernel calls ``math.pow``
  with the exponent read from ``constants[TWO]``, which the compiler cannot see;
* the waypoint bookkeeping (which waypoint is active, the start point, the end of the mission)
  and the lags' coefficients ``exp(-dt/tf)``: Python, between calls.

The arrays (float64, C-contiguous, kept by `ControlStack`):

* ``inputs`` (INPUTS_SIZE): the Real inputs in the slave's order (MeasuredDepth, MeasuredPitch,
  MeasuredHeading, MeasuredSpeed, MeasuredAltitude, NavNorth, NavEast, SpeedCommand,
  HeadingCommand, DepthCommand); AltitudeValid is an argument;
* ``outputs`` (OUTPUTS_SIZE): the Real outputs in the slave's order (ThrustPower, RudderYaw,
  RudderDive, SpeedRef, HeadingRef, DepthRef, PitchRef, CrossTrackError);
* ``segment`` (SEGMENT_SIZE): the active segment as Python prepared it, its waypoint's depth,
  whether the mission is finished, and the distance to the waypoint when the kernel asked;
* ``state`` (STATE_SIZE): the four loops (LOOP_*, one row each), the cross-track integral, the
  yo-yo's direction, the zig-zag's, the altitude mode's held depth reference and the held
  heading reference and cross-track error, the seabed's slope flown (`_slope_flown`);
* ``constants`` (CONSTANTS_SIZE): the modes, the gains and limits, each loop's (LOOP_K*) with
  its lag coefficient for the step length.

Compiled once and cached (numba's cache, shipped inside the AUV's instrument and control FMUs:
tools/build_fmus.py, auv_cosim/vehicles/auv/stack/warm_up.py); without numba (or with ``AUV_NO_JIT=1``) the
same function runs as plain Python.
"""
from __future__ import annotations

import math

import numpy as np

from ....compiled.jit import jit, jit_inlined

# (the loops' layouts, which auv_cosim/vehicles/auv/stack/control.py packs as `kernel.LOOP_*`, with the law)
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
    wrap_pi,
)

#: the layout of ``inputs``
DEPTH, PITCH, HEADING, SPEED, ALTITUDE, NORTH, EAST, SPEED_COMMAND, HEADING_COMMAND, DEPTH_COMMAND = range(10)
INPUTS_SIZE = 10
#: the layout of ``outputs``
THRUST_POWER, RUDDER_YAW, RUDDER_DIVE, SPEED_REF, HEADING_REF, DEPTH_REF, PITCH_REF, CROSS_TRACK = range(8)
OUTPUTS_SIZE = 8

#: the layout of ``segment``
(SEGMENT_READY, START_NORTH, START_EAST, END_NORTH, END_EAST, LENGTH, ANGLE, COS, SIN, DEGENERATE,
 ACTIVE_DEPTH, FINISHED, DISTANCE, DISTANCE_KNOWN) = range(14)
SEGMENT_SIZE = 14

#: the loops, one row of LOOP_STATE_SIZE values of ``state`` and of LOOP_CONSTANTS_SIZE of
#: ``constants`` each
LOOP_SPEED, LOOP_HEADING, LOOP_PITCH, LOOP_DEPTH = range(4)
LOOPS = 4

#: the layout of ``state`` after the loops
_S = LOOPS * LOOP_STATE_SIZE
CROSS_TRACK_INTEGRAL = _S
YOYO_DIRECTION = _S + 1          # -1: not started (None), 0: climbing, 1: descending
YOYO_SWITCHES = _S + 2
ZIGZAG_STARTED, ZIGZAG_BASE, ZIGZAG_SIGN, ZIGZAG_SWITCHES = _S + 3, _S + 4, _S + 5, _S + 6
ALTITUDE_HAS_REF, ALTITUDE_DEPTH_REF = _S + 7, _S + 8
HELD_HEADING_REF, HELD_CROSS_TRACK = _S + 9, _S + 10
SLOPE_HAS_PREV, SLOPE_PREV_SEABED, SLOPE_FLOWN = _S + 11, _S + 12, _S + 13
STATE_SIZE = _S + 14

#: the layout of ``constants`` after the loops
_C = LOOPS * LOOP_CONSTANTS_SIZE
GUIDANCE_MODE, DIVE_MODE = _C, _C + 1            # GUIDANCE_MODES' and DIVE_MODES' index
CRUISE_SPEED, DIVE_ANGLE, TARGET_ALTITUDE, THRUST_FEED_FORWARD = _C + 2, _C + 3, _C + 4, _C + 5
ZIGZAG_RUDDER, ZIGZAG_HEADING, YOYO_MIN_DEPTH, YOYO_MAX_DEPTH = _C + 6, _C + 7, _C + 8, _C + 9
LOOK_AHEAD, LOS_INTEGRAL_GAIN, ACCEPTANCE_RADIUS, TWO = _C + 10, _C + 11, _C + 12, _C + 13
TERRAIN_SLOPE_DISTANCE = _C + 14
CONSTANTS_SIZE = _C + 15

MISSION, HOLD, ZIGZAG = 0, 1, 2              # control.GUIDANCE_MODES
BY_DEPTH, BY_ALTITUDE, YOYO = 0, 1, 2        # control.DIVE_MODES

#: what `step_into` returns; all but DONE having changed nothing
DONE, CHECK_INPUTS, NEED_SEGMENT, NEED_DISTANCE = 0, 1, 2, 3
#: the relative margin around the acceptance radius within which Python's hypot decides
DISTANCE_MARGIN = 1e-6

@jit_inlined
def _loop(state, constants, which, ref, meas, dt, ff, wrap):
    s = which * LOOP_STATE_SIZE
    c = which * LOOP_CONSTANTS_SIZE
    return pid_update(state[s:s + LOOP_STATE_SIZE], constants[c:c + LOOP_CONSTANTS_SIZE], ref, meas, dt, ff, wrap)


@jit_inlined
def _inputs_need_check(inputs, altitude_valid):
    """Whether the inputs need ControlInputs.check's term-by-term test: their sum is not finite
    (one of them is not), or the altitude is valid but not finite."""
    total = (inputs[DEPTH] + inputs[PITCH] + inputs[HEADING] + inputs[SPEED] + inputs[NORTH] + inputs[EAST]
             + inputs[SPEED_COMMAND] + inputs[HEADING_COMMAND] + inputs[DEPTH_COMMAND])
    return not (math.isfinite(total) and not (altitude_valid and not math.isfinite(inputs[ALTITUDE])))


#: what `_waypoint_reached` decides
_NOT_REACHED, _REACHED, _UNDECIDED = 0, 1, -1


@jit_inlined
def _waypoint_reached(segment, radius, north, east):
    """Whether (north, east) is within the acceptance radius of the active waypoint: by the
    distance Python's hypot gave (``segment[DISTANCE]``, when DISTANCE_KNOWN), else by the
    squared distance when it is clearly away from the radius (DISTANCE_MARGIN); _UNDECIDED
    otherwise (the kernel asks Python for the distance)."""
    if segment[DISTANCE_KNOWN] != 0.0:
        return _REACHED if segment[DISTANCE] <= radius else _NOT_REACHED
    dn, de = segment[END_NORTH] - north, segment[END_EAST] - east
    squared = dn * dn + de * de
    if squared > (radius * (1.0 + DISTANCE_MARGIN)) ** 2:
        return _NOT_REACHED
    if squared < (radius * (1.0 - DISTANCE_MARGIN)) ** 2:
        return _REACHED
    return _UNDECIDED


@jit_inlined
def _line_of_sight(segment, state, constants, north, east, speed, dt):
    """The mission's guidance along the active segment (WaypointManager.update, LineOfSight):
    the heading reference into state[HELD_HEADING_REF], the cross-track error into
    state[HELD_CROSS_TRACK], the cross-track integral advanced; returns DONE. Or, having
    changed nothing, NEED_SEGMENT (no segment yet, or its waypoint reached or passed) or
    NEED_DISTANCE (`_waypoint_reached` undecided)."""
    if segment[SEGMENT_READY] == 0.0:
        return NEED_SEGMENT
    offset = constants[LOS_INTEGRAL_GAIN] * state[CROSS_TRACK_INTEGRAL]
    if segment[DEGENERATE] != 0.0:     # along-track 0 >= length 0: reached
        return NEED_SEGMENT
    rn, re = north - segment[START_NORTH], east - segment[START_EAST]
    ca, sa = segment[COS], segment[SIN]
    s = ca * rn + sa * re
    e = -sa * rn + ca * re
    reached = _waypoint_reached(segment, constants[ACCEPTANCE_RADIUS], north, east)
    if reached == _UNDECIDED:
        return NEED_DISTANCE
    if reached == _REACHED or s >= segment[LENGTH]:
        return NEED_SEGMENT
    psi = wrap_pi(segment[ANGLE] + math.atan2(-(e + offset), constants[LOOK_AHEAD]))
    delta = constants[LOOK_AHEAD]
    if constants[LOS_INTEGRAL_GAIN] > 0.0 and dt > 0.0 and abs(e) < 0.5 * delta:
        moving = 0.0 if 0.0 > speed else speed     # Python's max(speed, 0.0)
        state[CROSS_TRACK_INTEGRAL] += (dt * moving * delta * e
                                        / (delta * delta + math.pow(e + offset, constants[TWO])))
    state[HELD_HEADING_REF] = psi
    state[HELD_CROSS_TRACK] = e
    return DONE


@jit_inlined
def _zigzag_heading(state, constants, heading):
    """The zig-zag's heading reference, the heading it started on, into state[HELD_HEADING_REF];
    the rudder's side (state[ZIGZAG_SIGN]) reversed when the heading has swung ZIGZAG_HEADING
    past it towards that side, the reversals counted."""
    if state[ZIGZAG_STARTED] == 0.0:
        state[ZIGZAG_BASE] = heading
        state[ZIGZAG_STARTED] = 1.0
    deviation = wrap_pi(heading - state[ZIGZAG_BASE])
    if state[ZIGZAG_SIGN] > 0 and deviation >= constants[ZIGZAG_HEADING]:
        state[ZIGZAG_SIGN] = -1.0
        state[ZIGZAG_SWITCHES] += 1.0
    elif state[ZIGZAG_SIGN] < 0 and deviation <= -constants[ZIGZAG_HEADING]:
        state[ZIGZAG_SIGN] = 1.0
        state[ZIGZAG_SWITCHES] += 1.0
    state[HELD_HEADING_REF] = state[ZIGZAG_BASE]


@jit_inlined
def _yoyo_references(state, constants, depth):
    """The yo-yo's depth and pitch references (YoyoGuidance.update): descending to
    YOYO_MAX_DEPTH, then climbing to YOYO_MIN_DEPTH, and again; the direction kept in
    state[YOYO_DIRECTION], its reversals counted."""
    direction = state[YOYO_DIRECTION]
    if direction < 0.0:
        direction = 1.0 if depth < constants[YOYO_MAX_DEPTH] else 0.0
    elif direction == 1.0 and depth >= constants[YOYO_MAX_DEPTH]:
        direction = 0.0
        state[YOYO_SWITCHES] += 1.0
    elif direction == 0.0 and depth <= constants[YOYO_MIN_DEPTH]:
        direction = 1.0
        state[YOYO_SWITCHES] += 1.0
    state[YOYO_DIRECTION] = direction
    if direction == 1.0:
        return constants[YOYO_MAX_DEPTH], -constants[DIVE_ANGLE]
    return constants[YOYO_MIN_DEPTH], constants[DIVE_ANGLE]


@jit_inlined
def _slope_flown(state, constants, seabed, speed, dt):
    """The seabed's slope along the track (m deeper per m flown) from what the vehicle flew
    over: the seabed's depth measured (depth + altitude) differenced over the distance through
    the water (speed dt) and averaged by a first-order filter in distance over
    TERRAIN_SLOPE_DISTANCE (the noise of a difference over 15 cm needs tens of metres). 0 while
    the look-ahead is off (TERRAIN_SLOPE_DISTANCE 0)."""
    length = constants[TERRAIN_SLOPE_DISTANCE]
    if length <= 0.0:
        return 0.0
    ds = speed * dt
    if state[SLOPE_HAS_PREV] != 0.0 and ds > 1e-6:
        raw = (seabed - state[SLOPE_PREV_SEABED]) / ds
        state[SLOPE_FLOWN] += (1.0 - math.exp(-ds / length)) * (raw - state[SLOPE_FLOWN])
    state[SLOPE_PREV_SEABED] = seabed
    state[SLOPE_HAS_PREV] = 1.0
    return state[SLOPE_FLOWN]


@jit_inlined
def _dive_references(inputs, altitude_valid, state, constants, depth, depth_command, dt, finished):
    """The depth and pitch references (dive guidance): to the surface once the mission is
    finished, the yo-yo's, or the depth loop's pitch towards the depth commanded (by altitude:
    TARGET_ALTITUDE above the floor, the last such depth held while the altitude is invalid,
    and the look-ahead: the glide angle atan(slope flown) fed forward into the depth loop, so
    that the vehicle climbs or dives with the seabed before the altitude error builds up)."""
    if finished:
        return 0.0, constants[DIVE_ANGLE]
    dive = constants[DIVE_MODE]
    if dive == YOYO:
        return _yoyo_references(state, constants, depth)
    glide = 0.0
    if dive == BY_ALTITUDE:
        if altitude_valid:
            seabed = depth + inputs[ALTITUDE]
            held = seabed - constants[TARGET_ALTITUDE]
            state[ALTITUDE_DEPTH_REF] = held if held > 0.0 else 0.0   # Python's max(0.0, held)
            state[ALTITUDE_HAS_REF] = 1.0
            slope = _slope_flown(state, constants, seabed, inputs[SPEED], dt)
            if slope != 0.0:
                glide = math.atan(slope)
        else:
            state[SLOPE_HAS_PREV] = 0.0          # no seabed seen: no slope; afresh at lock
            state[SLOPE_FLOWN] = 0.0
        depth_ref = state[ALTITUDE_DEPTH_REF] if state[ALTITUDE_HAS_REF] != 0.0 else depth_command
    else:
        depth_ref = depth_command
    return depth_ref, -_loop(state, constants, LOOP_DEPTH, depth_ref, depth, dt, glide, False)


@jit_inlined
def _thrust_and_rudder(state, constants, speed_ref, speed, heading_ref, heading, dt, zigzag):
    """The speed loop's thrust (with its feed-forward) and the heading loop's rudder, or, in
    the zig-zag, the rudder held to its side."""
    ff = constants[THRUST_FEED_FORWARD] * speed_ref * abs(speed_ref)
    thrust_power = _loop(state, constants, LOOP_SPEED, speed_ref, speed, dt, ff, False)
    if zigzag:
        return thrust_power, state[ZIGZAG_SIGN] * constants[ZIGZAG_RUDDER]
    return thrust_power, _loop(state, constants, LOOP_HEADING, heading_ref, heading, dt, 0.0, True)


@jit
def step_into(inputs, altitude_valid, outputs, segment, state, constants, dt, checked):
    """One period of ControlStack.step: the commands for ``inputs`` into ``outputs``, the state
    advanced by dt. Returns DONE; or, having changed nothing: CHECK_INPUTS when the inputs need
    ControlInputs.check's term-by-term test (unless ``checked``: the caller has run it and it
    passed), NEED_SEGMENT when the mission needs its next segment from Python (the first, or the
    active waypoint is reached), NEED_DISTANCE when the distance to the active waypoint is too
    close to the acceptance radius to decide without Python's hypot (``segment[DISTANCE]``).
    In phases, each a helper above compiled into it: horizontal guidance, dive guidance, the
    loops."""
    depth, pitch, heading = inputs[DEPTH], inputs[PITCH], inputs[HEADING]
    speed, north, east = inputs[SPEED], inputs[NORTH], inputs[EAST]
    if not checked and _inputs_need_check(inputs, altitude_valid):
        return CHECK_INPUTS
    guidance = constants[GUIDANCE_MODE]
    finished = False
    rudder_yaw_override = False
    # ---- horizontal guidance (nothing is written before the mission's decisions are taken)
    if guidance == MISSION:
        finished = segment[FINISHED] != 0.0
        if not finished:
            status = _line_of_sight(segment, state, constants, north, east, speed, dt)
            if status != DONE:
                return status
        segment[DISTANCE_KNOWN] = 0.0
        speed_ref = 0.0 if finished else constants[CRUISE_SPEED]
        depth_command = segment[ACTIVE_DEPTH]
    elif guidance == HOLD:
        speed_ref, depth_command = inputs[SPEED_COMMAND], inputs[DEPTH_COMMAND]
        state[HELD_HEADING_REF] = wrap_pi(inputs[HEADING_COMMAND])
        state[HELD_CROSS_TRACK] = 0.0
    else:   # zig-zag
        speed_ref, depth_command = inputs[SPEED_COMMAND], inputs[DEPTH_COMMAND]
        _zigzag_heading(state, constants, heading)
        rudder_yaw_override = True
    heading_ref = state[HELD_HEADING_REF]

    # ---- dive guidance -> pitch reference
    depth_ref, pitch_ref = _dive_references(inputs, altitude_valid, state, constants, depth, depth_command, dt,
                                            finished)

    # ---- loops
    if finished:
        thrust_power = 0.0
        rudder_yaw = 0.0
    else:
        thrust_power, rudder_yaw = _thrust_and_rudder(state, constants, speed_ref, speed, heading_ref, heading, dt,
                                                      rudder_yaw_override)
    rudder_dive = -_loop(state, constants, LOOP_PITCH, pitch_ref, pitch, dt, 0.0, False)
    outputs[THRUST_POWER] = thrust_power
    outputs[RUDDER_YAW] = rudder_yaw
    outputs[RUDDER_DIVE] = rudder_dive
    outputs[SPEED_REF] = speed_ref
    outputs[HEADING_REF] = heading_ref
    outputs[DEPTH_REF] = depth_ref
    outputs[PITCH_REF] = pitch_ref
    outputs[CROSS_TRACK] = state[HELD_CROSS_TRACK]
    return DONE
