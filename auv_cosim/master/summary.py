"""The figures of a run, for summary.json. The master knows no vehicle: what a run's figures
are (distance, energy, mission completion ...), the analyses a scenario can ask for under
``analysis:`` and the plots come from the packages registered through entry points
(``registry.figures()``, ``registry.analyses()``; the AUV's are in ``auv_cosim/vehicles/auv/host/figures.py``). This
module gives them the run (``RunData``) and the helpers every one of them needs."""

from __future__ import annotations

import math
from typing import Any, Protocol

import numpy as np

from . import registry
from .loop import Observer
from .plan import Plan


class RunData:
    """A run as the registered figures, analyses and plots see it: the resolved plan and the
    values of every step, by ``instance.variable`` (``t``: the time of every row)."""

    def __init__(self, plan: Plan, data: np.ndarray, colmap: dict[str, int]):
        self.plan = plan
        self.data = data
        self.colmap = colmap
        self.t = data[:, 0]

    def __contains__(self, name):
        return name in self.colmap

    def get(self, name: str):
        i = self.colmap.get(name)
        return None if i is None else self.data[:, i]


def rounded(x, nd=6):
    """JSON-friendly float, rounded for reading (None for NaN/inf)."""
    if x is None:
        return None
    x = float(x)
    if not math.isfinite(x):
        return None
    return float(f"{x:.{nd}g}")


def stats(x: np.ndarray | None) -> dict | None:
    """mean |x|, rms, max |x| and the sample count over the finite values (None if none)."""
    if x is None or len(x) == 0:
        return None
    x = x[np.isfinite(x)]
    if len(x) == 0:
        return None
    a = np.abs(x)
    return {"mean_abs": rounded(a.mean()), "rms": rounded(np.sqrt(np.mean(x * x))), "max": rounded(a.max()),
            "samples": int(len(x))}


def param(plan: Plan, inst: str, name: str, default=None):
    """The value an instance's parameter had in the run: set by the scenario, else its start
    value, else ``default``."""
    ip = plan.instances.get(inst)
    if ip is None:
        return default
    for var, val in ip.params:
        if var.name == name:
            return val
    v = ip.vars.get(name)
    if v is not None and v.start is not None:
        if v.type == "Real":
            try:
                return float(v.start)
            except ValueError:
                return default
        return v.start
    return default


def empty_figures() -> dict:
    """The figures' keys of every registered contributor, null: a run without figures."""
    out: dict[str, Any] = {}
    for figures in registry.figures().values():
        out.update(figures.empty)
    return out


class Stream(Protocol):
    """Figures made as a run's rows stream past (``RunFigures.stream``, ``Analysis.stream``):
    ``rows(block)`` with every block of rows of the run in order (a view valid for the call:
    copy what is kept), ``result()`` the figures once the run has ended."""

    def rows(self, block: np.ndarray) -> None: ...

    def result(self) -> dict: ...


class KeptRows:
    """The stream of a contributor that has none: every row kept, and ``compute`` given the
    whole run at the end (its memory grows with the run)."""

    def __init__(self, plan: Plan, colmap: dict[str, int], compute):
        self.plan, self.colmap, self.compute = plan, colmap, compute
        self.blocks: list[np.ndarray] = []

    def rows(self, block: np.ndarray) -> None:
        self.blocks.append(block.copy())

    def result(self) -> dict:
        data = np.vstack(self.blocks) if self.blocks else np.zeros((0, max(self.colmap.values(), default=0) + 1))
        return self.compute(RunData(self.plan, data, self.colmap))


class KeptColumns(KeptRows):
    """Like ``KeptRows``, but only the time and the named columns (those the run has) are kept:
    ``compute`` sees a run of those columns alone."""

    def __init__(self, plan: Plan, colmap: dict[str, int], names, compute):
        names = [n for n in dict.fromkeys(names) if n in colmap and n != "time"]
        super().__init__(plan, {"time": 0, **{n: j + 1 for j, n in enumerate(names)}}, compute)
        self.index = np.array([0] + [colmap[n] for n in names], dtype=np.intp)

    def rows(self, block: np.ndarray) -> None:
        self.blocks.append(block[:, self.index])


#: the rows the summary's streams get at a time
BLOCK_ROWS = 4096


class SummaryObserver(Observer):
    """The figures of summary.json, made as the run's rows stream past (an observer of the
    loop): each registered contributor's and each analysis the scenario asks for through its
    ``stream`` (``KeptRows`` for one that has none). What one of them raises never ends the
    run: a contributor's error becomes ``summary_error`` (no figures), an analysis's its
    ``{"error": ...}``, as when the whole table was read at the end."""

    def __init__(self, plan: Plan, colmap: dict[str, int] | None = None):
        self.plan = plan
        self.count = 0   # rows handed to the streams
        self.buffer, self.filled = None, 0
        self.error: str | None = None
        self.figures: list = []
        self.analyses: dict[str, Any] = {}
        if colmap is not None:
            self._open(colmap)

    def start(self, plan: Plan, layout) -> None:
        self._open(layout.colmap)

    def _open(self, colmap: dict[str, int]) -> None:
        plan = self.plan
        try:
            for figures in registry.figures().values():
                stream = figures.stream(plan, colmap) if figures.stream is not None else KeptRows(plan, colmap, figures.compute)
                if stream is not None:
                    self.figures.append(stream)
        except Exception as e:
            self.error, self.figures = f"{type(e).__name__}: {e}", []
        available = registry.analyses()
        for name, opts in plan.model.analysis.items():
            analysis = available[name]
            try:
                self.analyses[name] = (analysis.stream(plan, colmap, opts) if analysis.stream is not None else
                                       KeptRows(plan, colmap, lambda run, a=analysis, o=opts: a.run(run, o)))
            except Exception as e:
                self.analyses[name] = {"error": f"{type(e).__name__}: {e}"}

    def rows(self, block: np.ndarray) -> None:
        """Gathers the rows into blocks of ``BLOCK_ROWS``: the streams then see the same blocks
        whatever the loop's hand-overs were (those depend on the wall clock), and pay their
        per-call costs once for that many rows."""
        n = len(block)
        if not n:
            return
        if self.buffer is None:
            self.buffer = np.empty((BLOCK_ROWS, block.shape[1]))
        done = 0
        while done < n:
            take = min(n - done, BLOCK_ROWS - self.filled)
            self.buffer[self.filled:self.filled + take] = block[done:done + take]
            self.filled += take
            done += take
            if self.filled == BLOCK_ROWS:
                self._feed(self.buffer)
                self.filled = 0

    def _feed(self, block: np.ndarray) -> None:
        self.count += len(block)
        if self.error is None:
            try:
                for stream in self.figures:
                    stream.rows(block)
            except Exception as e:
                self.error, self.figures = f"{type(e).__name__}: {e}", []
        for name, stream in self.analyses.items():
            if not isinstance(stream, dict):
                try:
                    stream.rows(block)
                except Exception as e:
                    self.analyses[name] = {"error": f"{type(e).__name__}: {e}"}

    def result(self) -> dict:
        """The figures' keys (null for a run that never got past its initial state, as
        ``empty_figures``), then ``analysis``."""
        if self.filled:
            self._feed(self.buffer[:self.filled])
            self.filled = 0
        if self.count < 2:
            return empty_figures()
        if self.error is not None:
            return {"summary_error": self.error}
        out: dict[str, Any] = {}
        try:
            for stream in self.figures:
                out.update(stream.result())
        except Exception as e:
            return {"summary_error": f"{type(e).__name__}: {e}"}
        analysis = {}
        for name, stream in self.analyses.items():
            try:
                analysis[name] = stream if isinstance(stream, dict) else stream.result()
            except Exception as e:  # an analysis must never hide the run's own outcome
                analysis[name] = {"error": f"{type(e).__name__}: {e}"}
        if analysis:
            out["analysis"] = analysis
        return out


def build_summary(plan: Plan, data: np.ndarray, colmap: dict[str, int]) -> dict:
    """The figures of a run given as its whole table (one block through the streams)."""
    observer = SummaryObserver(plan, colmap)
    observer._feed(data)
    return observer.result()


def make_plots(plan: Plan, data: np.ndarray, colmap: dict[str, int], out_dir) -> list:
    """The plots of every registered contributor, into ``out_dir``."""
    run = RunData(plan, data, colmap)
    files = []
    for figures in registry.figures().values():
        if figures.plots is not None:
            files += figures.plots(run, out_dir)
    return files


def plot_files() -> tuple[str, ...]:
    """Every file name a registered contributor may plot into a results folder."""
    return tuple(n for figures in registry.figures().values() for n in figures.plot_files)
