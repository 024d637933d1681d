"""PNG plots of a campaign: each summary figure against each varied variable.

One file per varied variable, ``plots/vs_<variable>.png``, with one panel per summary figure
that changes across the runs (the headline figures first, at most ``max_panels``). When other
variables are varied too, each combination of their values is one line (up to 8 lines; beyond
that the points are only scattered); the seeds of one combination are drawn as points and their
mean as the line. Failed runs have no figures and are counted in the panel title. Text, lists
and booleans on the x axis are spread as categories.

``PlotProcess``: the same plots drawn by a process forked before the campaign's cluster starts,
which imports matplotlib and builds the usual figure (its panels and their tick objects) while
the runs go, so that the user does not wait for that after the last run.
"""

from __future__ import annotations

import math
import os
import pickle
import re
import select
import signal
import time
from pathlib import Path
from typing import Any

from auv_cosim.master import write_whole

from .spec import format_value


def _num(v: Any) -> float | None:
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, (int, float)):
        return float(v) if math.isfinite(v) else None
    return None


#: panels of a figure at most (the headline figures first)
MAX_PANELS = 12


#: a figure that moves by less than this part of its size across the runs is drawn flat: it is
#: left out (a vehicle the varied parameter does not drive, flown a little longer or shorter,
#: moves its figures by parts in 1e5)
FLAT = 1e-3


def plot_figures(table, seed_variable: str | None = None, max_panels: int = MAX_PANELS) -> list[str]:
    """The figure columns worth plotting: numeric in some completed run and changing across
    the runs by more than FLAT of their size (all, for a single run), in the table's order (the
    headline figures first), at most `max_panels`."""
    done = [r for r in table.rows if r.get("status") == "completed"]
    out = []
    for f in table.figures:
        vals = [_num(r.get(f)) for r in done]
        vals = [v for v in vals if v is not None]
        if len(vals) >= 1 and (len(done) == 1 or max(vals) - min(vals) > FLAT * max(abs(v) for v in vals)):
            out.append(f)
    return out[:max_panels]


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_")


#: the margins of a figure of panels with numbers on both axes, in inches: the panels' tick labels
#: (8 pt, at most about 8 characters with matplotlib's offset notation), titles (9 pt), the x
#: label (8 pt) and the figure's title (10 pt). Fixed, not measured: ``tight_layout`` measures
#: every tick label of every panel before the drawing measures them again, and a panel title at
#: its automatic height measures the panel's top once more. The user waits for this drawing
#: after the campaign's last run: the 12 panels of the 12-run depth_step sweep took 1.1-1.45 s
#: of CPU with both, 0.55-0.8 s without (on the 2-core machine).
LEFT_IN, RIGHT_IN, TOP_IN, BOTTOM_IN, SUPTITLE_IN = 0.75, 0.2, 0.8, 0.5, 0.15
BETWEEN_COLUMNS_IN, BETWEEN_ROWS_IN = 0.75, 0.6


def _fixed_margins(fig, nrow: int, ncol: int) -> None:
    width, height = fig.get_size_inches()
    panel_w = (width - LEFT_IN - RIGHT_IN - BETWEEN_COLUMNS_IN * (ncol - 1)) / ncol
    panel_h = (height - TOP_IN - BOTTOM_IN - BETWEEN_ROWS_IN * (nrow - 1)) / nrow
    fig.subplots_adjust(left=LEFT_IN / width, right=1 - RIGHT_IN / width, bottom=BOTTOM_IN / height,
                        top=1 - TOP_IN / height, wspace=BETWEEN_COLUMNS_IN / panel_w, hspace=BETWEEN_ROWS_IN / panel_h)


#: tick objects made with each axis when a figure is built: matplotlib makes them one by one,
#: lazily, when a figure is first drawn (a quarter of the 12-panel figure's drawing), and reuses
#: them afterwards; a panel shows up to about ten. The pixels are the same (as the AUV plots'
#: ``_TICKS``, auv_cosim/vehicles/auv/host/plots.py).
TICKS = 12


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def grid_of(n: int) -> tuple[int, int]:
    """(rows, columns) of a figure of ``n`` panels."""
    ncol = min(3, n)
    return math.ceil(n / ncol), ncol


def build_figure(nrow: int, ncol: int, ticks: int = TICKS):
    """(figure, axes) of ``nrow`` x ``ncol`` empty panels, ``ticks`` tick objects made with
    each axis (0: those the drawing needs, made when it needs them)."""
    fig, axs = _pyplot().subplots(nrow, ncol, figsize=(4.6 * ncol, 3.3 * nrow), squeeze=False)
    for ax in fig.axes if ticks else ():
        ax.xaxis.get_major_ticks(ticks)
        ax.yaxis.get_major_ticks(ticks)
    return fig, axs


def make_plots(table, out_dir: Path, seed_variable: str | None = None, max_panels: int = MAX_PANELS,
               built: dict | None = None) -> list[Path]:
    """The campaign's plots written into ``out_dir`` (their paths). ``built``: figures built
    ahead (``build_figure``) by (rows, columns), each used at most once, for a figure of that
    grid (the others are closed)."""
    plt = _pyplot()
    built = dict(built or {})
    try:
        return _make_plots(plt, table, Path(out_dir), seed_variable, max_panels, built)
    finally:
        for fig, _ in built.values():
            plt.close(fig)


def _make_plots(plt, table, out_dir: Path, seed_variable, max_panels, built: dict) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob("vs_*.png"):
        old.unlink()
    varied = list(table.varied)
    figures = plot_figures(table, seed_variable, max_panels)
    if not varied or not figures:
        return []
    seeded = seed_variable in varied
    axes_vars = [v for v in varied if v != seed_variable] or varied
    written = []
    for xvar in axes_vars:
        others = [v for v in varied if v != xvar and v != seed_variable]
        xs_all = []
        for r in table.rows:
            if r.get(xvar) not in xs_all:
                xs_all.append(r.get(xvar))
        numeric_x = all(_num(x) is not None and not isinstance(x, bool) for x in xs_all)
        pos = {format_value(x): (float(x) if numeric_x else i) for i, x in enumerate(xs_all)}

        groups: dict[tuple, list[dict]] = {}
        for r in table.rows:
            groups.setdefault(tuple(format_value(r.get(o)) for o in others), []).append(r)
        lines = len(groups) <= 8

        n = len(figures)
        nrow, ncol = grid_of(n)
        # built now, its ticks made by the drawing: more made ahead would only cost more here
        fig, axs = built.pop((nrow, ncol), None) or build_figure(nrow, ncol, ticks=0)
        for k, fname in enumerate(figures):
            ax = axs[k // ncol][k % ncol]
            failed = 0
            for gi, (gkey, rows) in enumerate(groups.items()):
                pts: dict[float, list[float]] = {}
                for r in rows:
                    if r.get("status") != "completed":
                        failed += 1
                        continue
                    y = _num(r.get(fname))
                    if y is None:
                        continue
                    pts.setdefault(pos[format_value(r.get(xvar))], []).append(y)
                if not pts:
                    continue
                label = ", ".join(f"{o}={v}" for o, v in zip(others, gkey)) if others else None
                color = f"C{gi % 10}"
                xs = sorted(pts)
                if seeded or any(len(v) > 1 for v in pts.values()):
                    ax.scatter([x for x in xs for _ in pts[x]], [y for x in xs for y in pts[x]], s=10,
                               color=color, alpha=0.5)
                if lines:
                    ax.plot(xs, [sum(pts[x]) / len(pts[x]) for x in xs], "o-", color=color, ms=3, lw=1.2,
                            label=label)
                else:
                    ax.scatter(xs, [sum(pts[x]) / len(pts[x]) for x in xs], s=12, color=color)
            title = fname if len(fname) <= 40 else "..." + fname[-37:]
            if failed:
                title += f"  ({failed} failed)"
            ax.set_title(title, fontsize=9, y=1.0 if numeric_x else None)  # y given: not measured
            ax.grid(True, alpha=0.3)
            ax.tick_params(labelsize=8)
            if not numeric_x:
                ax.set_xticks(list(pos.values()))
                ax.set_xticklabels(list(pos.keys()), rotation=30, ha="right", fontsize=7)
            if k // ncol == nrow - 1 or k + ncol >= n:
                ax.set_xlabel(xvar, fontsize=8)
            if k == 0 and lines and others:
                ax.legend(fontsize=6, loc="best")
        for k in range(n, nrow * ncol):
            axs[k // ncol][k % ncol].set_visible(False)
        sub = f"{len(table.rows)} runs"
        if seeded:
            sub += f"; points: seeds ({seed_variable}), line: their mean"
        if numeric_x:
            fig.suptitle(f"summary figures against {xvar} ({sub})", fontsize=10,
                         y=1 - SUPTITLE_IN / fig.get_size_inches()[1])
            _fixed_margins(fig, nrow, ncol)
        else:  # category names of any length on the x axis: measured
            fig.suptitle(f"summary figures against {xvar} ({sub})", fontsize=10)
            fig.tight_layout(rect=(0, 0, 1, 0.96))
        path = out_dir / f"vs_{_safe(xvar)}.png"
        write_whole(path, lambda f: fig.savefig(f, format="png", dpi=90))
        plt.close(fig)
        written.append(path)
    return written


# --------------------------------------------------------------------------------------------
# the plots drawn by a process that got ready while the campaign ran
# --------------------------------------------------------------------------------------------

#: seconds the sweep waits for its plot process's answer (the table sent, the files back) before
#: it kills it and draws the plots itself: a stuck plot process must not hold the sweep for ever
PLOT_TIMEOUT_S = 300.0

#: the plot process's priority (``nice``) while the cluster starts: the lowest, so that it gets
#: ready on what nothing else wants (a core the starting cluster leaves free), never instead of
#: the cluster's start. At ``nice`` +5 it took CPU from the starting workers on the busy 2-core
#: machine (their first run started later).
PREPARE_NICE = 19

#: its priority (``nice`` above the sweep's own) once the cluster is up and the runs go
#: (``PlotProcess.runs_going``): if it is not ready yet, it gets ready then, at the runs'
#: expense. With a worker on each core, at ``PREPARE_NICE`` it got next to nothing until the
#: last run ended, and the user waited after the last run for its imports (about 0.45 s of CPU
#: on the 2-core machine) on one core; taken from two workers' runs, the same CPU delays the
#: last run by about half of that (the worker it slows runs fewer of the remaining runs). With
#: a core to spare (one worker) it changes nothing. At +5 a worker that shares its core with it
#: keeps about 3/4 of that core.
RUNS_NICE = 5


def warm_up() -> None:
    """What a process's first figure costs beyond its own drawing: importing matplotlib and
    pyplot, the Agg canvas, the fonts, the PNG writer (a small figure drawn to memory)."""
    import io

    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(2.0, 1.5))
    ax.plot([0.0, 1.0], [0.0, 1.0], "o-", ms=3, lw=1.2)
    ax.scatter([0.5], [0.5], s=10, alpha=0.5)
    ax.set_title("warm-up", fontsize=9, y=1.0)
    ax.set_xlabel("x", fontsize=8)
    ax.tick_params(labelsize=8)
    ax.grid(True, alpha=0.3)
    fig.suptitle("warm-up", fontsize=10)
    fig.savefig(io.BytesIO(), format="png", dpi=90)
    plt.close(fig)


class PlotProcess:
    """A child process that draws the campaign's plots (``make_plots``, so the same files).

    Forked (``auv_cosim.master.plot_process.fork_drawer``: it dies with the sweep) before the cluster starts; it gets
    ready (``warm_up``) at a lower priority, then waits for the table. ``start`` returns None
    where ``fork_drawer`` declines (no ``fork``, one CPU, another thread alive in this process,
    ``AUV_MASTER_PLOTS=serial``): the plots are then drawn in this process after the runs, as
    they always were. If the plot process fails, dies or does not answer within
    ``PLOT_TIMEOUT_S``, this process draws them itself (an error is then its own)."""

    def __init__(self, pid: int, to_child: int, from_child: int):
        self.pid: int | None = pid
        self._to_child: int | None = to_child
        self._from_child: int | None = from_child
        self.drew = False  # whether the files ``draw`` returned are the plot process's

    @classmethod
    def start(cls) -> PlotProcess | None:
        from auv_cosim.master.plot_process import fork_drawer, widen_pipe

        data_r, data_w, result_r, result_w = os.pipe() + os.pipe()
        widen_pipe(data_w)
        try:
            pid = fork_drawer()
        except OSError:
            pid = None
        # the plot process keeps the table's reading end and the answer's writing end, the sweep
        # the other two, and neither any where there is no plot process
        keep = {None: (), 0: (data_r, result_w)}.get(pid, (data_w, result_r))
        for fd in (data_r, data_w, result_r, result_w):
            if fd not in keep:
                os.close(fd)
        if pid == 0:
            code = 1
            try:
                code = _serve(data_r, result_w)
            finally:
                os._exit(code)
        if pid is None:
            return None
        try:  # set here, not by the plot process itself: ``runs_going`` may come before it would
            os.setpriority(os.PRIO_PROCESS, pid, PREPARE_NICE)
        except (AttributeError, OSError):
            pass
        return cls(pid, data_w, result_r)

    def runs_going(self) -> None:
        """The cluster is up and the runs go: the plot process (if it is not ready yet, it gets
        ready then) at ``RUNS_NICE``. Where raising a process's priority takes a privilege this
        process lacks, it stays at ``PREPARE_NICE``."""
        try:
            nice = min(os.getpriority(os.PRIO_PROCESS, 0) + RUNS_NICE, 19)  # below the sweep's own
            if os.getpriority(os.PRIO_PROCESS, self.pid) > nice:
                os.setpriority(os.PRIO_PROCESS, self.pid, nice)
        except (AttributeError, OSError):
            pass

    def draw(self, table, out_dir: Path, seed_variable: str | None = None) -> list[Path]:
        """The campaign's plots, as ``make_plots(table, out_dir, seed_variable)`` returns them."""
        answer = None
        try:
            try:
                os.setpriority(os.PRIO_PROCESS, self.pid, os.getpriority(os.PRIO_PROCESS, 0))
            except (AttributeError, OSError):
                # raising it back takes a privilege (CAP_SYS_NICE, RLIMIT_NICE): without it the
                # plot process would draw at the lowest priority, slowly on a busy machine
                self.close(kill=True)
                return make_plots(table, out_dir, seed_variable)
            payload = pickle.dumps((table, Path(out_dir), seed_variable), protocol=pickle.HIGHEST_PROTOCOL)
            answer = self._exchange(payload, time.monotonic() + PLOT_TIMEOUT_S)
        finally:
            self.close(kill=answer is None)
        if answer:
            status, files = pickle.loads(answer)
            if status == "ok":
                self.drew = True
                return files
        return make_plots(table, out_dir, seed_variable)

    def _exchange(self, payload: bytes, deadline: float) -> bytes | None:
        """The payload written to the plot process, and its whole answer read; None if it is
        gone or the deadline passes."""
        to_child, self._to_child = self._to_child, None
        view = memoryview(payload)
        try:
            os.set_blocking(to_child, False)
            while view:
                if not select.select([], [to_child], [], max(0.0, deadline - time.monotonic()))[1]:
                    return None
                try:
                    view = view[os.write(to_child, view):]
                except BlockingIOError:
                    continue
        except OSError:  # BrokenPipeError: the plot process is gone
            return None
        finally:
            os.close(to_child)
        chunks = []
        while True:
            if not select.select([self._from_child], [], [], max(0.0, deadline - time.monotonic()))[0]:
                return None
            chunk = os.read(self._from_child, 1 << 20)
            if not chunk:
                return b"".join(chunks) or None
            chunks.append(chunk)

    def close(self, kill: bool = True) -> None:
        """The pipes closed and the plot process reaped (killed first unless it has answered)."""
        for name in ("_to_child", "_from_child"):
            fd = getattr(self, name)
            if fd is not None:
                setattr(self, name, None)
                os.close(fd)
        if self.pid is not None:
            from auv_cosim.master.plot_process import end_drawer

            pid, self.pid = self.pid, None
            end_drawer(pid, kill)


def _serve(data_fd: int, result_fd: int) -> int:
    """The plot process: get ready (at the priority the sweep gives it), wait for the table,
    draw, answer."""
    from auv_cosim.master.plot_process import read_all, write_all

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C at the terminal: the sweep decides
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the sweep's handler, inherited by the fork
    built = {}
    try:  # at PREPARE_NICE (set by the sweep, which raises it back with the table)
        warm_up()
        # built ahead: the figure of a campaign with at least MAX_PANELS figures that vary
        # against one variable (the 12-run depth_step sweep's: its summary has more)
        built[grid_of(MAX_PANELS)] = build_figure(*grid_of(MAX_PANELS))
    except Exception:
        pass  # the same error, if it matters, comes from the plots themselves
    select.select([data_fd], [], [])  # the table coming (or the end: no plots after all)
    payload = read_all(data_fd)
    os.close(data_fd)
    if not payload:
        return 0
    table, out_dir, seed_variable = pickle.loads(payload)
    try:
        answer = ("ok", make_plots(table, out_dir, seed_variable, built=built))
    except Exception:
        answer = ("failed", None)  # drawn again by the sweep, which reports its own error
    write_all(result_fd, pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL))
    os.close(result_fd)
    return 0
