"""The tether's parameters: one dataclass field each, its unit and description beside it (the
FMU registers one FMI parameter per field, per element of a vector, from the declaration).

Frames: every vector is NED (north, east, down; z = 0 the mean water surface, positive down),
as everywhere in the project; MoorDyn's own frame is met only in `frames`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Tuple

from ...compiled.numbers import check_number
from ...vehicles.parameters import parameter

NED = ("north", "east", "down")
XYZ = ("body x", "body y", "body z")
Vector3 = Tuple[float, float, float]


@dataclass(frozen=True)
class TetherConfig:
    """A single line from the anchor (its top end: a fixed point or a vessel) to the end held by
    a vehicle; see docs/tether.md for what MoorDyn computes from each field."""
    Length: float = parameter(35.0, "m", "Unstretched length of the tether at the start")
    Diameter: float = parameter(0.0076, "m", "Volume-equivalent diameter (buoyancy, drag, added mass)")
    MassPerLength: float = parameter(0.05, "kg/m", "Mass per unit length in air")
    AxialStiffness: float = parameter(1.0e5, "N", "Axial stiffness EA")
    AxialDampingRatio: float = parameter(
        0.8, "1", "Internal axial damping of each segment as a fraction of its critical damping")
    NormalDragCoeff: float = parameter(1.2, "1", "Normal drag coefficient (on the frontal area d l)")
    TangentialDragCoeff: float = parameter(
        0.008, "1", "Tangential drag coefficient (on the surface area pi d l)")
    NormalAddedMassCoeff: float = parameter(1.0, "1", "Normal added-mass coefficient")
    SegmentCount: int = parameter(10, None, "Number of segments the line is lumped into")
    TimeStep: float = parameter(0.001, "s", "MoorDyn's internal time step dtM (RK2; stable below about "
                                "half of sqrt(m_l l / (EA / l)) for segments of length l, m_l the mass "
                                "per metre with the added mass)")
    Rho: float = parameter(1025.0, "kg/m3", "Water density")
    Gravity: float = parameter(9.81, "m/s2", "Acceleration of gravity")
    WaterDepth: float = parameter(1000.0, "m", "Depth of the flat sea floor (seabed contact), positive down")
    CurrentVelocity: Vector3 = parameter((0.0, 0.0, 0.0), "m/s", "Uniform water current, NED",
                                         labels=NED)
    AnchorPos: Vector3 = parameter((0.0, 0.0, 0.0), "m", "Position of the anchor (the top end) at the start, NED",
                                   labels=NED)
    EndOffset: Vector3 = parameter(
        (0.0, 0.0, 0.0), "m", "Attachment point in the frame of the body holding the end, from EndPos "
        "(zero: the end is EndPos itself)", labels=XYZ)

    def __post_init__(self):
        for field in fields(self):
            value = getattr(self, field.name)
            if field.name == "SegmentCount":
                if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 1000:
                    raise ValueError(f"SegmentCount = {value!r}: must be a whole number from 1 to 1000")
            elif isinstance(value, tuple):
                if len(value) != 3:
                    raise ValueError(f"{field.name} = {value!r}: needs 3 elements")
                object.__setattr__(self, field.name, tuple(check_number(f"{field.name}[{i + 1}]", v)
                                                           for i, v in enumerate(value)))
            else:
                object.__setattr__(self, field.name, check_number(field.name, value))
        for name in ("Length", "Diameter", "MassPerLength", "AxialStiffness", "TimeStep", "Rho",
                     "Gravity", "WaterDepth"):
            if not getattr(self, name) > 0.0:
                raise ValueError(f"{name} = {getattr(self, name)!r}: must be positive")
        for name in ("AxialDampingRatio", "NormalDragCoeff", "TangentialDragCoeff", "NormalAddedMassCoeff"):
            if getattr(self, name) < 0.0:
                raise ValueError(f"{name} = {getattr(self, name)!r}: must not be negative")
        if not self.AnchorPos[2] < self.WaterDepth:
            raise ValueError(f"AnchorPos[3] = {self.AnchorPos[2]!r}: the anchor must be above the sea floor "
                             f"(WaterDepth = {self.WaterDepth!r})")

    def wet_weight_per_length(self) -> float:
        """w = (m - rho pi d^2 / 4) g, N/m: the cable's weight in water per metre (negative: it
        floats). What makes it hang in a catenary."""
        return (self.MassPerLength - self.Rho * math.pi * self.Diameter ** 2 / 4.0) * self.Gravity
