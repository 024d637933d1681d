"""``auv_cosim.master.run``: scenario in, results folder out."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from .drawing import drawing_of
from .engine import simulate
from .fmu_cache import FmuArchiveError, extract_fmu
from .loop import Observer
from .output_folder import OutputFolder
from .room import check_room
from .seabed_drawing import summary_entry
from .plan import Plan, build_plan
from .plot_process import PlotProcess
from .scenario import (
    find_scenario,
    LoadedScenario,
    ScenarioError,
    display_path,
    load_scenario,
    resolve_fmu_path,
)
from .summary import SummaryObserver, make_plots, plot_files

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_SCENARIO = 2
EXIT_INTERRUPTED = 130

#: the most rows the plots of a run keep when its rows are not kept otherwise (run's keep_rows):
#: a longer run's plots draw every second, fourth ... row (loop.RowKeeper), 2**17 rows = 3.6 h
#: at 0.1 s, about 80 MB of the survey stack's 74 columns
PLOT_ROWS = 2 ** 17

OWN_FILES = ("results.csv", "summary.json", "scenario.resolved.yaml")  # and the registered plot files
# written into a run's folder afterwards (`run --view`, `view`): an earlier run's goes with it
LATER_FILES = ("view.html",)


@dataclass
class RunResult:
    status: str  # completed | failed | interrupted
    reason: str
    out_dir: Path
    results_csv: Path | None   # None: nothing written (it ended before its first step; summary['kept'])
    summary_path: Path | None
    summary: dict
    plots: list[Path] = field(default_factory=list)
    data: np.ndarray | None = None  # every value of every step: time, all outputs, signals (None: not kept)
    colmap: dict[str, int] = field(default_factory=dict)
    rows: int = 0  # the communication points of the run, the initial one included

    @property
    def ok(self) -> bool:
        return self.status == "completed"

    @property
    def exit_code(self) -> int:
        return {"completed": EXIT_OK, "interrupted": EXIT_INTERRUPTED}.get(self.status, EXIT_FAILED)

    def column(self, name: str) -> np.ndarray:
        """The values of ``instance.variable`` (or ``time``) at every recorded step."""
        if self.data is None:
            raise ValueError("the rows of this run were not kept (run(..., keep_rows=False)); read its results.csv")
        if name == "time":
            return self.data[:, 0]
        return self.data[:, self.colmap[name]]


def _connections_doc(plan: Plan) -> dict:
    """The connections by what their destination reads (docs/master.md)."""
    return {
        "same_step": [c.text for c in plan.connections if c.kind == "forward"],
        "previous_step": [c.text for c in plan.connections if c.kind != "forward"],
    }


def run(scenario: str | os.PathLike | dict, out_dir: str | os.PathLike | None = None, stop_time: float | None = None,
        step: float | None = None, overrides: dict[str, Any] | None = None, progress: bool | None = None,
        plots: bool | None = None, echo_messages: bool = True, observers: tuple = (), pacer=None,
        loop: str | None = None, keep_rows: bool = True, output_interval: float | None = None,
        derived: tuple[str, ...] = ()) -> RunResult:
    """Run a scenario (a path, a bare scenario name, or an already loaded mapping).

    Raises :class:`ScenarioError` (before anything runs) for a malformed scenario or a missing
    FMU. Anything that goes wrong during the run is returned in the result (``status``,
    ``reason``; ``summary['failure']``), after every row computed so far has been written.
    ``observers`` (``Observer``) see every communication point (one with an ``into_folder(out)``
    method is told the run's folder, locked, before it starts; its ``summary_file``, a (key,
    path), is listed in summary.json's ``files``), ``pacer`` (``Pacer``) decides
    when the loop steps on, ``loop`` chooses its backend ("c", "python"; default the C loop
    when it is available): see docs/master.md, "The loop". ``keep_rows``: every row kept in
    memory for ``RunResult.data``; without (``auv-cosim run``, a campaign's runs), the run's
    memory does not grow with its length: summary.json's figures are made as the rows stream
    past, and the plots keep at most ``PLOT_ROWS`` rows (thinned evenly beyond).
    ``output_interval``: record every k-th step (seconds, a multiple of the step; the
    scenario's ``output_interval`` otherwise): results.csv and the other formats get every
    k-th point and the last, summary.json's figures and the plots are made of every step. A run
    whose results will not fit on the disk of its folder is refused (``room.check_room``).
    ``derived``: names of files that other commands make from a run's results in its folder
    (``auv-cosim export``'s formats): an earlier run's go with it when this run is accepted.
    """
    t_call = time.perf_counter()
    wall0 = time.time()
    if isinstance(scenario, LoadedScenario):
        if overrides:
            raise ValueError("overrides apply while loading; pass the scenario file or mapping instead")
        source, loaded = scenario.file, scenario
    else:
        source = scenario if isinstance(scenario, dict) else find_scenario(scenario)
        loaded = load_scenario(source, overrides)
    plan = build_plan(loaded, stop_time=stop_time, step=step, output_interval=output_interval)
    if pacer is not None and callable(getattr(pacer, "check", None)):
        pacer.check(plan)   # a factor whose waits cannot be slept is refused before anything is written
    for warning in plan.warnings:
        print(f"warning: {warning}", file=sys.stderr)

    out = Path(out_dir) if out_dir is not None else Path("results") / plan.name
    folder = OutputFolder(out, OWN_FILES + LATER_FILES + plot_files(), plan.input_files, tuple(derived))
    check_room(plan, out, sum(bool(getattr(o, "records", False)) for o in observers), tuple(folder.earlier_files()))
    # every FMU is readable (a corrupt one is refused here, before anything is written)
    prepare_fmus(plan)
    want_plots = plan.model.plots if plots is None else plots
    # forked now, before the FMUs start: it imports what the plots need while the run steps
    plotter = PlotProcess.start(plan) if want_plots else None
    try:
        with folder as lock, _DeferredSignals() as deferred:
            stepping = {"progress": progress, "echo_messages": echo_messages, "t_call": t_call,
                        "observers": tuple(observers), "pacer": pacer, "loop": loop,
                        "keep_rows": True if keep_rows else (PLOT_ROWS if want_plots else False)}
            return _run_into(plan, loaded, source, out, lock, deferred, want_plots, plotter, stepping, wall0)
    finally:
        if plotter is not None:
            plotter.close()  # nothing drawn (a failed start, no rows), or abandoned: it ends here


def _run_into(plan, loaded, source, out: Path, lock, deferred, want_plots, plotter, stepping: dict, wall0):
    resolved = loaded.model.model_dump(mode="json", by_alias=True, exclude_none=True)
    # the includes are merged and their `disconnect` applied already: the connections listed
    # are those the run made, and the file runs again as it is
    resolved.pop("include", None)
    resolved.pop("vehicles", None)   # expanded: their instances are under `instances`
    if not resolved.get("wakes"):
        resolved.pop("wakes", None)
    resolved.pop("disconnect", None)
    resolved["stop_time"] = plan.stop_time
    resolved["step"] = plan.step
    for name, ip in plan.instances.items():  # the start values as the run read them (typed)
        resolved["instances"][name]["parameters"] = dict(ip.start_values)
        # an FMU named relative to the file that declared it is found from the results folder
        # too: as written when that finds the same file, else by its absolute path
        if resolve_fmu_path(resolved["instances"][name]["fmu"], None)[0] != ip.fmu_path:
            resolved["instances"][name]["fmu"] = str(ip.fmu_path)
    resolved_text = (f"# {plan.name}: the scenario as run (includes merged, overrides applied)\n"
                     + yaml.safe_dump(resolved, sort_keys=False, width=120))
    lock.write("scenario.resolved.yaml", resolved_text)

    for observer in stepping["observers"]:   # an observer that writes files of the run writes them here
        if callable(getattr(observer, "into_folder", None)):
            observer.into_folder(lock.folder)
    figures_of = SummaryObserver(plan)   # summary.json's figures, made as the rows stream past
    observers = (_Accept(lock), figures_of, *stepping["observers"])
    outcome = simulate(plan, lock.folder / "results.csv", **{**stepping, "observers": observers})
    csv_path = out / "results.csv"
    t_call = stepping["t_call"]
    refusal = refused_start_value(plan, outcome)
    if refusal is not None:  # nothing ran: the folder is left as it was
        raise refusal
    if not lock.committed and (outcome.status == "completed" or not lock.holds_earlier_run()):
        lock.commit()   # a run of no steps, or one that failed at its start with no earlier run to lose

    simulated = outcome.time - plan.start_time
    summary: dict[str, Any] = {
        "scenario": plan.name,
        "scenario_file": display_path(loaded.file) if not isinstance(source, dict) else None,
        "description": loaded.model.description,
        "status": outcome.status,
        "reason": outcome.reason,
    }
    if outcome.failure:
        summary["failure"] = outcome.failure
    summary.update({
        "started": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(wall0)),
        "simulated_time_s": round(simulated, 9),
        "stop_time_s": plan.stop_time,
        "step_s": plan.step,
        "steps": outcome.steps_done,
        "startup_time_s": round(outcome.startup_time, 4),
        "stepping_time_s": round(outcome.stepping_time, 4),
        "real_time_factor": round(simulated / outcome.stepping_time, 2) if outcome.stepping_time > 0 else None,
    })
    summary.update(figures_of.result())   # empty figures for a run that never got past its initial state
    pacer = stepping["pacer"]
    if pacer is not None and callable(getattr(pacer, "summary", None)):
        summary["realtime"] = pacer.summary()
    summary["algorithm"] = plan.algorithm
    summary["step_order"] = plan.order
    summary["init_order"] = plan.init_order
    summary["connections"] = _connections_doc(plan)
    if plan.signals:
        from .signals import describe

        summary["signals"] = {s.target: describe(s.spec) for s in plan.signals}
    if plan.stops:
        summary["stop_when"] = [s.text + (f" (+{s.after:g} s)" if s.after else "") for s in plan.stops]
        summary["stopped_by"] = outcome.stop_condition
    if plan.unconnected_inputs:
        summary["unconnected_inputs"] = plan.unconnected_inputs
    if plan.warnings:
        summary["warnings"] = list(plan.warnings)
    summary["fmus"] = {n: display_path(ip.fmu_path) for n, ip in plan.instances.items()}
    summary["drawings"] = {n: d.as_dict() for n, d in ((n, drawing_of(ip)) for n, ip in plan.instances.items())
                           if d is not None}   # how each instance is drawn (auv-cosim view reads it)
    seabeds = summary_entry(plan)   # the grids read, as absolute paths (the view and export draw them)
    if seabeds:
        summary["seabeds"] = seabeds
    summary["fmu_messages"] = {"warnings": outcome.message_counts["warning"], "errors": outcome.message_counts["error"],
                               "first": outcome.messages[:20]}

    plot_paths: list[Path] = []
    if want_plots and outcome.rows >= 2 and not deferred.signame and lock.committed:
        try:
            with deferred.interruptible():
                if plotter is not None:
                    plot_paths = plotter.draw(outcome.data, outcome.colmap, out)
                else:
                    plot_paths = make_plots(plan, outcome.data, outcome.colmap, out)
        except KeyboardInterrupt:
            summary["plot_error"] = f"interrupted by {deferred.signame or 'Ctrl-C (SIGINT)'} while drawing the plots"
        except Exception as e:
            summary["plot_error"] = f"{type(e).__name__}: {e}"
    if deferred.signame and summary["status"] == "completed":
        # the simulation had finished; the user asked to stop during the summary or the plots
        status = summary["status"] = "interrupted"
        reason = summary["reason"] = (f"interrupted by {deferred.signame} after the simulation had finished "
                                      f"({outcome.reason}); summary written, plots may be missing")
    else:
        status, reason = outcome.status, outcome.reason
    summary["files"] = _files_of(lock, plot_paths, stepping["observers"])
    summary["rows"] = int(outcome.recorded)   # the rows of results.csv
    if plan.output_every > 1:
        summary["output_interval_s"] = round(plan.output_every * plan.step, 9)
    summary["wall_time_s"] = round(time.perf_counter() - t_call, 4)
    every_row = outcome.data if stepping["keep_rows"] is True else None   # not the plots' thinned rows
    if not lock.committed:   # failed or interrupted before its first step: the earlier run stays
        summary["kept"] = (f"nothing written: the run ended before its first step; {display_path(out)} keeps "
                           f"the earlier run's results")
        return RunResult(status, reason, out, None, None, summary, [], every_row, outcome.colmap, outcome.rows)
    try:
        lock.write("summary.json", json.dumps(_clean(summary), indent=2, allow_nan=False, default=_json_default) + "\n")
    except OSError as e:   # the disk is full even after results.csv was cut back to its whole rows
        print(f"error: summary.json not written: {e.strerror or e}", file=sys.stderr)
    return RunResult(status, reason, out, csv_path, out / "summary.json", summary, plot_paths,
                     every_row, outcome.colmap, outcome.rows)


def _files_of(lock: OutputFolder, plot_paths: list[Path], observers) -> dict:
    """summary.json's ``files``: results.csv, summary.json, the plots and each observer's file,
    where they are once the run is accepted."""
    out = lock.out
    files = {"results": display_path(out / "results.csv"), "summary": display_path(out / "summary.json"),
             "plots": [display_path(p) for p in plot_paths]}
    for observer in observers:
        named = getattr(observer, "summary_file", None)
        if named:
            files[named[0]] = display_path(lock.final(named[1]))
    return files


class _Accept(Observer):
    """Accepts the run into its folder (``OutputFolder.commit``) when its first step is made:
    the first rows handed over beyond the initial point."""

    def __init__(self, folder: OutputFolder):
        self.folder = folder
        self.seen = 0

    def rows(self, block: np.ndarray) -> None:
        self.seen += len(block)
        if self.seen > 1 and not self.folder.committed:
            self.folder.commit()


#: the calls that set an instance's start values and take them in (a value refused there is an
#: input refused, not a run failed)
INITIALISATION_CALLS = ("fmi2SetReal", "fmi2SetInteger", "fmi2SetBoolean", "fmi2SetString",
                        "fmi2EnterInitializationMode", "fmi2ExitInitializationMode")


def refused_start_value(plan: Plan, outcome) -> ScenarioError | None:
    """A run that failed before its first step because an FMU refused one of its parameters or
    inputs (the FMU's message names it: ``parameter ThrusterDir[1,1] = 1e+200 is ...``) is a
    refused input, as a value the plan refuses is: the ScenarioError names the file and field
    that set the value (the instance's FMU when the scenario left it at the FMU's default) and
    quotes the FMU. None for any other outcome."""
    failure = outcome.failure or {}
    ip = plan.instances.get(failure.get("instance"))
    variable = failure.get("variable")
    if (outcome.status != "failed" or outcome.steps_done or ip is None or not variable or ", " in variable
            or failure.get("function") not in INITIALISATION_CALLS):
        return None
    base = variable.split("[", 1)[0]
    named = [v for v in ip.vars.values() if v.name == variable or v.name.split("[", 1)[0] == base]
    if not named or not all(v.causality in ("parameter", "input") for v in named):
        return None
    set_here = [v.name for v in named if v.name in ip.param_where]
    exact = variable if variable in ip.param_where else (set_here[0] if set_here else None)
    file, fld = (ip.param_where[exact] if exact else
                 plan.loaded.where("instances", ip.name, "fmu"))
    said = next((m for m in reversed(failure.get("messages") or []) if variable in m), None)
    default = "" if exact else " (the FMU's own value: the scenario does not set it)"
    return ScenarioError(file, fld, f"{ip.name}.{variable}{default} refused by the FMU at initialisation"
                                    + (f": {said}" if said else f" ({outcome.reason})"))


def prepare_fmus(plan: Plan) -> None:
    """Extract every FMU of the plan (into the FMU cache) before anything is written: an FMU
    that cannot be unpacked (a corrupt zip, a CRC error) is refused as a ScenarioError naming
    it and the field that names it."""
    problems = []
    for name, ip in plan.instances.items():
        try:
            extract_fmu(ip.fmu_path)
        except FmuArchiveError as e:
            problems.append((*plan.loaded.where("instances", name, "fmu"), str(e)))
    if problems:
        raise ScenarioError(problems)


class _DeferredSignals:
    """Ctrl-C and SIGTERM after the simulation (while the summary and the plots are made) must
    not lose summary.json: the signal is noted, the plots (the only slow part) are abandoned and
    the summary is still written, as ``interrupted``. During the simulation the engine's own
    handler takes over (it stops after the step in progress)."""

    def __init__(self):
        self.signame: str | None = None
        self._old: dict = {}
        self._raise = False

    def _handler(self, signum, frame):
        self.signame = "Ctrl-C (SIGINT)" if signum == signal.SIGINT else signal.Signals(signum).name
        if self._raise:
            self._raise = False
            raise KeyboardInterrupt

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                try:
                    self._old[sig] = signal.signal(sig, self._handler)
                except (ValueError, OSError):
                    pass
        return self

    @contextlib.contextmanager
    def interruptible(self):
        """Inside, a signal raises KeyboardInterrupt (to abandon the plots)."""
        self._raise = True
        try:
            yield
        finally:
            self._raise = False

    def __exit__(self, *exc):
        for sig, h in self._old.items():
            try:
                signal.signal(sig, h)
            except (ValueError, OSError):
                pass
        return False


def _json_default(o):
    if isinstance(o, (np.floating,)):
        return float(o)
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.bool_,)):
        return bool(o)
    if isinstance(o, Path):
        return str(o)
    return str(o)


def _clean(o):
    """NaN and infinities become null, so summary.json is strict JSON."""
    if isinstance(o, dict):
        return {k: _clean(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_clean(v) for v in o]
    if isinstance(o, (float, np.floating)):
        return float(o) if np.isfinite(o) else None
    return o
