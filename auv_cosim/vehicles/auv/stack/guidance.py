"""The AUV's guidance: line-of-sight steering, waypoint switching, the yo-yo profile (the
Waypoints format is both stacks', auv_cosim.stacks.waypoints).

NED throughout: north, east in metres, depth positive down, heading 0 = north, pi/2 = east,
wrapped to (-pi, pi].
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import List, Optional, Tuple

from ....stacks.angles import wrap_pi
from ....stacks.waypoints import Waypoint, WaypointError, parse_waypoints  # noqa: F401 (also the guidance's names)


@dataclass
class LosResult:
    heading_ref: float      # rad, (-pi, pi]
    cross_track: float      # m, positive = vehicle to starboard (right) of the path
    along_track: float      # m, from the segment start towards its end
    segment_length: float   # m
    distance: float         # m, from the vehicle to the segment end


class LineOfSight:
    """Lookahead-based line-of-sight steering along the segment ``p0 -> p1``.

    With the path angle ``alpha = atan2(dE, dN)``, the along-track ``s`` and cross-track ``e``
    (positive to starboard of the path) of the vehicle, the reference heading is
    ``alpha + atan2(-(e + offset), LookAhead)``: the heading towards the point LookAhead metres
    down the path from the vehicle's projection on it, shifted sideways by ``offset`` (the
    integral term of integral LOS, see `WaypointManager`; zero for plain LOS). A degenerate
    (zero-length) segment steers straight at its end point.
    """

    def __init__(self, look_ahead: float):
        if not look_ahead > 0.0:
            raise ValueError(f"LookAhead must be > 0, got {look_ahead!r}")
        self.look_ahead = float(look_ahead)

    def __call__(self, p0: Tuple[float, float], p1: Tuple[float, float],
                 north: float, east: float, offset: float = 0.0) -> LosResult:
        dn, de = p1[0] - p0[0], p1[1] - p0[1]
        length = math.hypot(dn, de)
        dist = math.hypot(p1[0] - north, p1[1] - east)
        if length < 1e-9:
            return LosResult(math.atan2(p1[1] - east, p1[0] - north), 0.0, 0.0, 0.0, dist)
        alpha = math.atan2(de, dn)
        ca, sa = dn / length, de / length
        rn, re = north - p0[0], east - p0[1]
        s = ca * rn + sa * re
        e = -sa * rn + ca * re
        psi = wrap_pi(alpha + math.atan2(-(e + offset), self.look_ahead))
        return LosResult(psi, e, s, length, dist)


class WaypointManager:
    """Active-waypoint bookkeeping and integral line-of-sight (ILOS) steering.

    The first segment runs from the vehicle's position at the first update to waypoint 0.
    The active waypoint is reached, and the next one becomes active, when the vehicle is
    within ``acceptance_radius`` of it **or** has passed the perpendicular to the segment
    through it (along-track >= segment length). After the last waypoint ``finished`` is set.

    Plain LOS leaves a steady cross-track offset in a cross current (the vehicle must crab, and
    only a cross-track error turns it). ILOS (Borhaug, Pavlov and Pettersen 2008; Fossen 2011,
    section 10.3) integrates the cross-track error and steers as if it were larger:

        heading_ref = alpha - atan((e + k e_i) / Delta),
        e_i' = U Delta e / (Delta^2 + (e + k e_i)^2)

    with Delta the lookahead, U the speed and k = ``integral_gain`` (0: plain LOS). The
    denominator slows the integration while the vehicle is far off the path (the anti-windup
    of the method), and the integral runs only within half a lookahead of the path, so that
    the overshoot after a turn does not wind it up (it would otherwise carry the vehicle past
    the line on the other side); a cross current that needs more than that (atan(1/2) = 27
    degrees of crab, about 0.6 m/s at 1.4 m/s) is corrected more slowly. Linearised,
    e'' + (U/Delta) e' + k (U/Delta)^2 e = 0: k = 0.25 is critically damped, the default 0.1
    overdamped (a slow mode of about 60 s at 1.4 m/s and a 10 m lookahead), which keeps the
    turns as clean as plain LOS. The integral restarts at each new segment.
    """

    def __init__(self, waypoints: List[Waypoint], look_ahead: float, acceptance_radius: float,
                 integral_gain: float = 0.0):
        if not acceptance_radius > 0.0:
            raise ValueError(f"AcceptanceRadius must be > 0, got {acceptance_radius!r}")
        if not integral_gain >= 0.0:
            raise ValueError(f"LosIntegralGain must be >= 0, got {integral_gain!r}")
        self.waypoints = list(waypoints)
        self.los = LineOfSight(look_ahead)
        self.acceptance_radius = float(acceptance_radius)
        self.integral_gain = float(integral_gain)
        self.index = 0
        self.start: Optional[Tuple[float, float]] = None
        self.finished = len(self.waypoints) == 0
        self.last: Optional[LosResult] = None
        self.cross_track_integral = 0.0   # e_i, m

    def segment(self) -> Tuple[Tuple[float, float], Tuple[float, float]]:
        if self.index == 0:
            p0 = self.start
        else:
            w = self.waypoints[self.index - 1]
            p0 = (w[0], w[1])
        w = self.waypoints[min(self.index, len(self.waypoints) - 1)]
        return p0, (w[0], w[1])

    def update(self, north: float, east: float, speed: float = 0.0,
               dt: float = 0.0) -> Optional[LosResult]:
        """Switch waypoints as needed and return the (I)LOS result of the active segment
        (None once finished); the integral then advances by `dt` at `speed`."""
        if self.start is None:
            self.start = (float(north), float(east))
        while not self.finished:
            p0, p1 = self.segment()
            offset = self.integral_gain * self.cross_track_integral
            res = self.los(p0, p1, north, east, offset)
            if res.distance <= self.acceptance_radius or res.along_track >= res.segment_length:
                self.index += 1
                self.cross_track_integral = 0.0
                if self.index >= len(self.waypoints):
                    self.finished = True
                    self.index = len(self.waypoints) - 1
                continue
            delta = self.los.look_ahead
            e = res.cross_track
            if self.integral_gain > 0.0 and dt > 0.0 and abs(e) < 0.5 * delta:
                self.cross_track_integral += (dt * max(speed, 0.0) * delta * e
                                              / (delta * delta + (e + offset) ** 2))
            self.last = res
            return res
        return None

    @property
    def active_depth(self) -> float:
        return self.waypoints[self.index][2]

    def get_state(self) -> dict:
        return {"index": self.index, "start": None if self.start is None else list(self.start),
                "finished": self.finished, "cross_track_integral": self.cross_track_integral}

    def set_state(self, s: dict) -> None:
        self.index = int(s["index"])
        self.start = None if s["start"] is None else (float(s["start"][0]), float(s["start"][1]))
        self.finished = bool(s["finished"])
        self.cross_track_integral = float(s.get("cross_track_integral", 0.0))


class YoyoGuidance:
    """Undulating (yo-yo) dive profile between ``min_depth`` and ``max_depth``.

    Descending, the pitch reference is ``-dive_angle`` (nose down) until the measured depth
    reaches ``max_depth``; then it climbs at ``+dive_angle`` until the depth is back up at
    ``min_depth``, and so on. It starts descending unless it starts at or below ``max_depth``.
    ``depth_target`` is the boundary being approached.
    """

    def __init__(self, min_depth: float, max_depth: float, dive_angle: float):
        if not (min_depth >= 0.0):
            raise ValueError(f"YoyoMinDepth must be >= 0, got {min_depth!r}")
        if not (max_depth > min_depth):
            raise ValueError(f"YoyoMaxDepth ({max_depth!r}) must be greater than YoyoMinDepth ({min_depth!r})")
        if not (0.0 < dive_angle < math.pi / 2):
            raise ValueError(f"DiveAngle must be in (0, pi/2), got {dive_angle!r}")
        self.min_depth, self.max_depth, self.dive_angle = float(min_depth), float(max_depth), float(dive_angle)
        self.descending: Optional[bool] = None
        self.switches = 0

    def update(self, depth: float) -> Tuple[float, float]:
        """Return (depth_target, pitch_ref) for the measured depth."""
        if self.descending is None:
            self.descending = depth < self.max_depth
        elif self.descending and depth >= self.max_depth:
            self.descending = False
            self.switches += 1
        elif not self.descending and depth <= self.min_depth:
            self.descending = True
            self.switches += 1
        if self.descending:
            return self.max_depth, -self.dive_angle
        return self.min_depth, self.dive_angle

    def get_state(self) -> dict:
        return {"descending": self.descending, "switches": self.switches}

    def set_state(self, s: dict) -> None:
        self.descending = s["descending"]
        self.switches = int(s["switches"])
