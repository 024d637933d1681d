"""The survey AUV of seeds 000 and 001 as a plain Python library (no FMI here).

    from vehicle_model import AuvParameters, Environment, VehicleModel, VehicleSimulator
    model = VehicleModel(AuvParameters(), Environment())
    sim = VehicleSimulator(model, model.cruise_state(1.5))
    sim.advance(0.0, 0.1, inputs(thrust_power=30.0))
"""
from .authority import authority_check_cruise_speed, dive_authority_warning
from .dynamics import OUTPUT_LAYOUT, STATE_SIZE
from .hull import HullProperties, hull_properties_of, submerged_fraction
from .model import VehicleModel, initial_state, inputs
from .parameters import AuvParameters, Environment
from .rotation import quaternion_from_euler
from .simulator import IntegrationError, VehicleSimulator

__all__ = [
    "AuvParameters", "Environment", "VehicleModel", "VehicleSimulator", "IntegrationError",
    "initial_state", "inputs", "dive_authority_warning", "authority_check_cruise_speed",
    "hull_properties_of", "HullProperties", "submerged_fraction", "quaternion_from_euler",
    "OUTPUT_LAYOUT", "STATE_SIZE",
]
