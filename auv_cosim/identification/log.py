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
    #: what the fit takes for what the log lacks (an input held at 0, an initial state of 0),
    #: in words: the fit says each (a warning), never fills one in silently
    assumed: list[str] = field(default_factory=list)

    def window(self, t0: float, t1: float) -> "TrialLog":
        """The rows with t0 <= time <= t1."""
        k = (self.time >= t0 - 1e-9) & (self.time <= t1 + 1e-9)
        return TrialLog(self.path, self.time[k], self.inputs[k], {c: v[k] for c, v in self.measured.items()},
                        dict(self.columns), list(self.assumed))


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


#: the longest step a trial log may have (s): the vehicles' fastest motions (the H100's roll and
#: pitch, the AUV's fins) take about a second, so commands held for longer are not a control log;
#: a step of 100 is a time in milliseconds, which an integrator would take hours over
MAX_STEP_S = 1.0
#: how far a step may stray from the log's typical (median) step, relative: each row's commands
#: are held over its own step, so a longer one is commands missing (a hole), a shorter one rows
#: out of their time
STEP_TOLERANCE = 0.01


def check_time(path, col: str, t: np.ndarray, lines: list[int]) -> None:
    """A log's time column: strictly increasing, its median step at most MAX_STEP_S, every step
    within STEP_TOLERANCE of the median (LogError naming the file, the column, the lines and the
    times)."""
    dt = np.diff(t)
    if np.any(dt <= 0):
        k = int(np.argmax(dt <= 0))
        raise LogError(f"{path}, line {lines[k + 1]}, column {col!r}: t = {t[k + 1]:g} s after t = {t[k]:g} s "
                       f"(line {lines[k]}): the time must increase strictly")
    h = float(np.median(dt))
    if h > MAX_STEP_S:
        raise LogError(f"{path}: column {col!r}: the log's step is {h:g} (from {t[0]:g} to {t[-1]:g}); a trial log's "
                       f"step is at most {MAX_STEP_S:g} s: is the time in milliseconds? Give it in seconds")
    off = np.abs(dt - h) > STEP_TOLERANCE * h
    if np.any(off):
        k = int(np.argmax(off))
        what = "rows missing (a hole in the log)" if dt[k] > 1.5 * h else "an uneven step"
        raise LogError(f"{path}, lines {lines[k]}-{lines[k + 1]}, column {col!r}: the step from t = {t[k]:g} s to "
                       f"t = {t[k + 1]:g} s is {dt[k]:g} s where the log's step is {h:g} s: {what}; every step's "
                       f"commands are needed (fit the parts on either side apart, with --start/--stop)")


def check_finite(path, col: str, name: str, values: np.ndarray, t: np.ndarray | None, lines: list[int]) -> None:
    """One rule for every column the fit reads (time, commands, measured channels): its first
    value that is not finite (nan, inf) is refused, naming the file, line, column and time."""
    bad = ~np.isfinite(values)
    if np.any(bad):
        k = int(np.argmax(bad))
        when = f" at t = {t[k]:g} s" if t is not None else ""
        raise LogError(f"{path}, line {lines[k]}, column {col!r} ({name}): {values[k]:g}{when} is not finite; "
                       f"every value the fit reads must be a number (cut a gap out with --start/--stop)")


def read_log(path: str | Path, adapter, column_map: dict[str, str] | None = None, hold: str = "ending") -> TrialLog:
    """Read a trial log for ``adapter``'s vehicle (its inputs and measured channels). Refused
    (LogError naming the file, line, column and time): a row with more or fewer fields than the
    header (a truncated last line), a value that is not a number or not finite in any column
    read, a time that does not increase, an implausible or uneven step, command columns the
    vehicle does not have (``adapter.check_layout``), two columns of the name a value is read
    from. What the log lacks and the fit takes as 0 (an input it does not drive, a channel of
    the initial state) is listed in the log's ``assumed``."""
    path = Path(path)
    if not path.is_file():
        raise LogError(f"{path}: no such file")
    with open(path, newline="", encoding="utf-8") as f:
        numbered = [(n, r) for n, r in enumerate(csv.reader(f), start=1) if r and not r[0].startswith("#")]
    if len(numbered) < 3:
        raise LogError(f"{path}: a header and at least 2 rows are needed (found {len(numbered)} line(s))")
    header = [h.strip() for h in numbered[0][1]]
    for n, r in numbered[1:]:
        if len(r) != len(header):
            last = " (the last line: a truncated write?)" if n == numbered[-1][0] else ""
            raise LogError(f"{path}, line {n}: {len(r)} fields where the header has {len(header)}: a "
                           f"{'truncated' if len(r) < len(header) else 'malformed'} row{last}")
    rows = [r for _, r in numbered[1:]]
    lines = [n for n, _ in numbered[1:]]
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
                places = [i + 1 for i, h in enumerate(header) if h == col]
                if len(places) > 1:
                    raise LogError(f"{path}: {len(places)} columns are named {col!r} (columns "
                                   f"{', '.join(map(str, places))} of the header), which {name} is read from: "
                                   f"which one holds it is not known; rename or remove the others")
                j = index[col]
                return np.array([number(r[j], col, n) for n, r in zip(lines, rows)], dtype=float), col
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
    check_finite(path, columns["time"], "time", t, None, lines)
    check_time(path, columns["time"], t, lines)
    inputs = np.zeros((len(t), len(adapter.input_names)))
    held_at_zero = []
    for j, name in enumerate(adapter.input_names):
        values, col = column(name, adapter.input_columns(name), name in adapter.required_inputs)
        if values is None:
            held_at_zero.append(name)  # an input the log does not drive stays 0 (external forces): said
            continue
        check_finite(path, col, name, values, t, lines)
        inputs[:, j] = values
        columns[name] = col
    adapter.check_layout(path, header, columns)
    if hold == "starting":
        inputs[1:] = inputs[:-1].copy()
    elif hold != "ending":
        raise LogError(f"hold {hold!r}: 'ending' (the project's results.csv) or 'starting'")
    measured = {}
    for name in adapter.channel_names:
        values, col = column(name, adapter.channel_columns(name), False)
        if values is not None:
            check_finite(path, col, name, values, t, lines)
            measured[name] = values
            columns[name] = col
    if not measured:
        raise LogError(f"{path}: no measured channel found (looked for {', '.join(adapter.channel_names)})")
    assumed = []
    if held_at_zero:
        assumed.append(f"{', '.join(held_at_zero)} taken as 0 throughout: {path.name} has no column for "
                       f"{'them' if len(held_at_zero) > 1 else 'it'} (map one with --columns NAME=COLUMN)")
    unknown_start = [c for c in adapter.initial_channels if c not in measured]
    if unknown_start:
        assumed.append(f"the initial {', '.join(unknown_start)} taken as 0: {path.name} has no "
                       f"{'channel' if len(unknown_start) == 1 else 'channels'} for "
                       f"{'it' if len(unknown_start) == 1 else 'them'} (looked for "
                       f"{'; '.join(', '.join(adapter.channel_columns(c)) for c in unknown_start)})")
    return TrialLog(path, t, inputs, measured, columns, assumed)
