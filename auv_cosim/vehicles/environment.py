"""The water around any vehicle: current (uniform or sheared with depth), sea floor, gravity.

`Environment` holds the values; the compiled functions below evaluate them inside a vehicle's
derivative, each taking the slice of the vehicle's constant vector where the vehicle packed
the environment (see `auv_cosim.vehicles.protocol.ConstantTable`). Waves are to come beside this
module (`auv_cosim/vehicles/waves.py`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Tuple

from ..compiled.jit import jit
from .parameters import NED, ParameterSet, Vector3, parameter, require


@dataclass(frozen=True)
class Environment(ParameterSet):
    """The water around the vehicle: current, seafloor and gravity.

    The current is `CurrentVelocity + CurrentDepthGradient * depth` in NED (m/s): uniform by
    default, linearly sheared with depth when the gradient is set. The seafloor lies at
    `SeaFloorDepth + SeaFloorSlope . (north, east)` below the surface.
    """

    CurrentVelocity: Vector3 = parameter(
        (0.0, 0.0, 0.0), "m/s", "Water current at the surface, NED", labels=NED,
        variability="tunable")
    CurrentDepthGradient: Vector3 = parameter(
        (0.0, 0.0, 0.0), "1/s", "Change of the NED current per metre of depth", labels=NED,
        variability="tunable")
    SeaFloorDepth: float = parameter(
        100.0, "m", "Seafloor depth below the surface at north = east = 0", variability="tunable")
    SeaFloorSlope: Tuple[float, float] = parameter(
        (0.0, 0.0), "1", "Seafloor depth gradient along north and east",
        labels=("d depth / d north", "d depth / d east"), variability="tunable")
    Gravity: float = parameter(9.81, "m/s2", "Acceleration of gravity")

    def _validate(self):
        require("Gravity", self.Gravity, self.Gravity > 0, "must be positive")
        require("SeaFloorDepth", self.SeaFloorDepth, self.SeaFloorDepth > 0, "must be positive")


@jit
def current_ned(depth, surface_current, depth_gradient):
    """V_c(z) = CurrentVelocity + CurrentDepthGradient z, NED (m/s)."""
    return surface_current + depth_gradient * depth


@jit
def sea_floor_depth(north, east, depth_at_origin, slope):
    """The seafloor's depth below the surface at (north, east): SeaFloorDepth + slope . (n, e)."""
    return depth_at_origin + slope[0] * north + slope[1] * east
