"""`VehicleSlave`: the FMU of any vehicle that follows `auv_cosim.vehicles.protocol.Vehicle`.

A vehicle's slave module only names its pieces:

    class Auv(VehicleSlave):
        vehicle_class = AuvModel                      # a Vehicle: model(params, env)
        parameter_classes = (AuvParameters, Environment)   # its constructor's arguments
        simulator_class = VehicleSimulator
        initial_state_defaults = {"Pos0": (0, 0, 0), ...}

and this class registers, in this order (the value references follow it):
* the inputs, from `vehicle_class.INPUTS` (start value 0);
* the outputs, from `vehicle_class.OUTPUTS`, refreshed at the end of each step and at
  initialisation from the state and the inputs of that step (no direct feedthrough);
* one parameter per field of each parameter class, from the declaration beside the field
  (`auv_cosim.fmu.declare`: unit, description, labels, variability; a vector that may be None
  is all zeros in the FMU and means None);
* the initial state, one parameter per part of `vehicle_class.STATE` ("Pos" -> `Pos0`);
* RelativeTolerance and AbsoluteTolerance of the integrator (tunable);
* the local variables, from `vehicle_class.LOCALS` if it has one (values for plots that are
  not outputs, refreshed with the outputs from `model.local_vector(x, u, t)`; a model with
  `write_outputs` fills both arrays in place in one call);
* the vehicle among others (docs/physics/environment.md#wakes), last of all so that no earlier value reference moved:
  one parameter per field of each of `late_parameter_classes` (the wake parameters: CastWake,
  ExternalWakeUpdate, ...), then the inputs of `vehicle_class.EXTRA_INPUTS` (the others'
  `WakeSources[k,j]`, held after the table's inputs in the same array) and the outputs of
  `vehicle_class.EXTRA_OUTPUTS` (`WakeSource`, `WakeVelocity`, after the table's outputs in
  the same array, which the model's `write_outputs` fills when it is that long); how those
  ports are wired between FMUs is `vehicle_class.EXCHANGES` (`fmu_exchanges`: the row
  exchanges of auv_cosim.fmu.exchanges, kept to the variables registered, which the build
  declares in modelDescription.xml).

The model and the simulator are rebuilt when a parameter they use changes (a tunable one
during the run: the vehicle keeps its state). A bad parameter fails initialisation with the
parameter named; a failed step leaves the vehicle at the start of the step (see
`auv_cosim.fmu.slave`). The FMU state is the registered variables plus the vehicle's state and
time, and what the vehicle holds over a step beyond its inputs (the wake block: whether a
source moved and the wake velocity held in "Step" mode): the simulator restarts its
integrator from the state at every step, so a restored run continues bit for bit.

This module imports nothing of the project beyond `auv_cosim.fmu`: the vehicle's classes come in
as class attributes.
"""
from __future__ import annotations

import dataclasses
import math
import os
import sys
from typing import Any, ClassVar, Dict, Optional, Tuple

import numpy as np

from .declare import declaration
from .exchanges import exchange_from
from .slave import FmuError, FmuSlave


class VehicleSlave(FmuSlave):
    """Base of a vehicle's slave; see the module documentation."""

    #: The vehicle model class (a `auv_cosim.vehicles.protocol.Vehicle`), built as
    #: `vehicle_class(*instances of parameter_classes)`.
    vehicle_class: ClassVar[Any] = None
    parameter_classes: ClassVar[Tuple[type, ...]] = ()
    #: `auv_cosim.vehicles.VehicleSimulator` (or anything with its constructor, state, set_state
    #: and advance; with `step`, advance without the copy of the state, and `inputs`, the array
    #: it reads the held inputs from, the slave copies neither).
    simulator_class: ClassVar[Any] = None
    #: Start values of the initial-state parameters, by name (STATE part + "0").
    initial_state_defaults: ClassVar[Dict[str, Any]] = {}
    #: Instances of `parameter_classes` whose values are the FMU's start values (None: each
    #: class's defaults). A vehicle built from a file (the H100: its thruster layout) gives
    #: the file's parameters here; a matrix with any number of rows takes its size from them.
    parameter_defaults: ClassVar[Optional[Tuple[Any, ...]]] = None
    #: Text appended to an initial-state parameter's description, by name.
    initial_state_notes: ClassVar[Dict[str, str]] = {}
    #: Parameter classes the model takes after `parameter_classes` whose variables the FMU
    #: registers after every other (added later: the wake parameters of docs/physics/environment.md#wakes). Their start
    #: values are each class's defaults.
    late_parameter_classes: ClassVar[Tuple[type, ...]] = ()
    #: Parameter classes the model takes after those, registered after every other variable,
    #: the extra outputs included (added later still: the seabed and the place on Earth).
    last_parameter_classes: ClassVar[Tuple[type, ...]] = ()

    def library_origin(self) -> str:
        """Where the vehicle library runs from ("the vehicle library PACKAGE from FOLDER", logged at
        initialisation): in a built FMU, the package of the FMU's own build in its resources."""
        name = type(self._model).__module__
        folder = os.path.dirname(getattr(sys.modules.get(name), "__file__", "") or "?")
        return f"the vehicle library {name.rpartition('.')[0]} from {folder}"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._model = None
        self._write_outputs = None   # chosen with the model (_build)
        self._output_problem = None  # the model's check of its outputs, if it has one (_build)

        self._advance = None         # chosen with the simulator (_build)
        self._sim = None
        self._built_key = None
        self._time = 0.0
        self._warned_time = False
        self._parameter_names = []   # every Real parameter, for the finite check, in order
        self._scalar_places = {}     # a matrix element's name -> (attribute, flat index)
        self._key_names = []         # the parameters the model and simulator are built from
        vehicle = self.vehicle_class

        #: how many leading values of the input array are the host's: the vehicle may hold more
        #: over a step (`INPUT_ARRAY_SIZE`, auv_cosim.vehicles.simulator: the others' wakes)
        self._given_inputs = vehicle.INPUTS.size
        self._inputs_now = np.zeros(getattr(vehicle, "INPUT_ARRAY_SIZE", vehicle.INPUTS.size))
        #: (value reference, signal) of every input element with limits (see _refresh_limits)
        self._limited = []
        defaults = [cls() if self.parameter_defaults is None else self.parameter_defaults[k]
                    for k, cls in enumerate(self.parameter_classes)]
        for signal in vehicle.INPUTS:
            self._register_signal(signal, "input", attr="_inputs_now",
                                  start=vehicle.INPUTS.start(signal.name), limits_from=defaults)

        self._outputs = np.zeros(vehicle.OUTPUTS.size)
        for signal in vehicle.OUTPUTS:
            self._register_signal(signal, "output", attr="_outputs",
                                  start=vehicle.OUTPUTS.start(signal.name), depends_on=[])

        missing = [s.name + "0" for s in vehicle.STATE if s.name + "0" not in self.initial_state_defaults]
        if missing:
            raise ValueError(f"{type(self).__name__}.initial_state_defaults lacks {', '.join(missing)}")
        for k, cls in enumerate(self.parameter_classes):
            if not dataclasses.is_dataclass(cls):
                raise TypeError(f"{type(self).__name__}: parameter class {cls.__name__} is not a "
                                f"dataclass of declared fields (see auv_cosim.fmu.declare)")
            defaults = cls() if self.parameter_defaults is None else self.parameter_defaults[k]
            self._add_parameter_class(cls, defaults)

        for signal in vehicle.STATE:
            name = signal.name + "0"
            description = ("Initial " + signal.description[0].lower() + signal.description[1:]
                           + self.initial_state_notes.get(name, ""))
            default = self.initial_state_defaults[name]
            self._add_real_parameter(name, signal.size, signal.unit, description,
                                     signal.labels, default, "fixed")

        # the vehicle's own defaults (VehicleSimulator.tolerances_of; docs/vehicles.md, 'Why dopri5')
        self.RelativeTolerance, self.AbsoluteTolerance = self.simulator_class.tolerances_of(vehicle)
        integrator = self.simulator_class.integrator_of(vehicle)
        self.add_real("RelativeTolerance", causality="parameter", variability="tunable",
                      unit="1", description=f"Relative tolerance of the {integrator} integrator")
        self.add_real("AbsoluteTolerance", causality="parameter", variability="tunable",
                      unit="1", description=f"Absolute tolerance of the {integrator} integrator "
                                            "(on every state, in its own unit)")
        self._parameter_names += ["RelativeTolerance", "AbsoluteTolerance"]
        self._key_names += ["RelativeTolerance", "AbsoluteTolerance"]

        # last, so that adding them moved no other variable's value reference
        local_table = getattr(vehicle, "LOCALS", None)
        self._locals = np.zeros(local_table.size if local_table is not None else 0)
        for signal in local_table or ():
            self._register_signal(signal, "local", attr="_locals", start=local_table.start(signal.name))

        # the vehicle among others (docs/physics/environment.md#wakes), after everything else
        for cls in self.late_parameter_classes:
            self._add_parameter_class(cls, cls())
        extra_inputs = getattr(vehicle, "EXTRA_INPUTS", None)
        for signal in extra_inputs or ():
            self._register_signal(signal, "input", attr="_inputs_now",
                                  start=self._given_inputs + extra_inputs.start(signal.name))
        if extra_inputs is not None:
            self._given_inputs += extra_inputs.size
        extra_outputs = getattr(vehicle, "EXTRA_OUTPUTS", None)
        if extra_outputs is not None:
            self._outputs = np.zeros(vehicle.OUTPUTS.size + extra_outputs.size)
            for signal in extra_outputs:
                self._register_signal(signal, "output", attr="_outputs",
                                      start=vehicle.OUTPUTS.size + extra_outputs.start(signal.name),
                                      depends_on=[])
        for cls in self.last_parameter_classes:
            self._add_parameter_class(cls, cls())
        # Boolean outputs (name, description), after everything else: 1.0 / 0.0 in slots the model
        # writes after the extra outputs (the AUV's SeabedContact)
        flags = getattr(vehicle, "FLAG_OUTPUTS", ())
        if flags:
            first = self._outputs.size
            self._outputs = np.zeros(first + len(flags))
            for k, (name, description) in enumerate(flags):
                self.add_boolean(name, causality="output", description=description, depends_on=[],
                                 getter=lambda slot=first + k: bool(self._outputs[slot] > 0.5),
                                 setter=lambda value, slot=first + k: self._outputs.__setitem__(slot, float(bool(value))))
        # how those ports are wired between FMUs, as the build declares it to hosts
        registered = [v.name for v in self.vars.values()]
        self.fmu_exchanges = tuple(e for e in (exchange_from(d).keeping(registered)
                                               for d in getattr(vehicle, "EXCHANGES", ())) if e is not None)

    # ------------------------------------------------------------------ registration
    def _register_signal(self, signal, causality, attr, start, depends_on=None, limits_from=()):
        """One input or output part as Reals over elements of the array self.<attr>; an input
        with limits declares them as its range, from the parameters `limits_from` (the defaults)."""
        units = signal.element_units()
        descriptions = signal.element_descriptions()
        bounds = signal.bounds(limits_from) if limits_from else None
        for i, name in enumerate(signal.element_names()):
            var = self.add_real(name, causality=causality, unit=units[i], description=descriptions[i],
                                element=(attr, start + i), depends_on=depends_on,
                                minimum=bounds and bounds[0], maximum=bounds and bounds[1])
            if bounds is not None:
                self._limited.append((var.value_reference, signal))

    def _refresh_limits(self, parameter_sets) -> None:
        """The range each limited input is checked against (a set beyond it: fmi2Warning), from
        the parameters of this run: the model clamps to those, whatever modelDescription says
        of the defaults."""
        for vr, signal in self._limited:
            low, high = signal.bounds(parameter_sets)
            self.set_range(vr, low, high)

    def _add_parameter_class(self, cls, defaults):
        """One parameter per declared field of the dataclass `cls`, start values from `defaults`."""
        for field in dataclasses.fields(cls):
            declared = declaration(field)
            if declared is not None:
                self._add_parameter(field.name, declared, getattr(defaults, field.name))

    #: the FMI registration and the Python type of a parameter that is not a Real, by `kind`
    _DISCRETE_KINDS = {"integer": ("add_integer", int), "boolean": ("add_boolean", bool),
                       "string": ("add_string", str)}

    def _add_parameter(self, name, declaration, default):
        kind = declaration.get("kind")
        if kind in self._DISCRETE_KINDS:
            method, convert = self._DISCRETE_KINDS[kind]
            setattr(self, name, convert(default))
            getattr(self, method)(name, causality="parameter", description=declaration["description"],
                                  variability=declaration["variability"])
            self._key_names.append(name)
            return
        size = declaration["size"]
        description = declaration["description"]
        shape = declaration.get("shape")
        if size is None:      # a matrix with any number of rows: as many as the default has
            size = len(default)
        if default is None:   # derived from other parameters: all zeros in the FMU
            default = (0.0,) * size
            description = f"{description}; all {size} zero = {declaration['zero_means']}"
        if shape is not None:
            self._add_matrix_parameter(name, size // shape[1], shape[1], declaration["unit"],
                                       description, default, declaration["variability"])
        else:
            self._add_real_parameter(name, size, declaration["unit"], description,
                                     declaration["labels"], default, declaration["variability"])
        self._key_names.append(name)

    def _add_matrix_parameter(self, name, rows, columns, unit, description, default, variability):
        """A matrix stored flat row by row in self.<name>, registered as `Name[i,j]`."""
        setattr(self, name, [float(v) for v in default])
        units = unit if isinstance(unit, tuple) else (unit,) * (rows * columns)
        for i in range(rows):
            for j in range(columns):
                element = f"{name}[{i + 1},{j + 1}]"
                self.add_real(element, causality="parameter", variability=variability,
                              unit=units[i * columns + j],
                              description=f"{description}: row {i + 1}, column {j + 1}",
                              element=(name, i * columns + j))
                self._parameter_names.append(element)
                self._scalar_places[element] = (name, i * columns + j)

    def _add_real_parameter(self, name, size, unit, description, labels, default, variability):
        if size == 1:
            setattr(self, name, float(default))
            self.add_real(name, causality="parameter", variability=variability,
                          unit=unit or "1", description=description or name)
            self._parameter_names.append(name)
            return
        labels = labels or tuple(f"element {i + 1}" for i in range(size))
        setattr(self, name, [float(v) for v in default])
        self.add_real_vector(name, size, causality="parameter", variability=variability,
                             unit=unit, description=[f"{description}: {label}" for label in labels])
        self._parameter_names += [f"{name}[{i + 1}]" for i in range(size)]

    # ------------------------------------------------------------------ parameters -> model
    def _value(self, name):
        value = getattr(self, name)
        if isinstance(value, (int, float, str)):   # bool is an int
            return value
        return tuple(float(v) for v in value)

    def _parameter_values(self, cls):
        values = {}
        for field in dataclasses.fields(cls):
            declared = declaration(field)
            if declared is None:
                continue
            value = self._value(field.name)
            if declared["zero_means"] and all(v == 0.0 for v in value):
                value = None
            values[field.name] = value
        return values

    def _check_finite(self):
        for name in self._parameter_names:
            value = self._scalar(name)
            if not math.isfinite(value):
                raise FmuError(f"parameter {name} = {value!r} is not finite")

    def _scalar(self, name):
        if name in self._scalar_places:
            attr, index = self._scalar_places[name]
            return float(getattr(self, attr)[index])
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
            parameter_sets = [cls(**self._parameter_values(cls))
                              for cls in self.parameter_classes + self.late_parameter_classes
                              + self.last_parameter_classes]
            model = self.vehicle_class(*parameter_sets)
        except ValueError as error:
            raise FmuError(str(error)) from None
        self._refresh_limits(parameter_sets)
        rtol, atol = self.RelativeTolerance, self.AbsoluteTolerance
        if not rtol > 0:
            raise FmuError(f"parameter RelativeTolerance = {rtol!r} must be positive")
        if not atol > 0:
            raise FmuError(f"parameter AbsoluteTolerance = {atol!r} must be positive")
        x = self._sim.state if self._sim is not None else self._initial_state(model)
        self._model = model
        # decided once per model, not at every step: both arrays in one call where the model
        # can (see auv_cosim.vehicles.protocol), else one output_vector (and local_vector) per step
        self._write_outputs = getattr(model, "write_outputs", None) or self._write_by_vectors
        self._output_problem = getattr(model, "output_problem", None)
        self._sim = self.simulator_class(model, x, rtol=rtol, atol=atol)
        # chosen once per simulator, not at every step: `step` returns the state itself where the
        # simulator has it, `advance` a copy
        self._advance = getattr(self._sim, "step", None) or self._sim.advance
        self._built_key = key
        # the input variables become the elements of the array the integrator reads the held
        # inputs from (VehicleSimulator.inputs): a step then copies nothing
        held = getattr(self._sim, "inputs", None)
        if held is not None and held is not self._inputs_now:
            held[:] = self._inputs_now
            self._inputs_now = held
        return True

    def initial_state_parts(self, model) -> Dict[str, Any]:
        """The initial-state parameters by name, as `model.initial_state` takes them. A
        subclass maps FMU conventions here (the AUV: a negative Battery0 = InitialBattery)."""
        return {signal.name + "0": getattr(self, signal.name + "0") for signal in model.STATE}

    def _initial_state(self, model):
        try:
            return model.initial_state(**self.initial_state_parts(model))
        except ValueError as error:
            raise FmuError(str(error)) from None

    def _initial_inputs(self):
        """The inputs for the outputs of the initial state. A non-finite input start value is
        read as zero here: docs/physics/auv.md#fmu-interface refuses a NaN input at the step that would use it, so the
        instance initialises and the host may still correct the input before stepping. What the
        vehicle holds beyond them (the others' wakes over a step) is zero before the first step."""
        initial = np.where(np.isfinite(self._inputs_now), self._inputs_now, 0.0)
        initial[self._given_inputs:] = 0.0
        return initial

    def _refresh_outputs(self, u, t):
        self._write_outputs(self._sim.state, u, t, self._outputs, self._locals)
        self._check_outputs()

    def _check_outputs(self):
        """A model that can tell outputs that cannot stand (`output_problem`: a vehicle off its
        bathymetry grid) fails the call that wrote them, naming why."""
        problem = self._output_problem(self._outputs) if self._output_problem is not None else None
        if problem:
            raise FmuError(problem)

    def _write_by_vectors(self, x, u, t, outputs, local_values):
        """`write_outputs` for a model without one: its output_vector and local_vector."""
        outputs[:] = self._model.output_vector(x, u, t)
        if local_values.size:
            local_values[:] = self._model.local_vector(x, u, t)

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
        self._refresh_outputs(self._initial_inputs(), self._time)

    def fmu_exit_initialization(self):
        self._sim = None   # start from the initial-state parameters as they are now
        self._model = None
        self._build()
        self._inputs_now[self._given_inputs:] = 0.0   # nothing held before the first step
        self._refresh_outputs(self._initial_inputs(), self._time)
        self.parameters_changed = False
        self.log_info(f"{self.instance_name}: {self.library_origin()}")
        for warning in self._model.startup_warnings(self.instance_name):
            self.log_warning(warning)

    def fmu_do_step(self, current_time, step_size):
        if not step_size >= 0.0:
            raise FmuError(f"communication step size {step_size} must not be negative")
        if not self._warned_time and abs(current_time - self._time) > 1e-9 * max(1.0, abs(current_time)):
            self._warned_time = True
            self.log_warning(f"fmi2DoStep at t={current_time} but the vehicle is at t={self._time}; "
                             f"integrating from t={current_time}")
        if self.parameters_changed:
            self._build()  # tunable parameters; the vehicle stays as it was on failure
            self.parameters_changed = False
        # nothing sets an input during the step: the array itself is the step's inputs (the
        # simulator's own, after a rebuild too; VehicleSimulator.advance refuses, and names, a NaN)
        u = self._inputs_now
        # A failed advance raises and leaves the vehicle at the start of the step; the
        # integrator's failure says in words what went wrong (no place in the code to add)
        try:
            x = self._advance(current_time, current_time + step_size, u)
        except self.simulator_class.Failure as error:
            raise FmuError(str(error)) from None
        self._write_outputs(x, u, current_time + step_size, self._outputs, self._locals)
        self._time = current_time + step_size
        self._check_outputs()

    def fmu_get_state(self):
        return {"time": self._time,
                "x": None if self._sim is None else self._sim.state.tolist(),
                "warned_time": self._warned_time,
                # what the vehicle holds beyond its inputs (the wake block's flag and velocity)
                "held": self._inputs_now[self._given_inputs:].tolist()}

    def fmu_set_state(self, internal):
        self._time = float(internal["time"])
        self._warned_time = bool(internal["warned_time"])
        if internal["x"] is None:
            self._sim = None
            self._model = None
            self._built_key = None
            return
        # A state restored into an instance that was never initialised builds from the
        # restored parameters; otherwise this is a no-op unless they differ from the model's.
        self._build()
        self._sim.set_state(np.array(internal["x"], dtype=float))
        self._inputs_now[self._given_inputs:] = internal["held"]
        self.parameters_changed = False

