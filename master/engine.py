"""The co-simulation master: loads the FMUs with fmpy, initialises them, steps them at a fixed
communication step and exchanges the connected variables (see docs/master.md for the calling
order and the delay each connection sees).

Speed matters (the target is the whole stack at 1000x real time at 0.1 s), so the stepping loop
works on one flat float64 vector, ``row``: the time, every output of every instance and every
signal value. Each instance reads its Real outputs straight into its slice of ``row`` (one
``fmi2GetReal`` call into a ctypes view of the numpy buffer), gathers its inputs from ``row``
with one ``numpy.take`` over a precomputed index array, and hands them over with one
``fmi2SetReal`` call. Value references, buffers and index arrays are prepared once; the loop does
no dictionary lookups and allocates nothing but the CSV text.
"""

from __future__ import annotations

import atexit
import hashlib
import math
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from ctypes import byref, c_double, c_int, c_size_t, c_uint, c_void_p
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from fmpy import calloc, extract, free
from fmpy.fmi1 import FMICallException
from fmpy.fmi2 import (
    FMU2Slave,
    fmi2CallbackAllocateMemoryTYPE,
    fmi2CallbackFreeMemoryTYPE,
    fmi2CallbackFunctions,
    fmi2CallbackLoggerTYPE,
)

from . import signals as sigmod
from .plan import Plan
from .recorder import CsvRecorder

_STATUS = ["ok", "warning", "discard", "error", "fatal", "pending"]

# --------------------------------------------------------------------------------------------
# extraction: once per FMU file (and content) per process
# --------------------------------------------------------------------------------------------

_extract_cache: dict[tuple, str] = {}
_extract_tmp: list[str] = []


def _cleanup_extracted():
    for d in _extract_tmp:
        shutil.rmtree(d, ignore_errors=True)
    _extract_tmp.clear()


def _cache_root() -> Path | None:
    env = os.environ.get("AUV_MASTER_FMU_CACHE", "")
    if env.lower() in ("0", "off", "no", "none"):
        return None
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "auv-cosim" / "fmus"


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:20]


def extract_fmu(path: Path) -> str:
    """Extract an FMU once. Into the cache folder keyed by the FMU's content (reused across
    runs and processes, so what the FMUs compile and cache next to their sources survives), or
    into a temporary folder when the cache is off or not writable."""
    st = path.stat()
    key = (str(path), st.st_mtime_ns, st.st_size)
    if key in _extract_cache:
        return _extract_cache[key]
    root = _cache_root()
    target = None
    if root is not None:
        try:
            root.mkdir(parents=True, exist_ok=True)
            target = root / f"{path.stem}-{_digest(path)}"
            if not (target / ".complete").is_file():
                tmp = Path(tempfile.mkdtemp(prefix=f".{path.stem}-", dir=root))
                extract(str(path), unzipdir=str(tmp))
                (tmp / ".complete").write_text(str(path) + "\n")
                try:
                    os.rename(tmp, target)
                except OSError:  # another process got there first, or a stale partial copy
                    if (target / ".complete").is_file():
                        shutil.rmtree(tmp, ignore_errors=True)
                    else:
                        shutil.rmtree(target, ignore_errors=True)
                        os.rename(tmp, target)
            _prune(root, keep=12)
        except OSError:
            target = None
    if target is None:
        d = tempfile.mkdtemp(prefix="auv-master-")
        _extract_tmp.append(d)
        if len(_extract_tmp) == 1:
            atexit.register(_cleanup_extracted)
        target = Path(extract(str(path), unzipdir=d))
    _extract_cache[key] = str(target)
    return str(target)


def _prune(root: Path, keep: int, min_age_s: float = 3600.0):
    """Drop the least recently extracted FMUs beyond ``keep`` (each rebuild makes a new one),
    never one extracted in the last hour (another process may be running it), nor leftovers
    of an interrupted extraction younger than that."""
    now = time.time()
    try:
        entries = sorted((p for p in root.iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime, reverse=True)
        done = [p for p in entries if not p.name.startswith(".")]
        stale = done[keep:] + [p for p in entries if p.name.startswith(".")]
        for p in stale:
            if now - p.stat().st_mtime > min_age_s:
                shutil.rmtree(p, ignore_errors=True)
    except OSError:
        pass


# --------------------------------------------------------------------------------------------
# failures
# --------------------------------------------------------------------------------------------


class RunFailure(Exception):
    """The run stopped on an error; ``info`` goes into summary.json under ``failure``."""

    def __init__(self, reason: str, **info):
        super().__init__(reason)
        self.reason = reason
        self.info = info


# --------------------------------------------------------------------------------------------
# FMU log messages
# --------------------------------------------------------------------------------------------


class MessageLog:
    """Collects what the FMUs log through the FMI logger callback. Warnings and errors are kept
    (the last ones per instance, to quote in a failure) and echoed to stderr."""

    def __init__(self, echo: bool = True, keep: int = 200):
        self.echo = echo
        self.keep = keep
        self.messages: list[dict] = []
        self.counts = {"warning": 0, "error": 0}
        self.last: dict[str, list[str]] = {}

        def logger(env, instance, status, category, message):
            try:
                inst = instance.decode("utf-8", "replace") if instance else "?"
                msg = message.decode("utf-8", "replace") if message else ""
                label = _STATUS[status] if 0 <= status < len(_STATUS) else str(status)
                # pythonfmu 0.7.0 follows every Python exception with its own generic fatal
                # message ("Fatal py exception encountered: ... unknown error"); once the FMU
                # has logged why, it adds nothing
                if (status == 4 and msg.startswith("Fatal py exception encountered")
                        and self.last.get(inst)):
                    return
                if status >= 1:
                    self.counts["warning" if status == 1 else "error"] += 1
                    if len(self.messages) < self.keep:
                        self.messages.append({"instance": inst, "status": label, "message": msg})
                    last = self.last.setdefault(inst, [])
                    last.append(msg)
                    del last[:-5]
                    if self.echo:
                        print(f"[{inst}] {label.upper()}: {msg}", file=sys.stderr)
            except Exception:  # never raise into C
                pass

        self._logger = fmi2CallbackLoggerTYPE(logger)
        self.callbacks = fmi2CallbackFunctions()
        self.callbacks.logger = self._logger
        self.callbacks.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
        self.callbacks.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
        try:  # formats printf-style messages natively, like fmpy's own default callbacks
            from fmpy.logging import addLoggerProxy

            addLoggerProxy(byref(self.callbacks))
        except Exception:
            pass


# --------------------------------------------------------------------------------------------
# one instance, prepared for the loop
# --------------------------------------------------------------------------------------------


def _vr_array(vrs):
    return (c_uint * len(vrs))(*vrs)


@dataclass
class _Port:
    """Inputs of one type: where they come from in ``row`` and where they go in the FMU."""

    names: list[str]
    vr: Any
    buf: Any
    view: np.ndarray
    src: np.ndarray
    n_conn: int
    tmp: np.ndarray | None = None

    @property
    def n(self):
        return len(self.names)


@dataclass
class Runtime:
    name: str
    fmu: FMU2Slave
    md: Any
    state: str = "instantiated"  # -> initialised, error, fatal, terminated
    real_out: tuple | None = None  # (vr, n, ctypes view into row)
    int_out: tuple | None = None  # (vr, n, buf, view, a, b)
    bool_out: tuple | None = None
    real_in: _Port | None = None
    int_in: _Port | None = None
    bool_in: _Port | None = None
    conn_names: list[str] = field(default_factory=list)  # connection text per connected Real input


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


class _Interrupt:
    """SIGINT/SIGTERM set a flag the loop checks after every step (a Python-level
    KeyboardInterrupt raised inside an FMU's own Python code would be turned into an FMU error
    by pythonfmu). A second Ctrl-C raises KeyboardInterrupt at once."""

    def __init__(self):
        self.flag = False
        self.signame = None
        self._old = {}

    def _handler(self, signum, frame):
        if self.flag and signum == signal.SIGINT:
            raise KeyboardInterrupt
        self.flag = True
        self.signame = "Ctrl-C (SIGINT)" if signum == signal.SIGINT else signal.Signals(signum).name

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for s in (signal.SIGINT, signal.SIGTERM):
                try:
                    self._old[s] = signal.signal(s, self._handler)
                except (ValueError, OSError):
                    pass
        return self

    def __exit__(self, *exc):
        for s, h in self._old.items():
            try:
                signal.signal(s, h)
            except (ValueError, OSError):
                pass
        return False


def _fmt_time(t: float) -> str:
    return f"{t:.10g}"


def simulate(plan: Plan, csv_path: Path | None, progress: bool | None = None, echo_messages: bool = True,
             t_call: float | None = None) -> Outcome:
    """Run a resolved plan. Never raises for FMU errors: they come back in ``Outcome``."""
    t_call = time.perf_counter() if t_call is None else t_call
    log = MessageLog(echo=echo_messages)
    names = list(plan.instances)

    # ---------------- row layout
    columns = ["time"]
    colmap: dict[str, int] = {}
    out_slices = {}
    for name, ip in plan.instances.items():
        groups = {}
        for typ in ("Real", "Integer", "Boolean"):
            vs = [v for v in ip.outputs if (v.type == typ or (typ == "Integer" and v.type == "Enumeration"))]
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
    ncol = len(columns)
    row = np.zeros(ncol)
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

    recorder = None
    if csv_path is not None:
        int_cols = {f"{n}.{v.name}" for n, ip in plan.instances.items() for v in ip.outputs
                    if v.type in ("Integer", "Boolean", "Enumeration")}
        recorder = CsvRecorder(csv_path, columns, colmap, plan.record, int_cols, expected_rows=plan.n_steps + 1)

    times = np.array(plan.step_times())
    sig_table = np.zeros((len(times), sig_b - sig_a))
    for j, s in enumerate(plan.signals):
        sig_table[:, j] = sigmod.evaluate(s.spec, times, plan.step)
    row[sig_a:sig_b] = sig_table[0]
    row[0] = times[0]

    data_blocks: list[np.ndarray] = []
    runtimes: dict[str, Runtime] = {}
    status, reason, failure = "completed", "", None
    steps_done = 0
    t_now = plan.start_time
    stop_hit = None
    startup_time = stepping_time = 0.0

    pbar = None
    with _Interrupt() as intr:
        try:
            # ---------------- load, instantiate, set parameters, initialise
            for name, ip in plan.instances.items():
                unzip = extract_fmu(ip.fmu_path)
                fmu = FMU2Slave(guid=ip.md.guid, unzipDirectory=unzip,
                                modelIdentifier=ip.md.coSimulation.modelIdentifier, instanceName=name)
                rt = Runtime(name, fmu, ip.md)
                runtimes[name] = rt
                _call(rt, 0.0, "fmi2Instantiate", lambda: fmu.instantiate(callbacks=log.callbacks, loggingOn=True), log)
                _call(rt, plan.start_time, "fmi2SetupExperiment",
                      lambda: fmu.setupExperiment(tolerance=plan.tolerance, startTime=plan.start_time, stopTime=plan.stop_time), log)
                by_type: dict[str, list] = {"Real": [], "Integer": [], "Boolean": [], "String": []}
                for var, val in ip.params:
                    by_type["Integer" if var.type == "Enumeration" else var.type].append((var.vr, val, var.name))
                for typ, items in by_type.items():
                    if not items:
                        continue
                    vrs = [i[0] for i in items]
                    vals = [i[1] for i in items]
                    setter = {"Real": fmu.setReal, "Integer": fmu.setInteger, "Boolean": fmu.setBoolean, "String": fmu.setString}[typ]
                    _call(rt, plan.start_time, f"fmi2Set{typ}", lambda: setter(vrs, vals), log,
                          variable=", ".join(i[2] for i in items) if len(items) < 4 else None)
                _call(rt, plan.start_time, "fmi2EnterInitializationMode", fmu.enterInitializationMode, log)
                _prepare(rt, ip, plan, colmap, out_slices[name], row)

            steppers = {n: _make_stepper(runtimes[n], row, plan.step) for n in names}
            for name in plan.init_order:
                rt = runtimes[name]
                set_inputs, _advance, read_outputs, _step = steppers[name]
                _guard(rt, plan.start_time, "fmi2Set*", set_inputs, log, init=True)
                _call(rt, plan.start_time, "fmi2ExitInitializationMode", rt.fmu.exitInitializationMode, log)
                rt.state = "initialised"
                _guard(rt, plan.start_time, "fmi2Get*", read_outputs, log, init=True)

            data_blocks_append = data_blocks.append
            block_rows = 256
            block = np.empty((block_rows, ncol))
            block[0] = row
            bi = 1
            startup_time = time.perf_counter() - t_call

            # ---------------- the loop
            order = [steppers[n] for n in plan.order]
            order_rt = [runtimes[n] for n in plan.order]
            pairs = list(zip(order_rt, order))
            gs_pairs = [(rt, st[3]) for rt, st in pairs]
            jacobi = plan.algorithm == "jacobi"
            h = plan.step
            n_steps = plan.n_steps
            stops = [(colmap[f"{s.inst}.{s.var.name}"], s.func, s.value, s.after, s.text) for s in plan.stops]
            stop_met = [None] * len(stops)
            eps = 1e-6 * h
            has_sig = sig_b > sig_a
            monotonic = time.monotonic
            last_flush = monotonic()
            show = (sys.stderr.isatty() if progress is None else progress)
            if show:
                try:
                    from tqdm import tqdm

                    cols, rows = shutil.get_terminal_size((80, 24))
                    pbar = tqdm(total=round(plan.stop_time - plan.start_time, 6), unit="s", unit_scale=False, delay=2.0,
                                ncols=cols if cols >= 20 else 80, nrows=rows if rows >= 2 else 24,
                                desc=plan.name, file=sys.stderr, leave=False,
                                bar_format="{desc}: {percentage:3.0f}%|{bar}| {n:.0f}/{total:.0f} s sim [{elapsed}<{remaining}]")
                except Exception:
                    pbar = None
            pb_every = max(1, int(round(1.0 / h)) * 10)
            tlist = times.tolist()
            t_loop = time.perf_counter()
            k = 0
            cur = None
            try:
                for k in range(n_steps):
                    t = tlist[k]
                    if has_sig:
                        row[sig_a:sig_b] = sig_table[k]
                    if jacobi:
                        for cur, (set_inputs, _a, _r, _s) in pairs:
                            set_inputs()
                        for cur, (_i, advance, _r, _s) in pairs:
                            advance(t)
                        for cur, (_i, _a, read_outputs, _s) in pairs:
                            read_outputs()
                    else:
                        for cur, step in gs_pairs:
                            step(t)
                    t_next = tlist[k + 1]
                    row[0] = t_next
                    block[bi] = row
                    bi += 1
                    steps_done = k + 1
                    t_now = t_next
                    if bi == block_rows or monotonic() - last_flush > 1.0:
                        data_blocks_append(block[:bi].copy())
                        if recorder is not None:
                            recorder.write_block(block[:bi])
                        bi = 0
                        last_flush = monotonic()
                    if stops:
                        for j, (col, func, value, after, text) in enumerate(stops):
                            if stop_met[j] is None and func(row[col], value):
                                stop_met[j] = t_next
                            if stop_met[j] is not None and t_next >= stop_met[j] + after - eps:
                                stop_hit = (text, stop_met[j], t_next, after)
                                break
                        if stop_hit:
                            break
                    if intr.flag:
                        raise KeyboardInterrupt
                    if pbar is not None and steps_done % pb_every == 0:
                        pbar.update(pb_every * h)
            except FMICallException as e:
                # the instance being called is `cur`; name the inputs that were not finite
                suspects = []
                if cur is not None and cur.real_in is not None:
                    suspects = [f"{n}={v}" for n, v in zip(cur.real_in.names, cur.real_in.view) if not math.isfinite(v)]
                raise _failure_from(cur, float(times[k]), e.function, e.status, log,
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
                reason = f"stop condition met: {text} at t={_fmt_time(t_met)} s" + (
                    f", ran on {after:g} s to t={_fmt_time(t_end)} s" if after > 0 else "")
            else:
                reason = f"reached stop time {_fmt_time(t_now)} s"
        except RunFailure as e:
            status, reason, failure = "failed", e.reason, e.info
        except FMICallException as e:  # a call outside the guarded ones
            status, reason = "failed", f"{e}"
            failure = {"function": e.function, "status": _STATUS[e.status] if 0 <= e.status < 6 else e.status,
                       "time": t_now}
        except KeyboardInterrupt:
            status = "interrupted"
            what = intr.signame or "Ctrl-C (SIGINT)"
            reason = f"interrupted by {what} at t={_fmt_time(t_now)} s"
            failure = {"time": t_now, "signal": what}
        finally:
            if pbar is not None:
                pbar.close()
            if recorder is not None:
                recorder.close()
            _teardown(runtimes)

    if not startup_time:
        startup_time = time.perf_counter() - t_call
    data = np.vstack(data_blocks) if data_blocks else np.zeros((0, ncol))
    return Outcome(status, reason, steps_done, float(t_now), startup_time, stepping_time, data, columns, colmap,
                   failure, log.messages, log.counts, stop_hit[0] if stop_hit else None)


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------


def _failure_from(rt: Runtime, t: float, function: str, status: int, log: MessageLog, variable: str | None = None,
                  suspects: list[str] | None = None) -> RunFailure:
    label = _STATUS[status] if 0 <= status < len(_STATUS) else f"status {status}"
    rt.state = "fatal" if status >= 4 else "error"
    msgs = log.last.get(rt.name, [])
    # the FMU's own explanation, rather than pythonfmu's generic "Fatal py exception" line
    own = [m for m in msgs if not m.startswith("Fatal py exception encountered")]
    best = own[-1] if own else (msgs[-1] if msgs else None)
    var = variable
    if var is None and suspects:
        var = ", ".join(suspects)
    if var is None and best:
        var = _variable_in(best, rt.md)
    where = f"{rt.name}" + (f".{var}" if var and "," not in var else "")
    reason = f"{where}: {function} returned {label} at t={_fmt_time(t)} s"
    if suspects:
        reason += f" (non-finite input: {', '.join(suspects)})"
    if best:
        reason += f": {best}"
    return RunFailure(reason, instance=rt.name, variable=var, time=t, function=function, status=label, messages=list(msgs))


def _variable_in(message: str, md) -> str | None:
    """The first of the instance's variable names that the message mentions, if any."""
    import re

    best = None
    for v in md.modelVariables:
        m = re.search(r"(?<![\w\[])" + re.escape(v.name) + r"(?![\w\[])", message)
        if m and (best is None or m.start() < best[0] or (m.start() == best[0] and len(v.name) > len(best[1]))):
            best = (m.start(), v.name)
    return best[1] if best else None


def _call(rt: Runtime, t: float, function: str, fn, log: MessageLog, variable: str | None = None):
    try:
        return fn()
    except FMICallException as e:
        raise _failure_from(rt, t, e.function or function, e.status, log, variable) from None
    except RunFailure:
        raise
    except Exception as e:  # fmpy raises plain exceptions for e.g. a failed instantiation
        raise RunFailure(f"{rt.name}: {function} failed at t={_fmt_time(t)} s: {e}", instance=rt.name, time=t,
                         function=function, messages=list(log.last.get(rt.name, []))) from None


def _guard(rt: Runtime, t: float, function: str, fn, log: MessageLog, init: bool = False):
    try:
        fn()
    except FMICallException as e:
        raise _failure_from(rt, t, e.function, e.status, log) from None


def _prepare(rt: Runtime, ip, plan: Plan, colmap: dict, groups: dict, row: np.ndarray):
    """Value-reference arrays, ctypes buffers and index arrays for one instance."""
    real_vs, a, b = groups["Real"]
    if real_vs:
        view = (c_double * len(real_vs)).from_address(row.ctypes.data + 8 * a)
        rt.real_out = (_vr_array([v.vr for v in real_vs]), len(real_vs), view)
    for typ, attr in (("Integer", "int_out"), ("Boolean", "bool_out")):
        vs, a, b = groups[typ]
        if vs:
            buf = (c_int * len(vs))()
            setattr(rt, attr, (_vr_array([v.vr for v in vs]), len(vs), buf, np.ctypeslib.as_array(buf), a, b))

    conns = [c for c in plan.connections if c.dst == ip.name]
    sigs = [s for s in plan.signals if s.inst == ip.name]
    for typ, attr in (("Real", "real_in"), ("Integer", "int_in"), ("Boolean", "bool_in")):
        match = (lambda v: v.type == typ or (typ == "Integer" and v.type == "Enumeration"))
        cs = [c for c in conns if match(c.dst_var)]
        ss = [s for s in sigs if match(s.var)]
        if not cs and not ss:
            continue
        names = [c.dst_var.name for c in cs] + [s.var.name for s in ss]
        vrs = [c.dst_var.vr for c in cs] + [s.var.vr for s in ss]
        src = np.array([colmap[f"{c.src}.{c.src_var.name}"] for c in cs] + [colmap[s.target] for s in ss], dtype=np.intp)
        if typ == "Real":
            buf = (c_double * len(vrs))()
            port = _Port(names, _vr_array(vrs), buf, np.ctypeslib.as_array(buf), src, len(cs))
            rt.conn_names = [c.text for c in cs]
        else:
            buf = (c_int * len(vrs))()
            port = _Port(names, _vr_array(vrs), buf, np.ctypeslib.as_array(buf), src, len(cs), np.zeros(len(vrs)))
        setattr(rt, attr, port)


def _raw_function(fmu: FMU2Slave, name: str):
    """The FMU library's function ``name`` as a ctypes function object *without* argtypes.

    fmpy declares argtypes on its own function objects, and ctypes then converts every
    argument on every call (about 0.3 us per call, and the loop makes a dozen calls per
    step). Called without argtypes, ctypes passes ctypes instances as they are, so every
    argument handed to these objects must already be a ctypes instance of the C type of the
    parameter (c_void_p for the component, arrays for the value references and values,
    c_size_t for a count, c_double for a time, c_int for a boolean): a bare Python int would
    go as a C int, which is wrong for a pointer or a size_t. ``dll[name]`` makes a new
    function object each time; fmpy's, cached as an attribute of the library, is untouched.
    The return value is the fmi2Status (an int), checked as fmpy does."""
    function = fmu.dll[name]
    function.restype = c_int
    return function


def _make_stepper(rt: Runtime, row: np.ndarray, h: float):
    """Closures for one instance, with everything they touch bound once, here:
    ``set_inputs()`` (gather from ``row``, check the connected values, hand them over),
    ``advance(t)`` (fmi2DoStep), ``read_outputs()`` (into ``row``), and ``step(t)``, the three
    in one call, which is what the Gauss-Seidel loop uses.

    The FMU library's functions are called directly through ctypes (see ``_raw_function``),
    without fmpy's per-call wrapper; the status is checked exactly as fmpy does: anything above
    fmi2Warning raises fmpy's ``FMICallException``."""
    comp = c_void_p(rt.fmu.component)
    setReal, setInteger, setBoolean, getReal, getInteger, getBoolean, doStep = (
        _raw_function(rt.fmu, f"fmi2{name}") for name in
        ("SetReal", "SetInteger", "SetBoolean", "GetReal", "GetInteger", "GetBoolean", "DoStep"))
    step_size = c_double(h)
    no_set_fmu_state_prior = c_int(1)  # fmi2True: the master never rolls back
    take = row.take
    isfinite = math.isfinite
    E = FMICallException

    rp = rt.real_in
    has_r = rp is not None
    if has_r:
        r_src, r_view, r_vr, r_buf, r_nc = rp.src, rp.view, rp.vr, rp.buf, rp.n_conn
        r_n = c_size_t(rp.n)
        # The connected values (the first r_nc) are checked before they are handed over: their
        # sum is finite only when every one is. A sum over a memoryview of the buffer costs a
        # fifth of numpy's reduce on a handful of values.
        r_conn = memoryview(r_buf).cast("B").cast("d")[:r_nc]
    else:
        r_src = r_view = r_vr = r_n = r_buf = r_conn = None
        r_nc = 0
    names = rt.conn_names

    def bad_value():
        """The failure for the first non-finite connected value (None if there is none: the
        sum of finite values overflowed)."""
        bad = [i for i in range(r_nc) if not isfinite(r_view[i])]
        if not bad:
            return None
        i = bad[0]
        return RunFailure(
            f"non-finite value {r_view[i]} exchanged on connection {names[i]} at t={_fmt_time(row[0])} s",
            instance=rt.name, variable=rp.names[i], connection=names[i], value=str(r_view[i]), time=float(row[0]),
            source=names[i].split(" -> ")[0])

    ip, bp = rt.int_in, rt.bool_in
    has_i, has_b = ip is not None, bp is not None
    i_args = (ip.src, ip.tmp, ip.view, ip.vr, c_size_t(ip.n), ip.buf) if has_i else None
    b_args = (bp.src, bp.tmp, bp.view, bp.vr, c_size_t(bp.n), bp.buf) if has_b else None

    has_ro = rt.real_out is not None
    if has_ro:
        o_vr, o_n, o_view = rt.real_out
        o_n = c_size_t(o_n)
    io, bo = rt.int_out, rt.bool_out
    has_io, has_bo = io is not None, bo is not None
    io = (io[0], c_size_t(io[1])) + tuple(io[2:]) if has_io else None
    bo = (bo[0], c_size_t(bo[1])) + tuple(bo[2:]) if has_bo else None

    def set_inputs():
        if has_r:
            take(r_src, out=r_view, mode="clip")
            if r_nc and not isfinite(sum(r_conn)):
                failure = bad_value()
                if failure is not None:
                    raise failure
            status = setReal(comp, r_vr, r_n, r_buf)
            if status > 1:
                raise E("fmi2SetReal", status)
        if has_i:
            src, tmp, view, vr, n, buf = i_args
            take(src, out=tmp, mode="clip")
            view[:] = tmp
            status = setInteger(comp, vr, n, buf)
            if status > 1:
                raise E("fmi2SetInteger", status)
        if has_b:
            src, tmp, view, vr, n, buf = b_args
            take(src, out=tmp, mode="clip")
            view[:] = tmp
            status = setBoolean(comp, vr, n, buf)
            if status > 1:
                raise E("fmi2SetBoolean", status)

    def advance(t):
        status = doStep(comp, c_double(t), step_size, no_set_fmu_state_prior)
        if status > 1:
            raise E("fmi2DoStep", status)

    def read_discrete_outputs():
        if has_io:
            vr, n, buf, view, a, b = io
            status = getInteger(comp, vr, n, buf)
            if status > 1:
                raise E("fmi2GetInteger", status)
            row[a:b] = view
        if has_bo:
            vr, n, buf, view, a, b = bo
            status = getBoolean(comp, vr, n, buf)
            if status > 1:
                raise E("fmi2GetBoolean", status)
            row[a:b] = view

    def read_outputs():
        if has_ro:
            status = getReal(comp, o_vr, o_n, o_view)
            if status > 1:
                raise E("fmi2GetReal", status)
        if has_io or has_bo:
            read_discrete_outputs()

    if has_r and not (has_i or has_b):
        # the common case, written out: one Real input block, Real outputs
        def step(t):
            take(r_src, out=r_view, mode="clip")
            if r_nc and not isfinite(sum(r_conn)):
                failure = bad_value()
                if failure is not None:
                    raise failure
            status = setReal(comp, r_vr, r_n, r_buf)
            if status > 1:
                raise E("fmi2SetReal", status)
            status = doStep(comp, c_double(t), step_size, no_set_fmu_state_prior)
            if status > 1:
                raise E("fmi2DoStep", status)
            if has_ro:
                status = getReal(comp, o_vr, o_n, o_view)
                if status > 1:
                    raise E("fmi2GetReal", status)
            if has_io or has_bo:
                read_discrete_outputs()
    else:
        def step(t):
            set_inputs()
            status = doStep(comp, c_double(t), step_size, no_set_fmu_state_prior)
            if status > 1:
                raise E("fmi2DoStep", status)
            read_outputs()

    return set_inputs, advance, read_outputs, step


def _teardown(runtimes: dict[str, Runtime]):
    """Terminate and free every instance the FMI state machine allows us to: after an error
    only fmi2FreeInstance, after a fatal error nothing at all. The shared libraries stay loaded
    (unloading a pythonfmu library inside a Python process is not safe)."""
    fatal_models = {rt.md.coSimulation.modelIdentifier for rt in runtimes.values() if rt.state == "fatal"}
    for rt in runtimes.values():
        if rt.fmu.component is None or rt.md.coSimulation.modelIdentifier in fatal_models:
            continue
        try:
            if rt.state == "initialised":
                rt.fmu.terminate()
        except Exception:
            pass
        try:
            rt.fmu.fmi2FreeInstance(rt.fmu.component)
        except Exception:
            pass
        rt.fmu.component = None
        rt.state = "terminated"
