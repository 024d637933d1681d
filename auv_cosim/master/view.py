"""``auv-cosim view RESULTS_DIR``: one self-contained interactive HTML page of a run.

The page (``RESULTS_DIR/view.html``) shows the 3-D track in NED (north, east, depth drawn
downwards), the vehicle drawn at its attitude with a time slider and a play button, the
waypoints, the sea surface and the sea floor, and time plots whose cursor follows the slider
(a click in a time plot moves the slider there). A run of several vehicles draws each of them,
and each time plot has every vehicle's series under its name. plotly's JavaScript is embedded: the file opens
offline, from the disk, with nothing fetched.

It reads only files of the results folder, and nothing of any particular vehicle:
- ``summary.json``: how each instance is drawn, as its FMU declares it (``drawings``:
  ``auv_cosim.master.drawing``): a body's position and attitude outputs; without it (a folder of
  an older run, or FMUs that declare nothing) every instance with ``NAME.Pos[1..3]`` columns is
  a vehicle, its attitude from ``NAME.Quater[1..4]`` (scalar first, body to NED) or else
  ``NAME.Euler[1..3]`` (roll, pitch, yaw, ZYX);
- ``results.csv``: those columns, and the sea floor from ``NAME.Altitude`` (floor depth = depth +
  altitude, fitted by a plane so that a sloping floor shows as one);
- the seabed's grid, where a vehicle read one (summary.json's ``seabeds``, else the resolved
  scenario's ``BathymetryFile``: ``seabed_drawing``), drawn instead of that plane as a surface
  through its nodes, coloured by depth; a grid that cannot be read is a warning naming the file;
- ``scenario.resolved.yaml`` (when present): the waypoints (read by the figures registered
  with the master, ``RunFigures.waypoints``: the AUV's and H100's ``Waypoints`` parameter,
  ``"n,e,d; n,e,d"``, through the controllers' parser; a malformed one is an error naming it),
  the actuator columns (the sources of the connections into the vehicle), the sea-floor depth
  when no altitude was recorded (a ``SeaFloorDepth`` parameter).

plotly is imported here only, when a view is made: ``import master`` stays light.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .drawing import from_mapping
from .results_csv import ResultsFileError, read_results_csv

VIEW_FILE = "view.html"
VIEW_INPUTS = ("results.csv", "scenario.resolved.yaml", "summary.json")  # the files of the folder it reads
STATUS_ATTRIBUTE = "data-view-status"  # set on <body> once the page has drawn (tests read it)


class ViewError(Exception):
    """A results folder that cannot be viewed; the message names the file and what is wrong."""


# ----------------------------------------------------------------------------- reading a run

@dataclass
class RunTables:
    """The columns of results.csv and what the resolved scenario tells about them."""

    columns: dict[str, np.ndarray]
    time: np.ndarray
    scenario: dict = field(default_factory=dict)
    title: str = ""
    #: how each instance is drawn (summary.json's ``drawings``; empty: the conventional names)
    drawings: dict = field(default_factory=dict)
    #: the grids the instances read (summary.json's ``seabeds``: ``seabed_drawing``)
    seabeds: dict = field(default_factory=dict)

    def position(self, vehicle: str) -> list[str]:
        """The columns of a vehicle's position (north, east, down)."""
        name = self.drawings[vehicle].position if vehicle in self.drawings else "Pos"
        return [f"{vehicle}.{name}[{i}]" for i in (1, 2, 3)]


def read_results(results_dir: Path) -> RunTables:
    csv_path = results_dir / "results.csv"
    if not csv_path.is_file():
        raise ViewError(f"{csv_path}: no such file (give the folder a run wrote, e.g. results/survey)")
    try:
        header, data = read_results_csv(csv_path)
    except ResultsFileError as e:
        raise ViewError(str(e)) from None
    except OSError as e:
        raise ViewError(f"{csv_path}: cannot read the file: {e.strerror or e}") from None
    if len(data) < 2:
        raise ViewError(f"{csv_path}: {len(data)} data row(s); a view needs at least 2")
    columns = {name: data[:, i] for i, name in enumerate(header)}
    scenario = {}
    resolved = results_dir / "scenario.resolved.yaml"
    if resolved.is_file():
        import yaml

        from .scenario import load_yaml

        try:
            scenario = load_yaml(resolved.read_text(encoding="utf-8")) or {}
        except (yaml.YAMLError, UnicodeDecodeError) as e:
            raise ViewError(f"{resolved}: not readable YAML: {e}") from None
        except OSError as e:
            raise ViewError(f"{resolved}: cannot read the file: {e.strerror or e}") from None
    title = results_dir.resolve().name
    summary = results_dir / "summary.json"
    drawn, seabeds = {}, {}
    if summary.is_file():
        try:
            s = json.loads(summary.read_text(encoding="utf-8"))
            title = f"{s.get('scenario', title)}: {s.get('description') or ''}".rstrip(": ")
            drawn = s.get("drawings") or {}
            seabeds = s.get("seabeds") or {}
        except (ValueError, AttributeError):
            pass
    drawings = {}
    for inst, fields in drawn.items() if isinstance(drawn, dict) else ():
        try:
            drawings[inst] = from_mapping(fields)
        except (TypeError, ValueError) as e:
            raise ViewError(f"{summary}: drawings: {inst}: {e}") from None
    return RunTables(columns, columns["time"], scenario if isinstance(scenario, dict) else {}, title, drawings,
                     seabeds if isinstance(seabeds, dict) else {})


def vehicles_in(columns: dict[str, np.ndarray], drawings: dict | None = None) -> list[str]:
    """The bodies drawn: the instances whose drawing (``drawings``) is no cable and whose
    position columns are there, in column order; without drawings, the instances with a
    position output ``NAME.Pos[1..3]``."""
    if drawings:
        found = []
        for inst, drawing in drawings.items():
            position = [f"{inst}.{drawing.position}[{i}]" for i in (1, 2, 3)]
            if drawing.shape != "cable" and all(p in columns for p in position):
                found.append((list(columns).index(position[0]), inst))
        return [inst for _, inst in sorted(found)]
    out = []
    for name in columns:
        if name.endswith(".Pos[1]"):
            inst = name[: -len(".Pos[1]")]
            if all(f"{inst}.Pos[{i}]" in columns for i in (2, 3)):
                out.append(inst)
    return out


def rotation_matrices(q: np.ndarray) -> np.ndarray:
    """Body-to-NED rotation matrices of unit quaternions ``q`` (n x 4, scalar first)."""
    q = q / np.linalg.norm(q, axis=1, keepdims=True)
    w, x, y, z = q.T
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], axis=-1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], axis=-1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], axis=-1),
    ], axis=1)


def euler_to_quaternion(roll: np.ndarray, pitch: np.ndarray, yaw: np.ndarray) -> np.ndarray:
    """ZYX Euler angles to quaternions (scalar first, body to NED)."""
    cr, sr = np.cos(roll / 2), np.sin(roll / 2)
    cp, sp = np.cos(pitch / 2), np.sin(pitch / 2)
    cy, sy = np.cos(yaw / 2), np.sin(yaw / 2)
    return np.stack([cr * cp * cy + sr * sp * sy, sr * cp * cy - cr * sp * sy,
                     cr * sp * cy + sr * cp * sy, cr * cp * sy - sr * sp * cy], axis=1)


def attitude_of(tables: RunTables, vehicle: str) -> np.ndarray | None:
    """Quaternions (n x 4) of a vehicle from its Quater or Euler columns; None when it has neither."""
    c = tables.columns
    drawing = tables.drawings.get(vehicle)
    attitude, euler_name = (drawing.attitude, drawing.euler) if drawing is not None else ("Quater", "Euler")
    quat = [c.get(f"{vehicle}.{attitude}[{i}]") for i in range(1, 5)]
    if all(v is not None for v in quat):
        q = np.stack(quat, axis=1)
    else:
        euler = [c.get(f"{vehicle}.{euler_name}[{i}]") for i in range(1, 4)]
        if any(v is None for v in euler):
            return None
        q = euler_to_quaternion(*euler)
    bad = ~np.all(np.isfinite(q), axis=1) | (np.linalg.norm(np.nan_to_num(q), axis=1) < 1e-9)
    q = q.copy()
    q[bad] = (1.0, 0.0, 0.0, 0.0)
    return q


def scenario_waypoints(scenario: dict) -> list[tuple[float, float, float]]:
    """The waypoints to draw, as the registered figures read them from the resolved scenario
    (``RunFigures.waypoints``: the master knows no parameter format); the first non-empty."""
    from . import registry

    for figures in registry.figures().values():
        if figures.waypoints is None:
            continue
        try:
            wps = figures.waypoints(scenario)
        except ValueError as e:
            raise ViewError(f"scenario.resolved.yaml: {e}") from None
        if wps:
            return [tuple(float(x) for x in w) for w in wps]
    return []


def actuator_columns(tables: RunTables, vehicle: str) -> list[str]:
    """The recorded columns that drive ``vehicle``: sources of connections into it, and its own
    input columns driven by signals."""
    cols = []
    for conn in tables.scenario.get("connections") or []:
        if not isinstance(conn, str) or "->" not in conn:
            continue
        src, dst = (s.strip() for s in conn.split("->", 1))
        if dst.split(".", 1)[0] != vehicle:
            continue
        # vector connections name the vector: control.Cmd -> vehicle.Cmd records Cmd[1], Cmd[2]...
        candidates = [src] if src in tables.columns else [k for k in tables.columns if k.startswith(src + "[")]
        cols.extend(c for c in candidates if c not in cols)
    for target in tables.scenario.get("signals") or {}:
        if str(target).split(".", 1)[0] == vehicle and target in tables.columns and target not in cols:
            cols.append(target)
    return cols


def floor_plane(tables: RunTables, vehicle: str) -> tuple[float, float, float] | None:
    """Sea-floor depth as ``a + b north + c east``: fitted to depth + altitude along the track, or
    a scenario's ``SeaFloorDepth`` parameter of the vehicle; None when neither is known."""
    c = tables.columns
    north, east, down = tables.position(vehicle)
    alt, z = c.get(f"{vehicle}.Altitude"), c.get(down)
    if alt is not None:
        n, e = c[north], c[east]
        ok = np.isfinite(alt) & np.isfinite(z) & np.isfinite(n) & np.isfinite(e) & (alt > -1e6) & (alt < 1e6)
        if np.count_nonzero(ok) >= 3:
            a = np.column_stack([np.ones(np.count_nonzero(ok)), n[ok], e[ok]])
            coef, *_ = np.linalg.lstsq(a, z[ok] + alt[ok], rcond=None)
            return float(coef[0]), float(coef[1]), float(coef[2])
    params = ((tables.scenario.get("instances") or {}).get(vehicle) or {}).get("parameters") or {}
    for key in ("SeaFloorDepth", "SeaDepth"):
        if isinstance(params.get(key), (int, float)):
            return float(params[key]), 0.0, 0.0
    return None


# ----------------------------------------------------------------------------- the vehicle glyph

def glyph(length: float) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """A vehicle-shaped marker in body axes (x forward, y starboard, z down): a slender
    double pyramid, a dorsal fin (shows roll and which way is up), port faces red, starboard
    green (navigation lights: shows heading at a glance). Vertices (n x 3), faces (m x 3), colours."""
    half, r = length / 2, length / 8
    v = np.array([
        [half, 0, 0], [-half, 0, 0],            # 0 nose, 1 tail
        [0, r, 0], [0, -r, 0],                  # 2 starboard, 3 port
        [0, 0, -r], [0, 0, r],                  # 4 top (z up is negative), 5 bottom
        [-0.45 * length, 0, -2.2 * r], [-0.1 * length, 0, -0.9 * r],  # 6, 7 the fin's tip and root
    ])
    faces = np.array([
        [0, 2, 4], [0, 4, 3], [0, 3, 5], [0, 5, 2],   # fore body
        [1, 4, 2], [1, 3, 4], [1, 5, 3], [1, 2, 5],   # aft body
        [1, 6, 7],                                    # fin
    ])
    stbd, port, fin = "#2ca02c", "#d62728", "#ffbf00"
    colours = [stbd, port, port, stbd, stbd, port, port, stbd, fin]
    return v, faces, colours


# ----------------------------------------------------------------------------- the figure

_BLUE = "#1f77b4"


def _downsample(n: int, limit: int) -> np.ndarray:
    """Row indices of at most ``limit`` (first and last kept)."""
    if n <= limit:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, limit).round().astype(int))


def _r(x: np.ndarray, nd: int = 3) -> np.ndarray:
    return np.round(np.asarray(x, dtype=float), nd)


@dataclass
class _SceneBox:
    """The 3-D scene's extent (north, east: the track's and the waypoints' box, padded, each axis
    at least 30 % of the larger; the deepest point drawn, ``z_hi``) and the glyphs' length."""

    n_lo: float
    n_hi: float
    e_lo: float
    e_hi: float
    z_hi: float
    length: float


def build_figure(tables: RunTables, max_frames: int = 200, max_points: int = 5000):
    """The page's figure: the 3-D scene (sea, tracks, waypoints, the vehicles' glyphs, the wake
    axes), the time plots beside it, a frame per slider step moving the glyphs, the wake axes
    and the time plots' cursors. Drawn in that order (the traces' order is the page's), each
    part a function below."""
    from plotly.subplots import make_subplots

    c, t = tables.columns, tables.time
    vehicles = vehicles_in(c, tables.drawings)
    if not vehicles:
        raise ViewError("results.csv: no vehicle (no NAME.Pos[1], NAME.Pos[2], NAME.Pos[3] columns)")
    lead = vehicles[0]
    rows = _downsample(len(t), max_points)
    frames_at = _downsample(len(t), max_frames)
    time_plots = _time_plots(tables, vehicles)

    n_time = len(time_plots)
    specs = [[{"type": "scene", "rowspan": n_time}, {"type": "xy"}]] + [[None, {"type": "xy"}] for _ in range(n_time - 1)]
    fig = make_subplots(rows=n_time, cols=2, column_widths=[0.6, 0.4], specs=specs, shared_xaxes=True,
                        vertical_spacing=0.04, horizontal_spacing=0.06,
                        subplot_titles=[""] + [p[0] for p in time_plots])  # cell by cell: the scene, then the time plots
    wps = scenario_waypoints(tables.scenario)
    box = _scene_box(tables, vehicles, wps)
    _add_sea(fig, tables, vehicles, box)
    _add_tracks(fig, tables, vehicles, rows, wps)
    moving = _add_glyphs(fig, tables, vehicles, frames_at[0], box.length)
    _add_wake_axes(fig, tables, vehicles, frames_at[0], moving)
    _add_cables(fig, tables, frames_at[0], moving)
    _add_time_plots(fig, t, rows, time_plots)
    steps = _add_frames(fig, c, t, frames_at, n_time, moving)
    _lay_out(fig, tables, box, steps)
    return fig


def _scene_box(tables: RunTables, vehicles: list[str], wps: list) -> _SceneBox:
    """The scene's extent: over every finite position of every vehicle and the waypoints."""
    finite = []
    for v in vehicles:
        n, e, d = (tables.columns[name] for name in tables.position(v))
        finite.append(np.column_stack([n, e, d])[np.all(np.isfinite(np.column_stack([n, e, d])), axis=1)])
    pts = np.vstack(finite)
    if wps:
        pts = np.vstack([pts, np.array(wps)])
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    span_h = float(max(hi[0] - lo[0], hi[1] - lo[1], 1.0))
    pad = 0.08 * span_h
    # each horizontal axis spans at least 30 % of the larger one: a straight run is not a sliver
    widen = np.maximum(0.0, 0.3 * span_h - (hi[:2] - lo[:2])) / 2
    n_lo, n_hi = lo[0] - pad - widen[0], hi[0] + pad + widen[0]
    e_lo, e_hi = lo[1] - pad - widen[1], hi[1] + pad + widen[1]
    length = max(2.0, 0.05 * span_h)  # drawn at least 5 % of the track's size to be seen: not to scale
    return _SceneBox(n_lo, n_hi, e_lo, e_hi, float(hi[2]), length)


def _add_sea(fig, tables: RunTables, vehicles: list[str], box: _SceneBox) -> None:
    """The sea surface (a plane over the track's box) and the sea floor: the seabed's grid where
    the run had one (`_add_seabed`), else a plane as the lead vehicle's altitude or the
    scenario gives it (`floor_plane`); ``box.z_hi`` reaches down to it."""
    import plotly.graph_objects as go

    gn, ge = np.meshgrid([box.n_lo, box.n_hi], [box.e_lo, box.e_hi], indexing="ij")
    fig.add_trace(go.Surface(x=ge, y=gn, z=np.zeros_like(gn), colorscale=[[0, "#7fb8e6"], [1, "#7fb8e6"]],
                             showscale=False, opacity=0.35, name="sea surface", hoverinfo="skip", showlegend=True),
                  row=1, col=1)
    if _add_seabed(fig, tables, vehicles, box):
        return
    floor = floor_plane(tables, vehicles[0])
    if floor is not None:
        a, b, cc = floor
        fz = a + b * gn + cc * ge
        box.z_hi = max(box.z_hi, float(fz.max()))
        fig.add_trace(go.Surface(x=ge, y=gn, z=fz, colorscale=[[0, "#b59b6d"], [1, "#b59b6d"]], showscale=False,
                                 opacity=0.6, name="sea floor", hoverinfo="skip", showlegend=True), row=1, col=1)


#: the most nodes a side of the seabed drawn in the view (the grid's every k-th node)
SEABED_NODES_PER_SIDE = 150


def _add_seabed(fig, tables: RunTables, vehicles: list[str], box: _SceneBox) -> bool:
    """The seabed the run's grid gives (``seabed_drawing``) over the track's box: a surface
    through its nodes (every k-th, at most SEABED_NODES_PER_SIDE a side, depths the grid's own),
    coloured by depth, its holes left open; False (nothing drawn) without a grid or when it
    cannot be read (a warning names the file)."""
    import plotly.graph_objects as go

    from . import seabed_drawing as sd

    sources = sd.sources_of_summary(tables.seabeds) or sd.sources_of_scenario(tables.scenario)
    seabed = sd.read_seabed(sd.chosen(sources, vehicles), "view")
    nodes = seabed and sd.nodes_over(seabed, (box.n_lo, box.n_hi), (box.e_lo, box.e_hi), SEABED_NODES_PER_SIDE)
    if not nodes:
        return False
    lo, hi = sd.depth_range(nodes.depth)
    box.z_hi = max(box.z_hi, hi)
    fig.add_trace(go.Surface(x=_r(nodes.east), y=_r(nodes.north), z=_r(nodes.depth), colorscale=sd.colourscale(),
                             cmin=lo, cmax=hi, opacity=0.9, name=f"seabed ({Path(seabed.path).name})",
                             showlegend=True, hovertemplate="N %{y} m, E %{x} m<br>seabed %{z} m<extra></extra>",
                             colorbar=dict(title=dict(text="seabed depth (m)"), x=0.56, xanchor="right", y=0.45,
                                           len=0.4, thickness=12)),
                  row=1, col=1)
    return True


def _add_tracks(fig, tables: RunTables, vehicles: list[str], rows: np.ndarray, wps: list) -> None:
    """Each vehicle's track (the lead's coloured by time) and the waypoints, numbered."""
    import plotly.graph_objects as go

    t = tables.time
    for k, v in enumerate(vehicles):
        n, e, d = (tables.columns[name][rows] for name in tables.position(v))
        fig.add_trace(go.Scatter3d(x=_r(e), y=_r(n), z=_r(d), mode="lines", name=f"{v} track",
                                   line=dict(width=4, color=_r(t[rows], 2), colorscale="Viridis", showscale=True,
                                             colorbar=dict(title=dict(text=f"{v}: t (s)"), x=0.0, xanchor="left", y=0.45,
                                                           len=0.4, thickness=12))
                                   if k == 0 else dict(width=4),
                                   customdata=_r(t[rows], 2),
                                   hovertemplate="t %{customdata} s<br>N %{y} m, E %{x} m<br>depth %{z} m<extra></extra>"),
                      row=1, col=1)
    if wps:
        w = np.array(wps)
        fig.add_trace(go.Scatter3d(x=w[:, 1], y=w[:, 0], z=w[:, 2], mode="markers+lines+text", name="waypoints",
                                   text=[str(i + 1) for i in range(len(w))], textposition="top center",
                                   marker=dict(size=4, color="black", symbol="diamond"),
                                   line=dict(color="black", width=2, dash="dash")), row=1, col=1)


@dataclass
class _Moving:
    """What the frames move: the vehicles' glyphs (one trace each) and the axes of the wakes the
    casting vehicles cast (one trace each), as the first frame draws them."""

    body: np.ndarray
    attitudes: dict
    glyph_traces: list
    casters: list = field(default_factory=list)
    wake_traces: list = field(default_factory=list)
    wake_length: float = 0.0
    positions: dict = field(default_factory=dict)     # vehicle -> its position columns
    cables: dict = field(default_factory=dict)        # cable -> its points' columns, end to end
    cable_traces: list = field(default_factory=list)


def _add_glyphs(fig, tables: RunTables, vehicles: list[str], first: int, length: float) -> _Moving:
    """Each vehicle drawn at its attitude at row ``first``, ``length`` long."""
    import plotly.graph_objects as go

    c = tables.columns
    body, faces, colours = glyph(length)
    glyph_traces, attitudes = [], {}
    for v in vehicles:
        attitudes[v] = attitude_of(tables, v)
        x, y, z = _glyph_at(tables.position(v), body, attitudes[v], c, first)
        fig.add_trace(go.Mesh3d(x=x, y=y, z=z, i=faces[:, 0], j=faces[:, 1], k=faces[:, 2], facecolor=colours,
                                flatshading=True, name=f"{v} (drawn {length:.3g} m long)", showlegend=True,
                                hoverinfo="name"), row=1, col=1)
        glyph_traces.append(len(fig.data) - 1)
    return _Moving(body, attitudes, glyph_traces, positions={v: tables.position(v) for v in vehicles})


def _add_wake_axes(fig, tables: RunTables, vehicles: list[str], first: int, moving: _Moving) -> None:
    """The axes of the wakes the vehicles cast (their WakeSource, recorded when the scenario
    wires wakes): a dashed line from the stern along the direction the wake trails, as long as
    the field reaches (WakeLength), as at row ``first``; ``moving`` gains them."""
    import plotly.graph_objects as go

    c = tables.columns
    moving.wake_length = wake_length = wake_length_of(tables.scenario)
    moving.casters = [v for v in vehicles if all(f"{v}.WakeSource[{i}]" in c for i in (1, 2, 3, 7, 8, 9, 10))
                      and np.any(c[f"{v}.WakeSource[10]"] > 0)]
    for v in moving.casters:
        x, y, z = wake_axis(c, v, first, wake_length)
        fig.add_trace(go.Scatter3d(x=x, y=y, z=z, mode="lines", name=f"{v} wake axis ({wake_length:g} m)",
                                   line=dict(width=3, dash="dash", color="grey"), hoverinfo="name"), row=1, col=1)
        moving.wake_traces.append(len(fig.data) - 1)


def _add_time_plots(fig, t: np.ndarray, rows: np.ndarray, time_plots: list) -> None:
    """The time plots, each with its own legend at its top right (the heading without a stroke
    where it wraps, depth downwards as in the 3-D view)."""
    import plotly.graph_objects as go

    for r, (title, series) in enumerate(time_plots, start=1):
        legend = f"legend{r + 1}"  # "legend" is the 3-D scene's
        for label, y, unit in series:
            y = y[rows]
            if label.endswith("heading"):  # no vertical stroke where it wraps
                y = y.copy()
                y[1:][np.abs(np.diff(y)) > 180.0] = np.nan
            fig.add_trace(go.Scattergl(x=_r(t[rows], 3), y=_r(y, 5), mode="lines", name=label,
                                       legend=legend, showlegend=True, connectgaps=False,
                                       hovertemplate=f"{label} %{{y}} {unit}<extra>%{{x}} s</extra>"), row=r, col=2)
        yaxis = fig.layout["yaxis" if r == 1 else f"yaxis{r}"]
        fig.update_layout({legend: dict(x=1.0, xanchor="right", y=yaxis.domain[1], yanchor="top",
                                        bgcolor="rgba(255,255,255,0.7)", font=dict(size=10), orientation="h")})
        if title.startswith("depth"):
            yaxis.autorange = "reversed"  # depth down, as in the 3-D view
    fig.update_xaxes(title_text="time (s)", row=len(time_plots), col=2)


def _cursors(t: np.ndarray, i: int, n_time: int) -> list[dict]:
    """The time plots' cursors at row i: a dotted vertical line in each. make_subplots gives the
    scene no cartesian axes, so the time plots are x/y, x2/y2, ... in order."""
    out = []
    for r in range(1, n_time + 1):
        ax = "" if r == 1 else str(r)
        out.append(dict(type="line", xref=f"x{ax}", yref=f"y{ax} domain", x0=float(t[i]), x1=float(t[i]),
                        y0=0, y1=1, line=dict(color="black", width=1, dash="dot")))
    return out


def _add_frames(fig, c: dict, t: np.ndarray, frames_at: np.ndarray, n_time: int, moving: _Moving) -> list[dict]:
    """A frame per row of ``frames_at`` (the glyphs and wake axes moved there, the cursors at
    its time), the first one's cursors drawn; returns the slider's steps, one a frame."""
    import plotly.graph_objects as go

    frames, steps = [], []
    for i in frames_at:
        name = f"{t[i]:.6g}"
        data = []
        for v, quats in moving.attitudes.items():
            x, y, z = _glyph_at(moving.positions[v], moving.body, quats, c, i)
            data.append(go.Mesh3d(x=x, y=y, z=z))
        for v in moving.casters:
            x, y, z = wake_axis(c, v, i, moving.wake_length)
            data.append(go.Scatter3d(x=x, y=y, z=z))
        for points in moving.cables.values():
            x, y, z = _cable_at(points, c, i)
            data.append(go.Scatter3d(x=x, y=y, z=z))
        frames.append(go.Frame(name=name, data=data,
                               traces=moving.glyph_traces + moving.wake_traces + moving.cable_traces,
                               layout=dict(shapes=_cursors(t, i, n_time))))
        steps.append(dict(method="animate", label=f"{t[i]:.1f}",
                          args=[[name], dict(mode="immediate", frame=dict(duration=0, redraw=True),
                                             transition=dict(duration=0))]))
    fig.frames = frames
    fig.update_layout(shapes=_cursors(t, frames_at[0], n_time))
    return steps


#: the height of the scene's box against its larger horizontal side
DEPTH_ASPECT = 0.45


def _depth_range(box: _SceneBox) -> tuple[float, float]:
    """The depth axis (downwards): from the deepest point (5 % below) to just above the surface."""
    depth_span = max(box.z_hi, 1.0)
    return depth_span * 1.05, -0.05 * depth_span - 1.0


def vertical_exaggeration(box: _SceneBox) -> float:
    """How many times a metre of depth is drawn longer than a metre across: the box's height is
    DEPTH_ASPECT of its larger horizontal side, whatever the depths it spans."""
    deep, shallow = _depth_range(box)
    horizontal = max(box.e_hi - box.e_lo, box.n_hi - box.n_lo)
    return (DEPTH_ASPECT / (deep - shallow)) / (1.0 / horizontal)


def _lay_out(fig, tables: RunTables, box: _SceneBox, steps: list[dict]) -> None:
    """The page's layout: title, the 3-D scene's axes over ``box`` (depth downwards), the play
    and pause buttons and the time slider."""
    n_lo, n_hi, e_lo, e_hi = box.n_lo, box.n_hi, box.e_lo, box.e_hi
    exaggeration = vertical_exaggeration(box)
    fig.update_layout(
        title=dict(text=tables.title or "run", x=0.01, font=dict(size=15)),
        height=860, margin=dict(l=10, r=10, t=60, b=10),
        legend=dict(x=0.0, y=0.98, bgcolor="rgba(255,255,255,0.6)", font=dict(size=11)),  # the 3-D scene's
        scene=dict(
            xaxis=dict(title=dict(text="east (m)"), range=[e_lo, e_hi]),
            yaxis=dict(title=dict(text="north (m)"), range=[n_lo, n_hi]),
            zaxis=dict(title=dict(text=f"depth (m, vertical exaggeration {exaggeration:.3g}x)"),
                       range=list(_depth_range(box))),
            aspectmode="manual",
            aspectratio=dict(x=(e_hi - e_lo) / max(e_hi - e_lo, n_hi - n_lo), y=(n_hi - n_lo) / max(e_hi - e_lo, n_hi - n_lo),
                             z=DEPTH_ASPECT),
            camera=dict(eye=dict(x=-1.3, y=-1.5, z=0.9)),
        ),
        updatemenus=[dict(type="buttons", direction="left", x=0.0, y=0.0, xanchor="left", yanchor="top",
                          pad=dict(t=30, r=10), showactive=False,
                          buttons=[dict(label="play", method="animate",
                                        args=[None, dict(frame=dict(duration=60, redraw=True), fromcurrent=True,
                                                         transition=dict(duration=0), mode="immediate")]),
                                   dict(label="pause", method="animate",
                                        args=[[None], dict(frame=dict(duration=0, redraw=False), mode="immediate",
                                                           transition=dict(duration=0))])])],
        sliders=[dict(active=0, x=0.1, y=0.0, len=0.5, xanchor="left", yanchor="top", pad=dict(t=20),
                      currentvalue=dict(prefix="t = ", suffix=" s"), steps=steps)],
    )


def wake_length_of(scenario: dict) -> float:
    """How far behind a source the wakes reach (docs/physics/environment.md#wake-field: the
    receivers' WakeLength), for the drawn axis: the longest WakeLength a scenario's instance sets,
    else the default 50 m."""
    lengths = []
    for spec in (scenario.get("instances") or {}).values():
        value = ((spec or {}).get("parameters") or {}).get("WakeLength")
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0:
            lengths.append(float(value))
    return max(lengths, default=50.0)


def wake_axis(c: dict, vehicle: str, i: int, length: float):
    """The axis of the wake ``vehicle`` casts at row i, as plotted (east, north, depth): from its
    stern (WakeSource[1..3]) ``length`` m along the direction the wake trails (WakeSource[7..9]);
    nothing (NaN) while it casts none (its speed WakeSource[10] is 0)."""
    stern = np.array([c[f"{vehicle}.WakeSource[{k}]"][i] for k in (1, 2, 3)])
    e = np.array([c[f"{vehicle}.WakeSource[{k}]"][i] for k in (7, 8, 9)])
    if not (c[f"{vehicle}.WakeSource[10]"][i] > 0 and np.all(np.isfinite(stern)) and np.all(np.isfinite(e))):
        return [float("nan")] * 2, [float("nan")] * 2, [float("nan")] * 2
    end = stern + length * e
    return _r(np.array([stern[1], end[1]])), _r(np.array([stern[0], end[0]])), _r(np.array([stern[2], end[2]]))


def cables_in(tables: RunTables) -> dict[str, list[list[str]]]:
    """The instances drawn as cables (a tether) and their points' columns (north, east, down of
    each point, end to end), as their drawings name them; those with fewer than two left out."""
    out = {}
    for inst, drawing in tables.drawings.items():
        if drawing.shape == "cable":
            names = {c.split(".", 1)[1] for c in tables.columns if c.startswith(f"{inst}.")}
            points = [[f"{inst}.{p}[{i}]" for i in (1, 2, 3)] for p in drawing.point_names(names)]
            if len(points) >= 2:
                out[inst] = points
    return out


def _add_cables(fig, tables: RunTables, first: int, moving: _Moving) -> None:
    """Each cable as a line through its points at row ``first``; ``moving`` gains them."""
    import plotly.graph_objects as go

    for inst, points in cables_in(tables).items():
        x, y, z = _cable_at(points, tables.columns, first)
        fig.add_trace(go.Scatter3d(x=x, y=y, z=z, mode="lines", name=f"{inst} (cable)",
                                   line=dict(width=5, color="rgb(230,80,25)"), hoverinfo="name"), row=1, col=1)
        moving.cables[inst] = points
        moving.cable_traces.append(len(fig.data) - 1)


def _cable_at(points: list[list[str]], c: dict, i: int):
    ned = np.array([[c[name][i] for name in point] for point in points], dtype=float)
    return _r(ned[:, 1]), _r(ned[:, 0]), _r(ned[:, 2])   # plotted as (east, north, depth)


def _glyph_at(position: list[str], body, quats, c, i):
    pos = np.array([c[name][i] for name in position])
    if not np.all(np.isfinite(pos)):
        pos = np.zeros(3)
    rot = rotation_matrices(quats[i:i + 1])[0] if quats is not None else np.eye(3)
    ned = body @ rot.T + pos
    return _r(ned[:, 1]), _r(ned[:, 0]), _r(ned[:, 2])  # plotted as (east, north, depth)


def _heading_window(deg: np.ndarray) -> np.ndarray:
    """Headings shown in the 360-degree window whose cut lies where the vehicle flew least (a
    survey flying north and south is cut at east or west), the usual +-180 when as good."""
    h = np.mod(deg[np.isfinite(deg)], 360.0)
    cuts = np.arange(-180.0, 180.0, 5.0)
    near = [np.count_nonzero(np.abs(np.mod(h - c + 180.0, 360.0) - 180.0) < 10.0) for c in cuts]
    cut = -180.0 if near[0] == min(near) else float(cuts[int(np.argmin(near))])
    return np.mod(deg - cut, 360.0) + cut


def _time_plots(tables: RunTables, vehicles: list[str]) -> list[tuple[str, list[tuple]]]:
    """The time plots of the run: one vehicle's as `_time_plot_specs` makes them; for several,
    each plot holds every vehicle's series of it, named after the vehicle ("follower depth"),
    the sea floor under the first vehicle only (the others' would repeat it)."""
    if len(vehicles) == 1:
        return _time_plot_specs(tables, vehicles[0])
    merged: dict[str, list[tuple]] = {}
    for k, v in enumerate(vehicles):
        for title, series in _time_plot_specs(tables, v):
            merged.setdefault(title, []).extend((f"{v} {label}", y, unit) for label, y, unit in series
                                                if not (label == "floor" and k > 0))
    return list(merged.items())


def _time_plot_specs(tables: RunTables, v: str) -> list[tuple[str, list[tuple]]]:
    """(title, [(label, values, unit)...]) of each time plot, from whatever the run recorded."""
    c = tables.columns
    plots = []
    depth = c.get(f"{v}.Depth", c[tables.position(v)[2]])
    series = [("depth", depth, "m")]
    if f"{v}.Altitude" in c:
        series.append(("floor", depth + c[f"{v}.Altitude"], "m"))
    plots.append(("depth (m)", series))
    if f"{v}.Speed" in c:
        plots.append(("speed (m/s)", [("speed", c[f"{v}.Speed"], "m/s")]))
    elif all(f"{v}.Vel[{i}]" in c for i in (1, 2, 3)):
        plots.append(("speed (m/s)", [("speed", np.sqrt(sum(c[f"{v}.Vel[{i}]"] ** 2 for i in (1, 2, 3))), "m/s")]))
    q = attitude_of(tables, v)
    if q is not None:
        if all(f"{v}.Euler[{i}]" in c for i in (1, 2, 3)):
            roll, pitch, yaw = (c[f"{v}.Euler[{i}]"] for i in (1, 2, 3))
        else:
            rot = rotation_matrices(q)
            roll = np.arctan2(rot[:, 2, 1], rot[:, 2, 2])
            pitch = -np.arcsin(np.clip(rot[:, 2, 0], -1, 1))
            yaw = np.arctan2(rot[:, 1, 0], rot[:, 0, 0])
        heading = _heading_window(np.degrees(yaw))
        plots.append(("attitude (deg)", [("roll", np.degrees(roll), "deg"), ("pitch", np.degrees(pitch), "deg"),
                                          ("heading", heading, "deg")]))
    acts = actuator_columns(tables, v)
    if acts:
        # commands of different kinds (watts, radians, fractions) share one plot: each divided
        # by its largest magnitude, which the legend names
        series = []
        for a in acts[:8]:
            y = c[a]
            top = float(np.nanmax(np.abs(y))) if np.any(np.isfinite(y)) else 0.0
            label = a.split(".", 1)[1]
            series.append((f"{label} / {top:.3g}", y / top, "") if top > 0 else (label, y, ""))
        plots.append(("commands (each / its largest)", series))
    return plots


# ----------------------------------------------------------------------------- the page

_ERROR_CATCHER = f"""<script>
window.__viewErrors = [];
window.addEventListener('error', function (e) {{
  window.__viewErrors.push(String(e.message || e));
  document.body && document.body.setAttribute('data-view-errors', window.__viewErrors.join(' | '));
}});
</script>"""

# after plotly has drawn: record on <body> whether the 3-D scene has its WebGL canvas (a test
# reads it from the DOM), and let a click in a time plot move the slider to that time
_POST_SCRIPT = """
var gd = document.getElementById('{plot_id}');
function viewReport() {
  var sc = gd._fullLayout && gd._fullLayout.scene && gd._fullLayout.scene._scene;
  var canvases = gd.querySelectorAll('canvas');
  var gl = false;
  for (var i = 0; i < canvases.length; i++) {
    var ctx = canvases[i].getContext('webgl') || canvases[i].getContext('webgl2');
    if (ctx) { gl = true; }
  }
  document.body.setAttribute('data-view-traces', String(gd.data.length));
  document.body.setAttribute('data-view-frames', String((gd._transitionData && gd._transitionData._frames || []).length));
  document.body.setAttribute('data-view-status', (sc && gl) ? 'drawn' : (sc ? 'no-webgl' : 'no-scene'));
}
setTimeout(viewReport, 0);
gd.on('plotly_click', function (ev) {
  var p = ev.points && ev.points[0];
  if (!p || !p.xaxis || p.data.type === 'scatter3d' || p.data.type === 'mesh3d') { return; }
  var frames = gd._transitionData._frames, best = null, dist = Infinity;
  for (var i = 0; i < frames.length; i++) {
    var d = Math.abs(parseFloat(frames[i].name) - p.x);
    if (d < dist) { dist = d; best = frames[i].name; }
  }
  if (best !== null) {
    Plotly.animate(gd, [best], {mode: 'immediate', frame: {duration: 0, redraw: true}, transition: {duration: 0}});
  }
});
"""


def write_view(results_dir: str | Path, out: str | Path | None = None, max_frames: int = 200,
               max_points: int = 5000, force: bool = False) -> Path:
    """Write the interactive page of the run in ``results_dir``; returns its path. The page is
    written whole (auv_cosim.master.files): ``results_dir/view.html`` is the folder's own page and is
    replaced; another existing ``out`` only with ``force``, and never a file the view reads."""
    from .files import output_target, same_file, write_whole
    from .scenario import ScenarioError

    results_dir = Path(results_dir)
    if not results_dir.is_dir():
        raise ViewError(f"{results_dir}: not a folder (give the folder a run wrote, e.g. results/survey)")
    own = results_dir / VIEW_FILE
    try:
        path = output_target(own if out is None else out, option="--out", force=force,
                             inputs=[results_dir / name for name in VIEW_INPUTS],
                             replaceable=out is None or same_file(out, own))
    except ScenarioError as e:
        raise ViewError(str(e)) from None
    tables = read_results(results_dir)
    fig = build_figure(tables, max_frames=max_frames, max_points=max_points)
    body = fig.to_html(full_html=False, include_plotlyjs=True, include_mathjax=False, div_id="view",
                       post_script=_POST_SCRIPT, config=dict(displaylogo=False, responsive=True),
                       auto_play=False)
    import html

    page = (f"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{html.escape(tables.title or 'run')}</title>\n{_ERROR_CATCHER}\n</head>\n"
            f"<body style=\"margin:0;font-family:sans-serif\">\n{body}\n</body>\n</html>\n")
    return write_whole(path, page)
