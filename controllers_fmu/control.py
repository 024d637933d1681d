"""The survey control stack as plain Python: guidance + three PID loops.

Per control period dt (the FMU communication step):

1. **Guidance** produces ``SpeedRef``, ``HeadingRef`` and ``DepthRef``:

   * ``GuidanceMode = "mission"``: line-of-sight along the ``Waypoints`` (see
     :mod:`controllers_fmu.guidance`), ``SpeedRef = CruiseSpeed``, ``DepthRef`` = depth of the
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

from .angles import angle_diff, wrap_pi
from .declare import parameter
from .guidance import WaypointManager, YoyoGuidance, parse_waypoints
from .pid import PID

GUIDANCE_MODES = ("mission", "hold", "zigzag")
DIVE_MODES = ("depth", "altitude", "yoyo")


@dataclass
class ControlConfig:
    """Parameters of :class:`ControlStack`, each declared with its unit and description: the
    field names are the FMU parameter names (fmu_support.declare).

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
            if f.name.endswith(("Kp", "Ki", "Kd")) or f.name in ("ThrustFeedForward", "LosIntegralGain") \
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
    def __init__(self, config: Optional[ControlConfig] = None):
        self.config = c = config if config is not None else ControlConfig()
        c.validate()
        self.waypoints = parse_waypoints(c.Waypoints, allow_empty=c.GuidanceMode != "mission")
        self.mission = WaypointManager(self.waypoints, c.LookAhead, c.AcceptanceRadius,
                                       c.LosIntegralGain)
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
        self.out = ControlOutputs()
        self.zz_base: Optional[float] = None     # zig-zag initial heading
        self.zz_sign = 1.0
        self.zz_switches = 0
        self.alt_depth_ref: Optional[float] = None

    # ------------------------------------------------------------------ law
    def initialize(self, inp: ControlInputs) -> ControlOutputs:
        """Outputs for the first step, from the first measurements; no state advances
        except the guidance bookkeeping (start point, initial heading, yo-yo direction)."""
        return self.step(inp, 0.0)

    def step(self, inp: ControlInputs, dt: float) -> ControlOutputs:
        inp.check()
        c, o = self.config, self.out
        finished = False
        rudder_yaw_override = None
        # ---- horizontal guidance
        if c.GuidanceMode == "mission":
            res = self.mission.update(inp.north, inp.east, inp.speed, dt)
            finished = self.mission.finished
            o.waypoint_index = self.mission.index
            if res is not None:
                o.heading_ref = res.heading_ref
                o.cross_track_error = res.cross_track
            speed_ref = 0.0 if finished else c.CruiseSpeed
            depth_cmd = self.mission.active_depth
        elif c.GuidanceMode == "hold":
            speed_ref, depth_cmd = inp.speed_cmd, inp.depth_cmd
            o.heading_ref = wrap_pi(inp.heading_cmd)
            o.cross_track_error = 0.0
        else:  # zigzag
            speed_ref, depth_cmd = inp.speed_cmd, inp.depth_cmd
            if self.zz_base is None:
                self.zz_base = inp.heading
            dev = angle_diff(inp.heading, self.zz_base)
            if self.zz_sign > 0 and dev >= c.ZigZagHeading:
                self.zz_sign = -1.0
                self.zz_switches += 1
            elif self.zz_sign < 0 and dev <= -c.ZigZagHeading:
                self.zz_sign = 1.0
                self.zz_switches += 1
            o.heading_ref = self.zz_base
            rudder_yaw_override = self.zz_sign * c.ZigZagRudder
        o.mission_finished = finished
        o.speed_ref = speed_ref

        # ---- dive guidance -> pitch reference
        if finished:
            depth_ref, pitch_ref = 0.0, c.DiveAngle
        elif c.DiveMode == "yoyo":
            depth_ref, pitch_ref = self.yoyo.update(inp.depth)
        else:
            if c.DiveMode == "altitude":
                if inp.altitude_valid:
                    self.alt_depth_ref = max(0.0, inp.depth + inp.altitude - c.TargetAltitude)
                depth_ref = self.alt_depth_ref if self.alt_depth_ref is not None else depth_cmd
            else:
                depth_ref = depth_cmd
            pitch_ref = -self.pid_depth.update(depth_ref, inp.depth, dt)
        o.depth_ref, o.pitch_ref = depth_ref, pitch_ref

        # ---- loops
        if finished:
            o.thrust_power = 0.0
            o.rudder_yaw = 0.0
        else:
            ff = c.ThrustFeedForward * speed_ref * abs(speed_ref)
            o.thrust_power = self.pid_speed.update(speed_ref, inp.speed, dt, ff=ff)
            if rudder_yaw_override is not None:
                o.rudder_yaw = rudder_yaw_override
            else:
                o.rudder_yaw = self.pid_heading.update(o.heading_ref, inp.heading, dt)
        o.rudder_dive = -self.pid_pitch.update(pitch_ref, inp.pitch, dt)
        return o

    # ------------------------------------------------------------------ state
    def get_state(self) -> Dict:
        return {
            "pid": {k: getattr(self, k).get_state()
                    for k in ("pid_speed", "pid_heading", "pid_pitch", "pid_depth")},
            "mission": self.mission.get_state(),
            "yoyo": None if self.yoyo is None else self.yoyo.get_state(),
            "zz": [self.zz_base, self.zz_sign, self.zz_switches],
            "alt_depth_ref": self.alt_depth_ref,
            "out": dict(vars(self.out)),
        }

    def set_state(self, s: Dict) -> None:
        for k, v in s["pid"].items():
            getattr(self, k).set_state(v)
        self.mission.set_state(s["mission"])
        if self.yoyo is not None and s["yoyo"] is not None:
            self.yoyo.set_state(s["yoyo"])
        self.zz_base, self.zz_sign, self.zz_switches = s["zz"][0], float(s["zz"][1]), int(s["zz"][2])
        self.alt_depth_ref = s["alt_depth_ref"]
        for k, v in s["out"].items():
            setattr(self.out, k, v)
