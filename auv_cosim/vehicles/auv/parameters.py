"""The AUV's parameters (seed 001): every one with its default, unit and description, beside
its field (`auv_cosim.vehicles.parameters.parameter`).

Field names are the seed's, so that the FMU variables, the scenario files and the seed all use
one vocabulary. Vectors are tuples. Construction validates and raises a `ValueError` that
names the parameter and the value.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Tuple

from ..parameters import XYZ, ParameterSet, Vector3, parameter, require
from ..wake import WakeParameters

SECTIONS = ("section 1 (bow)", "section 2", "section 3 (stern)")
DERIVED = "derived from Length and Diameter"


@dataclass(frozen=True)
class AuvParameters(ParameterSet):
    """Every parameter of seed 001's `Auv`, with its default. SI units throughout."""

    Length: float = parameter(2.0, "m", "Hull length")
    Diameter: float = parameter(0.20, "m", "Hull diameter")
    AverageDensity: float = parameter(1020.0, "kg/m3", "Mean density of the whole vehicle (the buoyancy trim)")
    Rho: float = parameter(1025.0, "kg/m3", "Density of the sea water")
    COG: Vector3 = parameter((0.0, 0.0, 0.020), "m", "Centre of gravity in the body frame, relative to the centre of buoyancy", labels=XYZ)
    AddedMass: Tuple[float, float, float, float, float, float] = parameter(
        (3.2, 58.0, 58.0, 0.1, 19.0, 19.0), ("kg", "kg", "kg", "kg.m2", "kg.m2", "kg.m2"),
        "Added mass and inertia on the diagonal [A11 A22 A33 (kg), A44 A55 A66 (kg m2)]",
        labels=("A11 surge", "A22 sway", "A33 heave", "A44 roll", "A55 pitch", "A66 yaw"))
    ThrustPerPower: float = parameter(0.30, "N/W", "Thrust delivered per watt of propulsion power")
    MaxPropulsionPower: float = parameter(120.0, "W", "Largest propulsion power the thruster accepts")
    HotelPower: float = parameter(15.0, "W", "Constant payload, computer and navigation load")
    ThrusterPos: Vector3 = parameter((-1.0, 0.0, 0.0), "m", "Thruster position in the body frame", labels=XYZ)
    AxialDragCoeff: float = parameter(0.25, "1", "Hull drag coefficient on the frontal area pi D^2/4")
    CrossFlowDragCoeff: float = parameter(1.1, "1", "Two-dimensional cross-flow drag coefficient of a hull section")
    # None: derived from Length and Diameter (three equal thirds of the hull).
    SectionX: Optional[Vector3] = parameter(
        None, "m", "Body-frame x of each strip-theory section centroid (default Length/3, 0, -Length/3)",
        size=3, labels=SECTIONS, zero_means=DERIVED)
    SectionDiameter: Optional[Vector3] = parameter(
        None, "m", "Cross-flow diameter of each section (default Diameter)", size=3,
        labels=SECTIONS, zero_means=DERIVED)
    SectionLength: Optional[Vector3] = parameter(
        None, "m", "Length of each section (default Length/3)", size=3, labels=SECTIONS,
        zero_means=DERIVED)
    RollDampingLinear: float = parameter(4.6, "N.m.s", "Linear roll damping")
    RollDampingQuadratic: float = parameter(1.0, "N.m.s2", "Quadratic roll damping")
    RudderArea: float = parameter(0.016, "m2", "Planform area of one fin plane (0 removes the fins)")
    RudderAspectRatio: float = parameter(1.25, "1", "Aspect ratio of a fin (induced drag only)")
    RudderPos: Vector3 = parameter((-0.85, 0.0, 0.0), "m", "Position of both fin planes in the body frame", labels=XYZ)
    RudderClMax: float = parameter(0.8, "1", "Peak lift coefficient of a fin")
    RudderAoaMax: float = parameter(0.436, "rad", "Angle of attack of the peak lift")
    RudderCd0: float = parameter(0.02, "1", "Profile drag coefficient of a fin at zero lift")
    RudderOswald: float = parameter(0.9, "1", "Oswald span efficiency of the fin induced drag")
    MaxRudderAngle: float = parameter(0.35, "rad", "Mechanical stop on the commanded fin deflection")
    DiveAngleForAuthorityCheck: float = parameter(0.349, "rad", "Dive angle of the start-up dive-authority check (0 disables it)")
    InitialBattery: float = parameter(1.8e6, "J", "Battery energy at the start of the mission")
    QuaternionConvergenceTime: float = parameter(1.0, "s", "Time constant that drives the quaternion norm to one")

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

    # --- validation -------------------------------------------------------------------------
    def _validate(self):
        for name in ("Length", "Diameter", "AverageDensity", "Rho", "QuaternionConvergenceTime"):
            require(name, getattr(self, name), getattr(self, name) > 0, "must be positive")
        for name in ("ThrustPerPower", "MaxPropulsionPower", "HotelPower", "AxialDragCoeff",
                     "CrossFlowDragCoeff", "RollDampingLinear", "RollDampingQuadratic",
                     "RudderArea", "RudderCd0", "MaxRudderAngle", "DiveAngleForAuthorityCheck",
                     "InitialBattery"):
            require(name, getattr(self, name), getattr(self, name) >= 0, "must not be negative")
        for name in ("RudderAspectRatio", "RudderClMax", "RudderOswald"):
            require(name, getattr(self, name), getattr(self, name) > 0, "must be positive")
        require("RudderAoaMax", self.RudderAoaMax, 0 < self.RudderAoaMax < math.pi / 2,
                "must lie in (0, pi/2)")
        require("MaxRudderAngle", self.MaxRudderAngle, self.MaxRudderAngle < math.pi / 2,
                "must be below pi/2")
        require("Diameter", self.Diameter, self.Diameter < self.Length,
                f"must be smaller than Length ({self.Length})")
        # A body of revolution has (almost) no roll added inertia: the mass matrix stays
        # invertible through Ixx as long as no added term is negative (seed 001 floors A44 at
        # 0.1 by its default; zero is allowed).
        for i, a in enumerate(self.AddedMass):
            require("AddedMass", self.AddedMass, a >= 0, f"element {i + 1} must not be negative")
        half = self.Length / 2.0
        # The fins sit on the hull; the thruster may stand off the tail (a shroud, a boss).
        require("RudderPos", self.RudderPos, abs(self.RudderPos[0]) <= half
                and math.hypot(self.RudderPos[1], self.RudderPos[2]) <= self.Diameter,
                f"lies off the hull (|x| <= Length/2 = {half}, radial <= Diameter)")
        require("ThrusterPos", self.ThrusterPos, abs(self.ThrusterPos[0]) <= self.Length,
                f"lies more than a hull length ({self.Length}) from the origin")
        require("COG", self.COG, math.hypot(self.COG[1], self.COG[2]) < self.Diameter / 2,
                "must lie inside the hull radius")
        xs, ds, ls = self.section_x, self.section_diameter, self.section_length
        for i in range(3):
            require("SectionDiameter", ds, ds[i] > 0, f"element {i + 1} must be positive")
            require("SectionLength", ls, ls[i] > 0, f"element {i + 1} must be positive")
            require("SectionX", xs, abs(xs[i]) <= half,
                    f"element {i + 1} lies outside the hull (|x| <= Length/2 = {half})")
        require("SectionX", xs, xs[0] > xs[1] > xs[2],
                "sections must be ordered from bow to stern (strictly decreasing x)")


#: PropellerDiameter's start value 0 stands for this fraction of Diameter (seed 001's default)
PROPELLER_DIAMETER_FRACTION = 0.6


@dataclass(frozen=True)
class AuvWakeParameters(WakeParameters):
    """The AUV among others (docs/physics/environment.md#wakes): how it meets their wakes
    (`WakeParameters`) and whether it casts its own hull wake and propeller jet (seed 001's
    `CastWake`, default off)."""

    CastWake: bool = parameter(False, None, "Publish this vehicle's hull wake and propeller jet as "
                               "WakeSource (false: WakeSource is all zero)", kind="boolean")
    PropellerDiameter: float = parameter(
        0.0, "m", "Propeller diameter, the jet's initial width (0: 0.6 Diameter, seed 001's default)")
    WakeMinSpeed: float = parameter(
        0.5, "m/s", "Speed through the water below which the vehicle casts nothing (the small-wake law "
        "does not hold there)")

    def _validate(self):
        super()._validate()
        for name in ("PropellerDiameter", "WakeMinSpeed"):
            require(name, getattr(self, name), getattr(self, name) >= 0, "must not be negative")

    def propeller_diameter(self, diameter: float) -> float:
        """The propeller diameter of a hull of `diameter`: PropellerDiameter, or 0.6 `diameter`
        when it is 0."""
        return self.PropellerDiameter if self.PropellerDiameter > 0 else PROPELLER_DIAMETER_FRACTION * diameter
