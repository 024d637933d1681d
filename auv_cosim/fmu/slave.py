"""`FmuSlave`: the base every pythonfmu slave of the project derives from.

It adds to pythonfmu's `Fmi2Slave` what each of our FMUs needs and pythonfmu 0.7.0 lacks:

* registration helpers that take a unit and a description (`add_real`, `add_real_vector`,
  `add_integer`, `add_boolean`, `add_string`), with legal FMI 2.0 defaults for variability
  (pythonfmu leaves it unset, which means "continuous" and is illegal for parameters and for
  Integer / Boolean / String variables). The units and the output dependencies are kept in
  `self.fmu_meta`, which `tools/build_fmus.py` reads to complete `modelDescription.xml`;
* a shield between the host and Python: no exception escapes to pythonfmu's C++ wrapper except
  on purpose (`fail`), see "Status codes" below;
* the FMU-state hooks (`fmi2GetFMUstate` / `fmi2SetFMUstate` / serialisation): every registered
  variable plus whatever the subclass returns from `fmu_get_state`;
* the FMI rules on which variable may be set when (a fixed parameter after initialisation, an
  output at any time: refused with a logged error, the value ignored).

A subclass registers its variables in `__init__` and implements the `fmu_*` hooks
(`fmu_exit_initialization`, `fmu_do_step`, ...); it does not override pythonfmu's
`exit_initialization_mode` / `do_step` / `get_real` ... which this class wraps.

Status codes. Two native wrappers may run a slave, and they differ:

* The project's own (native/python_fmu.c, compiled into every FMU by tools/build_fmus.py when
  a C compiler is found). It constructs the slave with `fmi2_exception_status=True`. Any
  exception is the call's status: `fmi2Error` (or the exception's integer `fmi2_status`), its
  text logged to the host, and the instance stays usable (`fmi2Reset`, `fmi2SetFMUstate`,
  `fmi2FreeInstance`). So here `fail` just raises an `FmuError` (status error), and a failed
  step (a non-finite input, an integrator failure) raises too: `fmi2Error`, the vehicle left
  at the start of the step. A bad parameter fails `fmi2ExitInitializationMode` with
  `fmi2Error`.
* pythonfmu 0.7.0's stock binary (kept when no compiler was found). It maps a `False` from
  `do_step` to `fmi2Discard` and ANY Python exception to `fmi2Fatal`, after which it releases
  its references to the slave class, the instance and the log queue, and releases them again
  when the host frees the instance (use after free). So there a failed step is logged and
  `do_step` returns False (`fmi2Discard`, the instance usable), and `fail` logs the message,
  donates one reference to each of those three objects (making the extra release harmless)
  and raises: `fmi2Fatal`, after the logged message that names the variable (pythonfmu's own
  fatal message only says "unknown error").

Logging. The project's wrapper forwards warnings and errors to the host's logger always, other
messages when logging is on (`loggingOn` of fmi2Instantiate, `fmi2SetDebugLogging`); it escapes
'%' itself. pythonfmu's forwards everything only when logging is on, and passes each message as
a printf format: under it the `log_*` helpers double every '%'.
"""
from __future__ import annotations

import ctypes
import json
import math
import operator
import sys
import traceback
from typing import (Any, Callable, ClassVar, Dict, List, MutableMapping, Optional, Sequence, Tuple,
                    Union)

from pythonfmu import Fmi2Slave
from pythonfmu.enums import Fmi2Causality, Fmi2Initial, Fmi2Status, Fmi2Variability
from pythonfmu.variables import Boolean, Integer, Real, ScalarVariable, String

from ..compiled.numbers import LARGEST, number_problem
from .units import is_known

#: the layout of a serialized FMU state (fmi2SerializeFMUstate). Raised whenever a slave's own
#: ``fmu_get_state`` changes what it holds, so that a state saved by an older build is refused
#: by name instead of failing on a missing key: 2 since the AUV's instruments and control keep
#: their state for the compiled kernels (auv_cosim/stacks/auv/instruments_kernel.py, control_kernel.py)
STATE_FORMAT = 2

_PARAMETER_CAUSALITIES = ("parameter", "calculatedParameter", "structuralParameter")


class FmuError(Exception):
    """A failure whose message is meant for the FMU's user: it names the variable at fault.
    Under the project's native wrapper the call returns `fmi2_status` with this message."""

    fmi2_status = int(Fmi2Status.error)


def _donate_reference(obj: Any) -> None:
    """Add one reference to `obj` that nobody owns (see "Status codes" in the module doc)."""
    try:
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(obj))
    except Exception:  # pragma: no cover - no libpython symbols: nothing better to do
        pass


def _enum(enum_type, value):
    if value is None or isinstance(value, enum_type):
        return value
    return enum_type[value]


class FmuSlave(Fmi2Slave):
    """Base class of the project's slaves; see the module documentation."""

    #: Capability flags written into <CoSimulation> by tools/build_fmus.py, e.g.
    #: {"canGetAndSetFMUstate": True, "canSerializeFMUstate": True}. Declare them only when
    #: `fmu_get_state` / `fmu_set_state` capture everything that determines the future.
    fmu_capabilities: ClassVar[Dict[str, bool]] = {}

    def __init__(self, **kwargs):
        #: True under the project's native wrapper (see "Status codes" in the module doc)
        self.exceptions_are_statuses = bool(kwargs.pop("fmi2_exception_status", False))
        super().__init__(**kwargs)
        #: name -> {"unit": str | None, "depends_on": list[str] | None}, read by the builder.
        self.fmu_meta: Dict[str, Dict[str, Any]] = {}
        #: changes whenever a direct transfer may have stopped being valid (see "Direct transfers")
        self._native_epoch = object()
        self._phase = "instantiated"  # instantiated, initialization, stepping, terminated
        self._failed_initialization = False
        #: set when a parameter (resp. an input or parameter) was set since the flag was cleared.
        self.parameters_changed = True
        self.values_changed = True
        self._in_initial_refresh = False
        self._tables = None  # the getter / setter tables, built on first use (see _access_tables)
        #: value reference -> (attribute, index) of the Reals registered as array elements
        self._elements: Dict[int, Tuple[str, int]] = {}
        #: value reference -> attribute name of the Reals whose value is the plain `self.<attr>`,
        #: and -> (mapping, key) of those registered with `entry=`: see "Prepared transfers"
        self._attributes: Dict[int, str] = {}
        self._entries: Dict[int, Tuple[MutableMapping, Any]] = {}
        #: value reference -> (mapping, key) of every variable registered with `entry=`, of any
        #: type (`_entries` holds the Reals only): for the native wrapper's direct transfers
        self._any_entries: Dict[int, Tuple[MutableMapping, Any]] = {}
        self._readers: Dict[tuple, Optional[Callable[[], list]]] = {}
        self._writers: Dict[tuple, Optional[Callable[[Any], bool]]] = {}

    # ------------------------------------------------------------------ registration helpers
    def add_real(self, name: str, *, causality: str, description: str, unit: Optional[str],
                 variability: Optional[str] = None, initial: Optional[str] = None,
                 attr: Optional[str] = None, getter: Optional[Callable[[], float]] = None,
                 setter: Optional[Callable[[float], None]] = None,
                 depends_on: Optional[Sequence[str]] = None,
                 element: Optional[Tuple[str, int]] = None,
                 entry: Optional[Tuple[MutableMapping, Any]] = None) -> Real:
        """Register a Real. Its value lives in `self.<attr>` (default: the name) unless a getter
        and a setter are given, or `element=(attr, index)`: element `index` of the list or
        numpy array `self.<attr>`, or `entry=(mapping, key)`: `mapping[key]` (see "Prepared
        transfers" before `_reader`: a host reading or setting several values kept in one place
        is served in one operation, not value by value). `unit` must be a name from
        auv_cosim.fmu.units (None: no unit). `depends_on` (outputs only): the inputs the output
        depends on directly; None = all (the conservative FMI default), [] = none."""
        if variability is None:
            variability = "fixed" if causality in _PARAMETER_CAUSALITIES else "continuous"
        if element is not None:
            if getter is not None or setter is not None or attr is not None or entry is not None:
                raise ValueError(f"variable {name}: give element= or attr= / getter= / setter= / "
                                 f"entry=, not both")
            array, index = element
            if not hasattr(self, array):
                raise ValueError(f"variable {name}: attribute self.{array} does not exist")

            def getter():
                return float(getattr(self, array)[index])

            def setter(value):
                getattr(self, array)[index] = float(value)
        plain = element is None and entry is None and getter is None and setter is None
        var = self._add(Real, name, causality, description, unit, variability, initial, attr,
                        getter, setter, depends_on, float, entry)
        if element is not None:
            self._elements[var.value_reference] = (element[0], int(element[1]))
        elif entry is not None:
            self._entries[var.value_reference] = entry
        elif plain:
            self._attributes[var.value_reference] = attr or name
        return var

    def add_real_vector(self, name: str, size: int, *, causality: str,
                        description: Union[str, Sequence[str]],
                        unit: Union[Optional[str], Sequence[Optional[str]]],
                        variability: Optional[str] = None, initial: Optional[str] = None,
                        attr: Optional[str] = None,
                        depends_on: Optional[Sequence[str]] = None) -> List[Real]:
        """Register `name[1]` ... `name[size]` (1-based, FMI structured naming) over the list or
        numpy array `self.<attr>` (default: the name); element i of `unit` / `description` may
        differ (give a sequence), else every element gets the same."""
        attr = attr or name
        units = list(unit) if isinstance(unit, (list, tuple)) else [unit] * size
        descriptions = (list(description) if isinstance(description, (list, tuple))
                        else [f"{description} ({i + 1} of {size})" for i in range(size)])
        if len(units) != size or len(descriptions) != size:
            raise ValueError(f"{name}: {size} elements but {len(units)} units and "
                             f"{len(descriptions)} descriptions")
        return [self.add_real(f"{name}[{i + 1}]", causality=causality, description=descriptions[i],
                              unit=units[i], variability=variability, initial=initial,
                              element=(attr, i), depends_on=depends_on)
                for i in range(size)]

    def add_integer(self, name: str, *, causality: str, description: str,
                    variability: Optional[str] = None, initial: Optional[str] = None,
                    attr: Optional[str] = None, getter=None, setter=None,
                    depends_on: Optional[Sequence[str]] = None,
                    entry: Optional[Tuple[MutableMapping, Any]] = None) -> Integer:
        return self._add(Integer, name, causality, description, None,
                         variability or self._discrete_default(causality), initial, attr,
                         getter, setter, depends_on, int, entry)

    def add_boolean(self, name: str, *, causality: str, description: str,
                    variability: Optional[str] = None, initial: Optional[str] = None,
                    attr: Optional[str] = None, getter=None, setter=None,
                    depends_on: Optional[Sequence[str]] = None,
                    entry: Optional[Tuple[MutableMapping, Any]] = None) -> Boolean:
        return self._add(Boolean, name, causality, description, None,
                         variability or self._discrete_default(causality), initial, attr,
                         getter, setter, depends_on, bool, entry)

    def add_string(self, name: str, *, causality: str, description: str,
                   variability: Optional[str] = None, initial: Optional[str] = None,
                   attr: Optional[str] = None, getter=None, setter=None,
                   depends_on: Optional[Sequence[str]] = None,
                   entry: Optional[Tuple[MutableMapping, Any]] = None) -> String:
        return self._add(String, name, causality, description, None,
                         variability or self._discrete_default(causality), initial, attr,
                         getter, setter, depends_on, str, entry)

    @staticmethod
    def _discrete_default(causality: str) -> str:
        return "fixed" if causality in _PARAMETER_CAUSALITIES else "discrete"

    def _add(self, kind, name, causality, description, unit, variability, initial, attr,
             getter, setter, depends_on, convert, entry=None):
        if not description:
            raise ValueError(f"variable {name}: a description is required")
        if unit is not None and not is_known(unit):
            raise ValueError(f"variable {name}: unknown unit {unit!r} (add it to auv_cosim/fmu/units.py)")
        if name in self.fmu_meta:
            raise ValueError(f"variable {name} registered twice")
        if entry is not None:   # the value is mapping[key]
            if getter is not None or setter is not None or attr is not None:
                raise ValueError(f"variable {name}: give entry= or attr= / getter= / setter=, not both")
            mapping, key = entry
            if key not in mapping:
                raise ValueError(f"variable {name}: the mapping of entry= has no key {key!r}")

            def getter():   # as stored: every reader converts (_get, _get_fmu_state)
                return mapping[key]

            def setter(value):
                mapping[key] = convert(value)
        if getter is None or setter is None:
            attr = attr or name
            if not hasattr(self, attr):
                raise ValueError(f"variable {name}: attribute self.{attr} does not exist")
            if getter is None:
                getter = lambda: convert(getattr(self, attr))  # noqa: E731
            if setter is None:
                setter = lambda value: setattr(self, attr, convert(value))  # noqa: E731
        var = kind(name, causality=_enum(Fmi2Causality, causality), description=description,
                   initial=_enum(Fmi2Initial, initial),
                   variability=_enum(Fmi2Variability, variability), getter=getter, setter=setter)
        self.register_variable(var, nested=False)
        if entry is not None:
            self._any_entries[var.value_reference] = entry
        self.fmu_meta[name] = {"unit": unit, "depends_on": None if depends_on is None
                               else list(depends_on)}
        return var

    @property
    def _phase(self) -> str:
        return self._phase_now

    @_phase.setter
    def _phase(self, phase: str) -> None:
        # What may be set, and whether a read refreshes the outputs first, depend on the phase:
        # a direct transfer made for one phase must not serve another (see "Direct transfers").
        self._phase_now = phase
        self._native_epoch = object()

    # ------------------------------------------------------------------ hooks for subclasses
    def fmu_enter_initialization(self, start_time: float) -> None:
        """Called on fmi2EnterInitializationMode."""

    def fmu_initial_outputs(self) -> None:
        """Recompute the outputs during Initialization Mode (when the host reads one after
        setting a parameter or an input). Errors are ignored here: they are reported by
        `fmu_exit_initialization`."""

    def fmu_exit_initialization(self) -> None:
        """Build the model from the parameters; raise FmuError naming the variable at fault."""

    def fmu_do_step(self, current_time: float, step_size: float) -> None:
        """Advance by one communication step; raise FmuError (or anything) to fail the step,
        leaving the state as it was at `current_time`."""
        raise NotImplementedError

    def fmu_terminate(self) -> None:
        """Called on fmi2Terminate."""

    def fmu_get_state(self) -> Dict[str, Any]:
        """What, besides the registered variables, determines the future (JSON-serialisable,
        a fresh copy)."""
        return {}

    def fmu_set_state(self, internal: Dict[str, Any]) -> None:
        """Restore what `fmu_get_state` returned (do not keep references into it)."""

    # ------------------------------------------------------------------ logging and failures
    # pythonfmu's stock binary passes the message to the host's logger as its printf format
    # string, and fmpy's logger proxy (like many C hosts) formats it: a bare '%' would read
    # garbage. The project's wrapper escapes it itself.
    def _text(self, message) -> str:
        return str(message) if self.exceptions_are_statuses else str(message).replace("%", "%%")

    def log_info(self, message: str) -> None:
        self.log(self._text(message), Fmi2Status.ok, category="logAll")

    def log_warning(self, message: str) -> None:
        self.log(self._text(message), Fmi2Status.warning)

    def log_error(self, message: str) -> None:
        self.log(self._text(message), Fmi2Status.error)

    def fail(self, message: str):
        """Make the current FMI call fail with `message`: fmi2Error under the project's
        wrapper, fmi2Fatal (after logging it) under pythonfmu's; see "Status codes"."""
        if not self.exceptions_are_statuses:
            self.log_error(message)
            for obj in (self, self.log_queue, type(self)):
                _donate_reference(obj)
        raise FmuError(message)

    def _step_failed(self, message: str) -> bool:
        """A failed step: fmi2Error under the project's wrapper (raises), fmi2Discard under
        pythonfmu's (logs, returns False)."""
        if self.exceptions_are_statuses:
            raise FmuError(message)
        self.log_error(message)
        return False

    def _describe(self, error: BaseException) -> str:
        if isinstance(error, (FmuError, ValueError)):
            return str(error)
        frames = traceback.extract_tb(error.__traceback__)
        where = f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""
        return f"{type(error).__name__}: {error}{where}"

    # ------------------------------------------------------------------ FMI entry points
    def setup_experiment(self, start_time=0.0, stop_time=None, tolerance=None):
        self._start_time = float(start_time)

    def enter_initialization_mode(self, *args):
        try:
            self._phase = "initialization"
            self.fmu_enter_initialization(getattr(self, "_start_time", 0.0))
        except Exception as error:
            self.fail(f"fmi2EnterInitializationMode: {self._describe(error)}")

    def exit_initialization_mode(self):
        try:
            self._check_parameter_range()
            self.fmu_exit_initialization()
        except Exception as error:
            self._failed_initialization = True
            self.fail(f"initialisation of {self.instance_name} failed: {self._describe(error)}")
        self._phase = "stepping"
        self.values_changed = False

    def _check_parameter_range(self) -> None:
        """Every Real parameter of the FMU (a vehicle's, a gain of its control, a noise of its
        instruments) within the one number rule's range (compiled.numbers): a finite value
        beyond it is refused by name here, before the slave builds anything of it. A value
        that is not finite is the slave's to judge (NaN means "the initial position" to some)."""
        for var in self.vars.values():
            if isinstance(var, Real) and var.causality is not None \
                    and var.causality.name in _PARAMETER_CAUSALITIES and var.getter is not None:
                value = var.getter()
                if math.isfinite(value) and abs(value) > LARGEST:
                    raise FmuError(f"parameter {var.name} = {value!r} {number_problem(value)}")

    def do_step(self, current_time: float, step_size: float) -> bool:
        if self._phase != "stepping":
            return self._step_failed(f"fmi2DoStep at t={current_time} refused: the instance is "
                                     f"not initialised (state: {self._phase})")
        try:
            self.fmu_do_step(float(current_time), float(step_size))
        except Exception as error:
            return self._step_failed(f"fmi2DoStep from t={current_time} by {step_size} s failed: "
                                     f"{self._describe(error)}")
        return True

    def terminate(self):
        self._phase = "terminated"
        try:
            self.fmu_terminate()
        except Exception as error:
            self.log_error(f"fmi2Terminate: {self._describe(error)}")

    # ---- getters and setters: pythonfmu's, guarded
    #
    # The master calls these several times per communication step (set the inputs, step, read
    # the outputs, for every instance), so the FMI rules of `_settable` are not re-derived
    # value by value. `_access_tables` applies them once to every variable, for the two
    # phases that differ (before the end of initialisation, and after it), and keeps the
    # outcome as dicts keyed by value reference:
    #
    #   _getters[kind]            vr -> getter, for every variable of that type;
    #   _setters[kind][setup]     vr -> (setter, is_parameter), only the variables that may be
    #                             set now; `setup` is True while instantiated or initialising.
    #
    # A value reference missing from a dict is the rare case (a wrong type, an unknown
    # reference, a refused set): it goes the slow way (`_set_one_slowly`, `_get_error`), which
    # is the rule-by-rule code with its messages. Registering a variable drops the tables.
    _SETUP_PHASES = ("instantiated", "initialization")

    def register_variable(self, var: ScalarVariable, nested: bool = True):
        super().register_variable(var, nested)
        self._tables = None
        self._readers = {}
        self._writers = {}
        self._native_epoch = object()

    def _settable(self, var: ScalarVariable, phase: Optional[str] = None) -> Optional[str]:
        """None if `var` may be set in `phase` (default: now), else why not."""
        phase = self._phase if phase is None else phase
        causality = var.causality.name if var.causality is not None else "local"
        variability = var.variability.name if var.variability is not None else "continuous"
        if variability == "constant":
            return "it is a constant"
        if causality == "input":
            return None
        if causality == "parameter":
            if phase in self._SETUP_PHASES or variability == "tunable":
                return None
            return "it is a fixed parameter and cannot change after initialisation"
        initial = var.initial.name if var.initial is not None else None
        if initial in ("exact", "approx") and phase in self._SETUP_PHASES:
            return None
        return f"its causality is {causality}"

    def _access_tables(self):
        """Build the getter and setter tables (see above) from the registered variables."""
        kinds = (Real, Integer, Boolean, String)
        getters = {kind: {} for kind in kinds}
        setters = {kind: ({}, {}) for kind in kinds}   # [False]: after initialisation, [True]: before
        for vr, var in self.vars.items():
            for kind in kinds:
                if not isinstance(var, kind):
                    continue
                getters[kind][vr] = var.getter
                is_parameter = var.causality is not None and var.causality.name in _PARAMETER_CAUSALITIES
                for setup, phase in ((False, "stepping"), (True, "instantiated")):
                    if var.setter is not None and self._settable(var, phase) is None:
                        setters[kind][setup][vr] = (var.setter, is_parameter)
        self._getters, self._setters = getters, setters
        self._tables = True

    def _set(self, kind, vrs, values):
        if not self._tables:
            self._access_tables()
        setup = self._phase in self._SETUP_PHASES
        if kind is Real:
            write = self._writer(vrs, setup)
            if write is not None and write(values):
                return
        table = self._setters[kind][setup]
        changed = parameter = False
        try:
            for vr, value in zip(vrs, values):
                entry = table.get(vr)
                if entry is None:
                    done, is_parameter = self._set_one_slowly(kind, vr, value)
                else:
                    (setter, is_parameter), done = entry, True
                    setter(value)
                changed = changed or done
                parameter = parameter or is_parameter
        finally:  # the flags tell what was set, also when a later value fails
            if changed:
                self.values_changed = True
            if parameter:
                self.parameters_changed = True

    def _set_one_slowly(self, kind, vr, value):
        """One value that is not in the setter table, rule by rule: raise for a wrong type or
        an unknown reference, log why a set is refused. Returns (set, is_parameter)."""
        var = self.vars[vr]
        if not isinstance(var, kind):
            raise FmuError(f"value reference {vr} ({var.name}) is not a {kind.__name__}")
        reason = self._settable(var)
        if reason is not None:
            self.log_error(f"cannot set {var.name} now: {reason}; the value {value!r} is ignored")
            return False, False
        var.setter(value)
        return True, var.causality is not None and var.causality.name in _PARAMETER_CAUSALITIES

    def _get(self, kind, vrs, convert):
        if (self._phase == "initialization" and self.values_changed
                and not self._in_initial_refresh):
            self._in_initial_refresh = True
            try:
                self.fmu_initial_outputs()
            except Exception:
                pass  # reported by exit_initialization_mode
            finally:
                self._in_initial_refresh = False
            self.values_changed = False
        if kind is Real:
            read = self._reader(vrs)
            if read is not None:
                try:
                    return read()
                except Exception:
                    pass  # the getters below meet the same fault and raise it as they always did
        if not self._tables:
            self._access_tables()
        table = self._getters[kind]
        try:
            return [convert(table[vr]()) for vr in vrs]
        except KeyError:
            error = self._get_error(kind, vrs)
            if error is None:  # every reference is fine: the KeyError came from a getter
                raise
            raise error from None

    # Prepared transfers. A host sets an instance's inputs in one fmi2SetReal call per step and
    # reads its outputs in one fmi2GetReal call, with the same references every time. When the
    # Reals of such a call all live in one place that this class made the getters and setters
    # for, the call is served in one operation instead of one getter or setter call per value:
    #
    #   elements of one array (`element=`)     read: `array[a:b].tolist()` when they are
    #                                          consecutive and in order; set: one slice
    #                                          assignment when they fill a range (any order);
    #   entries of one dict (`entry=`)         read: `operator.itemgetter`; set: `dict.update`;
    #   plain attributes (`attr=` or the name) read: `operator.attrgetter` (getattr, so a
    #                                          property is read as before); set: one update of
    #                                          `self.__dict__`, only when no class in the MRO
    #                                          makes the name a data descriptor (a property) and
    #                                          `__setattr__` is object's: then setattr would
    #                                          write that dict too.
    #
    # Each value goes through float() exactly as the getter or setter would (so the results
    # are the same doubles). The reader or writer is remembered per tuple of references (and,
    # for a writer, per phase group: what may be set differs before and after initialisation),
    # for a bounded number of tuples; registering a variable forgets them all. Anything else
    # takes the per-value path with its rules and messages: a reference that is unknown, of
    # another type, refused now, repeated, or kept elsewhere (a custom getter or setter), and
    # any failure. A writer converts every value before it stores any, and stores them in one
    # step that cannot fail half-way, so on a failure it has changed nothing and the per-value
    # path then sets the values before the faulty one, raises, and sets the flags, as always.
    _MAX_PREPARED = 64

    def _reader(self, vrs) -> Optional[Callable[[], list]]:
        """The prepared reader of the Reals `vrs` (see "Prepared transfers"), or None."""
        try:
            key = tuple(vrs)
            return self._readers[key]
        except KeyError:
            pass
        except TypeError:   # an unhashable reference: the getters say what is wrong
            return None
        read = self._make_reader(key) if len(key) > 1 else None
        if len(self._readers) < self._MAX_PREPARED:
            self._readers[key] = read
        return read

    def _make_reader(self, vrs: tuple) -> Optional[Callable[[], list]]:
        elements = [self._elements.get(vr) for vr in vrs]
        if None not in elements:
            array, start = elements[0]
            if elements == [(array, start + i) for i in range(len(vrs))]:
                return self._make_slice_reader(array, slice(start, start + len(vrs)))
            return None
        names = [self._attributes.get(vr) for vr in vrs]
        if None not in names and not any("." in name for name in names):  # a dot: a path to attrgetter
            values_of = operator.attrgetter(*names)

            def read_attributes():
                return list(map(float, values_of(self)))
            return read_attributes
        entries = [self._entries.get(vr) for vr in vrs]
        if None not in entries:
            mapping = entries[0][0]
            if any(entry[0] is not mapping for entry in entries):
                return None
            values_in = operator.itemgetter(*(key for _, key in entries))

            def read_entries():
                return list(map(float, values_in(mapping)))
            return read_entries
        return None

    def _make_slice_reader(self, array: str, part: slice) -> Callable[[], list]:
        size = part.stop - part.start

        def read():
            values = getattr(self, array)[part]
            if len(values) != size:  # too short: the getters raise the IndexError
                raise IndexError(f"self.{array} has no element {part.start + len(values)}")
            if getattr(values, "dtype", None) == "float64":
                return values.tolist()   # exactly the float(array[i]) of the getters
            return list(map(float, values))
        return read

    def _writer(self, vrs, setup: bool) -> Optional[Callable[[Any], bool]]:
        """The prepared writer of the Reals `vrs` in the phase group `setup` (see "Prepared
        transfers"), or None. It returns False, having changed nothing, when the per-value path
        must do the set."""
        try:
            key = (tuple(vrs), setup)
            return self._writers[key]
        except KeyError:
            pass
        except TypeError:   # an unhashable reference: the per-value path says what is wrong
            return None
        if not self._tables:
            self._access_tables()
        write = self._make_writer(key[0], self._setters[Real][setup])
        if len(self._writers) < self._MAX_PREPARED:
            self._writers[key] = write
        return write

    def _make_writer(self, vrs: tuple, settable: dict) -> Optional[Callable[[Any], bool]]:
        n = len(vrs)
        if n == 0 or len(set(vrs)) != n or any(vr not in settable for vr in vrs):
            return None
        store = None
        if all(vr in self._elements for vr in vrs):
            store = self._element_store([self._elements[vr] for vr in vrs])
        elif all(vr in self._attributes for vr in vrs):
            names = [self._attributes[vr] for vr in vrs]
            if all(self._plain_attribute(name) for name in names):
                def store(converted):
                    self.__dict__.update(zip(names, converted))
                    return True
        else:
            entries = [self._entries.get(vr) for vr in vrs]
            if None not in entries and type(entries[0][0]) is dict and all(
                    entry[0] is entries[0][0] for entry in entries):
                mapping, keys = entries[0][0], [key for _, key in entries]

                def store(converted):
                    mapping.update(zip(keys, converted))
                    return True
        if store is None:
            return None
        any_parameter = any(settable[vr][1] for vr in vrs)

        def write(values) -> bool:
            if (type(values) is not list and type(values) is not tuple) or len(values) != n:
                return False
            try:
                converted = list(map(float, values))
                if not store(converted):
                    return False
            except Exception:   # a value float() refuses, a read-only array: nothing was stored
                return False
            self.values_changed = True
            if any_parameter:
                self.parameters_changed = True
            return True
        return write

    def _element_store(self, places) -> Optional[Callable[[list], bool]]:
        """Store values into elements of one array: one slice assignment when the indices fill
        a range (reordered to it), else element by element; False (nothing stored) when the
        array is not a list or a one-dimensional numpy array long enough."""
        arrays = {array for array, _ in places}
        indices = [index for _, index in places]
        if len(arrays) != 1 or min(indices) < 0:
            return None
        array, start, stop = arrays.pop(), min(indices), max(indices) + 1

        def usable(target) -> bool:
            if type(target) is list:
                return len(target) >= stop
            numpy = sys.modules.get("numpy")
            return (numpy is not None and type(target) is numpy.ndarray and target.ndim == 1
                    and len(target) >= stop)

        if stop - start == len(indices):
            order = sorted(range(len(indices)), key=indices.__getitem__)
            in_order = order == list(range(len(indices)))
            part = slice(start, stop)

            def store(converted):
                target = getattr(self, array, None)
                if not usable(target):
                    return False
                target[part] = converted if in_order else [converted[j] for j in order]
                return True
        else:
            def store(converted):
                target = getattr(self, array, None)
                if not usable(target):
                    return False
                for index, value in zip(indices, converted):
                    target[index] = value
                return True
        return store

    def _plain_attribute(self, name: str) -> bool:
        """Whether setattr(self, name, v) only writes self.__dict__[name] (see "Prepared
        transfers")."""
        cls = type(self)
        if cls.__setattr__ is not object.__setattr__ or not hasattr(self, "__dict__"):
            return False
        for klass in cls.__mro__:
            if name in vars(klass):
                found = type(vars(klass)[name])
                return not (hasattr(found, "__set__") or hasattr(found, "__delete__"))
        return True

    # Direct transfers. The project's native wrapper (native/python_fmu.c) can serve a host's
    # fmi2Get*/fmi2Set* without running any Python code: it asks `_native_plan` where each
    # value lives and then reads or writes it there itself, at every call with those references,
    # until `_native_epoch` changes (a new phase, a registration). A plan describes exactly what
    # this class's own getters and setters do in the stepping phase, for the values kept in a
    # place the wrapper can reach:
    #
    #   ("a", name), index    element `index` of `self.<name>` (`element=`), looked up again at
    #                         every call: a one-dimensional float64 buffer (a numpy array) or a
    #                         list;
    #   ("m", mapping), key   `mapping[key]` of a dict (`entry=`).
    #
    # The wrapper checks at every call what it relies on (the buffer's type, size and format,
    # a list's length, a value that is a float, an int or a bool, or numpy's float64, integer or
    # bool_ scalar, a plain dict) and, when anything differs, makes the call the usual way, through the methods
    # below: the values and the errors are those of the Python path. No plan is offered outside the stepping phase (a
    # read may refresh the outputs during initialisation, what may be set differs), for a
    # parameter (a set also raises `parameters_changed`), for values kept elsewhere (a getter,
    # a plain attribute), or when a subclass overrides the methods the plan stands for.
    _DIRECT_KINDS = {"Real": Real, "Integer": Integer, "Boolean": Boolean}

    def _native_plan(self, type_name: str, vrs: tuple, setting: bool) -> Optional[tuple]:
        """Where the values of `vrs` live, for the native wrapper: (sources, slots), a source
        per place (see "Direct transfers") and per value (source number, index or key); or
        None: the wrapper calls the methods (`set_real`, `get_real`, ...) as usual."""
        kind = self._DIRECT_KINDS.get(type_name)
        if kind is None or self._phase != "stepping" or not vrs or self._overrides(type_name, setting):
            return None
        if not self._tables:
            self._access_tables()
        if setting:
            settable = self._setters[kind][False]
            if len(set(vrs)) != len(vrs) or any(vr not in settable or settable[vr][1] for vr in vrs):
                return None
        elif any(vr not in self._getters[kind] for vr in vrs):
            return None
        sources: list = []
        numbers: dict = {}   # (kind, attribute name or id of the dict) -> source number
        slots = []
        for vr in vrs:
            if kind is Real and vr in self._elements:
                name, index = self._elements[vr]
                source, place = ("a", name), index
            elif vr in self._any_entries and type(self._any_entries[vr][0]) is dict:
                mapping, place = self._any_entries[vr]
                source = ("m", mapping)
            else:
                return None
            identity = (source[0], source[1] if source[0] == "a" else id(source[1]))
            if identity not in numbers:
                numbers[identity] = len(sources)
                sources.append(source)
            slots.append((numbers[identity], place))
        return tuple(sources), tuple(slots)

    def _overrides(self, type_name: str, setting: bool) -> bool:
        """Whether a subclass changed a method a direct transfer of this type stands for."""
        names = (f"{'set' if setting else 'get'}_{type_name.lower()}", "_set" if setting else "_get")
        return any(getattr(type(self), name) is not getattr(FmuSlave, name) for name in names)

    def _get_error(self, kind, vrs) -> Optional[Exception]:
        """Why `vrs` cannot be read as `kind` (the first unknown or wrongly typed reference),
        or None when they all can."""
        for vr in vrs:
            var = self.vars.get(vr)
            if var is None:
                return KeyError(vr)
            if not isinstance(var, kind):
                return FmuError(f"value reference {vr} ({var.name}) is not a {kind.__name__}")
        return None

    def set_real(self, vrs, values):
        try:
            self._set(Real, vrs, values)
        except Exception as error:
            self.fail(f"fmi2SetReal: {self._describe(error)}")

    def set_integer(self, vrs, values):
        try:
            self._set(Integer, vrs, values)
        except Exception as error:
            self.fail(f"fmi2SetInteger: {self._describe(error)}")

    def set_boolean(self, vrs, values):
        try:
            self._set(Boolean, vrs, values)
        except Exception as error:
            self.fail(f"fmi2SetBoolean: {self._describe(error)}")

    def set_string(self, vrs, values):
        try:
            self._set(String, vrs, values)
        except Exception as error:
            self.fail(f"fmi2SetString: {self._describe(error)}")

    def get_real(self, vrs):
        try:
            return self._get(Real, vrs, float)
        except Exception as error:
            self.fail(f"fmi2GetReal: {self._describe(error)}")

    def get_integer(self, vrs):
        try:
            return self._get(Integer, vrs, int)
        except Exception as error:
            self.fail(f"fmi2GetInteger: {self._describe(error)}")

    def get_boolean(self, vrs):
        try:
            return self._get(Boolean, vrs, bool)
        except Exception as error:
            self.fail(f"fmi2GetBoolean: {self._describe(error)}")

    def get_string(self, vrs):
        try:
            return self._get(String, vrs, str)
        except Exception as error:
            self.fail(f"fmi2GetString: {self._describe(error)}")

    # ---- FMU state
    _CONVERTERS = {Real: float, Integer: int, Boolean: bool, String: str}

    def _get_fmu_state(self) -> Dict[str, Any]:
        try:
            values = [self._CONVERTERS[type(var)](var.getter()) for var in self.vars.values()]
            return {
                "format": STATE_FORMAT,
                "model": type(self).__name__,
                "phase": self._phase,
                "failed_initialization": self._failed_initialization,
                "variables": values,
                "internal": self.fmu_get_state(),
            }
        except Exception as error:
            self.fail(f"fmi2GetFMUstate: {self._describe(error)}")

    def _set_fmu_state(self, state: Dict[str, Any]):
        try:
            if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
                if isinstance(state, dict) and isinstance(state.get("format"), int):
                    raise FmuError(f"a state saved by another build of this FMU (state format "
                                   f"{state['format']}; this build reads format {STATE_FORMAT})")
                raise FmuError(f"not an FMU state of this FMU: {state.get('error', 'unknown format')}"
                               if isinstance(state, dict) else "not an FMU state of this FMU")
            if state.get("model") != type(self).__name__ or len(state["variables"]) != len(self.vars):
                raise FmuError(f"the state belongs to {state.get('model')} with "
                               f"{len(state['variables'])} variables, not to "
                               f"{type(self).__name__} with {len(self.vars)}")
            for var, value in zip(self.vars.values(), state["variables"]):
                if var.setter is not None:
                    var.setter(value)
            self._phase = state["phase"]
            self._failed_initialization = state["failed_initialization"]
            self.parameters_changed = True
            self.values_changed = True
            self.fmu_set_state(state["internal"])
        except Exception as error:
            self.fail(f"fmi2SetFMUstate: {self._describe(error)}")

    @staticmethod
    def _fmu_state_to_bytes(state: Dict[str, Any]) -> bytes:
        # json writes floats with repr(), which round-trips every double exactly (NaN and inf
        # as the non-standard NaN / Infinity tokens that json.loads reads back).
        return json.dumps(state, separators=(",", ":")).encode("utf-8")

    @staticmethod
    def _fmu_state_from_bytes(state: bytes) -> Dict[str, Any]:
        try:
            return json.loads(bytes(state).decode("utf-8"))
        except Exception as error:  # reported by _set_fmu_state, which has an instance to log to
            return {"format": None, "error": f"cannot decode the serialized state: {error}"}


def first_non_finite(names_values) -> Optional[str]:
    """The `name = value` text of the first non-finite value of (name, value) pairs, or None."""
    for name, value in names_values:
        if not math.isfinite(value):
            return f"{name} = {float(value)!r}"
    return None
