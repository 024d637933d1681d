"""The campaign's files: run folders, the resume test, summary figures and campaign.csv.

Layout of a campaign folder::

    OUT/campaign.yaml              the campaign as run (``auv-cosim sweep OUT/campaign.yaml`` resumes it)
    OUT/campaign.csv               one row per run
    OUT/campaign.parquet           the same table as Parquet (when pyarrow is installed: the outputs extra)
    OUT/plots/<figure>.png         summary figures against the varied values
    OUT/runs/<run id>/scenario.yaml           the run's resolved scenario (runs alone with `master run`)
    OUT/runs/<run id>/scenario.resolved.yaml  written by auv_cosim.master.run (the same scenario, re-dumped)
    OUT/runs/<run id>/results.csv, summary.json

A run is *finished* when its summary.json carries a ``campaign`` block (written last, atomically,
by the worker after auv_cosim.master.run returned) whose ``inputs_hash`` is the one planned now, and its
status is ``completed`` or ``failed`` (a failed run fails again with the same inputs; pass
``--retry-failed`` to run those again). Anything else (no summary, an interrupted run, a worker
that died, other inputs) is run again.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import socket
from pathlib import Path
from typing import Any, Iterable

from auv_cosim.master import write_whole

FINISHED_STATUSES = ("completed", "failed")

# summary.json keys that are bookkeeping, not figures of the run
_NOT_FIGURES = {
    "scenario", "scenario_file", "description", "status", "reason", "failure", "started", "stop_time_s",
    "step_s", "steps", "startup_time_s", "stepping_time_s", "real_time_factor", "algorithm", "step_order",
    "init_order", "connections", "signals", "stop_when", "stopped_by", "unconnected_inputs", "fmus",
    "fmu_messages", "files", "rows", "wall_time_s", "plot_error", "campaign", "summary_error",
}
_HEADLINE_DUPES = {"distance_run_m", "energy_used_J", "mission_completed", "depth_error_m", "cross_track_error_m"}


def read_summary(run_dir: Path) -> dict | None:
    try:
        with open(Path(run_dir) / "summary.json", encoding="utf-8") as f:
            s = json.load(f)
        return s if isinstance(s, dict) else None
    except (OSError, ValueError):
        return None


def finished_summary(run_dir: Path, inputs_hash: str, retry_failed: bool = False) -> dict | None:
    """The run's summary when the run is finished with these inputs, else None."""
    s = read_summary(run_dir)
    if not s:
        return None
    camp = s.get("campaign")
    if not isinstance(camp, dict) or camp.get("inputs_hash") != inputs_hash or not camp.get("finished"):
        return None
    status = s.get("status")
    if status not in FINISHED_STATUSES or (retry_failed and status != "completed"):
        return None
    if status == "completed" and not (Path(run_dir) / "results.csv").is_file():
        return None
    return s


# --------------------------------------------------------------------------------------------
# summary figures
# --------------------------------------------------------------------------------------------


def flatten_figures(summary: dict | None) -> dict[str, Any]:
    """The numeric and boolean figures of a summary.json as flat ``a.b.c`` keys (lists of numbers
    as ``key[1]``, ``key[2]`` ...). Bookkeeping (times, files, wiring) is left out; so are the
    per-vehicle and per-controller copies of the headline figures of a run of one vehicle (its
    summary has them at the top too; a run of several has them under each vehicle's name only)."""
    out: dict[str, Any] = {}
    if not summary:
        return out

    def walk(prefix: str, v: Any, depth: int):
        if isinstance(v, bool) or v is None:
            out[prefix] = v
        elif isinstance(v, (int, float)):
            out[prefix] = v
        elif isinstance(v, dict):
            for k, x in v.items():
                if k in ("samples", "warning", "error"):
                    continue
                if depth == 1 and prefix.split(".")[0] in ("vehicles", "controls") and k in _HEADLINE_DUPES \
                        and k in summary:
                    continue
                walk(f"{prefix}.{k}" if prefix else k, x, depth + 1)
        elif isinstance(v, list) and v and all(isinstance(x, (int, float)) and not isinstance(x, bool) or x is None for x in v):
            if len(v) <= 4:
                for i, x in enumerate(v, 1):
                    out[f"{prefix}[{i}]"] = x
        # strings and long lists are not figures

    for k, v in summary.items():
        if k in _NOT_FIGURES:
            continue
        walk(k, v, 0)
    # None-only keys (a figure that does not apply) are kept: the column exists for every run
    return out


def figure_priority(name: str) -> tuple:
    """Order of the figure columns: headline first, then analyses, then per-vehicle, per-control."""
    head = name.split(".")[0].split("[")[0]
    if head in _HEADLINE_DUPES or head == "simulated_time_s":
        group = 0
    elif head == "analysis":
        group = 1
    elif head == "vehicles":
        group = 2
    elif head == "controls":
        group = 3
    else:
        group = 4
    return (group,)


# --------------------------------------------------------------------------------------------
# the table
# --------------------------------------------------------------------------------------------


def table_reason(status: str, reason: str, summary: dict | None) -> str:
    """One line for campaign.csv. For an FMU failure the master's reason quotes the FMU's last
    message, which for a pythonfmu FMU is often the generic "Fatal py exception encountered";
    the FMU's own explanation (logged just before) is put first then."""
    reason = " ".join(str(reason or "").split())
    fail = (summary or {}).get("failure")
    if status == "completed" or not isinstance(fail, dict):
        return reason
    msgs = [" ".join(str(m).split()) for m in fail.get("messages") or []]
    msgs = [m for m in msgs if m and not m.startswith("Fatal py exception")]
    if not msgs or msgs[-1] in reason:
        return reason
    return f"{fail.get('instance', '?')}: {msgs[-1]} ({reason})"


def csv_text(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        return repr(v)
    if isinstance(v, (list, dict)):
        return json.dumps(v, separators=(",", ":"))
    return str(v)


class CampaignTable:
    """The campaign table: one dict per run, in campaign order, and the column order.

    A small pandas-free table: ``len(t)``, ``for row in t``, ``t[3]`` (a row), ``t["status"]``
    (a column as a list), ``t.where(status="failed")``, ``t.to_csv(path)``, ``t.to_parquet(path)``, ``t.rows``,
    ``t.columns``; ``t.out_dir`` is the campaign folder, ``t.varied`` the varied columns and
    ``t.figures`` the summary-figure columns.
    """

    def __init__(self, rows: list[dict], columns: list[str], varied: list[str], figures: list[str],
                 out_dir: Path | None = None):
        self.rows = rows
        self.columns = columns
        self.varied = varied
        self.figures = figures
        self.out_dir = out_dir
        self.plots: list = []  # the PNG files drawn for the campaign

    def __len__(self):
        return len(self.rows)

    def __iter__(self):
        return iter(self.rows)

    def __getitem__(self, key):
        if isinstance(key, str):
            return [r.get(key) for r in self.rows]
        return self.rows[key]

    def where(self, **conds) -> list[dict]:
        return [r for r in self.rows if all(r.get(k) == v for k, v in conds.items())]

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for r in self.rows:
            out[r.get("status") or "?"] = out.get(r.get("status") or "?", 0) + 1
        return out

    @property
    def ok(self) -> bool:
        return all(r.get("status") == "completed" for r in self.rows)

    def to_csv(self, path: str | os.PathLike | None = None) -> str:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(self.columns)
        for r in self.rows:
            w.writerow([csv_text(r.get(c)) for c in self.columns])
        text = buf.getvalue()
        if path is not None:
            write_whole(path, text)
        return text

    def to_parquet(self, path: str | os.PathLike) -> bool:
        """The table as Parquet, the CSV's columns in its order: a column of numbers (Booleans
        apart) as float64, of Booleans as bool, any other as the CSV's text; an empty cell is
        null. False (nothing written) where pyarrow is not installed (the outputs extra)."""
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            return False
        arrays = []
        for c in self.columns:
            values = [r.get(c) for r in self.rows]
            known = [v for v in values if v is not None]
            if known and all(isinstance(v, bool) for v in known):
                arrays.append(pa.array(values, type=pa.bool_()))
            elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in known):
                arrays.append(pa.array([None if v is None else float(v) for v in values], type=pa.float64()))
            else:
                arrays.append(pa.array([None if v is None else csv_text(v) for v in values], type=pa.string()))
        table = pa.Table.from_arrays(arrays, names=list(self.columns))
        write_whole(path, lambda f: pq.write_table(table, f, compression="zstd"))
        return True

    def __repr__(self):
        c = ", ".join(f"{n} {k}" for k, n in sorted(self.counts().items()))
        return f"<CampaignTable {len(self.rows)} runs ({c}) in {self.out_dir}>"


FIRST_COLUMNS = ["run_id"]
STATUS_COLUMNS = ["status", "reason"]
LAST_COLUMNS = ["simulated_time_s", "wall_time_s", "worker", "reused", "run_dir"]


def build_table(runs: Iterable, states: dict[str, dict], out_dir: Path | None) -> CampaignTable:
    """``states[run_id]`` = {"status", "reason", "summary", "wall_time_s", "worker", "reused"}."""
    runs = list(runs)
    varied: list[str] = []
    derived: list[str] = []   # set from the varied values: the other vehicles' seeds
    for r in runs:
        for k in r.values:
            if k not in varied:
                varied.append(k)
        for k in r.derived:
            if k not in derived:
                derived.append(k)
    rows, figure_names = [], []
    for r in runs:
        st = states.get(r.run_id, {})
        summ = st.get("summary")
        status = st.get("status", "pending")
        figs = flatten_figures(summ)
        figs.pop("simulated_time_s", None)
        if status != "completed" and not (summ or {}).get("steps"):
            figs = {k: None for k in figs}  # nothing was simulated: the figures mean nothing
        for k in figs:
            if k not in figure_names:
                figure_names.append(k)
        row = {"run_id": r.run_id}
        for k in varied:
            row[k] = r.values.get(k)
        for k in derived:
            row[k] = r.derived.get(k)
        row["status"] = status
        row["reason"] = table_reason(status, st.get("reason", ""), summ)
        row.update(figs)
        row["simulated_time_s"] = (summ or {}).get("simulated_time_s")
        row["wall_time_s"] = st.get("wall_time_s")
        row["worker"] = st.get("worker")
        row["reused"] = st.get("reused", False)
        row["run_dir"] = f"runs/{r.run_id}"
        rows.append(row)
    figure_names.sort(key=figure_priority)  # stable: keeps the summary's own order per group
    columns = FIRST_COLUMNS + varied + derived + STATUS_COLUMNS + figure_names + LAST_COLUMNS
    rows = [{c: row.get(c) for c in columns} for row in rows]  # every row has every column
    return CampaignTable(rows, columns, varied, figure_names, out_dir)


# --------------------------------------------------------------------------------------------
# a lock per campaign folder (two sweeps writing the same folder would trample each other)
# --------------------------------------------------------------------------------------------


class CampaignLock:
    def __init__(self, out_dir: Path):
        self.path = Path(out_dir) / ".campaign.lock"
        self.held = False

    def acquire(self):
        me = f"{socket.gethostname()} {os.getpid()}"
        for _ in range(2):
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
                with os.fdopen(fd, "w") as f:
                    f.write(me + "\n")
                self.held = True
                return
            except FileExistsError:
                try:
                    host, pid = self.path.read_text().split()
                    pid = int(pid)
                except (OSError, ValueError):
                    host, pid = "", -1
                alive = True
                if host == socket.gethostname():
                    try:
                        os.kill(pid, 0)
                    except ProcessLookupError:
                        alive = False
                    except PermissionError:
                        alive = True
                if alive:
                    from .spec import CampaignError

                    raise CampaignError("--out", str(self.path.parent),
                                        f"another sweep (host {host}, pid {pid}) is writing this campaign folder; "
                                        f"wait for it or remove {self.path} if it is gone") from None
                try:
                    self.path.unlink()
                except FileNotFoundError:
                    pass

    def release(self):
        if self.held:
            try:
                self.path.unlink()
            except FileNotFoundError:
                pass
            self.held = False

    def __enter__(self):
        self.acquire()
        return self

    def __exit__(self, *exc):
        self.release()
        return False
