"""The run orchestration: lays out the row of values, loads, instantiates and initialises the
FMU instances of a plan, steps them at the communication step (Gauss-Seidel or Jacobi, see
docs/master.md), evaluates the signals and stop conditions, hands every row to the recorder,
and returns what happened as an ``Outcome``. The pieces it drives live beside it:
``fmu_cache`` (extraction), ``stepper`` (one instance's ctypes calls), ``fmi_log`` (the FMI
logger and failure attribution), ``interrupt`` (Ctrl-C).

Speed matters (the target is the whole stack at 1000x real time at 0.1 s): the loop works on
one flat float64 vector, ``row``, through the steppers, and does no dictionary lookups.
"""

from __future__ import annotations

import math
import shutil
import sys
import time
from ctypes import c_double
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from fmpy.fmi1 import FMICallException
from fmpy.fmi2 import FMU2Slave

from . import signals as sigmod
from .fmi_log import STATUS, MessageLog, RunFailure, failure_from, fmt_time, guarded_call
from .fmu_cache import extract_fmu
from .interrupt import Interrupt
from .plan import Plan
from .recorder import CsvRecorder
from .scenario import display_path
from . import native_loop
from .stepper import Instance, make_stepper, prepare, teardown

TIME_BLOCK = 4096  # communication points whose times and signal values are computed at once


@dataclass
class Outcome:
    status: str  # completed | failed | interrupted
    reason: str
    steps_done: int
    time: float
    startup_time: float
    stepping_time: float
    data: np.ndarray
    columns: list[str]
    colmap: dict[str, int]
    failure: dict | None
    messages: list[dict]
    message_counts: dict
    stop_condition: str | None = None


@dataclass
class RowLayout:
    """Where each value lives in ``row``: the time (column 0), every output of every instance
    (and each local variable the scenario records) grouped by instance and type
    (``outputs[name][type] = (variables, first, end)``), the signal values (``signals`` slice),
    the unconnected inputs as constant columns. A connected input reads as its source's column."""

    columns: list[str]
    colmap: dict[str, int]
    outputs: dict[str, dict[str, tuple]]
    signals: slice
    row: np.ndarray


def layout_row(plan: Plan) -> RowLayout:
    columns = ["time"]
    colmap: dict[str, int] = {}
    out_slices = {}
    recorded = set(plan.record)
    for name, ip in plan.instances.items():
        groups = {}
        # read after every step: the outputs, and the local variables the scenario records
        read = ip.outputs + [v for v in ip.vars.values() if v.causality == "local" and f"{name}.{v.name}" in recorded]
        for typ in ("Real", "Integer", "Boolean"):
            vs = [v for v in read if (v.type == typ or (typ == "Integer" and v.type == "Enumeration"))]
            a = len(columns)
            for v in vs:
                colmap[f"{name}.{v.name}"] = len(columns)
                columns.append(f"{name}.{v.name}")
            groups[typ] = (vs, a, len(columns))
        out_slices[name] = groups
    sig_a = len(columns)
    for s in plan.signals:
        colmap[s.target] = len(columns)
        columns.append(s.target)
    sig_b = len(columns)
    # connected inputs read as their source; other inputs as constant columns (if ever recorded)
    for c in plan.connections:
        colmap[f"{c.dst}.{c.dst_var.name}"] = colmap[f"{c.src}.{c.src_var.name}"]
    const_cols = {}
    set_values = {(n, var.name): val for n, ip in plan.instances.items() for var, val in ip.params}
    for name, ip in plan.instances.items():
        for v in ip.inputs:
            key = f"{name}.{v.name}"
            if key not in colmap and v.type != "String":
                val = set_values.get((name, v.name), v.start)
                try:
                    val = float(val) if not isinstance(val, str) else (1.0 if val == "true" else 0.0 if val == "false" else float(val))
                except (TypeError, ValueError):
                    val = 0.0
                colmap[key] = len(columns)
                const_cols[len(columns)] = val
                columns.append(key)
    row = np.zeros(len(columns))
    for i, val in const_cols.items():
        row[i] = val
    # outputs start at their declared start values until the FMU has been initialised
    for name, ip in plan.instances.items():
        for v in ip.outputs:
            if v.start is not None and v.type != "String":
                try:
                    row[colmap[f"{name}.{v.name}"]] = float(v.start) if v.start not in ("true", "false") else float(v.start == "true")
                except ValueError:
                    pass
    return RowLayout(columns, colmap, out_slices, slice(sig_a, sig_b), row)


def _load(name: str, ip, plan: Plan, log: MessageLog, instances: dict[str, Instance]) -> Instance:
    """Load, instantiate and set up one instance, set its parameters and enter initialisation
    mode (the instance is in ``instances`` as soon as it exists, for the teardown)."""
    try:
        unzip = extract_fmu(ip.fmu_path)
        fmu = FMU2Slave(guid=ip.md.guid, unzipDirectory=unzip,
                        modelIdentifier=ip.md.coSimulation.modelIdentifier, instanceName=name)
    except Exception as e:  # a damaged FMU file, a library that does not load: fmpy raises plain exceptions
        raise RunFailure(f"{name}: cannot load the FMU {display_path(ip.fmu_path)}: {e}", instance=name,
                         file=display_path(ip.fmu_path), function="load", time=plan.start_time) from None
    inst = Instance(name, fmu, ip.md)
    instances[name] = inst
    t0 = plan.start_time
    guarded_call(inst, 0.0, "fmi2Instantiate", lambda: fmu.instantiate(callbacks=log.callbacks, loggingOn=True), log)
    guarded_call(inst, t0, "fmi2SetupExperiment",
                 lambda: fmu.setupExperiment(tolerance=plan.tolerance, startTime=t0, stopTime=plan.stop_time), log)
    by_type: dict[str, list] = {"Real": [], "Integer": [], "Boolean": [], "String": []}
    for var, val in ip.params:
        by_type["Integer" if var.type == "Enumeration" else var.type].append((var.vr, val, var.name))
    setters = {"Real": fmu.setReal, "Integer": fmu.setInteger, "Boolean": fmu.setBoolean, "String": fmu.setString}
    for typ, items in by_type.items():
        if not items:
            continue
        vrs = [i[0] for i in items]
        vals = [i[1] for i in items]
        setter = setters[typ]
        guarded_call(inst, t0, f"fmi2Set{typ}", lambda: setter(vrs, vals), log,
                     variable=", ".join(i[2] for i in items) if len(items) < 4 else None)
    guarded_call(inst, t0, "fmi2EnterInitializationMode", fmu.enterInitializationMode, log)
    return inst


def _progress_bar(plan: Plan, progress: bool | None):
    """A tqdm bar in simulated seconds on stderr (by default only on a terminal), or None."""
    if not (sys.stderr.isatty() if progress is None else progress):
        return None
    try:
        from tqdm import tqdm

        cols, rows = shutil.get_terminal_size((80, 24))
        return tqdm(total=round(plan.stop_time - plan.start_time, 6), unit="s", unit_scale=False, delay=2.0,
                    ncols=cols if cols >= 20 else 80, nrows=rows if rows >= 2 else 24,
                    desc=plan.name, file=sys.stderr, leave=False,
                    bar_format="{desc}: {percentage:3.0f}%|{bar}| {n:.0f}/{total:.0f} s sim [{elapsed}<{remaining}]")
    except Exception:
        return None


def simulate(plan: Plan, csv_path: Path | None, progress: bool | None = None, echo_messages: bool = True,
             t_call: float | None = None) -> Outcome:
    """Run a resolved plan. Never raises for FMU errors: they come back in ``Outcome``."""
    t_call = time.perf_counter() if t_call is None else t_call
    log = MessageLog(echo=echo_messages)
    names = list(plan.instances)
    layout = layout_row(plan)
    columns, colmap, row = layout.columns, layout.colmap, layout.row
    ncol = len(columns)
    sig_a, sig_b = layout.signals.start, layout.signals.stop

    recorder = None
    if csv_path is not None:
        int_cols = {f"{n}.{v.name}" for n, ip in plan.instances.items() for v in ip.outputs
                    if v.type in ("Integer", "Boolean", "Enumeration")}
        recorder = CsvRecorder(csv_path, columns, colmap, plan.record, int_cols, expected_rows=plan.n_steps + 1)

    def times_from(k: int) -> tuple[list[float], np.ndarray]:
        """The times of communication points k .. k + TIME_BLOCK (at most the last one) and the
        signal values at them: computed a block at a time, so a long run holds no table of all
        its times."""
        times = plan.step_times(k, min(k + TIME_BLOCK, plan.n_steps) + 1)
        sig = np.zeros((len(times), sig_b - sig_a))
        for j, s in enumerate(plan.signals):
            sig[:, j] = sigmod.evaluate(s.spec, times, plan.step)
        return times.tolist(), sig

    tlist, sig_table = times_from(0)
    row[sig_a:sig_b] = sig_table[0]
    row[0] = tlist[0]

    data_blocks: list[np.ndarray] = []
    instances: dict[str, Instance] = {}
    status, reason, failure = "completed", "", None
    steps_done = 0
    t_now = plan.start_time
    stop_hit = None
    startup_time = stepping_time = 0.0

    pbar = None
    with Interrupt() as intr:
        try:
            # ---------------- load, instantiate, set parameters, initialise
            for name, ip in plan.instances.items():
                _load(name, ip, plan, log, instances)
                prepare(instances[name], ip, plan, colmap, layout.outputs[name], row)

            now = c_double(plan.start_time)   # the communication point of the step being made
            steppers = {n: make_stepper(instances[n], row, plan.step, now) for n in names}
            for name in plan.init_order:
                rt = instances[name]
                guarded_call(rt, plan.start_time, "fmi2Set*", steppers[name].set_inputs, log)
                guarded_call(rt, plan.start_time, "fmi2ExitInitializationMode", rt.fmu.exitInitializationMode, log)
                rt.state = "initialised"
                guarded_call(rt, plan.start_time, "fmi2Get*", steppers[name].read_outputs, log)

            data_blocks_append = data_blocks.append
            block_rows = 256
            block = np.empty((block_rows, ncol))
            block[0] = row
            bi = 1
            startup_time = time.perf_counter() - t_call

            # ---------------- the loop
            order = [steppers[n] for n in plan.order]
            order_rt = [instances[n] for n in plan.order]
            pairs = list(zip(order_rt, order))
            gs_calls = [(rt, call) for rt, st in pairs for call in st.calls]
            jacobi = plan.algorithm == "jacobi"
            h = plan.step
            n_steps = plan.n_steps
            stops = [(colmap[f"{s.inst}.{s.var.name}"], s.func, s.value, s.after, s.text) for s in plan.stops]
            stop_met = [None] * len(stops)
            eps = 1e-6 * h
            has_sig = sig_b > sig_a
            monotonic = time.monotonic
            last_flush = monotonic()
            pbar = _progress_bar(plan, progress)
            pb_every = max(1, int(round(1.0 / h)) * 10)
            stop_columns = [(col, func, value, after) for col, func, value, after, _text in stops]

            def stop_reached(t_next: float):
                """The stop conditions after the step that ended at t_next: the one that ends
                the run (its text, when it was met, t_next, its run-on), or None."""
                for j, (col, func, value, after) in enumerate(stop_columns):
                    if stop_met[j] is None and func(row[col], value):
                        stop_met[j] = t_next
                    if stop_met[j] is not None and t_next >= stop_met[j] + after - eps:
                        return stops[j][4], stop_met[j], t_next, after
                return None

            # The C loop (auv_cosim/master/native_loop.py) steps when it can, making the calls of
            # `pairs` in the order the Python loop makes them (Gauss-Seidel: instance after
            # instance; Jacobi: phase after phase). It hands back to the bookkeeping below
            # whenever Python has something to do, so both loops record the same rows.
            run_steps = native_loop.available()[0]
            if run_steps is not None:
                if jacobi:
                    owners = [(rt, call) for phase in range(3) for rt, st in pairs for call in st.native[phase]]
                else:
                    owners = [(rt, call) for rt, st in pairs for phase in st.native for call in phase]
                c_calls = (native_loop.Call * len(owners))(*(native_loop.Call(*fields) for _rt, (fields, _f) in owners))
                owners = [(rt, fail) for rt, (_fields, fail) in owners]
                c_stops = (native_loop.Stop * max(1, len(stops)))(
                    *(native_loop.Stop(col, native_loop.STOP_OPS[s.op], value, 0, 0.0)
                      for (col, _f, value, _a, _t), s in zip(stops, plan.stops)))
                outcome = native_loop.Outcome()
                row_address, block_address = row.ctypes.data, block.ctypes.data
                n_signals = sig_b - sig_a
            t_loop = time.perf_counter()
            k = 0
            base = 0  # the communication point tlist[0] is
            cur = None
            try:
                times = np.asarray(tlist)
                while k < n_steps:
                    if k - base == TIME_BLOCK:
                        base = k
                        tlist, sig_table = times_from(k)
                        times = np.asarray(tlist)
                    if run_steps is not None:
                        # as many steps as the C loop can make before Python has something to do
                        count = min(n_steps - k, block_rows - bi, base + TIME_BLOCK - k)
                        if pbar is not None:
                            count = min(count, pb_every - steps_done % pb_every)
                        run_steps(c_calls, len(owners), row_address, ncol, times.ctypes.data + 8 * (k - base),
                                  count, h, sig_table.ctypes.data + 8 * n_signals * (k - base), sig_a, n_signals,
                                  block_address + 8 * ncol * bi, c_stops, len(stops), last_flush + 1.0, eps, outcome)
                        done = outcome.steps
                    else:
                        # one step in Python
                        t = tlist[k - base]
                        if has_sig:
                            row[sig_a:sig_b] = sig_table[k - base]
                        if jacobi:
                            for cur, (set_inputs, _a, _r, _s, _n) in pairs:
                                set_inputs()
                            for cur, (_i, advance, _r, _s, _n) in pairs:
                                advance(t)
                            for cur, (_i, _a, read_outputs, _s, _n) in pairs:
                                read_outputs()
                        else:
                            now.value = t
                            for cur, call in gs_calls:
                                call()
                        row[0] = tlist[k - base + 1]
                        block[bi] = row
                        done = 1
                    if done:
                        k += done
                        bi += done
                        steps_done = k
                        t_now = tlist[k - base]
                    if run_steps is not None and outcome.failed_call >= 0:
                        cur, fail = owners[outcome.failed_call]
                        fail(outcome.status)
                    if bi == block_rows or monotonic() - last_flush > 1.0:
                        data_blocks_append(block[:bi].copy())
                        if recorder is not None:
                            recorder.write_block(block[:bi])
                        bi = 0
                        last_flush = monotonic()
                    if stops:
                        stop_hit = stop_reached(t_now)
                        if stop_hit:
                            break
                        if run_steps is not None:   # what the C loop watches next
                            for j, (_col, _func, _value, after) in enumerate(stop_columns):
                                if stop_met[j] is not None:
                                    c_stops[j].met, c_stops[j].deadline = 1, stop_met[j] + after
                    if intr.flag:
                        raise KeyboardInterrupt
                    if pbar is not None and steps_done % pb_every == 0:
                        pbar.update(pb_every * h)
            except FMICallException as e:
                # the instance being called is `cur`; name the inputs that were not finite
                suspects = []
                if cur is not None and cur.real_in is not None:
                    suspects = [f"{n}={v}" for n, v in zip(cur.real_in.names, cur.real_in.view) if not math.isfinite(v)]
                raise failure_from(cur, float(tlist[k - base]), e.function, e.status, log,
                                   variable=(suspects[0].split("=")[0] if len(suspects) == 1 else None),
                                   suspects=suspects) from None
            finally:
                stepping_time = time.perf_counter() - t_loop
                if bi:
                    data_blocks_append(block[:bi].copy())
                    if recorder is not None:
                        recorder.write_block(block[:bi])
                    bi = 0
                if recorder is not None:
                    recorder.flush()
            if stop_hit:
                text, t_met, t_end, after = stop_hit
                reason = f"stop condition met: {text} at t={fmt_time(t_met)} s" + (
                    f", ran on {after:g} s to t={fmt_time(t_end)} s" if after > 0 else "")
            else:
                reason = f"reached stop time {fmt_time(t_now)} s"
        except RunFailure as e:
            status, reason, failure = "failed", e.reason, e.info
        except FMICallException as e:  # a call outside the guarded ones
            status, reason = "failed", f"{e}"
            failure = {"function": e.function, "status": STATUS[e.status] if 0 <= e.status < 6 else e.status,
                       "time": t_now}
        except KeyboardInterrupt:
            status = "interrupted"
            what = intr.signame or "Ctrl-C (SIGINT)"
            reason = f"interrupted by {what} at t={fmt_time(t_now)} s"
            failure = {"time": t_now, "signal": what}
        finally:
            if pbar is not None:
                pbar.close()
            if recorder is not None:
                recorder.close()
            teardown(instances)

    if not startup_time:
        startup_time = time.perf_counter() - t_call
    data = np.vstack(data_blocks) if data_blocks else np.zeros((0, ncol))
    return Outcome(status, reason, steps_done, float(t_now), startup_time, stepping_time, data, columns, colmap,
                   failure, log.messages, log.counts, stop_hit[0] if stop_hit else None)
