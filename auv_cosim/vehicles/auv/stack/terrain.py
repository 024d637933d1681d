"""The acoustic instruments against the seabed: the DVL's four Janus beams and the altimeter.

Over a bathymetry grid (AuvSensors' `BathymetryFile`, read once at initialisation about the
origin `OriginLatitude`, `OriginLongitude`; `auv_cosim.seabed`) each beam is traced from the
vehicle's true position and attitude to the grid (`auv_cosim.seabed.beams`):

* the DVL: four beams tilted `DvlBeamAngle` (30 degrees) from the body's z axis; a beam is in
  range while its slant range is at most DvlRange / cos(DvlBeamAngle) (DvlRange is the altitude
  the log measures over a flat seabed). Bottom lock holds while at least three beams are in
  range; the altitude is the vehicle's height above the plane through their hit points. That
  altitude is what the suite's DVL channel then reads (lag, bias, noise, hold without lock), in
  place of the true altitude: `dvl_altitude` returns inf without lock, which the channel takes
  as a loss of bottom lock;
* the altimeter: one beam along the body's z axis, its slant range (`MeasuredAltimeter`), valid
  within `AltimeterRange`.

Without a grid the DVL keeps today's model (the true altitude, lock within DvlRange) and the
altimeter reads the true altitude over a flat seabed along its tilted beam, altitude /
(cos roll cos pitch). The altimeter's noise comes from a generator of its own (seeded from Seed
and a fixed offset), so that the other instruments' noise is what it was.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ....stacks.declare import parameter
from ....stacks.noise import NormalStream

#: added to Seed for the altimeter's generator: its noise independent of the suite's
ALTIMETER_SEED_OFFSET = 7_919


@dataclass
class TerrainConfig:
    """AuvSensors' parameters of the seabed and the acoustic beams (registered after every other
    variable)."""
    BathymetryFile: str = parameter(
        "", None, "Bathymetry grid the DVL's beams and the altimeter meet (as Auv.fmu's BathymetryFile); "
        "empty: the DVL reads the true Altitude input as before")
    OriginLatitude: float = parameter(0.0, "deg", "Latitude of the NED origin, WGS 84")
    OriginLongitude: float = parameter(0.0, "deg", "Longitude of the NED origin, WGS 84")
    DvlBeamAngle: float = parameter(0.5235987755982988, "rad", "Tilt of the DVL's four Janus beams from "
                                    "the body's z axis")
    AltimeterRange: float = parameter(100.0, "m", "Altimeter range: the longest slant range it measures")
    AltimeterNoiseStd: float = parameter(0.02, "m", "Altimeter white-noise standard deviation")

    def validate(self) -> None:
        """Raise ValueError naming the first bad parameter."""
        if not (0.0 < self.DvlBeamAngle < math.pi / 2):
            raise ValueError(f"DvlBeamAngle must be in (0, pi/2), got {self.DvlBeamAngle!r}")
        if not (math.isfinite(self.AltimeterRange) and self.AltimeterRange > 0.0):
            raise ValueError(f"AltimeterRange must be > 0, got {self.AltimeterRange!r}")
        if not (math.isfinite(self.AltimeterNoiseStd) and self.AltimeterNoiseStd >= 0.0):
            raise ValueError(f"AltimeterNoiseStd must be >= 0, got {self.AltimeterNoiseStd!r}")


class TerrainInstruments:
    """The beams of one AuvSensors instance (see the module)."""

    def __init__(self, config: TerrainConfig, seed: int, dvl_range: float):
        config.validate()
        self.config = config
        self.seabed = None
        if config.BathymetryFile:
            from ....seabed import SeabedError, load_seabed

            try:
                self.seabed = load_seabed(config.BathymetryFile, config.OriginLatitude, config.OriginLongitude)
            except SeabedError as e:
                raise ValueError(f"BathymetryFile = {config.BathymetryFile!r}: {e.problem} ({e.path})") from None
        self.slant_range = dvl_range / math.cos(config.DvlBeamAngle)
        self.noise = NormalStream(int(seed) + ALTIMETER_SEED_OFFSET, 1)
        self.beams_in_range = 0

    @staticmethod
    def _rotation(roll, pitch, heading):
        """Body to NED of the Euler angles, R = Rz(heading) Ry(pitch) Rx(roll) (the instruments
        carry no vehicle physics, so not the vehicles' rotation module)."""
        cr, sr, cp, sp, cy, sy = (math.cos(roll), math.sin(roll), math.cos(pitch), math.sin(pitch),
                                  math.cos(heading), math.sin(heading))
        return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                         [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                         [-sp, cp * sr, cp * cr]])

    def dvl_altitude(self, pos, euler) -> float:
        """The DVL's altitude from its beams (inf without bottom lock: fewer than three beams in
        range); the number of beams in range in `beams_in_range`."""
        from ....seabed.beams import beam_range, janus_beams, plane_altitude

        s = self.seabed
        beams = janus_beams(self._rotation(*euler), self.config.DvlBeamAngle)
        ranges = np.array([beam_range(s.depth, s.north0, s.east0, s.cell, pos[0], pos[1], pos[2],
                                      beams[k, 0], beams[k, 1], beams[k, 2], self.slant_range) for k in range(4)])
        self.beams_in_range = int(np.count_nonzero(np.isfinite(ranges)))
        return float(plane_altitude(pos[0], pos[1], pos[2], ranges, beams)) if self.beams_in_range >= 3 else math.inf

    def altimeter(self, pos, euler, altitude) -> tuple[float, bool]:
        """(reading, valid): the altimeter's slant range with its noise, and whether it has an
        echo within AltimeterRange (without one the reading is 0)."""
        roll, pitch, _ = euler
        if self.seabed is None:
            tilt = math.cos(roll) * math.cos(pitch)
            true_range = altitude / tilt if tilt > 1e-6 and altitude > 0.0 else math.nan
        else:
            from ....seabed.beams import beam_range

            s = self.seabed
            d = self._rotation(*euler)[:, 2]
            true_range = beam_range(s.depth, s.north0, s.east0, s.cell, pos[0], pos[1], pos[2],
                                    d[0], d[1], d[2], self.config.AltimeterRange)
        noise = self.noise.take()[0] * self.config.AltimeterNoiseStd
        if not (math.isfinite(true_range) and 0.0 < true_range <= self.config.AltimeterRange):
            return 0.0, False
        return true_range + noise, True
