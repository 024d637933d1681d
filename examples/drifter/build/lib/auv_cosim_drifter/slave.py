"""pythonfmu slave ``Drifter``: the drifter (auv_cosim_drifter.model) as an FMI 2.0 co-simulation
FMU. Everything is generic (auv_cosim.fmu.VehicleSlave): the variables come from the model's
tables and the declarations of its parameters and of the environment.

Input BladderCommand; outputs Pos, Vel, Depth, Bladder, Quater; parameters every field of
DrifterParameters and Environment, the initial state Pos0, Vel0, Bladder0.
"""
from __future__ import annotations

from pythonfmu.default_experiment import DefaultExperiment

from auv_cosim.fmu import VehicleSlave
from auv_cosim.vehicles.environment import Environment
from auv_cosim.vehicles.simulator import VehicleSimulator
from auv_cosim_drifter.model import DrifterModel
from auv_cosim_drifter.parameters import DrifterParameters


class Drifter(VehicleSlave):
    """A profiling drifter: a float that dives and holds a depth by changing its volume."""

    description = "Profiling drifter: a buoyancy-driven float (auv_cosim_drifter), FMI 2.0 co-simulation"
    author = "auv-cosim-drifter"
    version = "0.1.0"
    default_experiment = DefaultExperiment(start_time=0.0, stop_time=600.0, step_size=1.0)

    vehicle_class = DrifterModel
    parameter_classes = (DrifterParameters, Environment)
    simulator_class = VehicleSimulator
    initial_state_defaults = {"Pos0": (0.0, 0.0, 0.0), "Vel0": (0.0, 0.0, 0.0), "Bladder0": 0.0}
