"""PNG plots of a run of the AUV stack (matplotlib, Agg backend): track, depth, attitude,
actuators, battery, and over a bathymetry grid the terrain along the track (registered
through ``auv_cosim.vehicles.auv.host.figures.FIGURES``).

A figure is made in two steps: BUILT from what the run is, before its rows exist (its plan
and columns: the figure, axes, labels, title, grid, the tick objects, the waypoints read), then
FILLED with the rows (the lines, in the order and with the calls that decide the limits, the
legend) and written. In the plot process (auv_cosim/master/plot_process.py) the
figures are built ahead, while the run steps (``prepare``): those of ``_CHILD_SHARE`` by a
helper process forked then, the others by the plot process; after the run only the filling is
left, shared by the two. Drawn anywhere else (by the master alone), the two steps follow each
other. The files are the same byte for byte either way (tests/master/test_plot_process.py)."""

from __future__ import annotations

import math
import os
import pickle
import struct
import threading
import zlib
from pathlib import Path
from typing import Callable

import numpy as np

from auv_cosim.master import RunData, param, write_whole
from auv_cosim.master.plot_process import (end_drawer, fork_drawer, read_all, rows_from_handle, rows_handle,
                                           widen_pipe, write_all)

from .figures import TURNING_CIRCLE, controls_of, driven_vehicle, vehicles_of, waypoints_of

_MAX_POINTS = 20000

#: figures are made at the resolution they are saved at: tight_layout() then places the axes
#: with the very text sizes the file is drawn with, and savefig() reuses its canvas and text
#: metrics instead of laying out every text again at another size
_DPI = 110


#: tick objects made with each axis while a figure is built: matplotlib makes them one by one,
#: lazily, when a figure is first laid out (about a third of a figure's cost), and reuses them
#: afterwards; what a run's axes show (up to about ten ticks) then needs none made after the run
_TICKS = 12

#: drawn by the helper process (or a child forked after the run) while the other process draws
#: the rest: about half the filling work each (the CPU seconds of filling and writing each figure
#: of the survey, in the plot process: track 0.20, depth 0.13, battery 0.10 | attitude 0.20,
#: actuators 0.23; the figures with more axes cost more; navigation, drawn here, about 0.2)
_CHILD_SHARE = frozenset({"attitude.png", "actuators.png"})


def _mpl():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


_warm = False
_prepared_run = None
_ready: _Prepared | None = None


def prepare(run: RunData | None = None) -> None:
    """Called ahead, while the run steps, in the process that will draw the plots
    (``RunFigures.prepare_plots``, auv_cosim/master/plot_process.py): imports and warms up what the plots
    use (matplotlib's Agg canvas and pyplot, the font, the PNG writer; once a process) and, given
    ``run`` (the run's plan and columns, no rows yet), builds the run's figures and forks the
    helper that builds and will fill its share (``_CHILD_SHARE``). ``make_plots`` of that run
    then only fills them. Nothing it does shows in the plots otherwise."""
    global _warm, _prepared_run, _ready
    if not _warm:
        _warm = True
        _warm_up()
    if run is None or run is _prepared_run:
        return
    _prepared_run = run
    if _ready is not None:
        _ready.abandon()
        _ready = None
    _ready = _Prepared(run)


def _warm_up() -> None:
    plt = _mpl()
    fig, ax = plt.subplots(figsize=(2.0, 2.0), dpi=_DPI)
    ax.plot([0.0, 1.0], [0.0, 1.0], lw=1.0, label="0")
    ax.set_title("0")
    ax.set_xlabel("0")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    _png(fig)
    plt.close(fig)


def _heading_display(series: list[np.ndarray]) -> tuple[float, callable]:
    """Headings in degrees are shown in a 360-degree window [cut, cut + 360) whose cut lies
    where the data are sparsest (a lawn-mower survey flies north and south: cut at east), and
    lines are broken where a heading still wraps."""
    allv = np.concatenate([np.degrees(s[np.isfinite(s)]) for s in series]) if series else np.zeros(1)
    allv = np.mod(allv, 360.0)
    cuts = np.arange(-180.0, 180.0, 5.0)
    # how many headings lie within 10 degrees of each cut (round the circle): counted in the
    # sorted headings laid out three times over [-360, 720), two binary searches a cut
    ring = np.sort(allv)
    ring = np.concatenate([ring - 360.0, ring, ring + 360.0])
    counts = (np.searchsorted(ring, cuts + 10.0, side="left")
              - np.searchsorted(ring, cuts - 10.0, side="right")).tolist()
    cut = float(cuts[int(np.argmin(counts))])
    if counts[cuts.tolist().index(-180.0)] == min(counts):
        cut = -180.0  # the usual +-180 window whenever it is as good as any

    def show(x: np.ndarray) -> np.ndarray:
        y = np.mod(np.degrees(x) - cut, 360.0) + cut
        jumps = np.nonzero(np.abs(np.diff(y)) > 180.0)[0]
        return np.insert(y, jumps + 1, np.nan) if len(jumps) else y

    return cut, show


def _share(name: str) -> bool:
    return name in _CHILD_SHARE


def _not_share(name: str) -> bool:
    return name not in _CHILD_SHARE


def make_plots(run: RunData, out_dir: Path) -> list[Path]:
    """Draw the PNG plots of a run into ``out_dir``; the list of files written.

    Figures built ahead for this run (``prepare``) are filled, here and by the helper process.
    Otherwise they are built and filled now, and, where it is safe (``auv_cosim.master.plot_process.fork_drawer``), a
    child forked now draws ``_CHILD_SHARE`` while this process draws the rest. Either way, if
    the other process fails, its plots are drawn here again (an error then is this process's
    own)."""
    global _ready
    ready, _ready = _ready, None
    if ready is not None:
        if ready.fits(run):
            return ready.finish(run, Path(out_dir))
        ready.abandon()
    _mpl()  # imported once, before the fork, for both
    child = fork_drawer()
    if child == 0:
        code = 1
        try:
            _draw(run, out_dir, _share)
            code = 0
        finally:
            os._exit(code)  # nothing of the master's to finalise in the child
    if child is None:
        return _draw(run, out_dir, lambda name: True)
    try:
        files = _draw(run, out_dir, _not_share)
        _, status = os.waitpid(child, 0)
    except BaseException:  # an error, or Ctrl-C / SIGTERM abandoning the plots: the child's too
        end_drawer(child)
        raise
    if status != 0:
        _draw(run, out_dir, _share)
    return files


class _Prepared:
    """The figures of one run built ahead (``prepare``): those this process fills, and the
    helper process that builds and fills ``_CHILD_SHARE`` (none: this process fills them too)."""

    def __init__(self, run: RunData):
        self.plan, self.colmap = run.plan, dict(run.colmap)
        self.helper: int | None = None
        self.to_helper: int | None = None
        _mpl()
        read_fd, write_fd = os.pipe()
        widen_pipe(write_fd)
        pid = fork_drawer()
        if pid == 0:  # the helper: its share built now, filled when the rows come
            code = 1
            try:
                os.close(write_fd)
                code = _help(run, read_fd)
            finally:
                os._exit(code)
        os.close(read_fd)
        if pid is None:
            os.close(write_fd)
            self.names, self.figures = _build(run, lambda name: True)
        else:
            self.helper, self.to_helper = pid, write_fd
            self.names, self.figures = _build(run, _not_share)

    def fits(self, run: RunData) -> bool:
        return run.plan is self.plan and dict(run.colmap) == self.colmap

    def finish(self, run: RunData, out_dir: Path) -> list[Path]:
        """The rows handed to the helper, this process's figures filled and written, the
        helper waited for (its share drawn here if it failed). Rows in shared memory (the plot
        process's, ``auv_cosim.master.plot_process.rows_handle``) are handed over as where they are: the helper maps
        and thins them itself, at once; others, thinned, as a copy."""
        helper_ok = False
        try:
            handle = rows_handle(run.data)
            d = None if handle is not None else _decimated(run)
            if self.helper is not None:
                # handed over by a thread while this process fills its own figures: the helper
                # reads only once its figures are built (on a busy machine, maybe not yet)
                to_helper, self.to_helper = self.to_helper, None
                rows = handle if handle is not None else d.data
                payload = pickle.dumps((rows, out_dir), protocol=pickle.HIGHEST_PROTOCOL)
                threading.Thread(target=_hand_over, args=(to_helper, payload), daemon=True).start()
            if d is None:
                d = _decimated(run)
            _fill(self.figures, d, out_dir)
            if self.helper is not None:
                helper, self.helper = self.helper, None
                try:
                    _, status = os.waitpid(helper, 0)
                except BaseException:
                    self.helper = helper
                    raise
                helper_ok = status == 0
        except BaseException:  # an error, or the plots abandoned: the helper's too
            self.abandon()
            raise
        if not helper_ok:
            _fill(_build(run, _share)[1], d, out_dir)
        return [out_dir / name for name in self.names]

    def abandon(self) -> None:
        """Nothing more to draw: the helper killed, the figures closed."""
        if self.to_helper is not None:
            os.close(self.to_helper)
            self.to_helper = None
        if self.helper is not None:
            end_drawer(self.helper)
            self.helper = None
        plt = _mpl()
        for _, fig, _ in self.figures:
            plt.close(fig)
        self.figures = []


def _hand_over(fd: int, payload: bytes) -> None:
    """``payload`` written to the helper's pipe ``fd``, which is then closed."""
    try:
        write_all(fd, payload)
    except OSError:
        pass  # the helper is gone: its exit status says so, and its share is drawn here
    finally:
        os.close(fd)


def _help(run: RunData, fd: int) -> int:
    """The helper process: ``_CHILD_SHARE`` built, then filled with the rows the plot process
    writes to ``fd`` (already thinned) or maps for it (``auv_cosim.master.plot_process.rows_from_handle``: thinned
    here); none (the pipe closed empty): nothing to draw."""
    _, figures = _build(run, _share)
    payload = read_all(fd)
    os.close(fd)
    if not payload:
        return 0
    rows, out_dir = pickle.loads(payload)
    if isinstance(rows, np.ndarray):
        d = RunData(run.plan, rows, run.colmap)
    else:
        d = _decimated(RunData(run.plan, rows_from_handle(rows), run.colmap))
    _fill(figures, d, out_dir)
    return 0


def _draw(run: RunData, out_dir: Path, mine: Callable[[str], bool]) -> list[Path]:
    """The plots of the run ``mine`` accepts are built, filled and written. The list names
    every plot file of the run (those of another process too)."""
    names, figures = _build(run, mine)
    _fill(figures, _decimated(run), Path(out_dir))
    return [Path(out_dir) / name for name in names]


def _decimated(run: RunData) -> RunData:
    """At most about ``_MAX_POINTS`` rows: every k-th, and the last."""
    data = run.data
    stride = max(1, int(math.ceil(len(data) / _MAX_POINTS)))
    if stride > 1:
        data = np.vstack([data[::stride], data[-1:]])
    return RunData(run.plan, data, run.colmap)


def _fill(figures: list, d: RunData, out_dir: Path) -> None:
    """Each built figure filled with the rows of ``d`` and written into ``out_dir``."""
    plt = _mpl()
    span = d.t[-1] - d.t[0] if len(d.t) else 0.0
    minutes = span > 1200
    time_axis = ((d.t / 60.0) if minutes else d.t, "time [min]" if minutes else "time [s]")
    for name, fig, fill in figures:
        try:
            fill(d, *time_axis)
            fig.tight_layout()
            # tight_layout() has placed the axes; with its placeholder engine still attached,
            # savefig (or anything else that saves through it) would lay out every text once
            # more in a draw of its own before the real one. The file is the same byte for byte.
            fig.set_layout_engine(None)
            _write_png(fig, out_dir / name)
        finally:
            plt.close(fig)


def _write_png(fig, path: Path) -> None:
    """``fig`` drawn and written into the PNG file ``path`` (``_png``), whole or not at all."""
    write_whole(path, _png(fig))


def _png(fig) -> bytes:
    """``fig`` drawn on its canvas (what ``savefig`` draws at the figure's own resolution, without
    its copy of the pixels) as a PNG file's bytes: the
    RGBA pixels, each row with the PNG 'up' filter, deflated at zlib level 1, and the chunks
    matplotlib's own PNG has (the resolution, the Software text). Pillow's encoder tries
    filters row by row: for these mostly white pictures the file is as small and is written in
    about a third of the time (PNG encoding was a fifth of the time of filling a figure)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    width, height = int(renderer.width), int(renderer.height)
    pixels = np.asarray(renderer.buffer_rgba()).reshape(height, width * 4)
    rows = np.empty((height, width * 4 + 1), dtype=np.uint8)
    rows[:, 0] = 2  # 'up': each byte less the one above it (above the first row: zeros)
    rows[0, 1:] = pixels[0]
    np.subtract(pixels[1:], pixels[:-1], out=rows[1:, 1:])

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ppm = int(_DPI / 0.0254 + 0.5)  # pixels per metre, as Pillow writes the dpi
    software = f"Matplotlib version{_mpl_version()}, https://matplotlib.org/".encode("latin-1")
    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
            + chunk(b"pHYs", struct.pack(">IIB", ppm, ppm, 1))
            + chunk(b"tEXt", b"Software\x00" + software)
            + chunk(b"IDAT", zlib.compress(rows.data, 1))
            + chunk(b"IEND", b""))


def _mpl_version() -> str:
    import matplotlib

    return matplotlib.__version__


class _Run:
    """What a run's figures are made of, known before its rows: the plan, its vehicles and the
    control driving each, and which columns it records."""

    def __init__(self, run: RunData):
        plan = self.plan = run.plan
        self.columns = run.colmap
        self.vehicles = vehicles_of(plan)
        self.ctl_of = {}
        for c in controls_of(plan):
            v = driven_vehicle(plan, c, self.vehicles)
            if v is not None:
                self.ctl_of.setdefault(v, c)
        self.multi = len(self.vehicles) > 1
        self.title = plan.name

    def has(self, name: str) -> bool:
        return name in self.columns

    def lab(self, v: str, what: str) -> str:
        return f"{v} {what}" if self.multi else what


def _build(run: RunData, mine: Callable[[str], bool]) -> tuple[list[str], list]:
    """Every plot file name of the run (in order), and the figures ``mine`` accepts built:
    (name, figure, fill), ``fill(d, tx, tlabel)`` puts the rows of ``d`` in (``tx``: the time
    axis's values, ``tlabel`` its label). A figure another process draws is not even built."""
    r = _Run(run)
    names, figures = [], []
    for name, builder, wanted in _FIGURES:
        if wanted(r):
            names.append(name)
            if mine(name):
                fig, fill = builder(r)
                for ax in fig.axes:
                    ax.xaxis.get_major_ticks(_TICKS)
                    ax.yaxis.get_major_ticks(_TICKS)
                figures.append((name, fig, fill))
    return names, figures


def _track(r: _Run):
    plt = _mpl()
    plan = r.plan
    fig, ax = plt.subplots(figsize=(8, 7), dpi=_DPI)
    waypoints = {}
    for v in r.vehicles:
        c = r.ctl_of.get(v)
        mode = param(plan, c, "GuidanceMode", "mission") if c else None
        waypoints[v] = waypoints_of(param(plan, c, "Waypoints")) if mode == "mission" else []
    ax.set_xlabel("east [m]")
    ax.set_ylabel("north [m]")
    ax.set_aspect("equal", adjustable="datalim")
    ax.grid(True, alpha=0.3)
    ax.set_title(f"{r.title}: track (north-east)")

    def fill(d, tx, tlabel):
        for v in r.vehicles:
            n, e = d.get(f"{v}.Pos[1]"), d.get(f"{v}.Pos[2]")
            if n is None:
                continue
            line, = ax.plot(e, n, lw=1.2, label=r.lab(v, "track"))
            ax.plot(e[0], n[0], "o", color=line.get_color(), ms=7, mfc="white", label=r.lab(v, "start"))
            ax.plot(e[-1], n[-1], "s", color=line.get_color(), ms=6, label=r.lab(v, "end"))
            wps = waypoints[v]
            if wps:
                wn = [w[0] for w in wps]
                we = [w[1] for w in wps]
                ax.plot(we, wn, "--", color="0.5", lw=0.8)
                ax.plot(we, wn, "x", color="crimson", ms=8, mew=2, label=r.lab(v, "waypoints"))
                for i, (a, b) in enumerate(zip(we, wn), start=1):   # from 1, as the 3-D view numbers them
                    ax.annotate(str(i), (a, b), textcoords="offset points", xytext=(5, 5), fontsize=8, color="crimson")
        tc_opts = plan.model.analysis.get("turning_circle")
        if tc_opts is not None:
            tc = TURNING_CIRCLE.run(d, tc_opts)
            if "diameter_m" in tc:
                cn, ce = tc["center_north_east_m"]
                rad = tc["diameter_m"] / 2.0
                a = np.linspace(0.0, 2.0 * math.pi, 361)
                ax.plot(ce + rad * np.sin(a), cn + rad * np.cos(a), "--", color="crimson", lw=1.0,
                        label=f"fitted circle, diameter {tc['diameter_m']:.1f} m")
        ax.legend(loc="best", fontsize=8)

    return fig, fill


def _depth(r: _Run):
    plt = _mpl()
    plan = r.plan
    fig, ax = plt.subplots(figsize=(10, 5), dpi=_DPI)
    ax.set_ylabel("depth [m] (down)")
    ax.grid(True, alpha=0.3)
    ax.set_title(f"{r.title}: depth")

    def fill(d, tx, tlabel):
        max_depth = 0.0
        for v in r.vehicles:
            z = d.get(f"{v}.Depth")
            if z is None:
                continue
            max_depth = max(max_depth, float(np.nanmax(z)))
            ax.plot(tx, z, lw=1.2, label=r.lab(v, "depth"))
            c = r.ctl_of.get(v)
            if c:
                ref = d.get(f"{c}.DepthRef")
                if ref is not None:
                    ax.plot(tx, ref, "--", lw=1.0, label=r.lab(v, f"{c}.DepthRef"))
                    max_depth = max(max_depth, float(np.nanmax(ref)))
                if param(plan, c, "DiveMode") == "yoyo":
                    for k in ("YoyoMinDepth", "YoyoMaxDepth"):
                        val = param(plan, c, k)
                        if isinstance(val, (int, float)):
                            ax.axhline(val, color="0.6", lw=0.7, ls=":")
            eta = d.get(f"{v}.SurfaceElevation")   # in waves: the sea surface above the vehicle
            if eta is not None and np.any(eta != 0.0):
                ax.plot(tx, -eta, color="steelblue", lw=0.8, label=r.lab(v, "sea surface above it"))
            sea = d.get(f"{v}.SeaDepth")
            if sea is not None and np.nanmax(sea) < 2.5 * max(max_depth, 1.0):
                ax.plot(tx, sea, color="saddlebrown", lw=1.0, label=r.lab(v, "sea floor"))
        for s in plan.signals:
            if s.var.name == "DepthCommand":
                ax.plot(tx, d.get(s.target), ":", color="k", lw=1.0, label=f"{s.target} (signal)")
        lo, hi = ax.get_ylim()
        if min(lo, hi) < 0.15 * max(abs(lo), abs(hi), 1.0):
            ax.axhline(0.0, color="steelblue", lw=0.8)  # the surface, when it is in the picture
        ax.invert_yaxis()
        ax.set_xlabel(tlabel)
        ax.legend(loc="best", fontsize=8)

    return fig, fill


def _over_terrain(r: _Run) -> list[str]:
    """The vehicles flown over a bathymetry grid (a non-empty BathymetryFile) that record their
    Altitude and SeaDepth."""
    return [v for v in r.vehicles if param(r.plan, v, "BathymetryFile") and r.has(f"{v}.Altitude")
            and r.has(f"{v}.SeaDepth")]


def _terrain(r: _Run):
    """Depth, seabed and altitude along the track (the horizontal distance run): what a terrain
    follower is judged by, with the target altitude of a control in the altitude mode."""
    plan = r.plan
    fig, axs = _panels(("depth [m] (down)", "altitude [m]"), f"{r.title}: depth, seabed and altitude along the track",
                       figsize=(10, 7), height_ratios=(3, 2))

    def fill(d, tx, tlabel):
        for v in _over_terrain(r):
            n, e = d.get(f"{v}.Pos[1]"), d.get(f"{v}.Pos[2]")
            along = np.concatenate([[0.0], np.cumsum(np.hypot(np.diff(n), np.diff(e)))])
            sea, altitude = d.get(f"{v}.SeaDepth"), d.get(f"{v}.Altitude")
            axs[0].plot(along, d.get(f"{v}.Depth"), lw=1.2, label=r.lab(v, "depth"))
            axs[0].plot(along, sea, color="saddlebrown", lw=1.0, label=r.lab(v, "seabed"))
            axs[0].fill_between(along, sea, np.nanmax(sea) + 2.0, color="tan", alpha=0.5)
            axs[1].plot(along, altitude, lw=1.2, label=r.lab(v, "altitude"))
            c = r.ctl_of.get(v)
            target = param(plan, c, "TargetAltitude") if c and param(plan, c, "DiveMode") == "altitude" else None
            if isinstance(target, (int, float)):
                axs[1].axhline(target, color="0.4", ls="--", lw=1.0, label=r.lab(v, f"{c}.TargetAltitude"))
        axs[0].invert_yaxis()
        axs[1].set_xlabel("distance along the track [m]")
        for ax in axs:
            ax.legend(loc="best", fontsize=8)

    return fig, fill


def _attitude(r: _Run):
    plt = _mpl()
    fig, axs = plt.subplots(3, 1, figsize=(10, 8), sharex=True, dpi=_DPI)
    for ax, name in zip(axs, ("roll [deg]", "pitch [deg]", "heading [deg]")):
        ax.set_ylabel(name)
        ax.grid(True, alpha=0.3)
    axs[0].set_title(f"{r.title}: attitude")

    def fill(d, tx, tlabel):
        headings = []
        for v in r.vehicles:
            for name in (f"{v}.Heading", f"{v}.Euler[3]", f"{r.ctl_of.get(v)}.HeadingRef"):
                if d.get(name) is not None:
                    headings.append(d.get(name))
        cut, show_heading = _heading_display(headings)

        def curve(x, is_heading):
            if not is_heading:
                return tx, np.degrees(x)
            y = show_heading(x)
            if len(y) == len(tx):
                return tx, y
            jumps = np.nonzero(np.abs(np.diff(np.mod(np.degrees(x) - cut, 360.0) + cut)) > 180.0)[0]
            return np.insert(tx, jumps + 1, np.nan), y

        for v in r.vehicles:
            c = r.ctl_of.get(v)
            for ax, var, ref in ((axs[0], "Euler[1]", None), (axs[1], "Pitch", "PitchRef"), (axs[2], "Heading", "HeadingRef")):
                y = d.get(f"{v}.{var}")
                if y is None and var == "Pitch":
                    y = d.get(f"{v}.Euler[2]")
                if y is None and var == "Heading":
                    y = d.get(f"{v}.Euler[3]")
                if y is not None:
                    ax.plot(*curve(y, var == "Heading"), lw=1.1, label=r.lab(v, var if var != "Euler[1]" else "roll"))
                if c and ref:
                    ry = d.get(f"{c}.{ref}")
                    if ry is not None:
                        ax.plot(*curve(ry, var == "Heading"), "--", lw=0.9, label=r.lab(v, f"{c}.{ref}"))
        from matplotlib.ticker import MultipleLocator

        lo, hi = axs[2].get_ylim()
        axs[2].yaxis.set_major_locator(MultipleLocator(90.0 if hi - lo > 120 else 15.0 if hi - lo > 30 else 5.0))
        for ax in axs:
            ax.legend(loc="best", fontsize=8)
        axs[-1].set_xlabel(tlabel)

    return fig, fill


def _actuators(r: _Run):
    """What the vehicle actually received, whatever drives it."""
    plt = _mpl()
    deg = math.degrees
    fig, axs = plt.subplots(4, 1, figsize=(10, 9), sharex=True, dpi=_DPI)
    for ax, name in zip(axs, ("ThrustPower [W]", "Thrust [N]", "RudderYaw [deg]", "RudderDive [deg]")):
        ax.set_ylabel(name)
        ax.grid(True, alpha=0.3)
    axs[0].set_title(f"{r.title}: actuators")

    def fill(d, tx, tlabel):
        for v in r.vehicles:
            for ax, var, scale in ((axs[0], "ThrustPower", 1.0), (axs[1], "Thrust", 1.0),
                                   (axs[2], "RudderYaw", deg(1)), (axs[3], "RudderDive", deg(1))):
                y = d.get(f"{v}.{var}")
                if y is not None:
                    ax.plot(tx, y * scale, lw=1.0, label=r.lab(v, var))
            mra = param(r.plan, v, "MaxRudderAngle")
            if isinstance(mra, (int, float)):
                for ax in axs[2:]:
                    for s in (1, -1):
                        ax.axhline(s * deg(mra), color="0.6", ls=":", lw=0.7)
        if r.multi:
            for ax in axs:
                ax.legend(loc="best", fontsize=8)
        axs[-1].set_xlabel(tlabel)

    return fig, fill


def _panels(ylabels, title: str, **kwargs):
    """A figure of panels one above the other sharing the time (or distance) axis: each with its
    y label and a grid, the title on the first."""
    plt = _mpl()
    fig, axs = plt.subplots(len(ylabels), 1, sharex=True, dpi=_DPI, **kwargs)
    for ax, label in zip(axs, ylabels):
        ax.set_ylabel(label)
    for ax in axs:
        ax.grid(True, alpha=0.3)
    axs[0].set_title(title)
    return fig, axs


def _battery(r: _Run):
    fig, axs = _panels(("battery [Wh]", "battery [%]"), f"{r.title}: battery", figsize=(10, 6))

    def fill(d, tx, tlabel):
        for v in r.vehicles:
            b = d.get(f"{v}.Battery")
            f = d.get(f"{v}.BatteryFraction")
            if b is not None:
                axs[0].plot(tx, b / 3600.0, lw=1.2, label=r.lab(v, "Battery"))
            if f is not None:
                axs[1].plot(tx, 100.0 * f, lw=1.2, label=r.lab(v, "BatteryFraction"))
        if r.multi:
            for ax in axs:
                ax.legend(loc="best", fontsize=8)
        axs[-1].set_xlabel(tlabel)

    return fig, fill


def _navigation(r: _Run):
    """Altitude over the floor, cross-track error and speed through the water (with the
    cruise speed asked for): the figures the summary reports, over time."""
    plt = _mpl()
    plan = r.plan
    fig, axs = plt.subplots(3, 1, figsize=(10, 7.5), sharex=True, dpi=_DPI)
    for ax, label in zip(axs, ("altitude [m]", "cross-track error [m]", "speed through water [m/s]")):
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
    axs[0].set_title(f"{r.title}: altitude, cross-track error, speed")

    def fill(d, tx, tlabel):
        for v in r.vehicles:
            c = r.ctl_of.get(v)
            for ax, series, what in ((axs[0], d.get(f"{v}.Altitude"), "Altitude"),
                                     (axs[1], d.get(f"{c}.CrossTrackError") if c else None, "CrossTrackError"),
                                     (axs[2], d.get(f"{v}.Speed"), "Speed")):
                if series is not None:
                    ax.plot(tx, series, lw=1.2, label=r.lab(v, what))
            cruise = param(plan, c, "CruiseSpeed") if c else None
            if isinstance(cruise, (int, float)) and not isinstance(cruise, bool):
                axs[2].axhline(cruise, color="0.5", lw=0.8, ls="--", label=r.lab(v, "CruiseSpeed"))
        axs[1].axhline(0.0, color="0.6", lw=0.7)
        for ax in axs:
            if ax.lines and (r.multi or ax is axs[2]):
                ax.legend(loc="best", fontsize=8)
        axs[-1].set_xlabel(tlabel)

    return fig, fill


def _has_navigation(r: _Run) -> bool:
    return any(r.has(f"{v}.Altitude") or r.has(f"{v}.Speed") or r.has(f"{r.ctl_of.get(v)}.CrossTrackError")
               for v in r.vehicles)


#: the plot files in order: (name, builder, whether the run has it)
_FIGURES = (
    ("track.png", _track, lambda r: bool(r.vehicles)),
    ("depth.png", _depth, lambda r: bool(r.vehicles)),
    ("terrain.png", _terrain, lambda r: bool(_over_terrain(r))),
    ("attitude.png", _attitude, lambda r: bool(r.vehicles)),
    ("actuators.png", _actuators, lambda r: bool(r.vehicles)),
    ("battery.png", _battery, lambda r: any(r.has(f"{v}.Battery") for v in r.vehicles)),
    ("navigation.png", _navigation, _has_navigation),
)
