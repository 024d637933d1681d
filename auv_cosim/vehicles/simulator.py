"""Time integration of any vehicle (`auv_cosim.vehicles.protocol.Vehicle`) between two instants with
the inputs held, with SciPy's Dormand-Prince."""
from __future__ import annotations

import math
from typing import Optional, Tuple

import numpy as np

from ..compiled.scipy_internals import Restarts, import_alone
from ..compiled.jit import compiled_entry
from .packed import pack_arguments

#: SciPy's `ode` from its own module: `from scipy.integrate import ode` would import the whole of
#: scipy.integrate (see auv_cosim/compiled/scipy_internals.py); the class is the same.
ode = import_alone("scipy.integrate._ode").ode


def _all_finite(values) -> bool:
    """True when every value is finite. A finite sum settles it (the usual case; summed as
    Python floats, which for a few values costs a third of NumPy's sum); only an infinite or
    NaN sum, which an overflow can also give, needs the element-wise test."""
    return math.isfinite(sum(values.tolist())) or bool(np.isfinite(values).all())


def _right_hand_side(derivative_into, size):
    """The function SciPy calls, f(t, x, u, c) -> x', from a vehicle's `derivative_into`: it
    writes x' into one buffer and returns the buffer. DOPRI5 and DOP853 copy x' into their
    stages before they call again, so the buffer may be reused (the results are the same bit
    for bit).
    A compiled function that returns a new array spends about twice as long handing it to
    Python as the AUV's derivative takes to compute it; this Python frame costs less."""
    buffer = np.empty(size)

    def right_hand_side(t, x, u, c):
        derivative_into(t, x, u, c, buffer)
        return buffer
    return right_hand_side


def _packed_right_hand_side(derivative_packed, work, derivative):
    """The function SciPy calls, f(t, y) -> y', from a vehicle's `derivative_packed(t, y,
    work)` (auv_cosim.vehicles.packed: the held values, the constants and the derivative in one
    array `work`, `derivative` the view of its last part), called through its compiled entry
    (`_jit.compiled_entry`: SciPy hands y as a new float64 array, work is float64). The fewest
    arguments and the least dispatch per call: SciPy calls it 7 to 11 times a step."""
    def right_hand_side(t, y):
        derivative_packed(t, y, work)
        return derivative
    return right_hand_side


def held_inputs(vehicle, x, u) -> np.ndarray:
    """What `vehicle` holds over a step that starts at the state x with the inputs u (the table's,
    or with its extra inputs): the array `VehicleSimulator` integrates with, its end filled by
    the vehicle's `hold_inputs` as at a step's start (the others' wakes: auv_cosim.vehicles.wake).
    A refused value raises ValueError in the vehicle's words."""
    u = np.asarray(u, dtype=float).reshape(-1)
    held = np.zeros(getattr(vehicle, "INPUT_ARRAY_SIZE", u.size))
    held[:u.size] = u
    hold = getattr(vehicle, "hold_inputs", None)
    problem = 0 if hold is None else hold(np.asarray(x, dtype=float), held, vehicle.constants)
    if problem:
        raise ValueError(vehicle.input_problem(problem, held))
    return held


class IntegrationError(RuntimeError):
    """The integrator could not reach the requested time."""


def runaway(table, x0, x) -> str:
    """In words, what the state did over a step that failed from `x0` to `x` (the first states
    of the SignalTable `table`): the elements that are no longer finite; else the one that
    changed the most for its size (|x - x0| / max(1, |x0|)), with its values and unit, said to
    have run away when it grew a thousandfold. Empty when the vectors do not fit the table."""
    names, units = [], []
    for signal in table:
        names += signal.element_names()
        units += signal.element_units()
    x0, x = np.asarray(x0, dtype=float).reshape(-1), np.asarray(x, dtype=float).reshape(-1)
    if not (x.size == x0.size <= len(names)):
        return ""
    bad = [i for i in range(x.size) if not math.isfinite(x[i])]
    if bad:
        more = f" and {len(bad) - 3} more" if len(bad) > 3 else ""
        return ("the state ran away: " + ", ".join(f"{names[i]} (from {x0[i]:.4g})" for i in bad[:3]) + more
                + " no longer finite")
    with np.errstate(over="ignore"):
        growth = np.abs(x - x0) / np.maximum(1.0, np.abs(x0))
    i = int(np.argmax(growth))
    unit = "" if units[i] == "1" else f" {units[i]}"
    change = f"{names[i]} went from {x0[i]:.4g} to {x[i]:.4g}{unit}"
    if abs(x[i]) > 1e3 * max(1.0, abs(x0[i])):
        return f"the state ran away: {change}"
    return f"the state that changed most: {change} (stiff equations: is a parameter far too large?)"


#: an input held over a failed step at least this large in its SI unit (a meganewton, a
#: megawatt...) is named in the failure: no vehicle here is driven with one, and a huge finite
#: input is the likeliest reason its state ran away
HUGE_INPUT = 1e6


def huge_inputs(table, u) -> str:
    """In words, the inputs of `u` (the elements of the SignalTable `table`) at least HUGE_INPUT
    in size, largest first (empty when there is none)."""
    names, units = [], []
    for signal in table:
        names += signal.element_names()
        units += signal.element_units()
    values = np.asarray(u, dtype=float).reshape(-1)[:len(names)]
    big = sorted((i for i in range(values.size) if abs(values[i]) >= HUGE_INPUT), key=lambda i: -abs(values[i]))
    if not big:
        return ""
    shown = ", ".join(f"{names[i]} = {float(values[i])!r}{'' if units[i] == '1' else ' ' + units[i]}" for i in big[:3])
    return f"the input{'s' if len(big) > 1 else ''} held over the step: {shown}" + (
        f" and {len(big) - 3} more" if len(big) > 3 else "")


class VehicleSimulator:
    """Advances a vehicle (any `Vehicle`: it uses its INPUTS, constants, derivative_at and
    project_state) from one communication point to the next.

    SciPy's `ode` with 'dopri5' (Hairer's Fortran DOPRI5, adaptive, 5th order): the inputs jump
    at every communication point, so each `advance` restarts the integrator from the state
    alone. Nothing else carries over, so `state` is everything that determines the future and a
    run restored from it continues bit for bit. Each restart first tries the whole interval in
    one step (at a 0.1 s control period that step is almost always accepted, and it saves the
    two evaluations of DOPRI5's initial-step guess); the error control shortens it when needed.
    A vehicle may name another of SciPy's Hairer codes in its class attribute `INTEGRATOR`
    ("dop853", 8th order, the same interface), and its default tolerances in `TOLERANCES`
    (rtol, atol): the H100 keeps DOPRI5 at a tighter rtol (see H100Model.TOLERANCES,
    benchmarks/bench_h100.py).
    A vehicle may also solve part of its state over a step in closed form (the H100: its
    propeller lag, linear with the command held): it then has `step_derivative_into(t, y, held,
    c, ydot)` for the first `integrated_size` states y, `held_size`, `hold_step(x, u, t0,
    held)` that fills the step's held vector (the inputs first), and `state_after_step(y, held,
    t1)` that returns the whole state at t1; the integrator carries y only.
    After each step the vehicle projects the state (`project_state`: the AUV's battery onto
    zero when a step ends just past flat).
    A vehicle may hold more over a step than its table's inputs (the others' wake sources,
    auv_cosim.vehicles.wake): its `INPUT_ARRAY_SIZE` is then the size of the array the integrator
    reads them from, `GIVEN_INPUTS` how many of its leading values a caller gives (the
    table's, then the extra inputs: `advance` takes either count, the extra ones zero when
    left out), and `hold_inputs(x, u, c)`, compiled, fills the rest from the state at each
    step's start, returning 0 or a code that `input_problem(code, u)` puts in words (the step
    is then refused with a ValueError). A caller that never gives the extra inputs costs
    nothing of them (`hold_inputs` is not called: they are zero).
    """

    #: what `step` raises when the integrator cannot reach the end of the step (its message
    #: says which state ran away and when; the FMU's slave quotes it as it is)
    Failure = IntegrationError

    def __init__(self, model, x0, rtol: Optional[float] = None, atol: Optional[float] = None,
                 max_steps: int = 100000, method: Optional[str] = None):
        default_rtol, default_atol = self.tolerances_of(model)
        rtol = default_rtol if rtol is None else rtol
        atol = default_atol if atol is None else atol
        if not (rtol > 0 and atol > 0):
            raise ValueError(f"tolerances must be positive (rtol={rtol}, atol={atol})")
        self.model = model
        self._input_names = model.INPUTS.element_names()
        self.rtol = float(rtol)
        self.atol = float(atol)
        self._x = np.array(x0, dtype=float)
        self._input_count = len(self._input_names)
        self._given = getattr(model, "GIVEN_INPUTS", self._input_count)
        self._u = np.zeros(getattr(model, "INPUT_ARRAY_SIZE", self._input_count))
        # The compiled derivative with the held inputs and the constants as extra arguments:
        # into a buffer when the vehicle can (see _right_hand_side), else returning x'.
        self.method = method or self.integrator_of(model)   # another one: benchmarks compare
        # A vehicle that solves part of its state over a step in closed form (see the class
        # docstring) hands the integrator its first `integrated_size` states and a held vector.
        # A vehicle with a `derivative_packed` (`step_derivative_packed`) takes its held values,
        # constants and derivative in one array (auv_cosim.vehicles.packed): self._u (self._held)
        # is then the view of that array the step's values are written into.
        self._step_derivative = getattr(model, "step_derivative_into", None)
        if self._step_derivative is not None:
            self._integrated = model.integrated_size
            packed = getattr(model, "step_derivative_packed", None)
            if packed is not None:
                self._solver = ode(self._packed(packed, model.held_size, model.constants, self._integrated))
                self._held = self._packed_held
                # called every step with these arrays (the state is always a new float64
                # array, see advance): through its compiled entry, as the derivative
                self._hold_step = compiled_entry(model.hold_step, self._x, self._u, 0.0, self._held)
            else:
                self._held = np.zeros(model.held_size)
                self._hold_step = model.hold_step
                self._solver = ode(_right_hand_side(self._step_derivative, self._integrated))
                self._solver.set_f_params(self._held, model.constants)
        else:
            packed = getattr(model, "derivative_packed", None)
            derivative_into = getattr(model, "derivative_into", None)
            if packed is not None:
                self._solver = ode(self._packed(packed, self._u.size, model.constants, self._x.size))
                self._u = self._packed_held
            else:
                self._solver = ode(model.derivative_at if derivative_into is None
                                   else _right_hand_side(derivative_into, self._x.size))
                self._solver.set_f_params(self._u, model.constants)
        # each step integrated from its start state alone (auv_cosim.compiled.scipy_internals)
        self._restarts = Restarts(self._solver, self.method, rtol=self.rtol, atol=self.atol, nsteps=max_steps)
        # the table's inputs, the ones a non-finite value is looked for in (a view: no slice per step)
        self._table_inputs = self._u[:self._input_count]
        hold = getattr(model, "hold_inputs", None)
        self._hold_inputs = None if hold is None else compiled_entry(hold, self._x, self._u, model.constants)
        #: whether a caller's inputs carried the extra ones since they were last zero (a caller
        #: that leaves them out flies without them; the simulator's own `inputs` array, which
        #: the FMU's slave writes them into, is held as it is)
        self._extra_given = False

    def _packed(self, derivative_packed, held_size, constants, size):
        """The right-hand side of a packed derivative (see `_packed_right_hand_side`); keeps
        the view of the held values in self._packed_held."""
        work, self._packed_held, derivative = pack_arguments(held_size, constants, size)
        entry = compiled_entry(derivative_packed, 0.0, np.array(self._x[:size]), work)
        return _packed_right_hand_side(entry, work, derivative)

    @staticmethod
    def tolerances_of(vehicle) -> Tuple[float, float]:
        """The default (rtol, atol) a vehicle (class or instance) is flown with: its
        `TOLERANCES`, (1e-4, 1e-6) by default (docs/vehicles.md, 'Why dopri5')."""
        return getattr(vehicle, "TOLERANCES", (1e-4, 1e-6))

    @staticmethod
    def integrator_of(vehicle) -> str:
        """The SciPy integrator a vehicle (class or instance) is flown with: its `INTEGRATOR`,
        DOPRI5 by default."""
        return getattr(vehicle, "INTEGRATOR", "dopri5")

    @property
    def state(self) -> np.ndarray:
        return self._x.copy()

    @property
    def inputs(self) -> np.ndarray:
        """The array the integrator reads the held inputs from (INPUTS' order). A caller that
        keeps its inputs in it (the FMU's slave: its input variables are its elements) hands it
        to `advance` as `u`, which then copies nothing."""
        return self._u

    def set_state(self, x) -> None:
        x = np.array(x, dtype=float)
        if x.shape != self._x.shape or not np.all(np.isfinite(x)):
            raise ValueError(f"a state must be {self._x.size} finite numbers, got {x!r}")
        self._x = x

    def advance(self, t0: float, t1: float, u) -> np.ndarray:
        """Integrate from t0 to t1 with the inputs u held; returns (a copy of) the new state,
        which it keeps."""
        return self.step(t0, t1, u).copy()

    def step(self, t0: float, t1: float, u) -> np.ndarray:
        """`advance` without the copy: returns the simulator's own state array, which the caller
        reads and must not change (the FMU's slave writes its outputs from it)."""
        if u is not self._u:    # (the simulator's own input array is right as it is)
            u = np.asarray(u, dtype=float)
            if u.shape == (self._input_count,):
                table = u
            elif u.shape == (self._given,):
                table = u[:self._input_count]
            else:
                extra = f" (or {self._given}, with the extra inputs)" if self._given > self._input_count else ""
                raise ValueError(f"inputs must be {self._input_count} numbers{extra} {self._input_names}, got {u!r}")
        else:
            table = self._table_inputs
        if not _all_finite(table):
            name, value = next((n, v) for n, v in zip(self._input_names, table) if not math.isfinite(v))
            raise ValueError(f"input {name} = {float(value)!r} is not finite")
        if not t1 > t0:
            if t1 == t0:
                return self._x
            raise ValueError(f"cannot integrate backwards from t={t0} to t={t1}")
        hold = self._hold_inputs
        if u is not self._u:
            self._u[:u.size] = u
            if u.size > self._input_count:
                self._extra_given = True
            elif self._extra_given:    # given before, left out now: none
                self._u[u.size:self._given] = 0.0
                self._extra_given = False
            else:                      # never given since: zero, and so is what they hold
                hold = None
        if hold is not None:
            problem = hold(self._x, self._u, self.model.constants)
            if problem:
                raise ValueError(self.model.input_problem(problem, self._u))
        if self._step_derivative is None:
            x = y = self._restarts.integrate(self._x, t0, t1)   # a new array each call: kept without a copy
        else:
            self._hold_step(self._x, self._u, float(t0), self._held)
            y = self._restarts.integrate(self._x[:self._integrated], t0, t1)
            x = self.model.state_after_step(y, self._held, t1)
        restarts = self._restarts
        if not restarts.success or not _all_finite(x):
            why = restarts.message if not restarts.success else "the state is no longer finite"
            where = f" at t={restarts.t_reached:.6g} s" if restarts.t_reached < t1 else ""
            # what the integrator carried, where it stopped (the rest follows it in closed form)
            ran = runaway(getattr(self.model, "STATE", ()), self._x[:y.size], y)
            huge = huge_inputs(self.model.INPUTS, self._u)
            raise IntegrationError(f"{self.method} could not integrate from t={t0:.6g} s to t={t1:.6g} s: {why}{where}"
                                   + (f"; {ran}" if ran else "") + (f"; {huge}" if huge else ""))
        self.model.project_state(x)
        self._x = x    # only now: a failed advance leaves the simulator where it was
        return x
