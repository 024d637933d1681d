"""The survey control stack as plain Python: guidance + three PID loops.

Per control period dt (the FMU communication step):

1. **Guidance** produces ``SpeedRef``, ``HeadingRef`` and ``DepthRef``:

   * ``GuidanceMode = "mission"``: line-of-sight along the ``Waypoints`` (see
     :mod:`auv_cosim.vehicles.auv.stack.guidance`), ``SpeedRef = CruiseSpeed``, ``DepthRef`` = depth of the
     active waypoint. At the end: ``ThrustPower = 0``, ``RudderYaw = 0``, the pitch loop asks
     for nose-up ``+DiveAngle`` (the coasting, positively buoyant vehicle surfaces),
     ``SpeedRef = DepthRef = 0``, ``MissionFinished = true``.
   * ``"hold"``: ``SpeedCommand``, ``HeadingCommand``, ``DepthCommand`` inputs.
   * ``"zigzag"``: the classic zig-zag (20/20 by default): ``RudderYaw = +-ZigZagRudder``
     (starboard first), reversed when the heading has deviated by ``ZigZagHeading`` from the
     heading at the start (``HeadingRef``); speed from ``SpeedCommand``, depth from
     ``DepthCommand`` (or the dive mode).

2. **Dive guidance** (``DiveMode``) turns the depth reference into ``PitchRef``:

   * ``"depth"``: depth loop ``PitchRef = -PID_depth(DepthRef - depth)``, limited to
     +-DiveAngle: deeper needs the nose down, i.e. a negative pitch;
   * ``"altitude"``: as "depth" with ``DepthRef = depth + altitude - TargetAltitude`` while
     ``AltitudeValid``; without bottom lock ``DepthRef`` is held (initially ``DepthCommand``);
   * ``"yoyo"``: ``PitchRef = -DiveAngle`` down to ``YoyoMaxDepth``, ``+DiveAngle`` up to
     ``YoyoMinDepth`` (``DepthRef`` = the depth being approached).

3. **Loops** (discrete PID, derivative on the measurement, conditional-integration
   anti-windup, output limits):

   * speed: ``ThrustPower = clamp(ThrustFeedForward SpeedRef^2 + PID_speed, 0, MaxPropulsionPower)``;
   * heading: ``RudderYaw = PID_heading(wrap(HeadingRef - heading))`` within +-MaxRudderYaw
     (positive rudder = positive yaw rate);
   * pitch: ``RudderDive = -PID_pitch(PitchRef - pitch)`` within +-MaxRudderDive (positive
     RudderDive pitches the nose down, so a nose-up demand is a negative RudderDive).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Dict, Optional

import numpy as np

from ....stacks.declare import parameter
from ....stacks.filters import lag_coefficient
from .guidance import WaypointManager, YoyoGuidance, parse_waypoints
from ....stacks.pid import PID

GUIDANCE_MODES = ("mission", "hold", "zigzag")
DIVE_MODES = ("depth", "altitude", "yoyo")


@dataclass
class ControlConfig:
    """Parameters of :class:`ControlStack`, each declared with its unit and description: the
    field names are the FMU parameter names (auv_cosim.fmu.declare).

    Default gains are tuned for the default vehicle (seed 001) at 1.5 m/s and a 0.1 s
    control period, with the default (noisy) instruments, by Nelder-Mead on simulated +-1 m
    depth steps (also at 1.0 and 2.0 m/s and a 0.2 s period), 90 deg heading changes and speed
    steps; tests/integration/test_closed_loop.py checks the figures they meet.
    """
    GuidanceMode: str = parameter(
        "mission", None,
        "Guidance: 'mission' (waypoints, line of sight), 'hold' (command inputs), 'zigzag'")
    Waypoints: str = parameter(
        "100,0,5; 100,100,5; 0,100,5; 0,0,5", None,
        "Mission waypoints 'north,east,depth; north,east,depth; ...' [m, NED, depth positive down]")
    DiveMode: str = parameter(
        "depth", None,
        "Dive guidance: 'depth' (hold DepthRef), 'altitude' (hold TargetAltitude), 'yoyo'")
    YoyoMinDepth: float = parameter(
        2.0, "m", "Yo-yo: shallowest depth, where the climb turns into a dive")
    YoyoMaxDepth: float = parameter(
        10.0, "m", "Yo-yo: deepest depth, where the dive turns into a climb")
    DiveAngle: float = parameter(
        0.349, "rad", "Yo-yo pitch magnitude and limit of the depth loop's pitch reference")
    TargetAltitude: float = parameter(5.0, "m", "Altitude held in DiveMode 'altitude'")
    CruiseSpeed: float = parameter(1.5, "m/s", "Speed reference of the mission")
    LookAhead: float = parameter(10.0, "m", "Line-of-sight lookahead distance")
    LosIntegralGain: float = parameter(
        0.1, "1", "Integral line-of-sight gain (removes the cross-track offset of a cross "
                  "current; 0: plain LOS)")
    AcceptanceRadius: float = parameter(5.0, "m", "Waypoint acceptance radius")
    SpeedKp: float = parameter(200.0, "W.s/m", "Speed loop proportional gain")
    SpeedKi: float = parameter(30.0, "W/m", "Speed loop integral gain")
    SpeedKd: float = parameter(0.0, "W.s2/m", "Speed loop derivative gain")
    SpeedIntegralBand: float = parameter(
        0.05, "m/s", "Speed integrator runs only while |speed error| is within this band")
    SpeedFilterTime: float = parameter(
        0.5, "s", "Time constant of the first-order filter on the speed loop's derivative term")
    # (4.03 + 0.33) N s2/m2 of hull and fin drag / 0.30 N/W
    ThrustFeedForward: float = parameter(
        14.5, "W.s2/m2", "Thrust feed-forward: ThrustFeedForward * SpeedRef^2 W (drag "
                         "coefficient / ThrustPerPower)")
    MaxPropulsionPower: float = parameter(120.0, "W", "Upper limit of ThrustPower (lower limit 0)")
    HeadingKp: float = parameter(2.0, "1", "Heading loop proportional gain [rad rudder / rad]")
    HeadingKi: float = parameter(0.02, "1/s", "Heading loop integral gain")
    HeadingKd: float = parameter(1.0, "s", "Heading loop derivative gain")
    HeadingIntegralBand: float = parameter(
        0.05, "rad", "Heading integrator runs only while |heading error| is within this band")
    HeadingFilterTime: float = parameter(
        1.0, "s", "Time constant of the first-order filter on the heading loop's derivative term")
    MaxRudderYaw: float = parameter(0.35, "rad", "Limit of RudderYaw (+-)")
    PitchKp: float = parameter(2.7, "1", "Pitch loop proportional gain [rad fin / rad]")
    PitchKi: float = parameter(0.25, "1/s", "Pitch loop integral gain")
    PitchKd: float = parameter(1.5, "s", "Pitch loop derivative gain")
    PitchFilterTime: float = parameter(
        1.0, "s", "Time constant of the first-order filter on the pitch loop's derivative term")
    MaxRudderDive: float = parameter(0.35, "rad", "Limit of RudderDive (+-)")
    DepthKp: float = parameter(
        0.5, "rad/m", "Depth loop proportional gain (depth error -> pitch reference)")
    DepthKi: float = parameter(0.03, "rad/(m.s)", "Depth loop integral gain")
    DepthKd: float = parameter(0.36, "rad.s/m", "Depth loop derivative gain")
    DepthIntegralBand: float = parameter(
        0.25, "m", "Depth integrator runs only while |depth error| is within this band")
    DepthFilterTime: float = parameter(
        1.0, "s", "Time constant of the first-order filter on the depth loop's derivative term")
    ZigZagRudder: float = parameter(0.349, "rad", "Zig-zag rudder angle")
    ZigZagHeading: float = parameter(
        0.349, "rad", "Zig-zag heading deviation that reverses the rudder")
    TerrainSlopeDistance: float = parameter(
        0.0, "m", "Altitude mode's look-ahead: distance over which the seabed's slope flown (depth + "
                  "altitude per metre) is averaged and its glide angle fed forward to the depth loop; "
                  "0: none")

    def validate(self) -> None:
        """Raise ValueError naming the first bad parameter."""
        if self.GuidanceMode not in GUIDANCE_MODES:
            raise ValueError(f"GuidanceMode must be one of {GUIDANCE_MODES}, got {self.GuidanceMode!r}")
        if self.DiveMode not in DIVE_MODES:
            raise ValueError(f"DiveMode must be one of {DIVE_MODES}, got {self.DiveMode!r}")
        for f in fields(self):
            if f.type in ("str", str):
                continue
            v = getattr(self, f.name)
            if not isinstance(v, (int, float)) or not math.isfinite(v):
                raise ValueError(f"{f.name} must be a finite number, got {v!r}")
            if f.name.endswith(("Kp", "Ki", "Kd")) or f.name in ("ThrustFeedForward", "LosIntegralGain",
                                                                 "TerrainSlopeDistance") \
                    or f.name.endswith("FilterTime"):
                if v < 0.0:
                    raise ValueError(f"{f.name} must be >= 0, got {v!r}")
        for name in ("SpeedIntegralBand", "DepthIntegralBand", "HeadingIntegralBand", "MaxPropulsionPower", "MaxRudderYaw", "MaxRudderDive", "LookAhead",
                     "AcceptanceRadius", "ZigZagRudder", "ZigZagHeading"):
            if getattr(self, name) <= 0.0:
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)!r}")
        if not 0.0 < self.DiveAngle < math.pi / 2:
            raise ValueError(f"DiveAngle must be in (0, pi/2), got {self.DiveAngle!r}")
        if self.CruiseSpeed < 0.0:
            raise ValueError(f"CruiseSpeed must be >= 0, got {self.CruiseSpeed!r}")
        if self.DiveMode == "altitude" and self.TargetAltitude <= 0.0:
            raise ValueError(f"TargetAltitude must be > 0, got {self.TargetAltitude!r}")


@dataclass
class ControlInputs:
    depth: float = 0.0
    pitch: float = 0.0
    heading: float = 0.0
    speed: float = 0.0
    altitude: float = 0.0
    altitude_valid: bool = False
    north: float = 0.0
    east: float = 0.0
    speed_cmd: float = 1.5
    heading_cmd: float = 0.0
    depth_cmd: float = 0.0

    def check(self) -> None:
        # Runs every step, so the usual case (all finite) is decided by one sum, finite only
        # when every term is; a sum that is not (possibly an overflow) goes term by term.
        if (math.isfinite(self.depth + self.pitch + self.heading + self.speed + self.north + self.east
                          + self.speed_cmd + self.heading_cmd + self.depth_cmd)
                and not (self.altitude_valid and not math.isfinite(self.altitude))):
            return
        for name, v in (("MeasuredDepth", self.depth), ("MeasuredPitch", self.pitch),
                        ("MeasuredHeading", self.heading), ("MeasuredSpeed", self.speed),
                        ("NavNorth", self.north), ("NavEast", self.east),
                        ("SpeedCommand", self.speed_cmd), ("HeadingCommand", self.heading_cmd),
                        ("DepthCommand", self.depth_cmd)):
            if not math.isfinite(v):
                raise ValueError(f"input {name} is not finite ({v!r})")
        if self.altitude_valid and not math.isfinite(self.altitude):
            raise ValueError(f"input MeasuredAltitude is not finite ({self.altitude!r}) although AltitudeValid")


@dataclass
class ControlOutputs:
    thrust_power: float = 0.0
    rudder_yaw: float = 0.0
    rudder_dive: float = 0.0
    speed_ref: float = 0.0
    heading_ref: float = 0.0
    depth_ref: float = 0.0
    pitch_ref: float = 0.0
    cross_track_error: float = 0.0
    waypoint_index: int = 0
    mission_finished: bool = False


class ControlStack:
    """Guidance, dive guidance and the loops of the survey AUV. A step's arithmetic is one
    compiled call (auv_cosim/vehicles/auv/stack/control_kernel.py) over arrays kept here; Python keeps the
    waypoint bookkeeping between calls (the kernel asks for the next segment when a waypoint is
    reached). `step` takes and returns the dataclasses above, `step_into` the arrays (what the
    FMU's slave hands it)."""

    def __init__(self, config: Optional[ControlConfig] = None):
        # imported here: the kernel needs auv_cosim.vehicles's switch between compiled and plain
        # Python, and importing auv_cosim.vehicles.auv.stack must not need the vehicle library (the H100's
        # instrument FMU carries auv_cosim.vehicles.auv.stack without it)
        from . import control_kernel as kernel

        self.config = c = config if config is not None else ControlConfig()
        c.validate()
        self.waypoints = parse_waypoints(c.Waypoints, allow_empty=c.GuidanceMode != "mission")
        self.mission = WaypointManager(self.waypoints, c.LookAhead, c.AcceptanceRadius,
                                       c.LosIntegralGain)
        # the limits and gains are checked by these (their state lives in self.state)
        self.yoyo = (YoyoGuidance(c.YoyoMinDepth, c.YoyoMaxDepth, c.DiveAngle)
                     if c.DiveMode == "yoyo" else None)
        self.pid_speed = PID(c.SpeedKp, c.SpeedKi, c.SpeedKd, out_min=0.0,
                             out_max=c.MaxPropulsionPower, i_min=-c.MaxPropulsionPower,
                             i_max=c.MaxPropulsionPower, tf=c.SpeedFilterTime,
                             i_band=c.SpeedIntegralBand)
        self.pid_heading = PID(c.HeadingKp, c.HeadingKi, c.HeadingKd, out_min=-c.MaxRudderYaw,
                               out_max=c.MaxRudderYaw, tf=c.HeadingFilterTime, wrap=True,
                               i_band=c.HeadingIntegralBand)
        # output = nose-up demand; RudderDive = -output
        self.pid_pitch = PID(c.PitchKp, c.PitchKi, c.PitchKd, out_min=-c.MaxRudderDive,
                             out_max=c.MaxRudderDive, tf=c.PitchFilterTime)
        # output = dive demand (positive = nose down); PitchRef = -output
        self.pid_depth = PID(c.DepthKp, c.DepthKi, c.DepthKd, out_min=-c.DiveAngle,
                             out_max=c.DiveAngle, tf=c.DepthFilterTime, i_band=c.DepthIntegralBand)
        self._kernel = kernel
        self._mission_mode = c.GuidanceMode == "mission"
        k = self.constants = np.zeros(kernel.CONSTANTS_SIZE)
        for row, pid in zip(range(kernel.LOOPS), self._pids()):
            at = row * kernel.LOOP_CONSTANTS_SIZE
            k[at + kernel.LOOP_KP], k[at + kernel.LOOP_KI], k[at + kernel.LOOP_KD] = pid.kp, pid.ki, pid.kd
            k[at + kernel.LOOP_OUT_MIN], k[at + kernel.LOOP_OUT_MAX] = pid.out_min, pid.out_max
            k[at + kernel.LOOP_I_MIN], k[at + kernel.LOOP_I_MAX] = pid.i_min, pid.i_max
            k[at + kernel.LOOP_I_BAND] = pid.i_band
        k[kernel.GUIDANCE_MODE] = GUIDANCE_MODES.index(c.GuidanceMode)
        k[kernel.DIVE_MODE] = DIVE_MODES.index(c.DiveMode)
        for index, value in ((kernel.CRUISE_SPEED, c.CruiseSpeed), (kernel.DIVE_ANGLE, c.DiveAngle),
                             (kernel.TARGET_ALTITUDE, c.TargetAltitude),
                             (kernel.THRUST_FEED_FORWARD, c.ThrustFeedForward),
                             (kernel.ZIGZAG_RUDDER, c.ZigZagRudder), (kernel.ZIGZAG_HEADING, c.ZigZagHeading),
                             (kernel.YOYO_MIN_DEPTH, c.YoyoMinDepth), (kernel.YOYO_MAX_DEPTH, c.YoyoMaxDepth),
                             (kernel.LOOK_AHEAD, c.LookAhead), (kernel.LOS_INTEGRAL_GAIN, c.LosIntegralGain),
                             (kernel.ACCEPTANCE_RADIUS, c.AcceptanceRadius), (kernel.TWO, 2.0),
                             (kernel.TERRAIN_SLOPE_DISTANCE, c.TerrainSlopeDistance)):
            k[index] = value
        self._dt = None      # the step length whose lag coefficients `constants` holds
        self.state = np.zeros(kernel.STATE_SIZE)
        self.state[kernel.YOYO_DIRECTION] = -1.0
        self.state[kernel.ZIGZAG_SIGN] = 1.0
        self.segment = np.zeros(kernel.SEGMENT_SIZE)
        self._inputs = np.zeros(kernel.INPUTS_SIZE)
        self._outputs = np.zeros(kernel.OUTPUTS_SIZE)
        self.out = ControlOutputs()

    def _pids(self):
        """The loops in the kernel's order (LOOP_SPEED, LOOP_HEADING, LOOP_PITCH, LOOP_DEPTH)."""
        return self.pid_speed, self.pid_heading, self.pid_pitch, self.pid_depth

    # ------------------------------------------------------------------ law
    def initialize(self, inp: ControlInputs) -> ControlOutputs:
        """Outputs for the first step, from the first measurements; no state advances
        except the guidance bookkeeping (start point, initial heading, yo-yo direction)."""
        return self.step(inp, 0.0)

    def step(self, inp: ControlInputs, dt: float) -> ControlOutputs:
        self._inputs[:] = (inp.depth, inp.pitch, inp.heading, inp.speed, inp.altitude, inp.north, inp.east,
                           inp.speed_cmd, inp.heading_cmd, inp.depth_cmd)
        self.step_into(self._inputs, bool(inp.altitude_valid), self._outputs, dt)
        o = self.out
        (o.thrust_power, o.rudder_yaw, o.rudder_dive, o.speed_ref, o.heading_ref, o.depth_ref, o.pitch_ref,
         o.cross_track_error) = self._outputs.tolist()
        if self._mission_mode:
            o.waypoint_index = self.mission.index
        o.mission_finished = self.mission_finished
        return o

    def step_into(self, inputs: np.ndarray, altitude_valid: bool, outputs: np.ndarray, dt: float) -> None:
        """`step` over arrays: the Real inputs in the FMU's order (control_kernel.INPUTS_SIZE
        float64 values) and the bottom lock (a bool), the Real commands written into `outputs`
        (OUTPUTS_SIZE float64, the FMU's order); `waypoint_index` and `mission_finished` after
        it. Raises ValueError naming a bad input, nothing advanced."""
        kernel = self._kernel
        if dt != self._dt:    # the loops' filter coefficients, computed once per step length
            for row, pid in zip(range(kernel.LOOPS), self._pids()):
                self.constants[row * kernel.LOOP_CONSTANTS_SIZE + kernel.LOOP_LAG] = lag_coefficient(dt, pid.tf)
            self._dt = dt
        checked = False
        while True:
            status = kernel.step_into(inputs, altitude_valid, outputs, self.segment, self.state, self.constants,
                                      dt, checked)
            if status == kernel.DONE:
                return
            checked = True    # every other answer comes after the inputs' test
            if status == kernel.CHECK_INPUTS:
                self._inputs_of(inputs, altitude_valid).check()    # raises for a bad input
            elif status == kernel.NEED_SEGMENT:
                self._next_segment(inputs)
            else:    # NEED_DISTANCE: CPython's hypot, as WaypointManager's line of sight
                self.segment[kernel.DISTANCE] = math.hypot(self.segment[kernel.END_NORTH] - inputs[kernel.NORTH],
                                                           self.segment[kernel.END_EAST] - inputs[kernel.EAST])
                self.segment[kernel.DISTANCE_KNOWN] = 1.0

    @property
    def waypoint_index(self) -> int:
        return self.mission.index

    @property
    def mission_finished(self) -> bool:
        return self._mission_mode and self.mission.finished

    @property
    def zz_switches(self) -> int:
        return int(self.state[self._kernel.ZIGZAG_SWITCHES])

    @staticmethod
    def _inputs_of(values: np.ndarray, altitude_valid: bool) -> ControlInputs:
        v = values.tolist()
        return ControlInputs(v[0], v[1], v[2], v[3], v[4], altitude_valid, v[5], v[6], v[7], v[8], v[9])

    def _next_segment(self, inputs: np.ndarray) -> None:
        """WaypointManager.update's bookkeeping: the start point at the first update, else the
        next waypoint (the cross-track integral restarts); then the segment for the kernel."""
        m = self.mission
        if m.start is None:
            m.start = (float(inputs[self._kernel.NORTH]), float(inputs[self._kernel.EAST]))
        else:
            m.index += 1
            self.state[self._kernel.CROSS_TRACK_INTEGRAL] = 0.0
            if m.index >= len(m.waypoints):
                m.finished = True
                m.index = len(m.waypoints) - 1
        self._prepare_segment()

    def _prepare_segment(self) -> None:
        """The active segment's geometry as LineOfSight computes it (CPython's hypot and atan2),
        its waypoint's depth and whether the mission is over, into self.segment."""
        k, m, seg = self._kernel, self.mission, self.segment
        seg[k.DISTANCE_KNOWN] = 0.0
        seg[k.FINISHED] = 1.0 if m.finished else 0.0
        if m.waypoints:
            seg[k.ACTIVE_DEPTH] = m.active_depth
        if m.finished:
            return
        p0, p1 = m.segment()
        dn, de = p1[0] - p0[0], p1[1] - p0[1]
        length = math.hypot(dn, de)
        seg[k.START_NORTH], seg[k.START_EAST], seg[k.END_NORTH], seg[k.END_EAST] = p0[0], p0[1], p1[0], p1[1]
        seg[k.LENGTH] = length
        seg[k.DEGENERATE] = 1.0 if length < 1e-9 else 0.0
        if length >= 1e-9:
            seg[k.ANGLE] = math.atan2(de, dn)
            seg[k.COS], seg[k.SIN] = dn / length, de / length
        seg[k.SEGMENT_READY] = 1.0

    # ------------------------------------------------------------------ state
    def get_state(self) -> Dict:
        k, s = self._kernel, self.state
        loops = {}
        for row, name in enumerate(("pid_speed", "pid_heading", "pid_pitch", "pid_depth")):
            at = row * k.LOOP_STATE_SIZE
            loops[name] = {"integral": float(s[at + k.LOOP_INTEGRAL]),
                           "prev_meas": float(s[at + k.LOOP_PREV_MEAS]) if s[at + k.LOOP_HAS_PREV] else None,
                           "deriv": float(s[at + k.LOOP_DERIV]), "last_output": float(s[at + k.LOOP_LAST_OUTPUT]),
                           "saturated": bool(s[at + k.LOOP_SATURATED])}
        mission = self.mission.get_state()
        mission["cross_track_integral"] = float(s[k.CROSS_TRACK_INTEGRAL])
        direction = s[k.YOYO_DIRECTION]
        return {
            "pid": loops,
            "mission": mission,
            "yoyo": None if self.yoyo is None else {"descending": None if direction < 0 else bool(direction),
                                                    "switches": int(s[k.YOYO_SWITCHES])},
            "zz": [float(s[k.ZIGZAG_BASE]) if s[k.ZIGZAG_STARTED] else None, float(s[k.ZIGZAG_SIGN]),
                   int(s[k.ZIGZAG_SWITCHES])],
            "alt_depth_ref": float(s[k.ALTITUDE_DEPTH_REF]) if s[k.ALTITUDE_HAS_REF] else None,
            "held": [float(s[k.HELD_HEADING_REF]), float(s[k.HELD_CROSS_TRACK])],
            "slope": [float(s[k.SLOPE_PREV_SEABED]) if s[k.SLOPE_HAS_PREV] else None, float(s[k.SLOPE_FLOWN])],
        }

    def set_state(self, state: Dict) -> None:
        k, s = self._kernel, self.state
        for row, name in enumerate(("pid_speed", "pid_heading", "pid_pitch", "pid_depth")):
            at, loop = row * k.LOOP_STATE_SIZE, state["pid"][name]
            s[at + k.LOOP_INTEGRAL] = float(loop["integral"])
            s[at + k.LOOP_HAS_PREV] = 0.0 if loop["prev_meas"] is None else 1.0
            s[at + k.LOOP_PREV_MEAS] = 0.0 if loop["prev_meas"] is None else float(loop["prev_meas"])
            s[at + k.LOOP_DERIV] = float(loop["deriv"])
            s[at + k.LOOP_LAST_OUTPUT] = float(loop["last_output"])
            s[at + k.LOOP_SATURATED] = 1.0 if loop["saturated"] else 0.0
        self.mission.set_state(state["mission"])
        s[k.CROSS_TRACK_INTEGRAL] = self.mission.cross_track_integral
        self.segment[:] = 0.0
        if self.mission.start is not None:
            self._prepare_segment()
        if self.yoyo is not None and state["yoyo"] is not None:
            descending = state["yoyo"]["descending"]
            s[k.YOYO_DIRECTION] = -1.0 if descending is None else float(bool(descending))
            s[k.YOYO_SWITCHES] = int(state["yoyo"]["switches"])
        base, sign, switches = state["zz"]
        s[k.ZIGZAG_STARTED], s[k.ZIGZAG_BASE] = (0.0, 0.0) if base is None else (1.0, float(base))
        s[k.ZIGZAG_SIGN], s[k.ZIGZAG_SWITCHES] = float(sign), int(switches)
        alt = state["alt_depth_ref"]
        s[k.ALTITUDE_HAS_REF], s[k.ALTITUDE_DEPTH_REF] = (0.0, 0.0) if alt is None else (1.0, float(alt))
        s[k.HELD_HEADING_REF], s[k.HELD_CROSS_TRACK] = (float(v) for v in state["held"])
        prev, slope = state["slope"]
        s[k.SLOPE_HAS_PREV], s[k.SLOPE_PREV_SEABED] = (0.0, 0.0) if prev is None else (1.0, float(prev))
        s[k.SLOPE_FLOWN] = float(slope)
