"""References for the H100: what the controllers track, for every mode, as one smooth trajectory
``(position, velocity, acceleration)`` in NED and ``(heading, rate, acceleration)``; roll and
pitch are held level.

Modes (parameter ``Mode``):

* ``hold``: station keeping: the position and heading the navigation gives at initialisation
  (the vehicle's initial pose, ``HoldInitialPose``), or ``HoldPosition`` / ``HoldHeading``;
* ``depth_heading``: the horizontal position held as in ``hold``, depth and heading from the
  inputs ``DepthCommand`` and ``HeadingCommand`` (steps are smoothed, see below);
* ``velocity``: body-axis surge and sway speeds from ``SurgeCommand`` / ``SwayCommand`` (the
  horizontal position reference moves at that velocity, rotated by the heading reference),
  depth and heading from the inputs;
* ``waypoints``: the reference point runs along the straight legs between 3-D ``Waypoints`` at
  ``TrackSpeed``, the heading along the leg (or ``HoldHeading`` when held); it stops at the
  last one, which it holds;
* ``sshape``: an S-shape manoeuvre: forward along the initial heading at ``TrackSpeed`` while
  the path swings sideways ``ManoeuvreAmplitude * sin(2 pi t / ManoeuvrePeriod)``, heading along
  the path's tangent;
* ``sway``: sinusoidal sway: the same sideways swing, heading held, no forward motion.

Every mode's raw target goes through a reference model per axis, Fossen's (2021, sec. 12.1)
second-order filter with the target's own velocity fed forward,
``x'' = w^2 (x_t - x) + 2 w (v_t - x')`` with ``x''`` and ``x'`` limited: a step becomes a
critically damped transition of natural frequency ``w`` (no overshoot, 1 % after ~6.6 / w s),
a ramp is followed without lag, and the controllers get the acceleration and velocity to feed
forward. The heading axis works on the wrapped error.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import List, Sequence, Tuple

from ....stacks.angles import wrap_pi
from ....stacks.declare import parameter
from ....stacks.waypoints import parse_waypoints

MODES = ("hold", "depth_heading", "velocity", "waypoints", "sshape", "sway")


@dataclass
class Reference:
    pos: List[float]            # NED, m
    vel: List[float]            # NED, m/s
    acc: List[float]            # NED, m/s^2
    heading: float              # rad, wrapped
    heading_rate: float         # rad/s
    heading_acc: float          # rad/s^2

    def copy(self) -> "Reference":
        return Reference(list(self.pos), list(self.vel), list(self.acc), self.heading,
                         self.heading_rate, self.heading_acc)


class AxisFilter:
    """One axis of the reference model (module docstring); ``angle=True`` wraps."""

    def __init__(self, natural_frequency: float, max_speed: float, max_acceleration: float,
                 angle: bool = False):
        self.w = float(natural_frequency)
        self.max_speed = float(max_speed)
        self.max_acceleration = float(max_acceleration)
        self.angle = angle
        self.x = 0.0
        self.v = 0.0
        self.a = 0.0

    def reset(self, x: float, v: float = 0.0) -> None:
        self.x, self.v, self.a = float(x), float(v), 0.0

    def step(self, target: float, target_speed: float, dt: float) -> None:
        """Advance by dt (semi-implicit Euler, in sub-steps of at most 0.1 s: w h <= 0.15 at the
        default frequencies, where the discrete filter's poles sit within 1 % of the continuous
        ones' and it stays well damped)."""
        if dt <= 0.0:
            return
        x, v = self.x, self.v
        if x == target and v == 0.0 and target_speed == 0.0 and (not self.angle or -math.pi < x <= math.pi):
            # at rest on a resting target (station keeping, every step): the update below would
            # give a = 0, v = 0, x + 0 (and an angle already wrapped wraps to itself); the same
            # numbers without the loop
            self.x, self.v, self.a = x + 0.0, 0.0, 0.0
            return
        steps = 1 if dt <= 0.1 else int(math.ceil(dt / 0.1 - 1e-9))
        h = dt / steps
        w, angle = self.w, self.angle
        a_max, v_max = self.max_acceleration, self.max_speed
        for _ in range(steps):
            error = wrap_pi(target - x) if angle else target - x
            a = w * w * error + 2.0 * w * (target_speed - v)
            # the limits as max(-m, min(m, .)), written out: no builtin calls
            a = a if a < a_max else a_max
            a = a if a > -a_max else -a_max
            v_new = v + a * h
            v_new = v_new if v_new < v_max else v_max
            v_new = v_new if v_new > -v_max else -v_max
            self.a = (v_new - v) / h
            v = v_new
            x += v * h
            if angle:
                x = wrap_pi(x)
        self.x, self.v = x, v

    def get_state(self):
        return [self.x, self.v, self.a]

    def set_state(self, state) -> None:
        self.x, self.v, self.a = (float(s) for s in state)


@dataclass
class GuidanceConfig:
    """Parameters of :class:`Guidance`; the field names are the FMU parameter names."""
    Mode: str = parameter("hold", None, "Mode: 'hold' (station keeping), 'depth_heading', 'velocity', "
                                        "'waypoints', 'sshape', 'sway'")
    Waypoints: str = parameter("", None, "Waypoints 'north,east,depth; ...' [m, NED] (Mode 'waypoints')")
    HoldInitialPose: bool = parameter(True, None, "Hold the initial position and heading (true) or "
                                                  "HoldPosition / HoldHeading (false)")
    HoldPosition: Tuple[float, float, float] = parameter(
        (0.0, 0.0, 0.0), "m", "Position held when HoldInitialPose is false",
        size=3, labels=("north", "east", "down"))
    HoldHeading: float = parameter(0.0, "rad", "Heading held when HoldInitialPose is false (and of the "
                                               "waypoint legs then)")
    TrackSpeed: float = parameter(0.3, "m/s", "Speed along the waypoint legs and of the S-shape")
    ManoeuvreAmplitude: float = parameter(1.0, "m", "Sideways amplitude of the S-shape and sway manoeuvres")
    ManoeuvrePeriod: float = parameter(30.0, "s", "Period of the S-shape and sway manoeuvres")
    ReferenceFrequency: float = parameter(1.5, "rad/s", "Reference model natural frequency, position axes")
    HeadingReferenceFrequency: float = parameter(1.0, "rad/s", "Reference model natural frequency, heading")
    ReferenceMaxSpeed: float = parameter(0.8, "m/s", "Reference model speed limit, each position axis")
    ReferenceMaxAcceleration: float = parameter(1.5, "m/s2", "Reference model acceleration limit")
    ReferenceMaxYawRate: float = parameter(0.6, "rad/s", "Reference model yaw rate limit")
    ReferenceMaxYawAcceleration: float = parameter(1.0, "rad/s2", "Reference model yaw acceleration limit")

    def held_position(self) -> Tuple[float, float, float]:
        """The position to hold, NaN where the initial one is meant (all axes with HoldInitialPose;
        a library caller may also give NaN for one axis of HoldPosition)."""
        return (math.nan,) * 3 if self.HoldInitialPose else tuple(float(v) for v in self.HoldPosition)

    def held_heading(self) -> float:
        """The heading to hold (and of the waypoint legs), NaN for the initial (along the legs)."""
        return math.nan if self.HoldInitialPose else float(self.HoldHeading)

    def validate(self) -> None:
        if self.Mode not in MODES:
            raise ValueError(f"Mode must be one of {', '.join(MODES)}; got {self.Mode!r}")
        for name in ("TrackSpeed", "ManoeuvreAmplitude"):
            v = float(getattr(self, name))
            if not (math.isfinite(v) and v >= 0.0):
                raise ValueError(f"{name} must be finite and >= 0, got {v!r}")
        for name in ("ManoeuvrePeriod", "ReferenceFrequency", "HeadingReferenceFrequency", "ReferenceMaxSpeed",
                     "ReferenceMaxAcceleration", "ReferenceMaxYawRate", "ReferenceMaxYawAcceleration"):
            v = float(getattr(self, name))
            if not (math.isfinite(v) and v > 0.0):
                raise ValueError(f"{name} must be finite and > 0, got {v!r}")
        if len(self.HoldPosition) != 3 or any(math.isinf(float(v)) for v in self.HoldPosition):
            raise ValueError(f"HoldPosition must be 3 numbers (NaN: the initial position), got {list(self.HoldPosition)!r}")
        if math.isinf(float(self.HoldHeading)):
            raise ValueError(f"HoldHeading must be finite or NaN, got {self.HoldHeading!r}")
        if self.Mode == "waypoints" or self.Waypoints.strip():
            # WaypointError (a ValueError) names the entry; empty only when another mode runs.
            # Checked even when unused: a typo is not kept silently
            parse_waypoints(self.Waypoints)


@dataclass
class Commands:
    """The command inputs of the modes that take them."""
    depth: float = 0.0
    heading: float = 0.0
    surge: float = 0.0
    sway: float = 0.0


class Guidance:
    """Raw targets per mode, smoothed by the reference model (module docstring)."""

    def __init__(self, config: GuidanceConfig):
        config.validate()
        self.config = c = config
        self.axes = [AxisFilter(c.ReferenceFrequency, c.ReferenceMaxSpeed, c.ReferenceMaxAcceleration) for _ in range(3)]
        self.yaw = AxisFilter(c.HeadingReferenceFrequency, c.ReferenceMaxYawRate, c.ReferenceMaxYawAcceleration,
                              angle=True)
        self.waypoints = parse_waypoints(c.Waypoints) if c.Mode == "waypoints" else []
        self.time = 0.0
        self.origin = [0.0, 0.0, 0.0]
        self.origin_heading = 0.0
        self.target = [0.0, 0.0, 0.0]       # the raw target of the current mode (velocity mode integrates it)
        self.leg = 0
        self.track_distance = 0.0           # waypoints: the distance run along the legs
        self.finished = False

    # ------------------------------------------------------------------ public
    def initialize(self, pos: Sequence[float], heading: float, commands: Commands) -> Reference:
        c = self.config
        hold, hold_heading = c.held_position(), c.held_heading()
        self.origin = [hold[i] if math.isfinite(hold[i]) else float(pos[i]) for i in range(3)]
        self.origin_heading = hold_heading if math.isfinite(hold_heading) else wrap_pi(float(heading))
        self.time = 0.0
        self.target = list(self.origin)
        self.leg, self.track_distance, self.finished = 0, 0.0, False
        # the reference starts where the vehicle is (no jump), then moves toward the targets
        for i in range(3):
            self.axes[i].reset(float(pos[i]))
        self.yaw.reset(wrap_pi(float(heading)))
        if c.Mode == "hold":
            for i in range(3):
                self.axes[i].reset(self.origin[i])
            self.yaw.reset(self.origin_heading)
        return self.reference(commands)

    def step(self, commands: Commands, dt: float) -> Reference:
        self.time += dt
        if self.config.Mode == "hold" and dt > 0.0 and self._holding_still():
            # every axis at rest on its held target: what each AxisFilter.step does there, without
            # the targets' lists and the four calls (station keeping, nearly every step)
            for axis in self.axes:
                axis.x, axis.v, axis.a = axis.x + 0.0, 0.0, 0.0
            yaw = self.yaw
            yaw.x, yaw.v, yaw.a = yaw.x + 0.0, 0.0, 0.0
            return self.reference(commands)
        target, speed, heading, heading_rate = self._target(commands, dt)
        n, e, d = self.axes
        n.step(target[0], speed[0], dt)
        e.step(target[1], speed[1], dt)
        d.step(target[2], speed[2], dt)
        self.yaw.step(heading, heading_rate, dt)
        return self.reference(commands)

    def _holding_still(self) -> bool:
        """Mode 'hold' with every axis at rest on its target (AxisFilter.step's resting case:
        position on the target, no velocity, the heading wrapped)."""
        (n, e, d), yaw, o = self.axes, self.yaw, self.origin
        return (n.x == o[0] and n.v == 0.0 and e.x == o[1] and e.v == 0.0 and d.x == o[2] and d.v == 0.0
                and yaw.x == self.origin_heading and yaw.v == 0.0 and -math.pi < yaw.x <= math.pi)

    def reference(self, commands: Commands) -> Reference:
        n, e, d, yaw = self.axes[0], self.axes[1], self.axes[2], self.yaw
        return Reference([n.x, e.x, d.x], [n.v, e.v, d.v], [n.a, e.a, d.a], yaw.x, yaw.v, yaw.a)

    # ------------------------------------------------------------------ targets
    def _target(self, cmd: Commands, dt: float):
        """(target position, target velocity, target heading, target heading rate) now."""
        c, mode = self.config, self.config.Mode
        o = self.origin
        if mode == "hold":
            return list(o), [0.0, 0.0, 0.0], self.origin_heading, 0.0
        if mode == "depth_heading":
            return [o[0], o[1], float(cmd.depth)], [0.0, 0.0, 0.0], wrap_pi(float(cmd.heading)), 0.0
        if mode == "velocity":
            psi = self.yaw.x
            vn = math.cos(psi) * cmd.surge - math.sin(psi) * cmd.sway
            ve = math.sin(psi) * cmd.surge + math.cos(psi) * cmd.sway
            self.target[0] += vn * dt
            self.target[1] += ve * dt
            self.target[2] = float(cmd.depth)
            return list(self.target), [vn, ve, 0.0], wrap_pi(float(cmd.heading)), 0.0
        if mode == "waypoints":
            return self._waypoint_target(dt)
        # manoeuvres about the origin along the initial heading
        t, period, amplitude = self.time, c.ManoeuvrePeriod, c.ManoeuvreAmplitude
        omega = 2.0 * math.pi / period
        forward = c.TrackSpeed if mode == "sshape" else 0.0
        along, along_rate = forward * t, forward
        side, side_rate = amplitude * math.sin(omega * t), amplitude * omega * math.cos(omega * t)
        psi0 = self.origin_heading
        cp, sp = math.cos(psi0), math.sin(psi0)
        target = [o[0] + cp * along - sp * side, o[1] + sp * along + cp * side, o[2]]
        speed = [cp * along_rate - sp * side_rate, sp * along_rate + cp * side_rate, 0.0]
        if mode == "sway":
            return target, speed, psi0, 0.0
        side_acc = -amplitude * omega * omega * math.sin(omega * t)
        slope = side_rate / max(along_rate, 1e-9)
        heading = wrap_pi(psi0 + math.atan2(side_rate, along_rate))
        heading_rate = (side_acc / max(along_rate, 1e-9)) / (1.0 + slope * slope)
        return target, speed, heading, heading_rate

    def _waypoint_target(self, dt: float):
        c = self.config
        points = [tuple(self.origin)] + list(self.waypoints)
        if not self.finished:
            self.track_distance += c.TrackSpeed * dt
        # walk the legs from the start (few legs: simple and stateless but for the distance)
        remaining = self.track_distance
        for k in range(len(points) - 1):
            a, b = points[k], points[k + 1]
            length = math.dist(a, b)
            if remaining <= length and length > 0.0:
                u = [(b[i] - a[i]) / length for i in range(3)]
                target = [a[i] + remaining * u[i] for i in range(3)]
                speed = [c.TrackSpeed * u[i] for i in range(3)]
                self.leg = k
                return target, speed, self._leg_heading(a, b), 0.0
            remaining -= length
        self.finished = True
        self.leg = len(points) - 2
        last = points[-1]
        before = points[-2] if len(points) > 1 else points[-1]
        return list(last), [0.0, 0.0, 0.0], self._leg_heading(before, last), 0.0

    def _leg_heading(self, a, b) -> float:
        hold_heading = self.config.held_heading()
        if math.isfinite(hold_heading):
            return hold_heading
        if math.hypot(b[0] - a[0], b[1] - a[1]) < 1e-6:   # a vertical leg: keep the heading
            return self.yaw.x
        return math.atan2(b[1] - a[1], b[0] - a[0])

    # ------------------------------------------------------------------ state
    def get_state(self) -> dict:
        return {"axes": [a.get_state() for a in self.axes], "yaw": self.yaw.get_state(),
                "time": self.time, "origin": list(self.origin), "origin_heading": self.origin_heading,
                "target": list(self.target), "leg": self.leg, "track_distance": self.track_distance,
                "finished": self.finished}

    def set_state(self, s: dict) -> None:
        for a, state in zip(self.axes, s["axes"]):
            a.set_state(state)
        self.yaw.set_state(s["yaw"])
        self.time, self.origin = float(s["time"]), [float(v) for v in s["origin"]]
        self.origin_heading, self.target = float(s["origin_heading"]), [float(v) for v in s["target"]]
        self.leg, self.track_distance = int(s["leg"]), float(s["track_distance"])
        self.finished = bool(s["finished"])
