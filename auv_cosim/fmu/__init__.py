"""Helpers shared by the project's pythonfmu slaves (bundled into every FMU as a project file).

* `FmuSlave`: base class with unit- and description-aware variable registration, exception
  shielding, FMU-state hooks and the FMI rules on setting variables (see `auv_cosim.fmu.slave`).
* `declare`: the one way a slave's variables are declared (a parameter beside the dataclass
  field it configures; `Var` rows for inputs and outputs).
* `VehicleSlave`: the FMU of any vehicle of `auv_cosim.vehicles` (its tables and declared
  parameters become the FMU's variables; see `auv_cosim.fmu.vehicle_slave`).
* `SI_UNITS` / `base_unit_exponents`: the unit table `tools/build_fmus.py` writes into
  `<UnitDefinitions>` (see `auv_cosim.fmu.units`).

This package holds no physics and imports nothing of the project: it must stay importable from
any FMU's resources folder. It must not import anything lazily either: several FMUs in one
process share the first copy imported, and that FMU's extraction folder may be gone later.
"""
from .slave import FmuError, FmuSlave, first_non_finite
from .units import SI_UNITS, base_unit_exponents, is_known
from .vehicle_slave import VehicleSlave

__all__ = ["FmuError", "FmuSlave", "VehicleSlave", "first_non_finite", "SI_UNITS",
           "base_unit_exponents", "is_known"]
