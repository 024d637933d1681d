"""The drifter's parameters: one field each, its unit and description beside it (the FMU
registers one parameter per field, auv_cosim.fmu.VehicleSlave)."""
from __future__ import annotations

from dataclasses import dataclass

from auv_cosim.vehicles.parameters import ParameterSet, parameter, require


@dataclass(frozen=True)
class DrifterParameters(ParameterSet):
    """A float of the size of an Argo profiler: 26 kg, neutral at 25.4 l in sea water."""

    Mass: float = parameter(26.0, "kg", "Mass of the float (hull, oil, electronics)")
    Volume: float = parameter(0.02537, "m3", "Displaced volume with the bladder empty")
    Rho: float = parameter(1025.0, "kg/m3", "Density of the sea water")
    DragCoefficient: float = parameter(1.0, "1", "Quadratic drag coefficient on the frontal area")
    FrontalArea: float = parameter(0.03, "m2", "Frontal area the drag acts on")
    AddedMassCoefficient: float = parameter(0.5, "1", "Added mass as a fraction of the displaced water's")
    BladderTimeConstant: float = parameter(10.0, "s", "Time constant of the pump filling the bladder")
    MaxBladder: float = parameter(0.0004, "m3", "Largest volume change of the bladder, either way")
    Length: float = parameter(1.6, "m", "Length of the hull (drawn as a cylinder)")
    Diameter: float = parameter(0.16, "m", "Diameter of the hull")

    def _validate(self):
        for name in ("Mass", "Volume", "Rho", "FrontalArea", "BladderTimeConstant", "MaxBladder",
                     "Length", "Diameter"):
            require(name, getattr(self, name), getattr(self, name) > 0, "must be positive")
        for name in ("DragCoefficient", "AddedMassCoefficient"):
            require(name, getattr(self, name), getattr(self, name) >= 0, "must not be negative")
