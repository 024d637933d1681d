"""Campaigns: one scenario run many times over varied parameters and noise seeds, in parallel
on Dask's distributed scheduler (a local cluster of worker processes, or an existing cluster).

    from auv_cosim.campaigns import sweep
    table = sweep("survey", vary={"vehicle.CurrentVelocity[2]": [0.0, 0.2, 0.4]}, seeds=3,
                  workers=2, stop_time=600, out_dir="results/campaigns/current")
    table["status"], table.where(status="failed"), table.out_dir / "campaign.csv"

    auv-cosim sweep survey --vary vehicle.CurrentVelocity[2]=0,0.2,0.4 --seeds 3 --workers 2

How it works (docs/campaigns.md has the user's side):

1. *Plan* (client, no FMU runs): the scenario is loaded and merged once; every run is the base
   scenario with its overrides applied, written as a self-contained resolved scenario
   (``runs/<id>/scenario.yaml``: includes merged, FMU paths relative to the project root) with
   an inputs hash (that text plus the FMU files' sha256). Variable names and value types are
   checked against the FMUs' modelDescription before anything is submitted.
2. *Resume*: a run whose summary.json says it finished with the same inputs hash is not run
   again (campaign_store.finished_summary).
3. *Execute*: each remaining run is one Dask task, ``campaign_worker.execute_run``, which calls
   ``auv_cosim.master.run`` on the run's scenario.yaml; a failure comes back as a status, never as an
   exception, so it does not stop the others. A worker that dies is recorded as ``error``.
4. *Collect*: campaign.csv is rewritten as results arrive (an interrupted campaign leaves a
   table of what is done); at the end the plots are drawn.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import math
import os
import secrets
import sys
import time
from pathlib import Path
from typing import Any

import yaml

from auv_cosim.master import (
    ScenarioError,
    Var,
    build_plan,
    coerce_value,
    display_path,
    expand,
    file_sha256,
    fmu_variables,
    load_scenario,
    resolve_fmu_path,
    suggest,
    write_whole,
)

from .spec import (
    TARGET_RE,
    Campaign,
    CampaignError,
    RunSpec,
    apply_overrides,
    derived_seeds,
    find_scenario_path,
    fmu_text_for,
    is_campaign_file,
    load_campaign_file,
    plan_runs,
)
from .store import CampaignLock, CampaignTable, build_table, finished_summary
from .worker import TOKEN_FILE

EXIT_OK, EXIT_FAILED, EXIT_ERROR, EXIT_INTERRUPTED = 0, 1, 2, 130


# --------------------------------------------------------------------------------------------
# the resolved base scenario and the variables' types
# --------------------------------------------------------------------------------------------


def resolve_base(scenario_path: Path, stop_time: float | None, step: float | None,
                 output_interval: float | None = None) -> tuple[dict, dict[str, Path], str]:
    """The scenario merged into one self-contained mapping: includes merged, ``disconnect``
    already applied to the connections, FMU paths rewritten so that the file runs from any
    folder. Returns (mapping, instance -> FMU path, scenario name)."""
    loaded = load_scenario(scenario_path)
    base = loaded.model.model_dump(mode="json", by_alias=True, exclude_none=True)
    base.pop("include", None)
    base.pop("vehicles", None)   # expanded: their instances are under `instances`
    if not base.get("wakes"):
        base.pop("wakes", None)
    base["disconnect"] = []  # the merged connections already exclude them
    base["connections"] = [c for c, _, _ in loaded.connections]
    base.pop("name", None)
    base = {"name": loaded.name, **base}
    fmus: dict[str, Path] = {}
    problems = []
    for inst, spec in loaded.model.instances.items():
        path, looked = resolve_fmu_path(spec.fmu, loaded.fmu_dirs.get(inst))
        if path is None:
            f, fld = loaded.where("instances", inst, "fmu")
            problems.append((f, fld, f"FMU file not found: {spec.fmu} (looked for "
                                     f"{', '.join(display_path(p) for p in looked)}); build the FMUs with ./build.sh"))
            continue
        fmus[inst] = path
        base["instances"][inst]["fmu"] = fmu_text_for(path)
    if problems:
        raise CampaignError(problems)
    for flag, key, value in (("--stop-time", "stop_time", stop_time), ("--step", "step", step)):
        if value is not None:
            if not (math.isfinite(value) and value > 0):
                raise CampaignError(flag, key, f"must be a positive finite number, got {value}")
            base[key] = float(value)
    if base.get("stop_time") is None:
        raise CampaignError(display_path(scenario_path), "stop_time", "missing: give --stop-time or set it in the scenario")
    if output_interval is not None:   # every run records every k-th step: its scenario says so
        h = float(base.get("step", 0.1))
        k = round(output_interval / h) if math.isfinite(output_interval) and output_interval > 0 else 0
        if k < 1 or abs(output_interval / h - k) > 1e-6 * k:
            raise CampaignError("--output-interval", f"{output_interval:g}", f"must be a whole multiple of the step "
                                                                            f"{h:g} s (it is {output_interval / h:.6g} steps)")
        base["output_interval"] = float(output_interval)
    return base, fmus, loaded.name


def variable_types(fmus: dict[str, Path]) -> dict[str, dict[str, Var]]:
    """instance -> variable name -> its declaration, from the FMU's modelDescription.xml."""
    from fmpy import read_model_description

    out = {}
    cache: dict[Path, dict] = {}
    for inst, path in fmus.items():
        if path not in cache:
            cache[path] = fmu_variables(read_model_description(str(path), validate=False))
        out[inst] = cache[path]
    return out


def type_values(campaign: Campaign, base: dict, types: dict | None,
                seed_others: tuple[str, ...] = ()) -> tuple[dict[str, list], dict[str, Any]]:
    """The varied and fixed values checked and typed against the FMUs' variables, and the
    variables the seeds set (``seed_variable`` and ``seed_others``, see `derived_seeds`)."""
    problems = []

    def check(target: str, values: list, from_text: bool, label: str) -> list | None:
        file, fld = campaign.where.get(target, (label, target))
        m = TARGET_RE.match(target)
        if not m:
            problems.append((file, fld, "expected INSTANCE.VARIABLE or INSTANCE.VARIABLE[i]"))
            return None
        inst, var, idx = m.group(1), m.group(2), m.group(3)
        if inst not in base.get("instances", {}):
            known = ", ".join(base.get("instances", {})) or "none"
            problems.append((file, fld, f"unknown instance '{inst}' (instances: {known})"))
            return None
        if types is None:
            return [coerce_value(v, None, target, from_text, finite=True) for v in values]
        vars_ = types.get(inst, {})
        name = f"{var}[{idx}]" if idx else var
        elems = expand(vars_, name)
        if elems is None and idx is not None:
            whole = expand(vars_, var) or []
            n = len(whole) if whole and whole[0].name != var else 0
            problems.append((file, fld, f"{inst}.{var} has {n} elements ({var}[1] .. {var}[{n}]); there is no element [{idx}]"
                             if n else f"{inst} has no vector '{var}' (no variable {name})"))
            return None
        if elems is None:
            settable = [n for n, v in vars_.items() if v.causality in ("parameter", "input")]
            problems.append((file, fld, f"{inst} has no variable '{name}'{suggest(var, settable)}"))
            return None
        vector = elems[0].name != name
        first = elems[0]
        if first.causality not in ("parameter", "input") or first.variability == "constant":
            problems.append((file, fld, f"{inst}.{first.name} is "
                                        f"{'a constant' if first.variability == 'constant' else 'an ' + first.causality}; "
                                        f"only parameters and inputs can be varied"))
            return None
        out = []
        for v in values:
            if vector:
                if not isinstance(v, list) or len(v) != len(elems):
                    problems.append((file, fld, f"'{var}' is a vector of {len(elems)} elements; each value must be a list "
                                                f"of {len(elems)} (got {v!r}), or vary one element, e.g. {first.name}"))
                    return None
            elif isinstance(v, list):
                problems.append((file, fld, f"{inst}.{name} is a scalar; got a list {v!r}"))
                return None
            try:
                out.append(coerce_value(v, first.type, f"{inst}.{name}", from_text, finite=True))
            except ValueError as e:
                problems.append((file, fld, str(e)))
                return None
        return out

    vary = {}
    for target, values in campaign.vary.items():
        v = check(target, values, target in campaign.text_values, "--vary")
        if v is not None:
            vary[target] = v
    fixed = {}
    for target, value in campaign.fixed.items():
        v = check(target, [value], ("set", target) in campaign.text_values, "--set")
        if v is not None:
            fixed[target] = v[0]
    if campaign.seeds and campaign.seed_variable is None:
        file, fld = campaign.where.get("seeds", ("--seeds", str(campaign.seeds)))
        problems.append((file, fld, f"seeds need a variable to seed, and {display_path(campaign.scenario)} declares "
                                    f"no noise_seed (INSTANCE.VARIABLE, e.g. in its stack); name one with "
                                    f"seed_variable (--seed-variable)"))
    elif campaign.seeds:
        file, fld = campaign.where.get("seeds", ("--seeds", str(campaign.seeds)))
        for sv in (campaign.seed_variable, *seed_others):
            m = TARGET_RE.match(sv)
            if not m or m.group(1) not in base.get("instances", {}):
                problems.append((file, fld, f"seeds vary {sv}, but the scenario has no instance "
                                            f"'{m.group(1) if m else sv}'; set seed_variable (--seed-variable)"))
            elif types is not None:
                t = types.get(m.group(1), {}).get(m.group(2))
                if t is None:
                    problems.append((file, fld, f"seeds vary {sv}, but {m.group(1)} has no variable '{m.group(2)}'"))
                elif t.type != "Integer":
                    problems.append((file, fld, f"seeds vary {sv}, which is a {t.type}, not an Integer"))
            if sv in vary:
                problems.append((file, fld, f"{sv} is also varied explicitly; use --seeds or --vary {sv}=..., not both"))
    if problems:
        raise CampaignError(problems)
    return vary, fixed


# --------------------------------------------------------------------------------------------
# the plan of a campaign
# --------------------------------------------------------------------------------------------


class CampaignPlan:
    """Everything needed to execute or inspect a campaign, before anything runs."""

    def __init__(self, campaign: Campaign, check_types: bool = True):
        base, fmus, scen_name = resolve_base(campaign.scenario, campaign.stop_time, campaign.step,
                                             campaign.output_interval)
        named = base.get("noise_seed") or []
        named = [named] if isinstance(named, str) else list(named)
        if campaign.seed_variable is None and named:
            # the stack's word for which parameter seeds its noise (the scenario's noise_seed;
            # the first vehicle's of several); a copy, so the caller's Campaign stays as it was given
            campaign = dataclasses.replace(
                campaign, seed_variable=named[0],
                where={"seed_variable": (display_path(campaign.scenario), "noise_seed"), **campaign.where})
        self.campaign = campaign
        #: the other vehicles' noise seeds, which each run's seed sets too (`derived_seeds`)
        self.seed_others: tuple[str, ...] = (
            tuple(named[1:]) if campaign.seeds and named and campaign.seed_variable == named[0] else ())
        types = variable_types(fmus) if check_types else None
        vary, fixed = type_values(campaign, base, types, self.seed_others)
        # the scenario with the fixed overrides and the first run's values must be runnable: this
        # checks every override as `run --set` does (an input driven by a connection is refused)
        first = {k: v[0] for k, v in vary.items()}
        if campaign.seeds:
            first[campaign.seed_variable] = 1
            first.update(derived_seeds(1, self.seed_others))
        self._check_base(base, {**fixed, **first}, campaign, stop_time=campaign.stop_time, step=campaign.step)
        if fixed:
            base = apply_overrides(base, fixed)
        self.base = base
        self.vary = vary
        self.fixed = fixed
        self.fmus = fmus
        self.fmu_hashes = {inst: file_sha256(p) for inst, p in fmus.items()}
        self.fmu_texts = {inst: base["instances"][inst]["fmu"] for inst in fmus}
        self.name = campaign.name or scen_name
        self.out_dir = Path(campaign.out) if campaign.out else Path("results") / "campaigns" / self.name
        self.seed_variable = campaign.seed_variable if campaign.seeds else None
        header = (f"# run {{run_id}} of campaign {self.name}: {display_path(campaign.scenario)} with the campaign's\n"
                  f"# overrides applied (includes merged). Runs alone: auv-cosim run <this file>\n")
        self.runs: list[RunSpec] = plan_runs(base, vary, campaign.seeds, campaign.seed_variable, self.fmu_hashes,
                                             header, self.seed_others)

    @staticmethod
    def _check_base(base: dict, overrides: dict, campaign: Campaign, stop_time=None, step=None):

        origins = {t: campaign.where.get(t, ("--vary", t)) for t in overrides}
        if campaign.seeds:
            origins[campaign.seed_variable] = campaign.where.get("seeds", origins.get(campaign.seed_variable))
        loaded = load_scenario(base, overrides=overrides, override_origins={k: v for k, v in origins.items() if v})
        build_plan(loaded, stop_time=stop_time, step=step)

    def run_dir(self, run: RunSpec) -> Path:
        return self.out_dir / "runs" / run.run_id

    def campaign_yaml(self) -> str:
        """The campaign as run, as a campaign file that resumes it from the campaign folder."""
        c = self.campaign
        doc: dict[str, Any] = {"scenario": str(Path(c.scenario).resolve()), "name": self.name}
        if c.description:
            doc["description"] = c.description
        doc["vary"] = self.vary
        if c.seeds:
            doc["seeds"] = c.seeds
            doc["seed_variable"] = c.seed_variable
        if self.fixed:
            doc["set"] = self.fixed
        doc["stop_time"] = self.base["stop_time"]
        if c.step is not None:
            doc["step"] = c.step
        doc["out"] = "."
        if c.run_plots:
            doc["run_plots"] = True
        head = (f"# campaign {self.name}: {len(self.runs)} runs. Resume or extend it with\n"
                f"#   auv-cosim sweep <this file> [--workers K | --scheduler ADDRESS]\n")
        return head + yaml.safe_dump(doc, sort_keys=False, width=120)


# --------------------------------------------------------------------------------------------
# execution
# --------------------------------------------------------------------------------------------


#: what a local worker process imports before its first run, loaded once by the process the
#: workers are forked from (see ``start_worker_forkserver``): Dask's worker, the master's run and
#: the libraries the project's FMUs load from the site packages (numba, lxml through fmpy's
#: validation). Never the FMUs' own packages (auv_cosim.vehicles, auv_cosim.fmu, auv_cosim.vehicles.auv.stack,
#: pythonfmu): each FMU imports its bundled copy, which a module already loaded would replace.
#: Last, ``forkserver_exit``, which makes the forkserver's own exit immediate.
WORKER_PRELOAD = ("distributed", "auv_cosim.campaigns.worker", "auv_cosim.master.runner", "numba", "fmpy.validation",
                  "auv_cosim.campaigns.forkserver_exit")

#: the forkserver of this process: None (not started), "ready" (started for the local cluster
#: about to start), "used". Workers forked from it inherit what this process had when it started
#: (the environment, the module path, the working folder), and Dask changes those while it starts
#: a cluster (the scheduler's scratch folder on the path, the workers' thread limits in the
#: environment): so it serves the first local cluster of the process only (the whole of
#: ``auv-cosim sweep``); later ones (a program calling ``sweep`` again) spawn their workers.
_forkserver = {"state": None}


def _spawn_asked() -> bool:
    return os.environ.get("AUV_CAMPAIGN_WORKER_START", "").strip().lower() == "spawn"


def start_worker_forkserver() -> bool:
    """Start, in the background, the process the local cluster's workers will be forked from
    (multiprocessing's forkserver), importing ``WORKER_PRELOAD`` while this process plans,
    imports Dask and starts the scheduler. Spawned instead (Dask's default), each worker would
    start a new interpreter, import Dask (0.5-0.7 s on the 2-core machine) before it registers
    and the master, numba, ... (0.5 s) in its first run, after the cluster is up. True when the
    forkserver is ready for the next local cluster (``_make_client`` then uses it); False where
    there is none (no ``forkserver`` on this platform, ``AUV_CAMPAIGN_WORKER_START=spawn``, a
    cluster already used it: see ``_forkserver``)."""
    import multiprocessing

    if _spawn_asked() or _forkserver["state"] is not None:
        return _forkserver["state"] == "ready" and not _spawn_asked()
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return False
    from multiprocessing import forkserver

    try:
        forkserver.set_forkserver_preload(list(WORKER_PRELOAD))
        with _sigint_ignored():  # inherited by the forkserver, and by the workers forked from it
            forkserver.ensure_running()
    except (OSError, ValueError, RuntimeError):
        return False
    _forkserver["state"] = "ready"
    return True


@contextlib.contextmanager
def _signal_set(signum: int, handler):
    """``handler`` for ``signum`` within the block, the previous one after it; nothing changes
    outside the main thread (where Python cannot set a handler)."""
    import signal
    import threading

    old = None
    if threading.current_thread() is threading.main_thread():
        try:
            old = signal.signal(signum, handler)
        except (ValueError, OSError):
            old = None
    try:
        yield
    finally:
        if old is not None:
            signal.signal(signum, old)


def _sigint_ignored():
    """SIGINT ignored while processes are started here (they inherit it): Ctrl-C on a terminal
    goes to the whole process group, and only this process should handle it (cancel, write the
    table, shut the cluster down) instead of every worker printing a traceback."""
    import signal

    return _signal_set(signal.SIGINT, signal.SIG_IGN)


def _make_client(workers: int | None, scheduler: str | None, n_todo: int):
    """(client, cluster or None). A local cluster has one single-threaded worker PROCESS per
    worker: pythonfmu FMUs run in the worker's interpreter, and one process cannot step two
    pythonfmu instances of the same model in parallel usefully (the GIL)."""
    try:
        import dask
        from distributed import Client, LocalCluster
    except ImportError as e:
        raise CampaignError("--workers" if scheduler is None else "--scheduler", str(scheduler or workers or ""),
                            f"campaigns run on Dask, which is not installed ({e}); install the project's "
                            f"'campaign' extra: pip install -e '.[campaign]' (./build.sh does)") from None

    if scheduler:
        try:
            # dask's own connect timeout (30 s unless DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT says otherwise)
            return Client(scheduler, timeout=dask.config.get("distributed.comm.timeouts.connect", "30s")), None
        except Exception as e:
            raise CampaignError("--scheduler", scheduler, f"cannot connect to the Dask scheduler: {e}") from None
    k = workers or os.cpu_count() or 1
    k = max(1, min(k, n_todo))
    # The worker processes are started with SIGINT ignored (inherited through exec, or from the
    # forkserver): see _sigint_ignored.
    # A run that kills its worker (a crash inside an FMU) is not retried on the others.
    config = {"distributed.scheduler.allowed-failures": 0}
    if _forkserver["state"] == "ready" and not _spawn_asked():
        config["distributed.worker.multiprocessing-method"] = "forkserver"
        _forkserver["state"] = "used"
    with _sigint_ignored(), dask.config.set(config):
        cluster = LocalCluster(n_workers=k, threads_per_worker=1, processes=True, dashboard_address=":0",
                               silence_logs=logging.ERROR)
        client = Client(cluster)
    return client, cluster


def _progress_bar(total: int, initial: int, name: str, show: bool | None):
    show = sys.stderr.isatty() if show is None else show
    if not show:
        return None
    try:
        import shutil

        from tqdm import tqdm

        # a pseudo-terminal without a size reports 0 x 0, and tqdm then draws nothing at all
        size = shutil.get_terminal_size((100, 24))
        return tqdm(total=total, initial=initial, unit="run", desc=name, file=sys.stderr,
                    ncols=min(size.columns, 120) if size.columns >= 40 else 100,
                    nrows=size.lines if size.lines >= 2 else 24)
    except Exception:
        return None


def execute(plan: CampaignPlan, *, workers: int | None = None, scheduler: str | None = None, client=None,
            retry_failed: bool = False, run_plots: bool = False, progress: bool | None = None,
            plots: bool = True, log=None, force_transfer: bool = False) -> CampaignTable:
    """Run what is missing of a planned campaign and return its table (see :func:`sweep`).
    ``force_transfer`` makes the workers send the run files back even when they see the
    campaign folder (what happens on a cluster without a shared file system; for tests)."""
    out = plan.out_dir
    say = log or (lambda msg: None)
    own_client = client is None
    cluster = None
    if own_client and scheduler:
        # an unreachable scheduler is refused before anything is written
        client, _ = _make_client(workers, scheduler, len(plan.runs))
    try:
        with _campaign_folder(plan) as out, _sigterm_interrupts(), contextlib.ExitStack() as cleanup:
            return _execute_in(plan, out, client, own_client, cluster, workers, scheduler, retry_failed,
                               run_plots, progress, plots, say, force_transfer, cleanup)
    finally:
        if own_client and scheduler and client is not None:
            client.close()


@contextlib.contextmanager
def _campaign_folder(plan: CampaignPlan):
    """The campaign folder, created, checked and locked: an --out that is a file or cannot be
    written, or a folder that holds another campaign (another scenario or name), is refused
    (CampaignError, exit 2) before anything is written into it."""
    out = plan.out_dir
    if out.exists() and not out.is_dir():
        raise CampaignError("--out", display_path(out), "exists and is not a folder")
    previous = out / "campaign.yaml"
    if previous.is_file():
        try:
            doc = yaml.safe_load(previous.read_text(encoding="utf-8")) or {}
        except (OSError, ValueError, yaml.YAMLError):
            doc = None
        if not isinstance(doc, dict):
            raise CampaignError("--out", display_path(out), f"holds a campaign.yaml that cannot be read; "
                                                            f"choose another --out or remove the folder")
        mine = Path(plan.campaign.scenario).resolve()
        theirs = doc.get("scenario")
        if doc.get("name") != plan.name or (theirs and Path(theirs).resolve() != mine):
            raise CampaignError("--out", display_path(out),
                                f"holds campaign {doc.get('name')!r} of {theirs}; this is campaign {plan.name!r} of "
                                f"{display_path(mine)}: choose another --out (a campaign folder is resumed only by "
                                f"the same campaign)")
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / "runs").mkdir(exist_ok=True)
    except OSError as e:
        raise CampaignError("--out", display_path(out), f"cannot create the campaign folder: {e.strerror or e}") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise CampaignError("--out", display_path(out), "the campaign folder is not writable")
    with CampaignLock(out):
        yield out


def _sigterm_interrupts():
    """SIGTERM stops the sweep as Ctrl-C does (runs cancelled, campaign.csv written with the runs
    not done as `interrupted`, the token and the lock removed) instead of killing it on the spot."""
    import signal

    def handler(signum, frame):
        raise KeyboardInterrupt

    return _signal_set(signal.SIGTERM, handler)


def _execute_in(plan, out, client, own_client, cluster, workers, scheduler, retry_failed, run_plots, progress,
                plots, say, force_transfer, cleanup: contextlib.ExitStack) -> CampaignTable:
    write_whole(out / "campaign.yaml", plan.campaign_yaml())
    token = secrets.token_hex(16)
    write_whole(out / TOKEN_FILE, token + "\n")

    states: dict[str, dict] = {}
    todo: list[RunSpec] = []
    for r in plan.runs:
        s = _finished(plan, r, retry_failed)
        if s is not None:
            camp = s.get("campaign", {})
            states[r.run_id] = {"status": s.get("status"), "reason": s.get("reason", ""), "summary": s,
                                "wall_time_s": camp.get("run_wall_time_s"), "worker": camp.get("worker"),
                                "reused": True}
        else:
            todo.append(r)

    def table() -> CampaignTable:
        return build_table(plan.runs, states, out)

    plotter = None
    if todo and own_client and not scheduler:
        start_worker_forkserver()  # importing what the workers need while this process goes on
        if plots:
            from .plots import PlotProcess

            plotter = PlotProcess.start()  # ready to draw when the runs end (None: drawn here then)
            if plotter is not None:
                cleanup.callback(plotter.close)
    table().to_csv(out / "campaign.csv")
    say(f"campaign {plan.name}: {len(plan.runs)} runs, {len(plan.runs) - len(todo)} already finished, "
        f"{len(todo)} to run -> {display_path(out)}")
    interrupted = False
    if todo:
        if own_client and not scheduler:
            client, cluster = _make_client(workers, scheduler, len(todo))
            if plotter is not None:
                plotter.runs_going()  # ready before the last run ends, even with a worker on each core
        where = (f"scheduler {scheduler}" if scheduler else
                 f"local cluster of {len(client.scheduler_info().get('workers', {}))} worker processes"
                 if cluster is not None else "the given Dask client")
        say(f"running on {where}")
        bar = _progress_bar(len(plan.runs), len(plan.runs) - len(todo), plan.name, progress)
        futures = {}
        try:
            from distributed import as_completed

            tag = secrets.token_hex(4)
            for r in todo:
                task = {
                    "run_id": r.run_id, "campaign_name": plan.name, "campaign_dir": str(out.resolve()),
                    "run_dir": str(plan.run_dir(r).resolve()), "token": token, "scenario_text": r.scenario_text,
                    "inputs_hash": r.inputs_hash, "fmu_hashes": plan.fmu_hashes, "fmu_texts": plan.fmu_texts,
                    "values": _jsonable(r.values), "run_plots": run_plots, "force_transfer": force_transfer,
                }
                from .worker import execute_run

                fut = client.submit(execute_run, task, key=f"auv-run-{tag}-{r.index:05d}", pure=False, retries=0)
                futures[fut] = r
            failed = 0
            last_write = 0.0
            for fut in as_completed(list(futures)):
                r = futures[fut]
                try:
                    res = fut.result()
                except Exception as e:  # the worker died (KilledWorker), cancelled, ...
                    res = {"run_id": r.run_id, "status": "error", "summary": None, "worker": None,
                           "reason": f"the run did not return: {type(e).__name__}: {e}", "wall_time_s": None}
                if res.get("files"):
                    _write_run_files(plan.run_dir(r), res["files"])
                states[r.run_id] = {"status": res["status"], "reason": res.get("reason", ""),
                                    "summary": res.get("summary"), "wall_time_s": res.get("wall_time_s"),
                                    "worker": res.get("worker"), "reused": False}
                if res["status"] != "completed":
                    failed += 1
                if bar is not None:
                    bar.update(1)
                    if failed:
                        bar.set_postfix(failed=failed, refresh=False)
                if time.monotonic() - last_write > 2.0:
                    table().to_csv(out / "campaign.csv")
                    last_write = time.monotonic()
        except KeyboardInterrupt:
            interrupted = True
            for fut in futures:
                fut.cancel()
        finally:
            if bar is not None:
                bar.close()
            if own_client and not scheduler:
                try:
                    client.close()
                finally:
                    if cluster is not None:
                        cluster.close()
    for r in plan.runs:
        if r.run_id not in states:
            states[r.run_id] = {"status": "interrupted" if interrupted else "pending",
                                "reason": "the campaign was interrupted before this run finished" if interrupted else ""}
    t = table()
    t.to_csv(out / "campaign.csv")
    t.to_parquet(out / "campaign.parquet")
    if plots:
        try:
            from .plots import make_plots

            t.plots = (plotter.draw(t, out / "plots", plan.seed_variable) if plotter is not None
                       else make_plots(t, out / "plots", plan.seed_variable))
        except Exception as e:  # the table matters more than the pictures
            say(f"warning: campaign plots failed: {type(e).__name__}: {e}")
            t.plots = []
    try:
        (out / TOKEN_FILE).unlink()
    except FileNotFoundError:
        pass
    if interrupted:
        raise KeyboardInterrupt
    return t


def _finished(plan: CampaignPlan, run: RunSpec, retry_failed: bool) -> dict | None:
    """The run's summary when an earlier sweep finished it with the same inputs (the inputs
    hash, which costs a scenario dump, is only worked out for runs that have a summary)."""
    if not (plan.run_dir(run) / "summary.json").is_file():
        return None
    return finished_summary(plan.run_dir(run), run.inputs_hash, retry_failed)


def _write_run_files(run_dir: Path, files: dict[str, bytes]):
    """Files sent back by a worker that does not see the campaign folder; summary.json last,
    so a run is never finished without its results."""
    run_dir.mkdir(parents=True, exist_ok=True)
    for name in sorted(files, key=lambda n: n == "summary.json"):
        if "/" in name or name.startswith("."):
            continue
        write_whole(run_dir / name, files[name])


def _jsonable(values: dict) -> dict:
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in values.items()}


# --------------------------------------------------------------------------------------------
# the Python API
# --------------------------------------------------------------------------------------------


def build_campaign(scenario: str | os.PathLike, vary: dict[str, Any] | None = None, seeds: int | None = None, *,
                   out_dir: str | os.PathLike | None = None, stop_time: float | None = None, step: float | None = None,
                   output_interval: float | None = None,
                   overrides: dict[str, Any] | None = None, seed_variable: str | None = None,
                   workers: int | None = None, scheduler: str | None = None, retry_failed: bool | None = None,
                   run_plots: bool | None = None, name: str | None = None,
                   text_vary: set[str] | None = None, text_set: set[str] | None = None) -> Campaign:
    """A Campaign from a scenario (file or bare name) or a campaign file, with the given
    arguments taking precedence over the campaign file's fields. ``vary`` values may be lists
    or ``{"start", "stop", "num"}`` ranges."""
    p = Path(scenario)
    if is_campaign_file(p):
        c = load_campaign_file(p)
    else:
        path = find_scenario_path(str(scenario), Path.cwd())
        if not path.is_file():
            raise CampaignError(str(scenario), "", f"scenario file not found: {scenario}")
        c = Campaign(scenario=path, vary={})
    for k, v in (vary or {}).items():
        if isinstance(v, dict) and set(v) == {"start", "stop", "num"}:
            from .spec import linspace

            v = linspace(float(v["start"]), float(v["stop"]), int(v["num"]))
        elif not isinstance(v, (list, tuple)):
            v = [v]
        if len(v) == 0:
            raise CampaignError("--vary", k, "no values")
        c.vary[k] = list(v)
        c.where[k] = ("--vary", k)
    for k in text_vary or ():
        c.text_values.add(k)
    for k, v in (overrides or {}).items():
        c.fixed[k] = v
        c.where[k] = ("--set", k)
    for k in text_set or ():
        c.text_values.add(("set", k))
    if seeds is not None:
        if seeds < 1:
            raise CampaignError("--seeds", str(seeds), "the number of seeds must be at least 1")
        c.seeds = seeds
        c.where["seeds"] = ("--seeds", str(seeds))
    if seed_variable is not None:
        c.seed_variable = seed_variable
    if stop_time is not None:
        if stop_time <= 0:
            raise CampaignError("--stop-time", str(stop_time), "must be positive")
        c.stop_time = stop_time
    if step is not None:
        c.step = step
    if output_interval is not None:
        c.output_interval = output_interval
    if out_dir is not None:
        c.out = Path(out_dir)
    if workers is not None and workers < 1:
        raise CampaignError("--workers", str(workers), "the number of worker processes must be at least 1")
    if seeds is not None and seeds > 100_000:
        raise CampaignError("--seeds", str(seeds), "a campaign is limited to 100,000 runs")
    if workers is not None or scheduler is not None:
        c.workers, c.scheduler = workers, scheduler
    if c.workers is not None and c.scheduler is not None:
        raise CampaignError("--workers", str(c.workers), "give either --workers (a local cluster) or --scheduler, not both")
    if retry_failed is not None:
        c.retry_failed = retry_failed
    if run_plots is not None:
        c.run_plots = run_plots
    if name is not None:
        c.name = name
    return c


def sweep(scenario: str | os.PathLike, vary: dict[str, Any] | None = None, seeds: int | None = None, *,
          workers: int | None = None, scheduler: str | None = None, client=None,
          out_dir: str | os.PathLike | None = None, stop_time: float | None = None, step: float | None = None,
          overrides: dict[str, Any] | None = None, seed_variable: str | None = None,
          retry_failed: bool | None = None, run_plots: bool | None = None, progress: bool | None = None,
          plots: bool = True, name: str | None = None, verbose: bool = False,
          text_set: set[str] | None = None) -> CampaignTable:
    """Run a campaign and return its table (one dict per run: run_id, the varied values,
    status, reason, the summary figures ...), also written to ``<out_dir>/campaign.csv``.

    - ``scenario``: a scenario file or bare name (``"survey"``), or a campaign YAML file
      (whose fields the other arguments override);
    - ``vary``: ``{"instance.Variable": [v1, v2, ...]}`` (or ``{"start":, "stop":, "num":}``);
      the runs are the product of the lists, in the order given;
    - ``seeds``: N runs per combination with ``seed_variable`` (default: the scenario's
      ``noise_seed``, ``sensors.Seed`` in the project's stacks) = 1..N;
    - ``workers``: a local Dask cluster of that many worker processes (default: one per CPU);
      ``scheduler``: the address of an existing Dask scheduler; ``client``: a
      ``distributed.Client`` to use as it is;
    - ``overrides``: fixed ``{"instance.Variable": value}`` applied to every run; the targets
      in ``text_set`` have text values, read by the variable's type as ``--set`` reads them;
    - resuming: runs already finished in ``out_dir`` with the same inputs are not run again
      (failed ones neither, unless ``retry_failed``).

    Raises :class:`CampaignError` (a ScenarioError) before anything runs when the campaign or
    its scenario is malformed; failing runs are rows with status ``failed``.
    """
    c = build_campaign(scenario, vary, seeds, out_dir=out_dir, stop_time=stop_time, step=step, overrides=overrides,
                       seed_variable=seed_variable, workers=workers, scheduler=scheduler, retry_failed=retry_failed,
                       run_plots=run_plots, name=name, text_set=text_set)
    plan = CampaignPlan(c)
    return execute(plan, workers=c.workers, scheduler=c.scheduler, client=client, retry_failed=c.retry_failed,
                   run_plots=c.run_plots, progress=progress, plots=plots,
                   log=(lambda m: print(m, file=sys.stderr)) if verbose else None)


# --------------------------------------------------------------------------------------------
# command line: auv-cosim sweep ...
# --------------------------------------------------------------------------------------------
