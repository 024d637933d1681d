"""PNG plots of a run of the AUV stack (matplotlib, Agg backend): track, depth, attitude,
actuators, battery (registered through ``analyses.auv.FIGURES``)."""

from __future__ import annotations

import math
import os
import signal
import threading
from pathlib import Path
from typing import Callable

import numpy as np

from master import RunData, die_with_parent, param

from .auv import TURNING_CIRCLE, controls_of, driven_vehicle, vehicles_of, waypoints_of

_MAX_POINTS = 20000

#: figures are made at the resolution they are saved at: tight_layout() then places the axes
#: with the very text sizes the file is drawn with, and savefig() reuses its canvas and text
#: metrics instead of laying out every text again at another size
_DPI = 110

#: zlib level 1 instead of Pillow's 6: the same pixels, a file about a sixth larger, written in
#: about half the time (PNG encoding was a fifth of the plotting time)
_PNG_SETTINGS = {"compress_level": 1}


def _mpl():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


_prepared = False


def prepare() -> None:
    """Import and warm up what the plots use (matplotlib's Agg canvas and pyplot, the font, the
    PNG writer) by drawing a tiny figure into memory: called ahead, while the run steps, in the
    process that will draw the plots (``RunFigures.prepare_plots``, master/plot_process.py).
    Nothing it does shows in the plots drawn afterwards. Once per process."""
    global _prepared
    if _prepared:
        return
    _prepared = True
    import io

    plt = _mpl()
    fig, ax = plt.subplots(figsize=(2.0, 2.0), dpi=_DPI)
    ax.plot([0.0, 1.0], [0.0, 1.0], lw=1.0, label="0")
    ax.set_title("0")
    ax.set_xlabel("0")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    fig.savefig(io.BytesIO(), dpi=_DPI, format="png", pil_kwargs=_PNG_SETTINGS)
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


#: drawn by a forked child while the master draws the others (about half the work each)
_CHILD_SHARE = frozenset({"actuators.png", "battery.png"})


def _fork_drawer() -> int | None:
    """A child process to draw part of the plots on another core (its pid; 0 in the child), or
    None to draw them all here: no fork on this platform, one CPU, other threads alive (a
    forked child could inherit a lock one of them holds), or ``AUV_MASTER_PLOTS=serial``."""
    if (not hasattr(os, "fork") or (os.cpu_count() or 1) < 2 or threading.active_count() > 1
            or os.environ.get("AUV_MASTER_PLOTS", "").strip().lower() == "serial"):
        return None
    try:
        return os.fork()
    except OSError:
        return None


def make_plots(run: RunData, out_dir: Path) -> list[Path]:
    """Draw the PNG plots of a run into ``out_dir``; the list of files written.

    A figure's cost is nearly all text layout and rendering, one figure after the other in one
    thread; so, where it is safe (see ``_fork_drawer``), a forked child draws ``_CHILD_SHARE``
    while this process draws the rest, and this returns once both are done. If the child
    fails, its plots are drawn here again (and any error is this process's own)."""
    _mpl()  # imported once, before the fork, for both
    parent = os.getpid()
    child = _fork_drawer()
    if child == 0:
        code = 1
        try:
            # a drawer that outlives this process (killed by SIGKILL) would write an old run's
            # PNGs into a folder a new run may already use
            die_with_parent(parent)
            _draw(run, out_dir, lambda name: name in _CHILD_SHARE)
            code = 0
        finally:
            os._exit(code)  # nothing of the master's to finalise in the child
    if child is None:
        return _draw(run, out_dir, lambda name: True)
    try:
        files = _draw(run, out_dir, lambda name: name not in _CHILD_SHARE)
        _, status = os.waitpid(child, 0)
    except BaseException:  # an error, or Ctrl-C / SIGTERM abandoning the plots: the child's too
        _abandon(child)
        raise
    if status != 0:
        _draw(run, out_dir, lambda name: name in _CHILD_SHARE)
    return files


def _abandon(child: int) -> None:
    try:
        os.kill(child, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        os.waitpid(child, 0)
    except ChildProcessError:
        pass


def _draw(run: RunData, out_dir: Path, mine: Callable[[str], bool]) -> list[Path]:
    """The plots of the run ``mine`` accepts are built, laid out and written. The list names
    every plot file of the run (those of another process too)."""
    plt = _mpl()
    plan, data = run.plan, run.data
    stride = max(1, int(math.ceil(len(data) / _MAX_POINTS)))
    if stride > 1:
        data = np.vstack([data[::stride], data[-1:]])
    d = RunData(plan, data, run.colmap)
    vehicles = vehicles_of(plan)
    controls = controls_of(plan)
    ctl_of = {}
    for c in controls:
        v = driven_vehicle(plan, c, vehicles)
        if v is not None:
            ctl_of.setdefault(v, c)
    span = d.t[-1] - d.t[0] if len(d.t) else 0.0
    minutes = span > 1200
    tx = (d.t / 60.0) if minutes else d.t
    tlabel = "time [min]" if minutes else "time [s]"
    title = plan.name
    files = []
    multi = len(vehicles) > 1

    def lab(v, what):
        return f"{v} {what}" if multi else what

    def wanted(name):
        """``name`` is one of the run's plot files: listed; True when this process draws it
        (a figure another process draws is not even built here)."""
        files.append(out_dir / name)
        return mine(name)

    def save(fig, name):
        fig.tight_layout()
        # tight_layout() has placed the axes; with its placeholder engine still attached,
        # savefig would lay out every text once more in a draw of its own before the real
        # one (about a fifth of the plotting time). The file is the same byte for byte.
        fig.set_layout_engine(None)
        fig.savefig(out_dir / name, dpi=_DPI, pil_kwargs=_PNG_SETTINGS)
        plt.close(fig)

    deg = math.degrees

    # ---- track
    if vehicles and wanted("track.png"):
        fig, ax = plt.subplots(figsize=(8, 7), dpi=_DPI)
        for v in vehicles:
            n, e = d.get(f"{v}.Pos[1]"), d.get(f"{v}.Pos[2]")
            if n is None:
                continue
            line, = ax.plot(e, n, lw=1.2, label=lab(v, "track"))
            ax.plot(e[0], n[0], "o", color=line.get_color(), ms=7, mfc="white", label=lab(v, "start"))
            ax.plot(e[-1], n[-1], "s", color=line.get_color(), ms=6, label=lab(v, "end"))
            c = ctl_of.get(v)
            mode = param(plan, c, "GuidanceMode", "mission") if c else None
            wps = waypoints_of(param(plan, c, "Waypoints")) if mode == "mission" else []
            if wps:
                wn = [w[0] for w in wps]
                we = [w[1] for w in wps]
                ax.plot(we, wn, "--", color="0.5", lw=0.8)
                ax.plot(we, wn, "x", color="crimson", ms=8, mew=2, label=lab(v, "waypoints"))
                for i, (a, b) in enumerate(zip(we, wn)):
                    ax.annotate(str(i), (a, b), textcoords="offset points", xytext=(5, 5), fontsize=8, color="crimson")
        tc_opts = plan.model.analysis.get("turning_circle")
        if tc_opts is not None:
            tc = TURNING_CIRCLE.run(d, tc_opts)
            if "diameter_m" in tc:
                cn, ce = tc["center_north_east_m"]
                r = tc["diameter_m"] / 2.0
                a = np.linspace(0.0, 2.0 * math.pi, 361)
                ax.plot(ce + r * np.sin(a), cn + r * np.cos(a), "--", color="crimson", lw=1.0,
                        label=f"fitted circle, diameter {tc['diameter_m']:.1f} m")
        ax.set_xlabel("east [m]")
        ax.set_ylabel("north [m]")
        ax.set_aspect("equal", adjustable="datalim")
        ax.grid(True, alpha=0.3)
        ax.legend(loc="best", fontsize=8)
        ax.set_title(f"{title}: track (north-east)")
        save(fig, "track.png")

    # ---- depth
    if vehicles and wanted("depth.png"):
        fig, ax = plt.subplots(figsize=(10, 5), dpi=_DPI)
        max_depth = 0.0
        for v in vehicles:
            z = d.get(f"{v}.Depth")
            if z is None:
                continue
            max_depth = max(max_depth, float(np.nanmax(z)))
            ax.plot(tx, z, lw=1.2, label=lab(v, "depth"))
            c = ctl_of.get(v)
            if c:
                ref = d.get(f"{c}.DepthRef")
                if ref is not None:
                    ax.plot(tx, ref, "--", lw=1.0, label=lab(v, f"{c}.DepthRef"))
                    max_depth = max(max_depth, float(np.nanmax(ref)))
                if param(plan, c, "DiveMode") == "yoyo":
                    for k in ("YoyoMinDepth", "YoyoMaxDepth"):
                        val = param(plan, c, k)
                        if isinstance(val, (int, float)):
                            ax.axhline(val, color="0.6", lw=0.7, ls=":")
            eta = d.get(f"{v}.SurfaceElevation")   # in waves: the sea surface above the vehicle
            if eta is not None and np.any(eta != 0.0):
                ax.plot(tx, -eta, color="steelblue", lw=0.8, label=lab(v, "sea surface above it"))
            sea = d.get(f"{v}.SeaDepth")
            if sea is not None and np.nanmax(sea) < 2.5 * max(max_depth, 1.0):
                ax.plot(tx, sea, color="saddlebrown", lw=1.0, label=lab(v, "sea floor"))
        for s in plan.signals:
            if s.var.name == "DepthCommand":
                ax.plot(tx, d.get(s.target), ":", color="k", lw=1.0, label=f"{s.target} (signal)")
        lo, hi = ax.get_ylim()
        if min(lo, hi) < 0.15 * max(abs(lo), abs(hi), 1.0):
            ax.axhline(0.0, color="steelblue", lw=0.8)  # the surface, when it is in the picture
        ax.invert_yaxis()
        ax.set_xlabel(tlabel)
        ax.set_ylabel("depth [m] (down)")
        ax.grid(True, alpha=0.3)
        ax.legend(loc="best", fontsize=8)
        ax.set_title(f"{title}: depth")
        save(fig, "depth.png")

    # ---- attitude
    if vehicles and wanted("attitude.png"):
        fig, axs = plt.subplots(3, 1, figsize=(10, 8), sharex=True, dpi=_DPI)
        headings = []
        for v in vehicles:
            for name in (f"{v}.Heading", f"{v}.Euler[3]", f"{ctl_of.get(v)}.HeadingRef"):
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

        for v in vehicles:
            c = ctl_of.get(v)
            for ax, var, ref in ((axs[0], "Euler[1]", None), (axs[1], "Pitch", "PitchRef"), (axs[2], "Heading", "HeadingRef")):
                y = d.get(f"{v}.{var}")
                if y is None and var == "Pitch":
                    y = d.get(f"{v}.Euler[2]")
                if y is None and var == "Heading":
                    y = d.get(f"{v}.Euler[3]")
                if y is not None:
                    ax.plot(*curve(y, var == "Heading"), lw=1.1, label=lab(v, var if var != "Euler[1]" else "roll"))
                if c and ref:
                    r = d.get(f"{c}.{ref}")
                    if r is not None:
                        ax.plot(*curve(r, var == "Heading"), "--", lw=0.9, label=lab(v, f"{c}.{ref}"))
        from matplotlib.ticker import MultipleLocator

        lo, hi = axs[2].get_ylim()
        axs[2].yaxis.set_major_locator(MultipleLocator(90.0 if hi - lo > 120 else 15.0 if hi - lo > 30 else 5.0))
        for ax, name in zip(axs, ("roll [deg]", "pitch [deg]", "heading [deg]")):
            ax.set_ylabel(name)
            ax.grid(True, alpha=0.3)
            ax.legend(loc="best", fontsize=8)
        axs[-1].set_xlabel(tlabel)
        axs[0].set_title(f"{title}: attitude")
        save(fig, "attitude.png")

    # ---- actuators (what the vehicle actually received, whatever drives it)
    if vehicles and wanted("actuators.png"):
        fig, axs = plt.subplots(4, 1, figsize=(10, 9), sharex=True, dpi=_DPI)
        for v in vehicles:
            for ax, var, scale in ((axs[0], "ThrustPower", 1.0), (axs[1], "Thrust", 1.0),
                                   (axs[2], "RudderYaw", deg(1)), (axs[3], "RudderDive", deg(1))):
                y = d.get(f"{v}.{var}")
                if y is not None:
                    ax.plot(tx, y * scale, lw=1.0, label=lab(v, var))
            mra = param(plan, v, "MaxRudderAngle")
            if isinstance(mra, (int, float)):
                for ax in axs[2:]:
                    for s in (1, -1):
                        ax.axhline(s * deg(mra), color="0.6", ls=":", lw=0.7)
        for ax, name in zip(axs, ("ThrustPower [W]", "Thrust [N]", "RudderYaw [deg]", "RudderDive [deg]")):
            ax.set_ylabel(name)
            ax.grid(True, alpha=0.3)
            if multi:
                ax.legend(loc="best", fontsize=8)
        axs[-1].set_xlabel(tlabel)
        axs[0].set_title(f"{title}: actuators")
        save(fig, "actuators.png")

    # ---- battery
    if any(f"{v}.Battery" in d for v in vehicles) and wanted("battery.png"):
        fig, axs = plt.subplots(2, 1, figsize=(10, 6), sharex=True, dpi=_DPI)
        for v in vehicles:
            b = d.get(f"{v}.Battery")
            f = d.get(f"{v}.BatteryFraction")
            if b is not None:
                axs[0].plot(tx, b / 3600.0, lw=1.2, label=lab(v, "Battery"))
            if f is not None:
                axs[1].plot(tx, 100.0 * f, lw=1.2, label=lab(v, "BatteryFraction"))
        axs[0].set_ylabel("battery [Wh]")
        axs[1].set_ylabel("battery [%]")
        for ax in axs:
            ax.grid(True, alpha=0.3)
            if multi:
                ax.legend(loc="best", fontsize=8)
        axs[-1].set_xlabel(tlabel)
        axs[0].set_title(f"{title}: battery")
        save(fig, "battery.png")

    return files
