"""The AUV's acoustic instruments against the seabed: the DVL's four Janus beams and the altimeter.

The DVL's beams, the grid and bottom lock are the shared ones (`auv_cosim.stacks.acoustic`:
four beams tilted `DvlBeamAngle` from the body's z axis, lock while at least three are within
DvlRange / cos(DvlBeamAngle), the altitude above the plane through their hit points). That
altitude is what the suite's DVL channel then reads (lag, bias, noise, hold without lock), in
place of the true altitude: `dvl_altitude` returns inf without lock, which the channel takes as a
loss of bottom lock.

The altimeter is the AUV's own: one beam along the body's z axis, its slant range
(`MeasuredAltimeter`), valid within `AltimeterRange`. Without a grid the DVL keeps today's
model (the true altitude, lock within DvlRange) and the altimeter reads the true altitude over a
flat seabed along its tilted beam, altitude / (cos roll cos pitch). The altimeter's noise comes
from a generator of its own (seeded from Seed and a fixed offset), so that the other
instruments' noise is what it was.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ....stacks.acoustic import AcousticConfig, JanusDvl, body_to_ned
from ....stacks.declare import parameter
from ....stacks.noise import NormalStream

#: added to Seed for the altimeter's generator: its noise independent of the suite's
ALTIMETER_SEED_OFFSET = 7_919


@dataclass
class TerrainConfig(AcousticConfig):
    """AuvSensors' parameters of the seabed and the acoustic beams (registered after every other
    variable): the shared ones (`AcousticConfig`, in its order) and the altimeter's."""
    BathymetryFile: str = parameter(
        "", None, "Bathymetry grid the DVL's beams and the altimeter meet (as Auv.fmu's BathymetryFile); "
        "empty: the DVL reads the true Altitude input as before")
    AltimeterRange: float = parameter(100.0, "m", "Altimeter range: the longest slant range it measures")
    AltimeterNoiseStd: float = parameter(0.02, "m", "Altimeter white-noise standard deviation")

    def validate(self) -> None:
        """Raise ValueError naming the first bad parameter."""
        super().validate()
        if not (math.isfinite(self.AltimeterRange) and self.AltimeterRange > 0.0):
            raise ValueError(f"AltimeterRange must be > 0, got {self.AltimeterRange!r}")
        if not (math.isfinite(self.AltimeterNoiseStd) and self.AltimeterNoiseStd >= 0.0):
            raise ValueError(f"AltimeterNoiseStd must be >= 0, got {self.AltimeterNoiseStd!r}")


class TerrainInstruments(JanusDvl):
    """The beams of one AuvSensors instance (see the module)."""

    def __init__(self, config: TerrainConfig, seed: int, dvl_range: float):
        super().__init__(config, dvl_range)
        self.noise = NormalStream(int(seed) + ALTIMETER_SEED_OFFSET, 1)

    def dvl_altitude(self, pos, euler) -> float:
        """The DVL's altitude from its beams (`JanusDvl.altitude`: inf without bottom lock)."""
        return self.altitude(pos, euler)

    def altimeter(self, pos, euler, altitude) -> tuple[float, bool]:
        """(reading, valid): the altimeter's slant range with its noise, and whether it has an
        echo within AltimeterRange (without one the reading is 0)."""
        roll, pitch, _ = euler
        if self.seabed is None:
            tilt = math.cos(roll) * math.cos(pitch)
            true_range = altitude / tilt if tilt > 1e-6 and altitude > 0.0 else math.nan
        else:
            true_range = self.beam(pos, body_to_ned(*euler)[:, 2], self.config.AltimeterRange)
        noise = self.noise.take()[0] * self.config.AltimeterNoiseStd
        if not (math.isfinite(true_range) and 0.0 < true_range <= self.config.AltimeterRange):
            return 0.0, False
        return true_range + noise, True
