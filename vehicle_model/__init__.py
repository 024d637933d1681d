"""Vehicle physics as a plain Python library (no FMI in the physics; the FMU slave of each
vehicle, e.g. `auv_vehicle_fmu.py`, sits beside it and is bundled with it).

Shared by every vehicle: `protocol` (what a vehicle provides: `Vehicle`, `SignalTable`,
`ConstantTable`), `parameters` (how parameters are declared), `rotation` (rotations and the
quaternion kinematics of seed 003), `environment` (current, sea floor), `simulator`
(`VehicleSimulator`, dopri5), `linearization`. One vehicle per subpackage: `auv/` (the survey
AUV of seeds 000 and 001).

    from vehicle_model import AuvParameters, Environment, VehicleModel, VehicleSimulator, inputs
    model = VehicleModel(AuvParameters(), Environment())
    sim = VehicleSimulator(model, model.cruise_state(1.5))
    sim.advance(0.0, 0.1, inputs(thrust_power=30.0))
"""
from .auv import (AuvModel, AuvParameters, HullProperties, authority_check_cruise_speed,
                  dive_authority_warning, hull_properties_of, initial_state, inputs,
                  submerged_fraction)
from .auv.dynamics import OUTPUT_LAYOUT, STATE_SIZE
from .environment import Environment
from .linearization import finite_difference_jacobians, linearize
from .protocol import ConstantTable, Signal, SignalTable, Vehicle
from .rotation import quaternion_from_euler
from .simulator import IntegrationError, VehicleSimulator

#: The AUV under its historical name (the README's examples use it).
VehicleModel = AuvModel

__all__ = [
    "AuvParameters", "Environment", "VehicleModel", "AuvModel", "VehicleSimulator",
    "IntegrationError", "initial_state", "inputs", "dive_authority_warning",
    "authority_check_cruise_speed", "hull_properties_of", "HullProperties", "submerged_fraction",
    "quaternion_from_euler", "OUTPUT_LAYOUT", "STATE_SIZE", "Vehicle", "Signal", "SignalTable",
    "ConstantTable", "linearize", "finite_difference_jacobians",
]
