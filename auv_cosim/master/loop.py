"""The stepping loop: one interface, two backends, and the hooks other features plug into.

The loop makes the run's communication steps, from the plan's start time to its stop time (or
a stop condition), on the row (``layout.py``) that the steppers read their inputs from and
write their outputs into. It is made of:

- a **backend**, which makes steps: ``NativeSteps`` (the C loop of ``_step_loop.c``, as many
  steps as it can before Python has something to do) or ``PythonSteps`` (one step at a time,
  the same calls in the same order: the fallback without a C compiler). Both append each
  step's row to the loop's block, and both give the same rows bit for bit;
- the **time table** (``TimeTable``): the times of the communication points and the signal
  values at them, a block of ``TIME_BLOCK`` points at a time (a long run holds no table of all
  its times);
- the **stop conditions** (``StopConditions``) and Ctrl-C (``interrupt.Interrupt``), looked at
  after every hand-back of the backend;
- the **observers** (``Observer``): everything that sees the run's communication points (the
  recorder of results.csv, the rows kept for the summary and the plots, the progress bar; a
  live view, a streaming summary or an MCAP writer would be one more). Each gets every row, in
  order, in blocks: at most ``ROWS_BLOCK`` rows (or its own ``every``), at least once a second
  of wall time, and whatever is left when the run ends, fails or is interrupted;
- the **pacer** (``Pacer``, optional): asked before the loop steps on from a communication
  point, at least every ``pacer.every`` steps, and once at the end, with the time reached (a
  real-time pacer sleeps there).

``run_loop`` drives them. See docs/master.md, "The loop".
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from fmpy.fmi1 import FMICallException

from . import native_loop
from . import signals as sigmod
from .fmi_log import MessageLog, failure_from
from .layout import RowLayout
from .plan import Plan

#: communication points whose times and signal values are computed at once
TIME_BLOCK = 4096
#: rows the loop gathers before it hands them to the observers
ROWS_BLOCK = 256
#: wall seconds after which the rows gathered so far are handed over anyway
FLUSH_SECONDS = 1.0


class Observer:
    """Sees every communication point of a run, as rows of the row layout (column 0 the time).

    ``start`` is called once the row is laid out, before any FMU is loaded; ``rows`` with the
    rows of the communication points made since its last call, in order, the first one being
    the initial point (after initialisation); ``close`` once, whether the run completed, failed
    or was interrupted (also when it failed before its first step). ``rows`` gets a view of the
    loop's own block, valid for the call only: copy what you keep. An exception from an
    observer ends the run and propagates.

    ``every``: the most communication points the observer lets pass between two calls of
    ``rows``. The loop's C backend hands back to Python at least that often: 1 (every point as
    it is made) costs the C loop most of its advantage."""

    every: int = ROWS_BLOCK

    def start(self, plan: Plan, layout: RowLayout) -> None:
        pass

    def rows(self, block: np.ndarray) -> None:
        pass

    def ended(self, status: str, reason: str, time: float, messages: list[dict]) -> None:
        """Once the run has ended, before ``close``: its status ("completed", "failed",
        "interrupted"), the reason in words, the simulated time reached, and the FMUs' warnings
        and errors (``MessageLog.messages``: instance, status, message, time)."""

    def close(self) -> None:
        pass


class Pacer(Protocol):
    """Decides when the loop may step on (real-time pacing, a step-by-step debugger ...).

    ``pace(t)`` is called before the loop makes the steps from the communication point at
    simulated time ``t``, and again at least every ``every`` steps, and once more when the loop
    has made its last step (with the time reached); it returns when the loop may go on (a
    real-time pacer sleeps until the wall clock has reached ``t``). A pacer with a ``summary()``
    method gives summary.json its ``realtime``; one with ``check(plan)`` may refuse the plan
    before anything runs (a ScenarioError); one with ``wake_on(interrupt)`` is given the run's
    interrupt before the first step, to end its waits when Ctrl-C or SIGTERM comes (the loop
    stops after ``pace`` returns when the interrupt's ``flag`` is set)."""

    every: int

    def pace(self, t: float) -> None: ...


class RowKeeper(Observer):
    """The rows of the run, kept in memory (``data``): what ``RunResult.data`` and the plots read.

    ``limit``: at most that many rows are kept (None: every row). Past it the rows kept are
    thinned evenly: every second one is dropped and only every second row from then on is kept,
    again each time the limit is reached, so that the rows kept are those whose index is a
    multiple of ``stride`` (a power of two), the first one included. A plot of a day at sea
    draws a quarter of its rows; its memory no longer grows with the mission."""

    def __init__(self, columns: int, limit: int | None = None):
        self._blocks: list[np.ndarray] = []
        self._columns = columns
        self.limit = limit
        self.stride = 1
        self.seen = 0     # rows given so far
        self.kept = 0     # rows in _blocks

    def rows(self, block: np.ndarray) -> None:
        if self.stride == 1:
            kept = block.copy()
        else:
            first = (-self.seen) % self.stride   # the block's first row whose index is a multiple of stride
            kept = block[first::self.stride].copy()
        self.seen += len(block)
        self._blocks.append(kept)
        self.kept += len(kept)
        while self.limit is not None and self.kept > self.limit:
            whole = np.vstack(self._blocks)[::2]
            self._blocks, self.kept, self.stride = [whole], len(whole), self.stride * 2

    @property
    def data(self) -> np.ndarray:
        return np.vstack(self._blocks) if self._blocks else np.zeros((0, self._columns))


class TimeTable:
    """The times of communication points ``base`` .. ``base + TIME_BLOCK`` (at most the last
    one): ``times`` (float64) and ``list`` (the same as Python floats), and the signal values
    at them (``signals``, one column per signal of the plan)."""

    def __init__(self, plan: Plan):
        self.plan = plan
        self.load(0)

    def load(self, k: int) -> None:
        plan = self.plan
        times = plan.step_times(k, min(k + TIME_BLOCK, plan.n_steps) + 1)
        signals = np.zeros((len(times), len(plan.signals)))
        for j, s in enumerate(plan.signals):
            signals[:, j] = sigmod.evaluate(s.spec, times, plan.step)
        self.base = k
        self.list = times.tolist()
        self.times = np.asarray(self.list)
        self.signals = signals


class StopConditions:
    """The plan's stop conditions on the row: which one ends the run after a step, and when."""

    def __init__(self, plan: Plan, layout: RowLayout):
        self.plan_stops = plan.stops
        self.columns = [(layout.colmap[f"{s.inst}.{s.var.name}"], s.func, s.value, s.after) for s in plan.stops]
        self.met: list[float | None] = [None] * len(self.columns)
        self.epsilon = 1e-6 * plan.step
        self.row = layout.row
        self.native = None   # the C loop's copy (NativeSteps), kept in step by `reached`

    def __len__(self) -> int:
        return len(self.columns)

    def reached(self, t_next: float):
        """After the step that ended at t_next: the condition that ends the run (its text, when
        it was met, t_next, its run-on), or None."""
        row, met = self.row, self.met
        for j, (col, func, value, after) in enumerate(self.columns):
            if met[j] is None and func(row[col], value):
                met[j] = t_next
            if met[j] is not None and t_next >= met[j] + after - self.epsilon:
                return self.plan_stops[j].text, met[j], t_next, after
        if self.native is not None:   # what the C loop watches next
            for j, (_col, _func, _value, after) in enumerate(self.columns):
                if met[j] is not None:
                    self.native[j].met, self.native[j].deadline = 1, met[j] + after
        return None


class CallFailed(Exception):
    """An FMI call of a step returned an error: the instance called and fmpy's exception."""

    def __init__(self, instance, error: FMICallException):
        super().__init__(str(error))
        self.instance, self.error = instance, error


class PythonSteps:
    """The backend that makes one step at a time in Python: the calls of every instance's
    stepper in the plan's order (Gauss-Seidel: instance after instance; Jacobi: every
    instance's transfers in, then every fmi2DoStep, then every read)."""

    def __init__(self, pairs: list, jacobi: bool, layout: RowLayout, block: np.ndarray, now):
        self.pairs = pairs
        # the early transfers (the wakes) of every instance first, then instance after instance
        self.early = [(rt, call) for rt, st in pairs for call in st.early]
        self.gs_calls = self.early + [(rt, call) for rt, st in pairs for call in st.calls]
        self.jacobi = jacobi
        self.row, self.block, self.now = layout.row, block, now
        self.signals = layout.signals
        self.failure = None

    def advance(self, table: TimeTable, k: int, count: int, bi: int, deadline: float) -> int:
        """One step from communication point k, its row into block[bi]; returns 1."""
        row, j = self.row, k - table.base
        t = table.list[j]
        if self.signals.stop > self.signals.start:
            row[self.signals] = table.signals[j]
        cur = None
        try:
            if self.jacobi:
                for cur, call in self.early:
                    call()
                for cur, st in self.pairs:
                    st.set_inputs()
                for cur, st in self.pairs:
                    st.advance(t)
                for cur, st in self.pairs:
                    st.read_outputs()
            else:
                self.now.value = t
                for cur, call in self.gs_calls:
                    call()
        except FMICallException as e:
            raise CallFailed(cur, e) from None
        row[0] = table.list[j + 1]
        self.block[bi] = row
        return 1


class NativeSteps:
    """The backend that makes steps in C (``native_loop.run_steps``): the calls of
    ``PythonSteps``, in the same order with the same values, for as many steps as it can before
    Python has something to do (``count`` made, the block full, a stop condition that may fire,
    the flush deadline passed, a call failed)."""

    def __init__(self, run_steps, pairs: list, jacobi: bool, layout: RowLayout, block: np.ndarray,
                 stops: StopConditions, step: float):
        early = [(rt, call) for rt, st in pairs for call in st.early_native]
        if jacobi:
            owners = early + [(rt, call) for phase in range(3) for rt, st in pairs for call in st.native[phase]]
        else:
            owners = early + [(rt, call) for rt, st in pairs for phase in st.native for call in phase]
        self.run_steps = run_steps
        self.calls = (native_loop.Call * len(owners))(*(native_loop.Call(*fields) for _rt, (fields, _f) in owners))
        self.owners = [(rt, fail) for rt, (_fields, fail) in owners]
        self.stops = (native_loop.Stop * max(1, len(stops)))(
            *(native_loop.Stop(col, native_loop.STOP_OPS[s.op], value, 0, 0.0)
              for (col, _f, value, _a), s in zip(stops.columns, stops.plan_stops)))
        stops.native = self.stops
        self.n_stops, self.epsilon = len(stops), stops.epsilon
        self.outcome = native_loop.Outcome()
        self.row, self.block = layout.row, block
        self.n_columns = len(layout.row)
        self.signal_column = layout.signals.start
        self.n_signals = layout.signals.stop - layout.signals.start
        self.step = step
        self.failure = None

    def advance(self, table: TimeTable, k: int, count: int, bi: int, deadline: float) -> int:
        """Up to ``count`` steps from communication point k, their rows into block[bi:]; the
        number made. A failed call is left in ``failure`` (``raise_failure``)."""
        j = k - table.base
        outcome = self.outcome
        self.run_steps(self.calls, len(self.owners), self.row.ctypes.data, self.n_columns,
                       table.times.ctypes.data + 8 * j, count, self.step,
                       table.signals.ctypes.data + 8 * self.n_signals * j, self.signal_column, self.n_signals,
                       self.block.ctypes.data + 8 * self.n_columns * bi, self.stops, self.n_stops, deadline,
                       self.epsilon, outcome)
        if outcome.failed_call >= 0:
            self.failure = self.owners[outcome.failed_call], outcome.status
        return outcome.steps

    def raise_failure(self) -> None:
        """What the Python call would have raised (the status the C loop reports; -1: a
        connected value was not finite)."""
        (instance, fail), status = self.failure
        try:
            fail(status)
        except FMICallException as e:
            raise CallFailed(instance, e) from None


def backend_for(choice: str | None, pairs: list, jacobi: bool, layout: RowLayout, block: np.ndarray,
                stops: StopConditions, step: float, now):
    """The backend ``choice`` asks for: "c", "python", or None (the C loop when it is available,
    see native_loop.available, else Python). "c" without the C loop is an error."""
    if choice not in (None, "c", "python"):
        raise ValueError(f"unknown loop {choice!r} (expected 'c' or 'python')")
    run_steps, why = native_loop.available() if choice != "python" else (None, "")
    if choice == "c" and run_steps is None:
        raise RuntimeError(f"the C loop is not available: {why}")
    if run_steps is not None:
        return NativeSteps(run_steps, pairs, jacobi, layout, block, stops, step)
    return PythonSteps(pairs, jacobi, layout, block, now)


@dataclass
class LoopEnd:
    """Where the loop ended: steps made, the time reached, the stop condition that ended it
    (text, when met, when the run ended, run-on) or None, the wall seconds of stepping."""

    steps: int
    time: float
    stop: tuple | None
    stepping_time: float


def run_loop(plan: Plan, backend, table: TimeTable, block: np.ndarray, stops: StopConditions,
             observers: list[Observer], pacer: Pacer | None, interrupt, log: MessageLog,
             progress: dict) -> LoopEnd:
    """Step the run from its first communication point to its end. ``block[0]`` holds the
    initial row. ``progress`` is kept up to date (``steps``, ``time``) for the caller's report
    of a failure or an interruption, raised as they happen (``RunFailure``, ``KeyboardInterrupt``)
    once every row made has been handed to the observers."""
    n_steps = plan.n_steps
    capacity = min([ROWS_BLOCK, len(block)] + [max(1, o.every) for o in observers])
    pace_every = max(1, pacer.every) if pacer is not None else n_steps
    if pacer is not None and callable(getattr(pacer, "wake_on", None)):
        pacer.wake_on(interrupt)   # Ctrl-C and SIGTERM end its wait
    monotonic = time.monotonic
    last_flush = monotonic()
    k, bi = 0, 1
    stop = None
    t_loop = time.perf_counter()
    try:
        while k < n_steps:
            if bi == capacity:
                _hand_over(observers, block[:bi])
                bi, last_flush = 0, monotonic()
            if k - table.base == TIME_BLOCK:
                table.load(k)
            count = min(n_steps - k, capacity - bi, table.base + TIME_BLOCK - k)
            if pacer is not None:
                count = min(count, pace_every)
                pacer.pace(table.list[k - table.base])
                if interrupt.flag:   # a signal ended the pacer's wait
                    raise KeyboardInterrupt
            done = backend.advance(table, k, count, bi, last_flush + FLUSH_SECONDS)
            if done:
                k += done
                bi += done
                progress["steps"], progress["time"] = k, table.list[k - table.base]
            if backend.failure is not None:
                backend.raise_failure()
            if bi == capacity or monotonic() - last_flush > FLUSH_SECONDS:
                _hand_over(observers, block[:bi])
                bi, last_flush = 0, monotonic()
            if len(stops):
                stop = stops.reached(progress["time"])
                if stop:
                    break
            if interrupt.flag:
                raise KeyboardInterrupt
        if pacer is not None:   # the run's end is due too: a paced run never ends early
            pacer.pace(progress["time"])
            if interrupt.flag:
                raise KeyboardInterrupt
    except CallFailed as e:
        raise _call_failure(e, float(table.list[k - table.base]), log) from None
    finally:
        stepping_time = time.perf_counter() - t_loop
        if bi:
            _hand_over(observers, block[:bi])
    return LoopEnd(k, progress["time"], stop, stepping_time)


class WriteFailed(OSError):
    """An observer could not write a file of the run (a full disk): the run ends as failed."""


def _hand_over(observers: list[Observer], rows: np.ndarray) -> None:
    for observer in observers:
        try:
            observer.rows(rows)
        except WriteFailed:
            raise
        except OSError as e:
            raise WriteFailed(e.errno, e.strerror or str(e)) if e.errno else WriteFailed(str(e)) from e


def _call_failure(e: CallFailed, t: float, log: MessageLog):
    """The RunFailure of a failed call at time t, naming the inputs it had just been given that
    were not finite."""
    cur = e.instance
    suspects = []
    if cur is not None and cur.real_in is not None:
        suspects = [f"{n}={v}" for n, v in zip(cur.real_in.names, cur.real_in.view) if not math.isfinite(v)]
    return failure_from(cur, t, e.error.function, e.error.status, log,
                        variable=(suspects[0].split("=")[0] if len(suspects) == 1 else None), suspects=suspects)
