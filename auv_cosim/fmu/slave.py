"""`FmuSlave`: the base every pythonfmu slave of the project derives from.

It adds to pythonfmu's `Fmi2Slave` what each of our FMUs needs and pythonfmu 0.7.0 lacks:

* registration helpers that take a unit, a description and a range (auv_cosim.fmu.registration);
* the getters and setters with the FMI rules on which variable may be set when (a fixed
  parameter after initialisation, an output at any time: fmi2Error naming the variable), the
  declared ranges (fmi2Warning) and the fast paths of a stepping host (auv_cosim.fmu.transfers);
* the FMU-state hooks (`fmi2GetFMUstate` / `fmi2SetFMUstate` / serialisation: every registered
  variable plus whatever the subclass returns from `fmu_get_state`; auv_cosim.fmu.fmu_state);
* FMI 2.0's state machine (auv_cosim.fmu.states): every call in a state where the standard does
  not allow it is refused with fmi2Error naming the call and the state, and every fmi2Error
  leaves the instance in the state Error;
* a shield between the host and Python: no exception escapes to pythonfmu's C++ wrapper except
  on purpose (`fail`), see "Status codes" below; an error names the FMU, the call and the
  variable or value reference at fault, never a Python file (that goes to the log category
  logAll, seen with logging on).

A subclass registers its variables in `__init__` and implements the `fmu_*` hooks
(`fmu_exit_initialization`, `fmu_do_step`, ...); it does not override pythonfmu's
`exit_initialization_mode` / `do_step` / `get_real` ... which this class wraps.

Status codes. Two native wrappers may run a slave, and they differ:

* The project's own (auv_cosim/build/native/python_fmu.c, compiled into every FMU by tools/build_fmus.py when
  a C compiler is found). It constructs the slave with `fmi2_exception_status=True`. Any
  exception is the call's status: `fmi2Error` (or the exception's integer `fmi2_status`), its
  text logged to the host; the instance is then in Error and keeps every reference: `fmi2Reset`,
  `fmi2SetFMUstate` and `fmi2FreeInstance` work. So here `fail` just raises an `FmuError` (status error), and a failed
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
import math
import traceback
from typing import Any, Callable, ClassVar, Dict, MutableMapping, Optional, Tuple

from pythonfmu import Fmi2Slave
from pythonfmu.enums import Fmi2Status
from pythonfmu.variables import Real

from ..compiled.numbers import LARGEST, number_problem
from .errors import FmuError
from .fmu_state import STATE_FORMAT, FmuStateStore
from .registration import PARAMETER_CAUSALITIES, Registration
from .states import refusal
from .transfers import Transfers

__all__ = ["FmuError", "FmuSlave", "STATE_FORMAT", "first_non_finite"]


def _donate_reference(obj: Any) -> None:
    """Add one reference to `obj` that nobody owns (see "Status codes" in the module doc)."""
    try:
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(obj))
    except Exception:  # pragma: no cover - no libpython symbols: nothing better to do
        pass


class FmuSlave(Registration, Transfers, FmuStateStore, Fmi2Slave):
    """Base class of the project's slaves; see the module documentation."""

    #: Capability flags written into <CoSimulation> by tools/build_fmus.py, e.g.
    #: {"canGetAndSetFMUstate": True, "canSerializeFMUstate": True}. Declare them only when
    #: `fmu_get_state` / `fmu_set_state` capture everything that determines the future.
    fmu_capabilities: ClassVar[Dict[str, bool]] = {}
    #: The row exchanges the FMU takes part in (`auv_cosim.fmu.exchanges.Exchange`), written into
    #: modelDescription.xml by tools/build_fmus.py as a vendor annotation.
    fmu_exchanges: Tuple = ()

    def __init__(self, **kwargs):
        #: True under the project's native wrapper (see "Status codes" in the module doc)
        self.exceptions_are_statuses = bool(kwargs.pop("fmi2_exception_status", False))
        super().__init__(**kwargs)
        #: name -> {"unit": str | None, "depends_on": list[str] | None, and "min" / "max" when
        #: declared}, read by the builder.
        self.fmu_meta: Dict[str, Dict[str, Any]] = {}
        #: changes whenever a direct transfer may have stopped being valid (see "Direct transfers")
        self._native_epoch = object()
        self._phase = "instantiated"  # instantiated, initialization, stepping, terminated, error
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
        #: value reference -> (min, max, name) of the Reals with a declared range, and those
        #: already warned about (see "Ranges" in auv_cosim.fmu.registration)
        self._ranges: Dict[int, Tuple[float, float, str]] = {}
        self._range_warned: set = set()
        self._describing = False   # pythonfmu's builder reads the start values (to_xml)

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
        wrapper, fmi2Fatal (after logging it) under pythonfmu's; see "Status codes". Either way
        the instance is then in the state Error (auv_cosim.fmu.states)."""
        self._phase = "error"
        if not self.exceptions_are_statuses:
            self.log_error(message)
            for obj in (self, self.log_queue, type(self)):
                _donate_reference(obj)
        raise FmuError(message)

    def _step_failed(self, message: str) -> bool:
        """A failed step: fmi2Error under the project's wrapper (raises, the instance in Error),
        fmi2Discard under pythonfmu's (logs, returns False)."""
        if self.exceptions_are_statuses:
            self._phase = "error"
            raise FmuError(message)
        self.log_error(message)
        return False

    def _describe(self, error: BaseException) -> str:
        """The text of an error for the host: its message, and for an exception that is no
        FmuError or ValueError its type too. Where in the code it came from is logged apart
        (category logAll: seen with logging on), never in the error itself."""
        if isinstance(error, (FmuError, ValueError)):
            return str(error)
        frames = traceback.extract_tb(error.__traceback__)
        if frames:
            self.log_info(f"{type(error).__name__} raised at {frames[-1].filename}:{frames[-1].lineno}")
        return f"{type(error).__name__}: {error}"

    def refuse_now(self, function: str) -> None:
        """Raise FmuError when FMI 2.0's state table does not allow `function` now."""
        reason = refusal(function, self._phase)
        if reason is not None and not self._describing:
            raise FmuError(reason)

    def to_xml(self, *args, **kwargs):
        """pythonfmu's modelDescription of the slave: it reads the start values through the
        getters, which a host may not call before initialisation (the builder is no host)."""
        self._describing = True
        try:
            return super().to_xml(*args, **kwargs)
        finally:
            self._describing = False

    # ------------------------------------------------------------------ FMI entry points
    def setup_experiment(self, start_time=0.0, stop_time=None, tolerance=None):
        try:
            self.refuse_now("fmi2SetupExperiment")
            self._start_time = float(start_time)
        except Exception as error:
            self.fail(f"fmi2SetupExperiment: {self._describe(error)}")

    def enter_initialization_mode(self, *args):
        try:
            self.refuse_now("fmi2EnterInitializationMode")
            self._phase = "initialization"
            self.fmu_enter_initialization(getattr(self, "_start_time", 0.0))
        except Exception as error:
            self.fail(f"fmi2EnterInitializationMode: {self._describe(error)}")

    def exit_initialization_mode(self):
        try:
            self.refuse_now("fmi2ExitInitializationMode")
        except Exception as error:
            self.fail(f"fmi2ExitInitializationMode: {self._describe(error)}")
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
                    and var.causality.name in PARAMETER_CAUSALITIES and var.getter is not None:
                value = var.getter()
                if math.isfinite(value) and abs(value) > LARGEST:
                    raise FmuError(f"parameter {var.name} = {value!r} {number_problem(value)}")

    def do_step(self, current_time: float, step_size: float) -> bool:
        reason = refusal("fmi2DoStep", self._phase)
        if reason is not None:
            return self._step_failed(f"fmi2DoStep at t={current_time}: {reason}")
        try:
            self.fmu_do_step(float(current_time), float(step_size))
        except Exception as error:
            return self._step_failed(f"fmi2DoStep from t={current_time} by {step_size} s failed: "
                                     f"{self._describe(error)}")
        return True

    def terminate(self):
        try:
            self.refuse_now("fmi2Terminate")
        except Exception as error:
            self.fail(f"fmi2Terminate: {self._describe(error)}")
        self._phase = "terminated"
        try:
            self.fmu_terminate()
        except Exception as error:
            self.log_error(f"fmi2Terminate: {self._describe(error)}")

    def status_query(self) -> None:
        """fmi2GetStatus and its typed variants (the native wrapper answers them, fmi2Discard:
        every step is synchronous): refused with fmi2Error where the state table says so."""
        try:
            self.refuse_now("fmi2GetStatus")
        except Exception as error:
            self.fail(f"fmi2GetStatus: {self._describe(error)}")


def first_non_finite(names_values) -> Optional[str]:
    """The `name = value` text of the first non-finite value of (name, value) pairs, or None."""
    for name, value in names_values:
        if not math.isfinite(value):
            return f"{name} = {float(value)!r}"
    return None
