"""A trial log: the logged commands and the measured motion, on one time base.

A log is a CSV with a header row. The project's own ``results.csv`` is read as it is: each
vehicle input and each measured channel is found under the first of its usual column names
that the file has (the instruments' columns first, then the vehicle's own outputs; see
``auv_cosim/identification/vehicles.py``). Any other CSV is read through a column map, given as
``MODEL_NAME=CSV_COLUMN`` pairs (``--columns time=t,ThrustPower=P_W,north=x_m``) or as a YAML
mapping in a file: the names on the left are the inputs (``ThrustPower``,
``ThrusterCommand[1]``...) and the measured channels (``north``, ``heading``...) of the vehicle.

Timing: a row holds the motion measured at its time and the commands that were applied over the
interval that ended there (the master records a row after each step, with the inputs the
step used). A log whose rows hold the commands applied from their time on is read with
``hold="starting"`` (``--hold starting``): its commands are moved one row later.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np


class LogError(ValueError):
    """A log that cannot be used; the message names the file and the column."""


@dataclass
class TrialLog:
    path: Path
    time: np.ndarray                    # (n,) s, increasing
    inputs: np.ndarray                  # (n, n_inputs): row k was held over [time[k-1], time[k]]
    measured: dict[str, np.ndarray]     # channel -> (n,) values
    columns: dict[str, str] = field(default_factory=dict)  # model name -> the log's column

    def window(self, t0: float, t1: float) -> "TrialLog":
        """The rows with t0 <= time <= t1."""
        k = (self.time >= t0 - 1e-9) & (self.time <= t1 + 1e-9)
        return TrialLog(self.path, self.time[k], self.inputs[k], {c: v[k] for c, v in self.measured.items()},
                        dict(self.columns))


def parse_column_map(text: str | None) -> dict[str, str]:
    """``a=b,c=d`` or a YAML file of such a mapping."""
    if not text:
        return {}
    p = Path(text)
    if p.is_file():
        import yaml

        doc = yaml.safe_load(p.read_text(encoding="utf-8"))
        if not isinstance(doc, dict):
            raise LogError(f"{p}: a column map is a mapping MODEL_NAME: CSV_COLUMN")
        return {str(k): str(v) for k, v in doc.items()}
    out = {}
    for item in text.split(","):
        if not item.strip():
            continue
        if "=" not in item:
            raise LogError(f"--columns: {item!r} is not MODEL_NAME=CSV_COLUMN")
        k, v = item.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def read_log(path: str | Path, adapter, column_map: dict[str, str] | None = None, hold: str = "ending") -> TrialLog:
    """Read a trial log for ``adapter``'s vehicle (its inputs and measured channels)."""
    path = Path(path)
    if not path.is_file():
        raise LogError(f"{path}: no such file")
    with open(path, newline="", encoding="utf-8") as f:
        rows = [r for r in csv.reader(f) if r and not r[0].startswith("#")]
    if len(rows) < 3:
        raise LogError(f"{path}: a header and at least 2 rows are needed (found {len(rows)} line(s))")
    header = [h.strip() for h in rows[0]]
    index = {h: i for i, h in enumerate(header)}
    column_map = dict(column_map or {})

    def number(text: str, col: str, line: int) -> float:
        t = text.strip().lower()
        if t in ("true", "false"):
            return 1.0 if t == "true" else 0.0
        try:
            return float(t)
        except ValueError:
            raise LogError(f"{path}, line {line}, column {col!r}: {text!r} is not a number") from None

    def column(name: str, candidates: list[str], required: bool) -> tuple[np.ndarray | None, str | None]:
        wanted = [column_map[name]] if name in column_map else candidates
        for col in wanted:
            if col in index:
                j = index[col]
                return np.array([number(r[j], col, n + 2) if j < len(r) else math.nan
                                 for n, r in enumerate(rows[1:])], dtype=float), col
        if name in column_map:
            raise LogError(f"{path}: column {column_map[name]!r} (mapped to {name}) is not in the header")
        if required:
            raise LogError(f"{path}: no column for {name} (looked for {', '.join(candidates)}); "
                           f"map one with --columns {name}=COLUMN")
        return None, None

    unknown = set(column_map) - {"time"} - set(adapter.input_names) - set(adapter.channel_names)
    if unknown:
        raise LogError(f"--columns: {', '.join(sorted(unknown))} is neither an input nor a measured channel of the "
                       f"{adapter.name} (inputs {', '.join(adapter.input_names)}; "
                       f"channels {', '.join(adapter.channel_names)})")
    columns = {}
    t, columns["time"] = column("time", ["time", "t"], True)
    if not np.all(np.isfinite(t)) or np.any(np.diff(t) <= 0):
        raise LogError(f"{path}: column {columns['time']!r} must be finite and strictly increasing")
    inputs = np.zeros((len(t), len(adapter.input_names)))
    for j, name in enumerate(adapter.input_names):
        values, col = column(name, adapter.input_columns(name), name in adapter.required_inputs)
        if values is None:
            continue  # an input the log does not drive stays 0 (external forces)
        if not np.all(np.isfinite(values)):
            k = int(np.argmax(~np.isfinite(values)))
            raise LogError(f"{path}: column {col!r} ({name}) is not finite at t = {t[k]:g} s")
        inputs[:, j] = values
        columns[name] = col
    if hold == "starting":
        inputs[1:] = inputs[:-1].copy()
    elif hold != "ending":
        raise LogError(f"hold {hold!r}: 'ending' (the project's results.csv) or 'starting'")
    measured = {}
    for name in adapter.channel_names:
        values, col = column(name, adapter.channel_columns(name), False)
        if values is not None:
            measured[name] = values
            columns[name] = col
    if not measured:
        raise LogError(f"{path}: no measured channel found (looked for {', '.join(adapter.channel_names)})")
    return TrialLog(path, t, inputs, measured, columns)
