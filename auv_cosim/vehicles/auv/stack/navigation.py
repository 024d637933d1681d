"""The navigation without bottom lock: dead reckoning on the water track, which misses the current.

Over a bathymetry grid the survey AUV's navigation (``NavNorth``, ``NavEast``) is what a
DVL-aided inertial navigation gives: while the DVL has bottom lock it measures the velocity over
ground, and the position error stays at the instruments' noise (the suite's model). Without
lock (the seabed out of the beams' range, or fewer than three beams with an echo) the DVL has
only its water track: the navigation then integrates the speed through the water along the
measured heading and pitch,

    v_est = MeasuredSpeed cos(MeasuredPitch) (cos MeasuredHeading, sin MeasuredHeading),

while the vehicle moves over ground at its true velocity ``Vel``. The difference, the current
and the sideslip the water track cannot see, accumulates as the navigation's drift,

    d(t) = integral of (v_est - Vel_NE) dt      over the time without lock,

added to the navigation position. Regaining lock stops the growth but does not undo it: a
DVL measures velocity, not position, so only a position fix removes the drift. That fix is
GPS at the surface: shallower than ``GpsFixDepth`` (true depth: the antenna is out of the
water) the drift is zero.

Without a grid the suite's model is kept (its lock comes from the true altitude, and every
existing result stays as it was): the drift is zero and nothing is added.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ....stacks.declare import parameter


@dataclass
class DeadReckoningConfig:
    """AuvSensors' parameter of the navigation's drift (registered after every other variable)."""
    GpsFixDepth: float = parameter(0.5, "m", "Navigation over a BathymetryFile: shallower than this a GPS fix "
                                   "removes the drift dead reckoning on the water track built up without "
                                   "bottom lock")

    def validate(self) -> None:
        """Raise ValueError naming a bad parameter."""
        if not (math.isfinite(self.GpsFixDepth) and self.GpsFixDepth >= 0.0):
            raise ValueError(f"GpsFixDepth must be finite and >= 0, got {self.GpsFixDepth!r}")


def water_track_velocity(speed, pitch, heading):
    """(north, east) velocity (m/s) the navigation estimates from the water track: the speed
    through the water along the body's x axis, projected on the horizontal by the pitch and
    turned by the heading."""
    horizontal = speed * math.cos(pitch)
    return horizontal * math.cos(heading), horizontal * math.sin(heading)


class WaterTrackDrift:
    """The navigation's drift (north, east; m) of one AuvSensors instance (see the module)."""

    def __init__(self, config: DeadReckoningConfig):
        config.validate()
        self.fix_depth = float(config.GpsFixDepth)
        self.north = 0.0
        self.east = 0.0

    def advance(self, dt, bottom_lock, depth, measured_speed, measured_pitch, measured_heading, vel_north, vel_east):
        """Advance the drift over a step of dt (s) that ended with these readings: a GPS fix at
        the surface removes it; without bottom lock it grows by (v_est - Vel) dt."""
        if depth < self.fix_depth:
            self.north = self.east = 0.0
            return
        if bottom_lock:
            return
        est_north, est_east = water_track_velocity(measured_speed, measured_pitch, measured_heading)
        self.north += dt * (est_north - vel_north)
        self.east += dt * (est_east - vel_east)

    @property
    def active(self) -> bool:
        """Whether there is a drift to add (none: the navigation is the suite's, bit for bit)."""
        return self.north != 0.0 or self.east != 0.0

    def get_state(self):
        return [self.north, self.east]

    def set_state(self, state) -> None:
        self.north, self.east = float(state[0]), float(state[1])
