"""The survey AUV of seeds 000 and 001 (FhSim's `Auv`): one implementation of
`auv_cosim.vehicles.protocol.Vehicle`.

* `parameters.py`: `AuvParameters`, every parameter of seed 001 with default and unit;
* `hull.py`, `foil.py`, `forces.py`: mass properties, fin coefficients, one pure function per
  force with its Jacobian;
* `dynamics.py`: the state, input and output tables, the constant table, the compiled
  derivative, Jacobians and outputs;
* `authority.py`: the start-up dive-authority check;
* `model.py`: `AuvModel`, the object the simulator, the linearisation and the FMU take.
"""
from .authority import authority_check_cruise_speed, dive_authority_warning
from .dynamics import INPUTS, OUTPUTS, STATE
from .hull import HullProperties, hull_properties_of, submerged_fraction
from .model import AuvModel, initial_state, inputs
from .parameters import AuvParameters, AuvWakeParameters

__all__ = ["AuvModel", "AuvParameters", "AuvWakeParameters", "initial_state", "inputs", "INPUTS", "OUTPUTS", "STATE",
           "authority_check_cruise_speed", "dive_authority_warning", "HullProperties",
           "hull_properties_of", "submerged_fraction"]
