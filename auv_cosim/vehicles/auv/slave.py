"""pythonfmu slave `Auv`: the vehicle of `auv_cosim.vehicles.auv` as an FMI 2.0 co-simulation FMU.

Built into fmus/Auv.fmu by tools/build_fmus.py; the interface is docs/physics/auv.md#fmu-interface and
docs/interfaces.md. Everything is generic (`auv_cosim.fmu.VehicleSlave`): the variables come from
the AUV's tables (auv_cosim/vehicles/auv/dynamics.py: inputs, outputs, state) and from the
declarations of its parameters (auv_cosim/vehicles/auv/parameters.py, auv_cosim/vehicles/environment.py).

Variables (vectors as `Name[i]`, 1-based, SI units):
* inputs ThrustPower, RudderYaw, RudderDive, ExternalForce[1..3] (NED);
* outputs Pos, Vel, Quater, Euler, Heading, Pitch, Depth, Speed, Altitude, SeaDepth, Battery,
  BatteryFraction, Thrust: refreshed at the end of each step (and at initialisation), from the
  state and the inputs of that step, so no output depends directly on an input;
* parameters: every field of `AuvParameters` (fixed), the environment (the current and the
  seafloor tunable, Gravity fixed), the initial state Pos0, Quater0, LocalVel0, Omega0,
  Battery0 (fixed) and the integrator's RelativeTolerance / AbsoluteTolerance (tunable).
  SectionX / SectionDiameter / SectionLength all zero (the default) means "derived from Length
  and Diameter"; Battery0 negative (the default) means InitialBattery;
* among others (docs/physics/environment.md#wakes, registered after every other variable): the parameters CastWake
  (Boolean), PropellerDiameter, WakeMinSpeed (fixed), WakeSpreadRate, JetSpreadRate,
  WakeLength (tunable) and ExternalWakeUpdate (String "Step" / "Evaluation"); the inputs
  WakeSources[1..3,1..15] (three other vehicles' WakeSource rows, zero: none) and the outputs
  WakeSource[1..15] (this vehicle's row, zero unless CastWake) and WakeVelocity[1..3] (NED);
  then the output Omega[1..3] (body rates, rad/s: the state's angular velocity, for the tools
  that want the vehicle's rates, such as a ROS bag's odometry);
* after those, the seabed and the place on Earth (auv_cosim.vehicles.bathymetry): the parameters
  BathymetryFile (String; empty: the plane SeaFloorDepth + SeaFloorSlope), OriginLatitude and
  OriginLongitude (fixed), and the outputs Latitude and Longitude (WGS 84). With a grid,
  SeaDepth and Altitude come from it; a position off the grid fails the step naming it.

Failures (see auv_cosim.fmu.slave): a bad parameter fails fmi2ExitInitializationMode (fmi2Fatal)
with an error logged that names the variable; a non-finite input or an integrator failure fails
fmi2DoStep (fmi2Discard) with an error logged, the vehicle left at the step's start; so does a
malformed row of WakeSources, the row and the element named.
"""
from __future__ import annotations

import os
import sys

from pythonfmu.default_experiment import DefaultExperiment

from ...fmu import VehicleSlave
from .model import AuvModel
from .parameters import AuvParameters, AuvWakeParameters
from ..bathymetry import SeabedParameters
from ..environment import Environment
from ..simulator import VehicleSimulator
from ..waves import WaveParameters


class Auv(VehicleSlave):
    """Six-degree-of-freedom survey AUV (seed 001) with its battery."""

    description = ("Torpedo-shaped survey AUV: 6-DOF rigid body with strip-theory hydrodynamics, "
                   "fins, thruster and battery (auv_cosim.vehicles), FMI 2.0 co-simulation")
    author = "auv-cosim"
    version = "0.1.0"
    default_experiment = DefaultExperiment(start_time=0.0, stop_time=60.0, step_size=0.1)
    fmu_capabilities = {"canGetAndSetFMUstate": True, "canSerializeFMUstate": True}

    vehicle_class = AuvModel
    parameter_classes = (AuvParameters, Environment, WaveParameters)
    late_parameter_classes = (AuvWakeParameters,)
    last_parameter_classes = (SeabedParameters,)
    simulator_class = VehicleSimulator
    initial_state_defaults = {"Pos0": (0.0, 0.0, 0.0), "Quater0": (1.0, 0.0, 0.0, 0.0),
                              "LocalVel0": (0.0, 0.0, 0.0), "Omega0": (0.0, 0.0, 0.0),
                              "Battery0": -1.0}
    initial_state_notes = {"Quater0": " (normalised)",
                           "Battery0": "; negative means InitialBattery"}

    def initial_state_parts(self, model):
        parts = super().initial_state_parts(model)
        if parts["Battery0"] < 0.0:
            parts["Battery0"] = model.params.InitialBattery
        return parts
