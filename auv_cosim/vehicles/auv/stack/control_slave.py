"""pythonfmu slave ``AuvControl``: guidance and the three PID loops (thin wrapper of
auv_cosim.vehicles.auv.stack.control).

Timing: the commands returned after ``do_step(t, h)`` are computed from the measurements
set before that call (the loops advance by ``h``) and are meant for the vehicle's next step;
right after initialisation the outputs hold the commands computed, without advancing any
integrator, from the inputs set during initialisation.

Failures (see auv_cosim.fmu.slave): a bad parameter (malformed ``Waypoints``, an unknown mode, a
negative gain, ...) fails fmi2ExitInitializationMode (fmi2Error; fmi2Fatal under pythonfmu's
stock binary) with an error that names the parameter and what is wrong; a non-finite input
fails fmi2DoStep (fmi2Error; fmi2Discard under pythonfmu's) with an error logged, nothing
advanced.

FMU state: the variables plus the integrators, derivative filters, previous measurements,
mission bookkeeping (active waypoint, start point, finished), yo-yo direction and zig-zag
state; a restored run continues bit for bit.
"""
from __future__ import annotations

import copy

from ....fmu import FmuError, FmuSlave
from ....fmu.declare import Var, parameters_of, register_with_real_arrays

from .control import ControlConfig, ControlStack

#: The parameters: the configuration's fields, declared beside them (auv_cosim/vehicles/auv/stack/control.py).
PARAMETERS = parameters_of(ControlConfig)
#: parameters added later, registered after every other variable (no value reference moved)
LATER_PARAMETERS = [v for v in PARAMETERS if v.name in ("TerrainSlopeDistance",)]

INPUTS = [
    Var("MeasuredDepth", "Real", "input", 0.0, "m", "Measured depth, positive down"),
    Var("MeasuredPitch", "Real", "input", 0.0, "rad", "Measured pitch, positive nose up"),
    Var("MeasuredHeading", "Real", "input", 0.0, "rad", "Measured heading, 0 = north, pi/2 = east"),
    Var("MeasuredSpeed", "Real", "input", 0.0, "m/s", "Measured speed through the water"),
    Var("MeasuredAltitude", "Real", "input", 0.0, "m", "Measured altitude above the seafloor"),
    Var("AltitudeValid", "Boolean", "input", False, None, "DVL bottom lock"),
    Var("NavNorth", "Real", "input", 0.0, "m", "Navigation position north"),
    Var("NavEast", "Real", "input", 0.0, "m", "Navigation position east"),
    Var("SpeedCommand", "Real", "input", ControlConfig.CruiseSpeed, "m/s", "Speed reference in GuidanceMode 'hold' and 'zigzag'"),
    Var("HeadingCommand", "Real", "input", 0.0, "rad", "Heading reference in GuidanceMode 'hold'"),
    Var("DepthCommand", "Real", "input", 0.0, "m",
        "Depth reference in GuidanceMode 'hold' and 'zigzag' (DiveMode 'depth'); initial depth reference in DiveMode 'altitude'"),
]

OUTPUTS = [
    Var("ThrustPower", "Real", "output", 0.0, "W", "Commanded propulsion power"),
    Var("RudderYaw", "Real", "output", 0.0, "rad", "Commanded yaw-plane fin angle, positive turns to starboard"),
    Var("RudderDive", "Real", "output", 0.0, "rad", "Commanded dive-plane fin angle, positive pitches the nose down"),
    Var("SpeedRef", "Real", "output", 0.0, "m/s", "Speed reference"),
    Var("HeadingRef", "Real", "output", 0.0, "rad", "Heading reference, wrapped to (-pi, pi]"),
    Var("DepthRef", "Real", "output", 0.0, "m", "Depth reference"),
    Var("PitchRef", "Real", "output", 0.0, "rad", "Pitch reference from dive guidance, positive nose up"),
    Var("CrossTrackError", "Real", "output", 0.0, "m", "Cross-track error of the active leg, positive to starboard of it"),
    Var("WaypointIndex", "Integer", "output", 0, None, "Index of the active waypoint (0-based)"),
    Var("MissionFinished", "Boolean", "output", False, None, "True once the last waypoint is reached"),
]

TABLE = [v for v in PARAMETERS if v not in LATER_PARAMETERS] + INPUTS + OUTPUTS + LATER_PARAMETERS


class AuvControl(FmuSlave):
    """Guidance and autopilots of the survey AUV (auv_cosim.vehicles.auv.stack.control.ControlStack)."""

    author = "auv-cosim"
    version = "0.1.0"
    description = ("Control stack of the survey AUV: mission (line of sight), hold and zig-zag "
                   "guidance, depth/altitude/yo-yo dive guidance, PID loops for speed, heading "
                   "and pitch")
    fmu_capabilities = {"canGetAndSetFMUstate": True, "canSerializeFMUstate": True}

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.values = {}
        # the Real inputs and outputs in the arrays self.real_inputs and self.real_outputs, in the
        # order of INPUTS and OUTPUTS: what the stack's compiled step reads and writes
        register_with_real_arrays(self, TABLE)
        self.stack = None

    def _config(self) -> ControlConfig:
        try:
            config = ControlConfig(**{v.name: self.values[v.name] for v in PARAMETERS})
            config.validate()
        except ValueError as error:
            raise FmuError(f"parameter {error}") from None
        return config

    def _new_stack(self) -> ControlStack:
        config = self._config()
        try:
            return ControlStack(config)
        except ValueError as error:   # e.g. a malformed Waypoints string
            raise FmuError(f"parameter {error}") from None

    def _step(self, stack: ControlStack, step_size: float) -> None:
        """The commands into self.real_outputs (INPUTS and OUTPUTS are in the order of the stack's
        arrays, control_kernel), the waypoint and the end of the mission into their values."""
        v = self.values   # (AltitudeValid is a bool there: its setter converts)
        try:
            stack.step_into(self.real_inputs, bool(v["AltitudeValid"]), self.real_outputs, step_size)
        except ValueError as error:   # a NaN input: rejected before any state advanced
            raise FmuError(str(error)) from None
        v["WaypointIndex"], v["MissionFinished"] = stack.waypoint_index, stack.mission_finished

    def _first_commands(self) -> ControlStack:
        stack = self._new_stack()
        self._step(stack, 0.0)
        return stack

    # ---------------------------------------------------------------- FMI hooks
    def fmu_initial_outputs(self) -> None:
        self._first_commands()

    def fmu_exit_initialization(self) -> None:
        self.stack = self._first_commands()
        self.parameters_changed = False

    def fmu_do_step(self, current_time: float, step_size: float) -> None:
        if not step_size >= 0.0:
            raise FmuError(f"communication step size {step_size} must not be negative")
        self._step(self.stack, float(step_size))

    def fmu_get_state(self):
        return {"stack": None if self.stack is None else copy.deepcopy(self.stack.get_state())}

    def fmu_set_state(self, internal) -> None:
        if internal["stack"] is None:
            self.stack = None
            return
        self.stack = self._new_stack()
        self.stack.set_state(copy.deepcopy(internal["stack"]))
        self.parameters_changed = False
