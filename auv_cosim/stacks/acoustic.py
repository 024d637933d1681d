"""The acoustic instruments against a bathymetry grid that every vehicle's instruments share:
the grid loaded from the instruments' parameters, and a Doppler log's four Janus beams.

Over a bathymetry grid (the parameter `BathymetryFile`, read once at initialisation about the
origin `OriginLatitude`, `OriginLongitude`; `auv_cosim.seabed`) each beam is traced from the
vehicle's true position and attitude to the grid (`auv_cosim.seabed.beams`). The DVL has four
beams tilted `DvlBeamAngle` (30 degrees) from the body's z axis; a beam is in range while its
slant range is at most DvlRange / cos(DvlBeamAngle) (DvlRange is the altitude the log measures
over a flat seabed). Bottom lock holds while at least three beams are in range; the altitude is
the vehicle's height above the plane through their hit points (`JanusDvl.altitude`: inf
without lock). A vehicle's instruments read that altitude in place of the true one, through the
DVL channel they already have (lag, noise, lock within DvlRange, hold without lock): the loss of
lock then reaches their navigation as it did before, through the DVL's validity.

Without a file there is no grid and each vehicle's DVL keeps its own model (the true altitude,
lock within DvlRange): `JanusDvl.seabed` is None and nothing here is called.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .declare import parameter

#: the beams of a Janus DVL (the count without a grid, where every beam is taken to be in range)
DVL_BEAMS = 4
#: the beams in range that bottom lock needs
LOCK_BEAMS = 3


@dataclass
class AcousticConfig:
    """The instruments' parameters of the seabed and the DVL's beams (each vehicle's instruments
    register them after every other variable, so that no value reference moved)."""
    BathymetryFile: str = parameter(
        "", None, "Bathymetry grid the DVL's beams meet (as the vehicle FMU's BathymetryFile); "
        "empty: the DVL reads the true Altitude input as before")
    OriginLatitude: float = parameter(0.0, "deg", "Latitude of the NED origin, WGS 84")
    OriginLongitude: float = parameter(0.0, "deg", "Longitude of the NED origin, WGS 84")
    DvlBeamAngle: float = parameter(0.5235987755982988, "rad", "Tilt of the DVL's four Janus beams from "
                                    "the body's z axis")

    def validate(self) -> None:
        """Raise ValueError naming the first bad parameter."""
        if not (0.0 < self.DvlBeamAngle < math.pi / 2):
            raise ValueError(f"DvlBeamAngle must be in (0, pi/2), got {self.DvlBeamAngle!r}")


def body_to_ned(roll: float, pitch: float, heading: float) -> np.ndarray:
    """Body to NED of the Euler angles, R = Rz(heading) Ry(pitch) Rx(roll) (the instruments
    carry no vehicle physics, so not the vehicles' rotation module)."""
    cr, sr, cp, sp, cy, sy = (math.cos(roll), math.sin(roll), math.cos(pitch), math.sin(pitch),
                              math.cos(heading), math.sin(heading))
    return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                     [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                     [-sp, cp * sr, cp * cr]])


def load_grid(config: AcousticConfig):
    """The `auv_cosim.seabed.Seabed` of BathymetryFile about the origin, None without a file;
    ValueError naming the parameter, the file and what is wrong."""
    if not config.BathymetryFile:
        return None
    from ..seabed import SeabedError, load_seabed

    try:
        return load_seabed(config.BathymetryFile, config.OriginLatitude, config.OriginLongitude)
    except SeabedError as e:
        raise ValueError(f"BathymetryFile = {config.BathymetryFile!r}: {e.problem} ({e.path})") from None


class JanusDvl:
    """A DVL's four Janus beams against the grid of an `AcousticConfig` (see the module)."""

    def __init__(self, config: AcousticConfig, dvl_range: float):
        config.validate()
        self.config = config
        #: the grid (auv_cosim.seabed.Seabed), None without a BathymetryFile
        self.seabed = load_grid(config)
        self.slant_range = dvl_range / math.cos(config.DvlBeamAngle)
        #: the beams with an echo within range at the last `altitude` (all of them without a grid)
        self.beams_in_range = DVL_BEAMS

    def beam(self, pos, direction, max_range: float) -> float:
        """Slant range (m) from `pos` along the unit vector `direction` (NED) to the grid, NaN
        without an echo within max_range (`auv_cosim.seabed.beams.beam_range`)."""
        from ..seabed.beams import beam_range

        s = self.seabed
        return beam_range(s.depth, s.north0, s.east0, s.cell, pos[0], pos[1], pos[2],
                          direction[0], direction[1], direction[2], max_range)

    def altitude(self, pos, euler) -> float:
        """The DVL's altitude from its beams (inf without bottom lock: fewer than three beams in
        range); the number of beams in range in `beams_in_range`."""
        from ..seabed.beams import janus_beams, plane_altitude

        beams = janus_beams(body_to_ned(*euler), self.config.DvlBeamAngle)
        ranges = np.array([self.beam(pos, beams[k], self.slant_range) for k in range(DVL_BEAMS)])
        self.beams_in_range = int(np.count_nonzero(np.isfinite(ranges)))
        if self.beams_in_range < LOCK_BEAMS:
            return math.inf
        return float(plane_altitude(pos[0], pos[1], pos[2], ranges, beams))
