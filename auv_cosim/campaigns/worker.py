"""What a Dask worker does for one run of a campaign (``execute_run``).

The task is a plain dict, so nothing but this module has to be importable on the worker (with
the project installed in the worker's Python, which it must be anyway: pythonfmu FMUs run in
the worker's own interpreter). The run is exactly ``auv_cosim.master.run(<run dir>/scenario.yaml,
out_dir=<run dir>)``: the same file, the same call as ``auv-cosim run``, so its
results.csv is the one a run alone gives.

Where the files go: when the worker sees the campaign folder (same machine, or a shared file
system; checked with a token file the client writes), it writes the run folder in place.
Otherwise it runs in a temporary folder and sends the files back with its result, and the
client writes them.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import tempfile
import threading
import time
import traceback
from pathlib import Path
from typing import Any

TOKEN_FILE = ".campaign-token"
RUN_SCENARIO = "scenario.yaml"

# how many runs this worker process has executed (tests and the benchmark read it)
_counter = {"runs": 0}
_lock = threading.Lock()


def sees_campaign_dir(campaign_dir: str, token: str) -> bool:
    try:
        return (Path(campaign_dir) / TOKEN_FILE).read_text().strip() == token
    except OSError:
        return False


def _worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _write_json(path: Path, obj: Any):
    from auv_cosim.master import write_whole

    write_whole(path, json.dumps(obj, indent=2, allow_nan=False, default=str) + "\n")


# FMU file name -> sha256 of the build this process has run. pythonfmu FMUs import their slave
# module into the worker's interpreter once; a rebuilt FMU loaded later in the same process
# would run the module already imported, i.e. the old build.
_loaded_builds: dict[str, str] = {}


def check_fmus(work: Path, fmu_texts: dict[str, str], fmu_hashes: dict[str, str]) -> str | None:
    """None when every FMU the scenario names resolves here to the file the client hashed, and
    this process has not run another build of it before."""
    from auv_cosim.master import file_sha256, resolve_fmu_path

    for inst, text in fmu_texts.items():
        path, looked = resolve_fmu_path(text, work)
        if path is None:
            return (f"{inst}: FMU {text} not found on worker {_worker_name()} (looked for "
                    f"{', '.join(str(p) for p in looked)}); build the FMUs there (./build.sh)")
        have = file_sha256(path)
        want = fmu_hashes.get(inst)
        if want and have != want:
            return (f"{inst}: FMU {path} on worker {_worker_name()} differs from the client's "
                    f"(sha256 {have[:12]} != {want[:12]}); rebuild the FMUs from the same sources "
                    f"(or they were rebuilt while the campaign ran)")
        before = _loaded_builds.get(path.name)
        if before is not None and before != have:
            return (f"{inst}: worker {_worker_name()} has already run another build of {path.name} "
                    f"(sha256 {before[:12]}), whose Python modules stay loaded in the process; restart the "
                    f"workers after rebuilding the FMUs (client.restart(), or restart `dask worker`)")
    for inst, text in fmu_texts.items():
        path, _ = resolve_fmu_path(text, work)
        _loaded_builds.setdefault(path.name, file_sha256(path))
    return None


_exit_guard = {"installed": False}
_cleanup = {"registered": False}


def _remove_temporary_fmus_at_exit():
    """A worker forked from the sweep's forkserver (auv_cosim.campaigns.sweep) ends through
    multiprocessing's ``os._exit``, which runs no ``atexit`` handler (the master's removal of
    the FMUs it extracted into temporary folders, when the extraction cache is off, is one) but
    multiprocessing's own finalizers: the removal is registered there too."""
    if _cleanup["registered"]:
        return
    _cleanup["registered"] = True
    import multiprocessing.util

    from auv_cosim.master import cleanup_temporary

    multiprocessing.util.Finalize(None, cleanup_temporary, exitpriority=0)


def _install_exit_guard():
    """Skip the C-level exit handlers of a worker process that ran FMUs in a worker thread.

    Observed with pythonfmu 0.7.0 + scipy 1.x on Linux: a process that ran a co-simulation in
    a thread which has since ended (a Dask worker's executor thread at shutdown) aborts at exit
    with ``free(): corrupted unsorted chunks`` in libgfortran's ``close_units`` (scipy's
    bundled Fortran runtime, run from ``_dl_fini``), after all Python code has finished and all
    files are closed. The results are not affected (tests/campaign compares them byte for byte
    with runs in a fresh process), but every worker would die with SIGABRT and print that line
    when the cluster shuts down. This atexit handler, registered after the interpreter's own,
    runs first: it shuts logging down, flushes stdio, removes the master's extracted FMUs and
    ends the process with ``os._exit``, before the C library's exit handlers.
    """
    if _exit_guard["installed"] or threading.current_thread() is threading.main_thread():
        return
    _exit_guard["installed"] = True
    import atexit
    import logging
    import sys

    def _hard_exit():
        try:
            from auv_cosim.master import cleanup_temporary

            cleanup_temporary()
        except Exception:
            pass
        try:
            logging.shutdown()
        except Exception:
            pass
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        os._exit(0)

    atexit.register(_hard_exit)


def execute_run(task: dict) -> dict:
    """Run one campaign run; never raises for a failing run (it comes back as status 'failed')."""
    t0 = time.perf_counter()
    with _lock:
        _counter["runs"] += 1
    if os.environ.get("AUV_CAMPAIGN_NO_EXIT_GUARD", "") in ("", "0"):
        _install_exit_guard()
    _remove_temporary_fmus_at_exit()
    # A single run formats its CSV in a helper process on the other core; in a campaign the
    # cores are busy with runs already, and the helpers only contend with them (the same bytes
    # either way). Measured (benchmarks/bench_campaign.py): 2-worker speed-up 1.50 with the
    # helpers, 1.83 without.
    os.environ.setdefault("AUV_MASTER_CSV_WRITER", "inline")
    run_dir = Path(task["run_dir"])
    direct = not task.get("force_transfer") and sees_campaign_dir(task["campaign_dir"], task["token"])
    if direct:
        work = run_dir
        work.mkdir(parents=True, exist_ok=True)
        try:  # a run that stops half-way must not look finished afterwards
            (work / "summary.json").unlink()
        except FileNotFoundError:
            pass
    else:
        work = Path(tempfile.mkdtemp(prefix=f"auv-run-{task['run_id'][:40]}-"))
    scen_path = work / RUN_SCENARIO
    scen_path.write_text(task["scenario_text"], encoding="utf-8")

    status, reason, summary, error_trace = "failed", "", None, None
    try:
        problem = check_fmus(work, task.get("fmu_texts", {}), task.get("fmu_hashes", {}))
        if problem:
            reason = problem
        else:
            from auv_cosim.master import run

            result = run(scen_path, out_dir=work, progress=False, plots=task.get("run_plots", False),
                         echo_messages=False, keep_rows=False)
            status, reason = result.status, result.reason
    except Exception as e:  # a scenario error (names the field), or anything else
        from auv_cosim.master import ScenarioError

        reason = str(e) if isinstance(e, ScenarioError) else f"{type(e).__name__}: {e}"
        if not isinstance(e, ScenarioError):
            error_trace = traceback.format_exc(limit=20)
    except SystemExit as e:  # an FMU's Python code calling sys.exit must not end the worker
        reason = f"SystemExit({e.code}) raised during the run"

    from .store import read_summary

    summary = read_summary(work) if status != "failed" or (work / "summary.json").is_file() else None
    if summary is None:
        summary = {"status": status, "reason": reason}
    # auv_cosim.master.run may report its own failure; keep its status and reason
    status = summary.get("status", status)
    reason = summary.get("reason", reason) or reason
    if error_trace:
        summary["traceback"] = error_trace
    wall = time.perf_counter() - t0
    summary["campaign"] = {
        "campaign": task.get("campaign_name"),
        "run_id": task["run_id"],
        "values": task.get("values", {}),
        "inputs_hash": task["inputs_hash"],
        "finished": status in ("completed", "failed"),
        "worker": _worker_name(),
        "run_wall_time_s": round(wall, 3),
    }
    _write_json(work / "summary.json", summary)

    files = None
    if not direct:
        files = {}
        for p in sorted(work.iterdir()):
            if p.is_file():
                files[p.name] = p.read_bytes()
        shutil.rmtree(work, ignore_errors=True)
    return {"run_id": task["run_id"], "status": status, "reason": reason, "summary": summary,
            "worker": _worker_name(), "wall_time_s": round(wall, 3), "files": files}


def runs_executed() -> int:
    """How many runs this process has executed (``client.run(runs_executed)`` on a cluster)."""
    return _counter["runs"]
