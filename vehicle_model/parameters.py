"""The vehicle's parameters (seed 001, every one with its default and unit) and its environment.

Field names are the seed's, so that the FMU variables, the scenario files and the seed all use
one vocabulary. Vectors are tuples. Both classes validate on construction and raise a
`ValueError` that names the parameter and the value.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import ClassVar, Optional, Tuple

Vector3 = Tuple[float, float, float]


def _info(unit: str, description: str, size: int = 1):
    return {"unit": unit, "description": description, "size": size}


@dataclass(frozen=True)
class AuvParameters:
    """Every parameter of seed 001's `Auv`, with its default. SI units throughout."""

    Length: float = 2.0
    Diameter: float = 0.20
    AverageDensity: float = 1020.0
    Rho: float = 1025.0
    COG: Vector3 = (0.0, 0.0, 0.020)
    AddedMass: Tuple[float, float, float, float, float, float] = (3.2, 58.0, 58.0, 0.1, 19.0, 19.0)
    ThrustPerPower: float = 0.30
    MaxPropulsionPower: float = 120.0
    HotelPower: float = 15.0
    ThrusterPos: Vector3 = (-1.0, 0.0, 0.0)
    AxialDragCoeff: float = 0.25
    CrossFlowDragCoeff: float = 1.1
    # None: derived from Length and Diameter (three equal thirds of the hull).
    SectionX: Optional[Vector3] = None
    SectionDiameter: Optional[Vector3] = None
    SectionLength: Optional[Vector3] = None
    RollDampingLinear: float = 4.6
    RollDampingQuadratic: float = 1.0
    RudderArea: float = 0.016
    RudderAspectRatio: float = 1.25
    RudderPos: Vector3 = (-0.85, 0.0, 0.0)
    RudderClMax: float = 0.8
    RudderAoaMax: float = 0.436
    RudderCd0: float = 0.02
    RudderOswald: float = 0.9
    MaxRudderAngle: float = 0.35
    DiveAngleForAuthorityCheck: float = 0.349
    InitialBattery: float = 1.8e6
    QuaternionConvergenceTime: float = 1.0

    FIELD_INFO: ClassVar[dict] = {
        "Length": _info("m", "Hull length"),
        "Diameter": _info("m", "Hull diameter"),
        "AverageDensity": _info("kg/m3", "Mean density of the whole vehicle (the buoyancy trim)"),
        "Rho": _info("kg/m3", "Density of the sea water"),
        "COG": _info("m", "Centre of gravity in the body frame, relative to the centre of buoyancy", 3),
        "AddedMass": _info("", "Added mass and inertia on the diagonal [A11 A22 A33 (kg), A44 A55 A66 (kg m2)]", 6),
        "ThrustPerPower": _info("N/W", "Thrust delivered per watt of propulsion power"),
        "MaxPropulsionPower": _info("W", "Largest propulsion power the thruster accepts"),
        "HotelPower": _info("W", "Constant payload, computer and navigation load"),
        "ThrusterPos": _info("m", "Thruster position in the body frame", 3),
        "AxialDragCoeff": _info("1", "Hull drag coefficient on the frontal area pi D^2/4"),
        "CrossFlowDragCoeff": _info("1", "Two-dimensional cross-flow drag coefficient of a hull section"),
        "SectionX": _info("m", "Body-frame x of each strip-theory section centroid (default Length/3, 0, -Length/3)", 3),
        "SectionDiameter": _info("m", "Cross-flow diameter of each section (default Diameter)", 3),
        "SectionLength": _info("m", "Length of each section (default Length/3)", 3),
        "RollDampingLinear": _info("N.m.s", "Linear roll damping"),
        "RollDampingQuadratic": _info("N.m.s2", "Quadratic roll damping"),
        "RudderArea": _info("m2", "Planform area of one fin plane (0 removes the fins)"),
        "RudderAspectRatio": _info("1", "Aspect ratio of a fin (induced drag only)"),
        "RudderPos": _info("m", "Position of both fin planes in the body frame", 3),
        "RudderClMax": _info("1", "Peak lift coefficient of a fin"),
        "RudderAoaMax": _info("rad", "Angle of attack of the peak lift"),
        "RudderCd0": _info("1", "Profile drag coefficient of a fin at zero lift"),
        "RudderOswald": _info("1", "Oswald span efficiency of the fin induced drag"),
        "MaxRudderAngle": _info("rad", "Mechanical stop on the commanded fin deflection"),
        "DiveAngleForAuthorityCheck": _info("rad", "Dive angle of the start-up dive-authority check (0 disables it)"),
        "InitialBattery": _info("J", "Battery energy at the start of the mission"),
        "QuaternionConvergenceTime": _info("s", "Time constant that drives the quaternion norm to one"),
    }

    def __post_init__(self):
        for name in self.FIELD_INFO:
            value = getattr(self, name)
            size = self.FIELD_INFO[name]["size"]
            if value is None:
                continue
            if size == 1:
                value = _as_float(name, value)
            else:
                value = _as_vector(name, value, size)
            object.__setattr__(self, name, value)
        self._validate()

    # --- derived geometry -------------------------------------------------------------------
    @property
    def section_x(self) -> Vector3:
        """The strip-theory section centroids: explicit, or the centres of three equal thirds."""
        if self.SectionX is not None:
            return self.SectionX
        third = self.Length / 3.0
        return (third, 0.0, -third)

    @property
    def section_diameter(self) -> Vector3:
        if self.SectionDiameter is not None:
            return self.SectionDiameter
        return (self.Diameter,) * 3

    @property
    def section_length(self) -> Vector3:
        if self.SectionLength is not None:
            return self.SectionLength
        return (self.Length / 3.0,) * 3

    def replace(self, **changes) -> "AuvParameters":
        return dataclasses.replace(self, **changes)

    # --- validation -------------------------------------------------------------------------
    def _validate(self):
        for name in ("Length", "Diameter", "AverageDensity", "Rho", "QuaternionConvergenceTime"):
            _require(name, getattr(self, name), getattr(self, name) > 0, "must be positive")
        for name in ("ThrustPerPower", "MaxPropulsionPower", "HotelPower", "AxialDragCoeff",
                     "CrossFlowDragCoeff", "RollDampingLinear", "RollDampingQuadratic",
                     "RudderArea", "RudderCd0", "MaxRudderAngle", "DiveAngleForAuthorityCheck",
                     "InitialBattery"):
            _require(name, getattr(self, name), getattr(self, name) >= 0, "must not be negative")
        for name in ("RudderAspectRatio", "RudderClMax", "RudderOswald"):
            _require(name, getattr(self, name), getattr(self, name) > 0, "must be positive")
        _require("RudderAoaMax", self.RudderAoaMax, 0 < self.RudderAoaMax < math.pi / 2,
                 "must lie in (0, pi/2)")
        _require("MaxRudderAngle", self.MaxRudderAngle, self.MaxRudderAngle < math.pi / 2,
                 "must be below pi/2")
        _require("Diameter", self.Diameter, self.Diameter < self.Length,
                 f"must be smaller than Length ({self.Length})")
        # A body of revolution has (almost) no roll added inertia: the mass matrix stays
        # invertible through Ixx as long as no added term is negative (seed 001 floors A44 at
        # 0.1 by its default; zero is allowed).
        for i, a in enumerate(self.AddedMass):
            _require("AddedMass", self.AddedMass, a >= 0, f"element {i + 1} must not be negative")
        half = self.Length / 2.0
        # The fins sit on the hull; the thruster may stand off the tail (a shroud, a boss).
        _require("RudderPos", self.RudderPos, abs(self.RudderPos[0]) <= half
                 and math.hypot(self.RudderPos[1], self.RudderPos[2]) <= self.Diameter,
                 f"lies off the hull (|x| <= Length/2 = {half}, radial <= Diameter)")
        _require("ThrusterPos", self.ThrusterPos, abs(self.ThrusterPos[0]) <= self.Length,
                 f"lies more than a hull length ({self.Length}) from the origin")
        _require("COG", self.COG, math.hypot(self.COG[1], self.COG[2]) < self.Diameter / 2,
                 "must lie inside the hull radius")
        xs, ds, ls = self.section_x, self.section_diameter, self.section_length
        for i in range(3):
            _require("SectionDiameter", ds, ds[i] > 0, f"element {i + 1} must be positive")
            _require("SectionLength", ls, ls[i] > 0, f"element {i + 1} must be positive")
            _require("SectionX", xs, abs(xs[i]) <= half,
                     f"element {i + 1} lies outside the hull (|x| <= Length/2 = {half})")
        _require("SectionX", xs, xs[0] > xs[1] > xs[2],
                 "sections must be ordered from bow to stern (strictly decreasing x)")


@dataclass(frozen=True)
class Environment:
    """The water around the vehicle: current, seafloor and gravity.

    The current is `CurrentVelocity + CurrentDepthGradient * depth` in NED (m/s): uniform by
    default, linearly sheared with depth when the gradient is set. The seafloor lies at
    `SeaFloorDepth + SeaFloorSlope . (north, east)` below the surface.
    """

    CurrentVelocity: Vector3 = (0.0, 0.0, 0.0)
    CurrentDepthGradient: Vector3 = (0.0, 0.0, 0.0)
    SeaFloorDepth: float = 100.0
    SeaFloorSlope: Tuple[float, float] = (0.0, 0.0)
    Gravity: float = 9.81

    FIELD_INFO: ClassVar[dict] = {
        "CurrentVelocity": _info("m/s", "Water current at the surface, NED", 3),
        "CurrentDepthGradient": _info("1/s", "Change of the NED current per metre of depth", 3),
        "SeaFloorDepth": _info("m", "Seafloor depth below the surface at north = east = 0"),
        "SeaFloorSlope": _info("1", "Seafloor depth gradient along north and east", 2),
        "Gravity": _info("m/s2", "Acceleration of gravity"),
    }

    def __post_init__(self):
        for name, info in self.FIELD_INFO.items():
            value = getattr(self, name)
            value = _as_float(name, value) if info["size"] == 1 else _as_vector(name, value, info["size"])
            object.__setattr__(self, name, value)
        _require("Gravity", self.Gravity, self.Gravity > 0, "must be positive")
        _require("SeaFloorDepth", self.SeaFloorDepth, self.SeaFloorDepth > 0, "must be positive")

    def replace(self, **changes) -> "Environment":
        return dataclasses.replace(self, **changes)


def _require(name, value, condition, message):
    if not condition:
        raise ValueError(f"parameter {name} = {value!r} {message}")


def _as_float(name, value) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"parameter {name} = {value!r} is not a number") from None
    if not math.isfinite(number):
        raise ValueError(f"parameter {name} = {value!r} must be finite")
    return number


def _as_vector(name, value, size):
    try:
        items = tuple(value)
    except TypeError:
        raise ValueError(f"parameter {name} = {value!r} must have {size} elements") from None
    if len(items) != size:
        raise ValueError(f"parameter {name} = {value!r} must have {size} elements, has {len(items)}")
    return tuple(_as_float(f"{name}[{i + 1}]", v) for i, v in enumerate(items))
