"""pythonfmu slave of the H100 (docs/physics/h100.md#fmu-interface): `auv_cosim.vehicles.h100` as an FMI 2.0 co-simulation FMU.

Everything is generic (`auv_cosim.fmu.VehicleSlave`): the variables come from the H100's tables
(auv_cosim/vehicles/h100/dynamics.py: inputs, outputs, state) and from the declarations of its
parameters (auv_cosim/vehicles/h100/parameters.py, auv_cosim/vehicles/environment.py). What is particular
is the vehicle file: the number of thrusters n is fixed when the FMU is built (FMI 2.0 has no
structural parameters), so each FMU is built for one vehicle file, bundled in its resources.

tools/build_fmus.py builds `fmus/H100.fmu` from this script and `vehicle_files/H100.yaml`. Another
layout is another vehicle file and one more build line (docs/vehicles.md): the builder then writes this
script under the FMU's own name (`NAME_vehicle_fmu.py`, class `NAME`, its `vehicle_file`), a
module name of its own, since FMUs in one process share their modules.

Variables (vectors `Name[i]`, matrices `Name[i,j]`, 1-based, SI units): inputs
ThrusterCommand[1..n], ExternalForce[1..3], ExternalMoment[1..3]; outputs Pos, Vel, LocalVel,
Omega, Quater, Euler, Heading, Depth, Altitude, SpecificForce, SurfaceElevation, Thrust[1..n],
PropellerSpeed[1..n]; parameters: every field of `H100Parameters` with the vehicle file's
values as start values, the environment (Gravity 9.82 by default, von Benzon's), the waves
(WaveMode 0 none, 1 regular, 2 JONSWAP, and their parameters: docs/physics/environment.md#waves), the initial
state (Pos0, Quater0, LocalVel0, Omega0, PropellerSpeed0: at rest by default) and the
integrator's tolerances; among others (docs/physics/environment.md#meeting-wakes, after every other variable) the parameters
WakeSpreadRate, JetSpreadRate, WakeLength (tunable) and ExternalWakeUpdate (String), the inputs
WakeSources[1..3,1..15] and the output WakeVelocity[1..3] (it casts nothing); after those the
seabed and the place on Earth (auv_cosim.vehicles.bathymetry): the parameters BathymetryFile
(String; empty: the level SeaFloorDepth), OriginLatitude, OriginLongitude and the outputs SeaDepth,
Latitude, Longitude; with a grid, Altitude comes from it and a position off it fails the step;
last of all the Boolean output SeabedContact (the frame's lowest point below the seabed, where
the contact force of auv_cosim.vehicles.contact acts).
A rank < 6 layout logs a warning naming what it cannot push.
"""
from __future__ import annotations

import sys

from pythonfmu.default_experiment import DefaultExperiment

from ...fmu import VehicleSlave
from ..bathymetry import SeabedParameters
from ..environment import Environment
from .model import H100Model
from .parameters import H100Parameters
from .resolved import vehicle_for
from .model import DEFAULT_ENVIRONMENT
from ..simulator import VehicleSimulator
from ..wake import WakeParameters
from ..waves import WaveParameters


class H100(VehicleSlave):
    """The H100 ROV of docs/physics/h100.md for the vehicle file `vehicle_file` (relative to the resources)."""

    description = ("H100 ROV: 6-DOF Fossen-model vehicle flown by thrusters with propeller lag "
                   "(auv_cosim.vehicles.h100), FMI 2.0 co-simulation")
    author = "auv-cosim"
    version = "0.1.0"
    default_experiment = DefaultExperiment(start_time=0.0, stop_time=60.0, step_size=0.1)
    fmu_capabilities = {"canGetAndSetFMUstate": True, "canSerializeFMUstate": True}

    #: The vehicle file this FMU is built for, relative to the FMU's resources folder.
    vehicle_file = "vehicles/H100.yaml"
    parameter_classes = (H100Parameters, Environment, WaveParameters)
    late_parameter_classes = (WakeParameters,)
    last_parameter_classes = (SeabedParameters,)
    simulator_class = VehicleSimulator
    initial_state_notes = {"Quater0": " (normalised)", "PropellerSpeed0": " (0: at rest)"}

    def __init__(self, **kwargs):
        # The layout first: the thruster count sizes the variables registered by the base class.
        # an FMU reads the file resolved at build; a slave made outside an FMU, the unit's own
        vehicle = vehicle_for(kwargs.get("resources") or None, self.vehicle_file)
        n = vehicle.params.thruster_count
        self.vehicle_class = H100Model.for_thrusters(n)
        self.parameter_defaults = (vehicle.params, DEFAULT_ENVIRONMENT, WaveParameters())
        self.initial_state_defaults = {"Pos0": (0.0, 0.0, 0.0), "Quater0": (1.0, 0.0, 0.0, 0.0),
                                       "LocalVel0": (0.0, 0.0, 0.0), "Omega0": (0.0, 0.0, 0.0),
                                       "PropellerSpeed0": (0.0,) * n}
        super().__init__(**kwargs)
