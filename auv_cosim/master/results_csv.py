"""A run's results.csv read back (``export``, ``view``): its header and its rows as float64.

A run writes each row whole, ending with a line end; a file whose last line has none was cut
while that row was written (the run was killed, the disk filled, the file was copied while the
run went on). That partial row is dropped with a warning naming the file and its line: a
number cut in the middle is not a value, and the columns after it are not NaN but missing. A
row with another number of fields than the header anywhere else is refused, naming its line.
Cells other than numbers read as ``true``/``false`` (1/0) or NaN, as the 3-D view always read
them.

The common case, a complete file of numbers, goes through numpy's C reader (``np.loadtxt``).
"""

from __future__ import annotations

import csv
import io
import math
import sys
import warnings
from pathlib import Path

import numpy as np


class ResultsFileError(ValueError):
    """results.csv cannot be read as a run's table (the message names the file and line)."""


def read_results_csv(path: Path, warn=None) -> tuple[list[str], np.ndarray]:
    """(header, rows) of ``path``; ``warn`` (default: a ``warning:`` line on stderr) is told
    of a cut last line dropped. Raises ResultsFileError, or OSError when the file cannot be
    read."""
    path = Path(path)
    if warn is None:
        warn = lambda text: print(f"warning: {text}", file=sys.stderr)  # noqa: E731
    with open(path, "rb") as f:
        head = f.readline()
        if not head:
            raise ResultsFileError(f"{path}: empty file")
        try:
            header = head.decode("utf-8").rstrip("\r\n").split(",")
        except UnicodeDecodeError as e:
            raise ResultsFileError(f"{path}: not a text file in UTF-8 (byte 0x{e.object[e.start]:02x} at offset "
                                   f"{e.start}); a run's results.csv is text") from None
        if not head.endswith(b"\n"):
            raise ResultsFileError(f"{path}: the header (line 1) is cut: no line end")
        if header[0] != "time":
            raise ResultsFileError(f"{path}: the first column must be 'time' (found {header[:1]})")
        twice = [h for h in dict.fromkeys(header) if header.count(h) > 1]
        if twice:
            places = [i + 1 for i, h in enumerate(header) if h == twice[0]]
            raise ResultsFileError(f"{path}: {len(places)} columns are named {twice[0]!r} (columns "
                                   f"{', '.join(map(str, places))}): which one holds the variable is not known; "
                                   f"a run's results.csv names each column once")
        body_start = f.tell()
        end = f.seek(0, io.SEEK_END)
        complete = _complete_end(f, body_start, end)
        if complete < end:
            line = 2 + _count_lines(f, body_start, complete)
            warn(f"{path}, line {line}: the last row is cut (no line end: the run stopped while writing it, or the "
                 f"file was copied while it ran); dropped, {line - 2} complete row(s) read")
        f.seek(body_start)
        body = f.read(complete - body_start) if complete < end else None
    try:
        text = io.StringIO(body.decode("utf-8")) if body is not None else open(path, encoding="utf-8")
    except UnicodeDecodeError as e:
        raise ResultsFileError(f"{path}: not a text file in UTF-8 (byte 0x{e.object[e.start]:02x} in its rows)") from None
    with text:
        if body is None:
            text.readline()
        start = text.tell()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")   # numpy's "input contained no data": 0 rows is the caller's to say
                rows = np.loadtxt(text, delimiter=",", ndmin=2, dtype=np.float64)
            if rows.size == 0:
                rows = np.zeros((0, len(header)))
            if rows.shape[1] == len(header):
                return header, rows
        except (ValueError, UnicodeDecodeError):
            pass
        text.seek(start)
        return header, _read_slowly(path, text, header)


def _complete_end(f, start: int, end: int) -> int:
    """The offset just after the last line end at or after ``start`` (``start`` when none)."""
    if end <= start:
        return start
    f.seek(end - 1)
    if f.read(1) == b"\n":
        return end
    pos = end
    while pos > start:
        size = min(1 << 16, pos - start)
        pos -= size
        f.seek(pos)
        chunk = f.read(size)
        cut = chunk.rfind(b"\n")
        if cut >= 0:
            return pos + cut + 1
    return start


def _count_lines(f, start: int, end: int) -> int:
    f.seek(start)
    count, left = 0, end - start
    while left > 0:
        chunk = f.read(min(1 << 20, left))
        count += chunk.count(b"\n")
        left -= len(chunk)
    return count


def _read_slowly(path: Path, text, header: list[str]) -> np.ndarray:
    """Row by row: true/false as 1/0, other text as NaN; a row of another width refused."""
    def number(cell: str) -> float:
        t = cell.strip().lower()
        if t in ("true", "false"):
            return 1.0 if t == "true" else 0.0
        try:
            return float(t)
        except ValueError:
            return math.nan

    rows = []
    try:
        for n, r in enumerate(csv.reader(text), start=2):
            if not r:
                continue
            if len(r) != len(header):
                raise ResultsFileError(f"{path}, line {n}: {len(r)} fields where the header has {len(header)}")
            rows.append([number(x) for x in r])
    except csv.Error as e:
        raise ResultsFileError(f"{path}: not a CSV table ({e})") from None
    except UnicodeDecodeError as e:
        raise ResultsFileError(f"{path}: not a text file in UTF-8 (byte 0x{e.object[e.start]:02x})") from None
    return np.array(rows, dtype=float).reshape(len(rows), len(header))
