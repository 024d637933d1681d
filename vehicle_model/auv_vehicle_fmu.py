"""pythonfmu slave `Auv`: the vehicle of `vehicle_model` as an FMI 2.0 co-simulation FMU.

Built into fmus/Auv.fmu by tools/build_fmus.py; the interface is SPEC 2.6 and
docs/interfaces.md. The physics is all in `vehicle_model`: this file only maps FMI variables
to `AuvParameters`, `Environment`, `initial_state` and `VehicleSimulator`, and back.

Variables (vectors as `Name[i]`, 1-based, SI units):
* inputs ThrustPower, RudderYaw, RudderDive, ExternalForce[1..3] (NED);
* outputs Pos, Vel, Quater, Euler, Heading, Pitch, Depth, Speed, Altitude, SeaDepth, Battery,
  BatteryFraction, Thrust: refreshed at the end of each step (and at initialisation), from the
  state and the inputs of that step, so no output depends directly on an input;
* parameters: every field of `AuvParameters` (fixed), the environment (the current and the
  seafloor tunable, Gravity fixed), the initial state Pos0, Quater0, LocalVel0, Omega0,
  Battery0 (fixed) and the integrator's RelativeTolerance / AbsoluteTolerance (tunable).
  SectionX / SectionDiameter / SectionLength all zero (the default) means "derived from Length
  and Diameter"; Battery0 negative (the default) means InitialBattery.

Failures (see fmu_support.slave): a bad parameter fails fmi2ExitInitializationMode (fmi2Fatal)
with an error logged that names the variable; a non-finite input or an integrator failure fails
fmi2DoStep (fmi2Discard) with an error logged, the vehicle left at the step's start.

FMU state: the registered variables plus the simulator state and the time; VehicleSimulator
restarts its integrator from the state at every step, so a restored run continues bit for bit.
"""
from __future__ import annotations

import math
import os
import sys

import numpy as np
from pythonfmu.default_experiment import DefaultExperiment

from fmu_support import FmuError, FmuSlave
from fmu_support.numba_cache import pin_source_times, running_from_fmu

if running_from_fmu(__file__):  # make numba's cache shipped in the FMU valid (before the import)
    pin_source_times(os.path.join(os.path.dirname(os.path.abspath(__file__)), "vehicle_model"))

from vehicle_model import (OUTPUT_LAYOUT, AuvParameters, Environment, VehicleModel,
                           VehicleSimulator, dive_authority_warning, initial_state)
from vehicle_model.dynamics import OUTPUT_SIZE

#: Where `vehicle_model` was imported from: the FMU's resources folder, unless the host
#: process had imported another copy first (then Python reuses that one).
_VEHICLE_MODEL_ORIGIN = os.path.dirname(getattr(sys.modules.get("vehicle_model"), "__file__", "") or "?")

INPUTS = (
    # name, size, unit, description
    ("ThrustPower", 1, "W", "Commanded propulsion power, clamped to [0, MaxPropulsionPower]"),
    ("RudderYaw", 1, "rad", "Commanded deflection of the yaw fins (positive: turn to starboard), "
                            "clamped to +-MaxRudderAngle"),
    ("RudderDive", 1, "rad", "Commanded deflection of the dive fins (positive: nose down, dive), "
                             "clamped to +-MaxRudderAngle"),
    ("ExternalForce", 3, "N", "External force at the body origin, NED"),
)

OUTPUTS = (
    ("Pos", "m", ["North position of the body origin", "East position of the body origin",
                  "Down position of the body origin"]),
    ("Vel", "m/s", ["North velocity of the body origin over ground",
                    "East velocity of the body origin over ground",
                    "Down velocity of the body origin over ground"]),
    ("Quater", "1", ["Attitude quaternion body to NED, scalar part q0",
                     "Attitude quaternion body to NED, q1", "Attitude quaternion body to NED, q2",
                     "Attitude quaternion body to NED, q3"]),
    ("Euler", "rad", ["Roll angle (ZYX convention)", "Pitch angle (ZYX convention), nose up positive",
                      "Yaw angle (ZYX convention)"]),
    ("Heading", "rad", "Yaw angle, the third element of Euler"),
    ("Pitch", "rad", "Pitch angle, the second element of Euler; positive is nose up"),
    ("Depth", "m", "Depth of the body origin below the mean free surface, positive down"),
    ("Speed", "m/s", "Forward speed through the water (body-x velocity relative to the current)"),
    ("Altitude", "m", "Height of the body origin above the seafloor"),
    ("SeaDepth", "m", "Depth of the seafloor below the surface at the vehicle position"),
    ("Battery", "J", "Remaining battery energy"),
    ("BatteryFraction", "1", "Remaining battery energy as a fraction of InitialBattery"),
    ("Thrust", "N", "Thrust delivered along body x during the last step (0 with a flat battery)"),
)

#: Units for vector fields whose elements differ (FIELD_INFO gives one unit per field).
ELEMENT_UNITS = {"AddedMass": ("kg", "kg", "kg", "kg.m2", "kg.m2", "kg.m2")}
ELEMENT_LABELS = {
    "AddedMass": ("A11 surge", "A22 sway", "A33 heave", "A44 roll", "A55 pitch", "A66 yaw"),
    "SeaFloorSlope": ("d depth / d north", "d depth / d east"),
}
XYZ = ("body x", "body y", "body z")
NED = ("north", "east", "down")

#: Vector parameters of AuvParameters that may be None (derived); all zeros in the FMU.
DERIVED_WHEN_ZERO = ("SectionX", "SectionDiameter", "SectionLength")

#: Environment fields that may change during the run.
TUNABLE_ENVIRONMENT = ("CurrentVelocity", "CurrentDepthGradient", "SeaFloorDepth", "SeaFloorSlope")

INITIAL_STATE = (
    ("Pos0", 3, "m", "Initial position of the body origin, NED", NED),
    ("Quater0", 4, "1", "Initial attitude quaternion body to NED, scalar first (normalised)",
     ("q0", "q1", "q2", "q3")),
    ("LocalVel0", 3, "m/s", "Initial velocity over ground in the body frame", XYZ),
    ("Omega0", 3, "rad/s", "Initial angular velocity in the body frame", XYZ),
    ("Battery0", 1, "J", "Initial battery energy; negative means InitialBattery", None),
)
INITIAL_STATE_DEFAULTS = {"Pos0": (0.0, 0.0, 0.0), "Quater0": (1.0, 0.0, 0.0, 0.0),
                          "LocalVel0": (0.0, 0.0, 0.0), "Omega0": (0.0, 0.0, 0.0),
                          "Battery0": -1.0}


def _field_info(info):
    """(unit, description, size) from a FIELD_INFO entry (a dict or a tuple)."""
    if isinstance(info, dict):
        return info.get("unit") or "", info.get("description") or "", int(info.get("size", 1))
    unit, description, size = info
    return unit or "", description or "", int(size)


def _element_descriptions(name, description, size):
    labels = ELEMENT_LABELS.get(name)
    if labels is None:
        labels = (XYZ if name in ("COG", "ThrusterPos", "RudderPos") else
                  NED if name.startswith("Current") else
                  ("section 1 (bow)", "section 2", "section 3 (stern)") if name.startswith("Section")
                  else tuple(f"element {i + 1}" for i in range(size)))
    return [f"{description}: {labels[i]}" for i in range(size)]


class Auv(FmuSlave):
    """Six-degree-of-freedom survey AUV (seed 001) with its battery."""

    description = ("Torpedo-shaped survey AUV: 6-DOF rigid body with strip-theory hydrodynamics, "
                   "fins, thruster and battery (vehicle_model), FMI 2.0 co-simulation")
    author = "auv-cosim"
    version = "0.1.0"
    default_experiment = DefaultExperiment(start_time=0.0, stop_time=60.0, step_size=0.1)
    fmu_capabilities = {"canGetAndSetFMUstate": True, "canSerializeFMUstate": True}

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._model = None
        self._sim = None
        self._built_key = None
        self._time = 0.0
        self._warned_time = False
        self._parameter_names = []   # every Real parameter, for the finite check, in order
        self._key_names = []         # the parameters the model and simulator are built from

        # ---- inputs
        for name, size, unit, description in INPUTS:
            if size == 1:
                setattr(self, name, 0.0)
                self.add_real(name, causality="input", unit=unit, description=description)
            else:
                setattr(self, name, [0.0] * size)
                self.add_real_vector(name, size, causality="input", unit=unit,
                                     description=[f"{description}: {NED[i]}" for i in range(size)])

        # ---- outputs (no direct feedthrough: they change only in do_step). They live in one
        # flat vector, filled by one compiled call per step (vehicle_model's output_vector);
        # each variable reads its element.
        self._outputs = np.zeros(OUTPUT_SIZE)
        for name, unit, description in OUTPUTS:
            start, size = OUTPUT_LAYOUT[name]
            for i in range(size):
                self.add_real(name if size == 1 else f"{name}[{i + 1}]", causality="output",
                              unit=unit, depends_on=[],
                              description=description if size == 1 else description[i],
                              element=("_outputs", start + i))

        # ---- parameters: the vehicle, then the environment
        defaults = AuvParameters()
        for name, info in AuvParameters.FIELD_INFO.items():
            self._add_parameter(name, info, getattr(defaults, name), "fixed")
        env_defaults = Environment()
        for name, info in Environment.FIELD_INFO.items():
            variability = "tunable" if name in TUNABLE_ENVIRONMENT else "fixed"
            self._add_parameter(name, info, getattr(env_defaults, name), variability)

        # ---- initial state
        for name, size, unit, description, labels in INITIAL_STATE:
            default = INITIAL_STATE_DEFAULTS[name]
            if size == 1:
                setattr(self, name, float(default))
                self.add_real(name, causality="parameter", variability="fixed", unit=unit,
                              description=description)
                self._parameter_names.append(name)
            else:
                setattr(self, name, [float(v) for v in default])
                self.add_real_vector(name, size, causality="parameter", variability="fixed",
                                     unit=unit, description=[f"{description}: {labels[i]}"
                                                             for i in range(size)])
                self._parameter_names += [f"{name}[{i + 1}]" for i in range(size)]

        # ---- integrator
        self.RelativeTolerance = 1e-4   # the library's defaults; see README, 'Why dopri5'
        self.AbsoluteTolerance = 1e-6
        self.add_real("RelativeTolerance", causality="parameter", variability="tunable",
                      unit="1", description="Relative tolerance of the dopri5 integrator")
        self.add_real("AbsoluteTolerance", causality="parameter", variability="tunable",
                      unit="1", description="Absolute tolerance of the dopri5 integrator "
                                            "(on every state, in its own unit)")
        self._parameter_names += ["RelativeTolerance", "AbsoluteTolerance"]
        self._key_names += ["RelativeTolerance", "AbsoluteTolerance"]

    def _add_parameter(self, name, info, default, variability):
        unit, description, size = _field_info(info)
        if size == 1:
            setattr(self, name, float(default))
            self.add_real(name, causality="parameter", variability=variability,
                          unit=unit or "1", description=description or name)
            self._parameter_names.append(name)
        else:
            if default is None:  # derived: all zeros in the FMU
                default = (0.0,) * size
                description = f"{description}; all {size} zero = derived from Length and Diameter"
            setattr(self, name, [float(v) for v in default])
            units = ELEMENT_UNITS.get(name, unit or "1")
            self.add_real_vector(name, size, causality="parameter", variability=variability,
                                 unit=units, description=_element_descriptions(name, description, size))
            self._parameter_names += [f"{name}[{i + 1}]" for i in range(size)]
        self._key_names.append(name)

    # ------------------------------------------------------------------ parameters -> model
    def _value(self, name):
        value = getattr(self, name)
        return float(value) if isinstance(value, float) else tuple(float(v) for v in value)

    def _parameter_values(self, cls):
        values = {}
        for name in cls.FIELD_INFO:
            value = self._value(name)
            if name in DERIVED_WHEN_ZERO and all(v == 0.0 for v in value):
                value = None
            values[name] = value
        return values

    def _check_finite(self):
        for name in self._parameter_names:
            var_value = self._scalar(name)
            if not math.isfinite(var_value):
                raise FmuError(f"parameter {name} = {var_value!r} is not finite")

    def _scalar(self, name):
        if name.endswith("]"):
            base, index = name[:-1].split("[")
            return float(getattr(self, base)[int(index) - 1])
        return float(getattr(self, name))

    def _build(self):
        """(Re)build the model and the simulator when a parameter they use has changed.
        Returns True when it did. Raises FmuError naming the parameter at fault."""
        key = tuple(self._value(name) for name in self._key_names)
        if key == self._built_key and self._model is not None:
            return False
        self._check_finite()
        try:
            params = AuvParameters(**self._parameter_values(AuvParameters))
            env = Environment(**self._parameter_values(Environment))
            model = VehicleModel(params, env)
        except ValueError as error:
            raise FmuError(str(error)) from None
        rtol, atol = self.RelativeTolerance, self.AbsoluteTolerance
        if not rtol > 0:
            raise FmuError(f"parameter RelativeTolerance = {rtol!r} must be positive")
        if not atol > 0:
            raise FmuError(f"parameter AbsoluteTolerance = {atol!r} must be positive")
        x = self._sim.state if self._sim is not None else self._initial_state(params)
        self._model = model
        self._sim = VehicleSimulator(model, x, rtol=rtol, atol=atol)
        self._built_key = key
        return True

    def _initial_state(self, params):
        battery = self.Battery0 if self.Battery0 >= 0.0 else params.InitialBattery
        try:
            return initial_state(Pos0=self.Pos0, Quater0=self.Quater0, LocalVel0=self.LocalVel0,
                                 Omega0=self.Omega0, Battery0=battery)
        except ValueError as error:
            raise FmuError(str(error)) from None

    def _inputs(self):
        """The input vector; VehicleSimulator.advance refuses (and names) a non-finite one."""
        return np.array([self.ThrustPower, self.RudderYaw, self.RudderDive, *self.ExternalForce],
                        dtype=float)

    def _initial_inputs(self):
        """The inputs for the outputs of the initial state. A non-finite input start value is
        read as zero here: SPEC 2.6 refuses a NaN input at the step that would use it, so the
        instance initialises and the host may still correct the input before stepping."""
        u = np.array([self.ThrustPower, self.RudderYaw, self.RudderDive, *self.ExternalForce],
                     dtype=float)
        return np.where(np.isfinite(u), u, 0.0)

    def _refresh_outputs(self, u):
        self._outputs[:] = self._model.output_vector(self._sim.state, u)

    # ------------------------------------------------------------------ FMI hooks
    def fmu_enter_initialization(self, start_time):
        self._time = start_time
        self._sim = None  # the initial state is rebuilt from the parameters
        self._model = None
        self._built_key = None

    def fmu_initial_outputs(self):
        self._sim = None
        self._model = None
        self._build()
        self._refresh_outputs(self._initial_inputs())

    def fmu_exit_initialization(self):
        self._sim = None   # start from Pos0 ... Battery0 as they are now
        self._model = None
        self._build()
        self._refresh_outputs(self._initial_inputs())
        self.parameters_changed = False
        self.log_info(f"{self.instance_name}: vehicle_model from {_VEHICLE_MODEL_ORIGIN}")
        warning = dive_authority_warning(self._model.params, self._model.env.Gravity,
                                         name=self.instance_name)
        if warning:
            self.log_warning(warning)

    def fmu_do_step(self, current_time, step_size):
        u = self._inputs()
        if not step_size >= 0.0:
            raise FmuError(f"communication step size {step_size} must not be negative")
        if not self._warned_time and abs(current_time - self._time) > 1e-9 * max(1.0, abs(current_time)):
            self._warned_time = True
            self.log_warning(f"fmi2DoStep at t={current_time} but the vehicle is at t={self._time}; "
                             f"integrating from t={current_time}")
        if self.parameters_changed:
            self._build()  # tunable parameters; the vehicle stays as it was on failure
            self.parameters_changed = False
        # A failed advance raises and leaves the vehicle at the start of the step.
        self._sim.advance(current_time, current_time + step_size, u)
        self._refresh_outputs(u)
        self._time = current_time + step_size

    def fmu_get_state(self):
        return {"time": self._time,
                "x": None if self._sim is None else self._sim.state.tolist(),
                "warned_time": self._warned_time}

    def fmu_set_state(self, internal):
        self._time = float(internal["time"])
        self._warned_time = bool(internal["warned_time"])
        if internal["x"] is None:
            self._sim = None
            self._model = None
            self._built_key = None
            return
        if self._sim is None:
            # A state restored into an instance that was never initialised: build from the
            # restored parameters (the state's x replaces the initial state right after).
            self._build()
        else:
            self._build()  # no-op unless the restored parameters differ from the model's
        self._sim.set_state(np.array(internal["x"], dtype=float))
        self.parameters_changed = False
