"""A run of a plan: the row laid out (``layout``), the observers started (the recorder of
results.csv, the rows kept for the summary and the plots, the progress bar, and any the caller
adds), the FMU instances loaded, set up and initialised (``instances``), the steps made by the
loop (``loop``: a C or a Python backend), the instances freed; what happened comes back as an
``Outcome``. The pieces it drives live beside it: ``fmu_cache`` (extraction), ``stepper`` (one
instance's calls), ``fmi_log`` (the FMI logger and failure attribution), ``recorder``
(results.csv), ``interrupt`` (Ctrl-C).

Speed matters (the target is the whole stack at 1000x real time at 0.1 s): the loop works on
one flat float64 vector, ``row``, through the steppers, and does no dictionary lookups.
"""

from __future__ import annotations

import shutil
import sys
import time
from ctypes import c_double
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from fmpy.fmi1 import FMICallException

from . import instances as lifecycle
from .fmi_log import STATUS, MessageLog, RunFailure, fmt_time
from .interrupt import Interrupt
from .layout import RowLayout, layout_row
from .loop import (ROWS_BLOCK, LoopEnd, Observer, Pacer, RowKeeper, StopConditions, TimeTable, WriteFailed,
                   backend_for, run_loop)
from .plan import Plan
from .recorder import CsvRecorder, Decimated
from .stepper import Instance, make_stepper, prepare


@dataclass
class Outcome:
    status: str  # completed | failed | interrupted
    reason: str
    steps_done: int
    time: float
    startup_time: float
    stepping_time: float
    data: np.ndarray | None   # every row, when they were kept (simulate's keep_rows)
    columns: list[str]
    colmap: dict[str, int]
    failure: dict | None
    messages: list[dict]
    message_counts: dict
    stop_condition: str | None = None
    rows: int = 0   # communication points made, the initial one included
    recorded: int = 0   # rows written to results.csv (every point, or every k-th and the last)


class RowCounter(Observer):
    """The number of rows of the run (``count``)."""

    def __init__(self):
        self.count = 0

    def rows(self, block: np.ndarray) -> None:
        self.count += len(block)


class ProgressBar(Observer):
    """A tqdm bar in simulated seconds on stderr, brought up to date with every block of rows
    (made when the first block comes; nothing when tqdm is missing)."""

    def __init__(self, plan: Plan):
        self.plan = plan
        self.bar = None
        self.shown = plan.start_time
        self.started = False

    def rows(self, block: np.ndarray) -> None:
        if not self.started:
            self.started = True
            self.bar = _progress_bar(self.plan)
        if self.bar is not None and len(block):
            t = float(block[-1, 0])
            if t - self.plan.start_time > self.bar.total:   # past the expected end: 10 % more, up to the safety net
                self.bar.total = round(min(self.plan.stop_time - self.plan.start_time,
                                           1.1 * (t - self.plan.start_time)), 6)
            self.bar.update(t - self.shown)
            self.shown = t

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _progress_bar(plan: Plan):
    """A tqdm bar in simulated seconds on stderr, or None."""
    try:
        from tqdm import tqdm

        cols, rows = shutil.get_terminal_size((80, 24))
        end = min(expected_end(plan) or plan.stop_time, plan.stop_time)
        return tqdm(total=round(end - plan.start_time, 6), unit="s", unit_scale=False, delay=2.0,
                    ncols=cols if cols >= 20 else 80, nrows=rows if rows >= 2 else 24,
                    desc=plan.name, file=sys.stderr, leave=False,
                    bar_format="{desc}: {percentage:3.0f}%|{bar}| {n:.0f}/{total:.0f} s sim [{elapsed}<{remaining}]")
    except Exception:
        return None


def expected_end(plan: Plan) -> float | None:
    """When the mission is expected to end, for a run that stops on a condition (``stop_when``:
    its ``stop_time`` is then a safety net): the start time plus, for each instance that flies
    waypoints (as the registered figures read them) at a ``CruiseSpeed``, the horizontal path
    from the start of what it drives (``Pos0``) through its waypoints at that speed; the latest
    of them. None where it is not known (no stop condition, no waypoints or speed)."""
    from .summary import param
    from .view import scenario_waypoints

    if not plan.stops:
        return None
    specs = plan.model.model_dump(mode="json", by_alias=True, exclude_none=True).get("instances") or {}
    ends = []
    for inst in plan.instances:
        try:
            speed = float(param(plan, inst, "CruiseSpeed"))
            route = scenario_waypoints({"instances": {inst: specs[inst]}}) if inst in specs else []
        except Exception:   # no speed, or waypoints that cannot be read: not known
            continue
        if not route or not speed > 0.0:
            continue
        driven = next((c.dst for c in plan.connections if c.src == inst), None)
        start = [param(plan, driven, f"Pos0[{i}]", None) for i in (1, 2)] if driven else [None, None]
        points = ([tuple(float(x) for x in start)] if None not in start else []) + [w[:2] for w in route]
        length = sum(float(np.hypot(b[0] - a[0], b[1] - a[1])) for a, b in zip(points, points[1:]))
        ends.append(plan.start_time + length / speed)
    return max(ends) if ends else None


def _recorder(plan: Plan, layout: RowLayout, csv_path: Path) -> CsvRecorder:
    int_cols = {f"{n}.{v.name}" for n, ip in plan.instances.items() for v in ip.outputs
                if v.type in ("Integer", "Boolean", "Enumeration")}
    return CsvRecorder(csv_path, layout.columns, layout.colmap, plan.record, int_cols,
                       expected_rows=plan.n_steps // plan.output_every + 2)


def simulate(plan: Plan, csv_path: Path | None, progress: bool | None = None, echo_messages: bool = True,
             t_call: float | None = None, observers: tuple[Observer, ...] = (), pacer: Pacer | None = None,
             loop: str | None = None, keep_rows: bool | int = True) -> Outcome:
    """Run a resolved plan. Never raises for FMU errors: they come back in ``Outcome``.

    ``csv_path``: where results.csv goes (None: no file). ``progress``: a progress bar on stderr
    (None: when stderr is a terminal). ``observers`` see every communication point after the
    master's own (see loop.Observer); ``pacer`` decides when the loop steps on (loop.Pacer).
    ``loop``: "c", "python" or None (the C loop when it is available). ``keep_rows``: every row
    kept in memory for ``Outcome.data`` (8 bytes a column a step); a number: at most that many,
    thinned evenly (``loop.RowKeeper``); False: none, the run's memory does not grow with its
    length, and ``Outcome.data`` is None."""
    t_call = time.perf_counter() if t_call is None else t_call
    log = MessageLog(echo=echo_messages)
    layout = layout_row(plan)
    counter = RowCounter()
    keeper = None
    if keep_rows is not False:
        keeper = RowKeeper(len(layout.columns), None if keep_rows is True else int(keep_rows))
    own: list[Observer] = [counter] + ([keeper] if keeper is not None else [])
    recorder = _recorder(plan, layout, csv_path) if csv_path is not None else None
    if recorder is not None:
        own.append(recorder)
    if sys.stderr.isatty() if progress is None else progress:
        own.append(ProgressBar(plan))
    everyone = own + list(observers)
    if plan.output_every > 1:   # what records sees every k-th point and the last (--output-interval)
        everyone = [Decimated(o, plan.output_every) if getattr(o, "records", False) else o for o in everyone]
    for observer in everyone:
        observer.start(plan, layout)
    table = TimeTable(plan)
    layout.row[layout.signals] = table.signals[0]
    layout.row[0] = table.list[0]

    instances: dict[str, Instance] = {}
    status, reason, failure = "completed", "", None
    at = {"steps": 0, "time": plan.start_time}
    log.clock = lambda: at["time"]
    end = None
    startup_time = 0.0
    with Interrupt() as intr:
        try:
            block, backend, stops = _start(plan, layout, instances, log, loop)
            startup_time = time.perf_counter() - t_call
            end = run_loop(plan, backend, table, block, stops, everyone, pacer, intr, log, at)
            reason = _reason(end)
        except RunFailure as e:
            status, reason, failure = "failed", e.reason, e.info
        except FMICallException as e:  # a call outside the guarded ones
            status, reason = "failed", f"{e}"
            failure = {"function": e.function, "status": STATUS[e.status] if 0 <= e.status < 6 else e.status,
                       "time": at["time"]}
        except KeyboardInterrupt:
            status = "interrupted"
            what = intr.signame or "Ctrl-C (SIGINT)"
            reason = f"interrupted by {what} at t={fmt_time(at['time'])} s"
            failure = {"time": at["time"], "signal": what}
        except WriteFailed as e:   # a file of the run could not be written (a full disk): its whole rows stay
            status, reason, failure = "failed", _write_failure(e, at["time"]), {"time": at["time"], "error": str(e)}
        finally:
            try:
                try:
                    timed = [{**m, "time": t} for m, t in zip(log.messages, log.times)]
                    for observer in everyone:
                        observer.ended(status, reason, float(at["time"]), timed)
                finally:
                    error = _close_all(everyone)
            finally:
                lifecycle.teardown(instances)
    if error is not None and status != "failed":
        status, reason, failure = "failed", _write_failure(error, at["time"]), {"time": at["time"], "error": str(error)}

    if not startup_time:
        startup_time = time.perf_counter() - t_call
    stop = end.stop if end is not None else None
    return Outcome(status, reason, at["steps"], float(at["time"]), startup_time,
                   end.stepping_time if end is not None else 0.0, keeper.data if keeper is not None else None,
                   layout.columns, layout.colmap, failure, log.messages, log.counts, stop[0] if stop else None,
                   counter.count, recorder.written if recorder is not None else counter.count)


def _close_all(observers: list[Observer]) -> OSError | None:
    """Close every observer; the first file it could not write (the others are closed still)."""
    first = None
    for observer in observers:
        try:
            observer.close()
        except OSError as e:
            first = first or e
    return first


def _write_failure(error: OSError, t: float) -> str:
    """The reason of a run ended by a file it could not write."""
    return (f"cannot write the run's files ({error.strerror or error}) after the steps to t={fmt_time(t)} s; "
            f"results.csv keeps every whole row it got (summary.json's rows)")


def _start(plan: Plan, layout: RowLayout, instances: dict[str, Instance], log: MessageLog, loop: str | None):
    """Every instance loaded, set up and initialised, their outputs in the row: the loop's
    block (its first row the initial point), its backend and the stop conditions."""
    row = layout.row
    for name, ip in plan.instances.items():
        lifecycle.load(name, ip, plan, log, instances)
        prepare(instances[name], ip, plan, layout.colmap, layout.outputs[name], row)
    now = c_double(plan.start_time)   # the communication point of the step being made
    steppers = {n: make_stepper(instances[n], row, plan.step, now) for n in plan.instances}
    lifecycle.initialise(plan, instances, steppers, log)
    block = np.empty((ROWS_BLOCK, len(row)))
    block[0] = row
    stops = StopConditions(plan, layout)
    pairs = [(instances[n], steppers[n]) for n in plan.order]
    backend = backend_for(loop, pairs, plan.algorithm == "jacobi", layout, block, stops, plan.step, now)
    return block, backend, stops


def _reason(end: LoopEnd) -> str:
    if end.stop:
        text, t_met, t_end, after = end.stop
        return f"stop condition met: {text} at t={fmt_time(t_met)} s" + (
            f", ran on {after:g} s to t={fmt_time(t_end)} s" if after > 0 else "")
    return f"reached stop time {fmt_time(end.time)} s"
