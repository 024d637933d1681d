"""pythonfmu slave ``H100Control``: the H100's navigation, guidance, controller (``Controller`` =
``pid`` | ``lqr`` | ``smc``) and thrust allocation (thin wrapper of
auv_cosim.vehicles.h100.stack.stack.H100ControlStack).

The number of thrusters, and the controller's model of the vehicle, come from the vehicle file
the FMU is built from (``vehicle_file``, bundled in its resources), as for ``H100.fmu``: FMI 2.0
has no structural parameters, so another layout is another vehicle file and one more build line
(tools/build_fmus.py writes this script out under the FMU's name with its ``vehicle_file``).
The belief may be detuned from that file with ``DampingScale`` / ``AddedMassScale`` and
``EfficiencyBelief`` (robustness runs).

Timing, failures and FMU state as AuvControl's: the commands after ``do_step(t, h)`` are
computed from the measurements set before the call and are for the vehicle's next step; a bad
parameter fails initialisation naming it; a non-finite input fails the step (fmi2Discard)
naming it, nothing advanced; the state (navigation, references, integrators) restores exactly.
"""
from __future__ import annotations

import copy
import math
import sys
from operator import itemgetter

from ....fmu import FmuError, FmuSlave
from ....fmu.declare import Var, config_of, parameters_of, register_with_real_outputs
from .control import ControllerConfig
from .guidance import Commands, GuidanceConfig
from .navigation import Measurements, NavigationConfig
from .stack import StackConfig

_NED = ("north", "east", "down")
_WRENCH = ("X (surge force)", "Y (sway force)", "Z (heave force)", "K (roll moment)",
           "M (pitch moment)", "N (yaw moment)")
_WRENCH_UNITS = ("N", "N", "N", "N.m", "N.m", "N.m")

#: The parameters: the configurations' fields, declared beside them (auv_cosim/vehicles/h100/stack/:
#: guidance.py, controllers.py, navigation.py, stack.py); the controller's choice first.
_CONTROLLER = parameters_of(ControllerConfig)
_CONFIGS = (GuidanceConfig, ControllerConfig, NavigationConfig, StackConfig)
PARAMETERS = (_CONTROLLER[:1] + parameters_of(GuidanceConfig) + _CONTROLLER[1:]
              + parameters_of(NavigationConfig) + parameters_of(StackConfig))

INPUTS = [
    *[Var(f"MeasuredEuler[{i + 1}]", "Real", "input", 0.0, "rad", d) for i, d in
      enumerate(("Measured roll", "Measured pitch", "Measured heading, 0 = north"))],
    *[Var(f"MeasuredOmega[{i + 1}]", "Real", "input", 0.0, "rad/s", f"Measured angular rate, body axis {i + 1}") for i in range(3)],
    *[Var(f"MeasuredVelocity[{i + 1}]", "Real", "input", 0.0, "m/s", f"DVL velocity over ground, body axis {i + 1}") for i in range(3)],
    Var("DvlValid", "Boolean", "input", True, None, "DVL bottom lock"),
    Var("MeasuredDepth", "Real", "input", 0.0, "m", "Measured depth"),
    *[Var(f"UsblPosition[{i + 1}]", "Real", "input", 0.0, "m", f"USBL fix, {_NED[i]}") for i in range(3)],
    Var("UsblFixTime", "Real", "input", 0.0, "s", "The instant the USBL fix describes"),
    Var("UsblFixCount", "Integer", "input", 0, None, "USBL fixes delivered so far (a change is a new fix)"),
    Var("DepthCommand", "Real", "input", 0.0, "m", "Depth reference of Modes 'depth_heading' and 'velocity'"),
    Var("HeadingCommand", "Real", "input", 0.0, "rad", "Heading reference of Modes 'depth_heading' and 'velocity'"),
    Var("SurgeCommand", "Real", "input", 0.0, "m/s", "Body surge speed of Mode 'velocity'"),
    Var("SwayCommand", "Real", "input", 0.0, "m/s", "Body sway speed of Mode 'velocity'"),
]


def _outputs(n):
    return [
        *[Var(f"ThrusterCommand[{i + 1}]", "Real", "output", 0.0, "1", f"Command of thruster {i + 1}, fraction of full speed")
          for i in range(n)],
        *[Var(f"RefPosition[{i + 1}]", "Real", "output", 0.0, "m", f"Reference position, {_NED[i]}") for i in range(3)],
        Var("RefHeading", "Real", "output", 0.0, "rad", "Reference heading"),
        *[Var(f"NavPosition[{i + 1}]", "Real", "output", 0.0, "m", f"Navigation estimate of the position, {_NED[i]}")
          for i in range(3)],
        *[Var(f"PositionError[{i + 1}]", "Real", "output", 0.0, "m", f"Reference minus estimated position, {_NED[i]}")
          for i in range(3)],
        Var("HeadingError", "Real", "output", 0.0, "rad", "Reference minus measured heading, wrapped"),
        *[Var(f"DesiredWrench[{i + 1}]", "Real", "output", 0.0, _WRENCH_UNITS[i], f"Controller's body wrench, {_WRENCH[i]}")
          for i in range(6)],
        Var("UnmetWrench", "Real", "output", 0.0, "N", "Norm of the desired wrench the allocation could not produce"),
        Var("SaturatedThrusters", "Integer", "output", 0, None, "Thrusters at a limit"),
        Var("LayoutRank", "Integer", "output", 6, None, "Rank of the configuration matrix (6: fully actuated)"),
    ]


#: the inputs the slave reads each step, as tuples of the values (one itemgetter call each)
_EULER, _OMEGA, _VELOCITY, _USBL = (itemgetter(*[f"{name}[{i + 1}]" for i in range(3)]) for name in
                                    ("MeasuredEuler", "MeasuredOmega", "MeasuredVelocity", "UsblPosition"))
_COMMANDS = ("DepthCommand", "HeadingCommand", "SurgeCommand", "SwayCommand")
_COMMAND_VALUES = itemgetter(*_COMMANDS)


class H100Control(FmuSlave):
    """Navigation, guidance, control and thrust allocation of the H100 ROV."""

    author = "auv-cosim"
    version = "0.1.0"
    description = ("Control stack of the H100 ROV: DVL/USBL navigation, station keeping, depth and "
                   "heading hold, velocity hold, 3-D waypoints, S-shape and sway manoeuvres; "
                   "cascade PID, LQR or sliding mode; QP thrust allocation")
    fmu_capabilities = {"canGetAndSetFMUstate": True, "canSerializeFMUstate": True}
    #: The vehicle file of the layout and of the belief, relative to the FMU's resources folder.
    vehicle_file = "vehicles/H100.yaml"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        from ..resolved import vehicle_for

        # an FMU reads the file resolved at build (no pyyaml, no pydantic); a slave made outside
        # an FMU, the unit's own vehicle file
        self.vehicle = vehicle_for(kwargs.get("resources") or None, self.vehicle_file)
        self.thruster_count = self.vehicle.params.thruster_count
        self.values = {}
        self.table = PARAMETERS + INPUTS + _outputs(self.thruster_count)
        at = register_with_real_outputs(self, self.table)    # the Real outputs: self.real_outputs

        def span(first, count):
            return slice(at[first], at[first] + count)

        self._commands_at = span("ThrusterCommand[1]", self.thruster_count)
        self._reference_at, self._navigation_at, self._position_error_at = (
            span(f"{name}[1]", 3) for name in ("RefPosition", "NavPosition", "PositionError"))
        self._wrench_at = span("DesiredWrench[1]", 6)
        self._ref_heading_at, self._heading_error_at, self._unmet_at = (
            at[name] for name in ("RefHeading", "HeadingError", "UnmetWrench"))
        self.stack = None

    # ---------------------------------------------------------------- mapping
    def _new_stack(self):
        from .stack import H100ControlStack

        try:
            guidance, controller, navigation, stack = (config_of(cls, self.values) for cls in _CONFIGS)
            for config in (guidance, controller, navigation, stack):
                config.validate()
            return H100ControlStack(stack.belief(self.vehicle.params), guidance, controller, navigation,
                                    allocator=stack.Allocator)
        except ValueError as error:
            raise FmuError(f"parameter {error}") from None

    def _measurements(self) -> Measurements:
        v = self.values
        return Measurements(_EULER(v), _OMEGA(v), _VELOCITY(v), v["DvlValid"], v["MeasuredDepth"], _USBL(v),
                            v["UsblFixTime"], v["UsblFixCount"])

    def _commands(self) -> Commands:
        v = self.values
        depth, heading, surge, sway = _COMMAND_VALUES(v)
        if not math.isfinite(depth + heading + surge + sway):
            for name in _COMMANDS:
                if not math.isfinite(v[name]):
                    raise ValueError(f"input {name} is not finite ({v[name]!r})")
        return Commands(depth=depth, heading=heading, surge=surge, sway=sway)

    def _publish(self, o) -> None:
        out = self.real_outputs
        out[self._commands_at] = o.commands
        out[self._reference_at] = o.reference.pos
        out[self._navigation_at] = o.estimate.pos
        out[self._position_error_at] = o.position_error
        out[self._wrench_at] = o.wrench
        out[self._ref_heading_at], out[self._heading_error_at] = o.reference.heading, o.heading_error
        out[self._unmet_at] = o.unmet_norm
        self.values["SaturatedThrusters"] = int(o.saturated_count)

    def _first_commands(self):
        stack = self._new_stack()
        self.values["LayoutRank"] = int(stack.allocator.reach.rank)
        try:
            self._publish(stack.initialize(self._measurements(), self._commands()))
        except ValueError as error:
            raise FmuError(str(error)) from None
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
        try:
            # the navigation checks the measurements before anything advances
            self._publish(self.stack.step(self._measurements(), self._commands(), float(step_size)))
        except ValueError as error:   # a non-finite input: rejected before any state advanced
            raise FmuError(str(error)) from None

    def fmu_get_state(self):
        return {"stack": None if self.stack is None else copy.deepcopy(self.stack.get_state())}

    def fmu_set_state(self, internal) -> None:
        if internal["stack"] is None:
            self.stack = None
            return
        self.stack = self._new_stack()
        self.stack.set_state(copy.deepcopy(internal["stack"]))
        self.parameters_changed = False
