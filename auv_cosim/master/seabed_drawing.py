"""The seabed a run flew over, as the 3-D view (``view``) and the MCAP's scene
(``auv_cosim.outputs``) draw it: from the nodes of its grid, not a plane.

The master knows no vehicle: a run's seabed is found by the parameters every vehicle shares for
it (``BathymetryFile``, ``OriginLatitude``, ``OriginLongitude``; docs/seabed.md) and read with
``auv_cosim.seabed`` as the vehicle read it (the same file resampled onto the same NED grid
about the same origin), so a node drawn is a node the vehicle met.

Which file: the run writes, into summary.json (``seabeds``), the absolute path each instance
read (a relative one taken from the folder the run started in, as the FMU took it) and its
origin; a folder of a run that wrote none gives the resolved scenario's value (absolute where
the scenario named a file beside itself; a relative one is taken from the current folder). The
seabed drawn is the first drawn vehicle's, else the first instance's that has one.

A grid that cannot be read when drawing (the results folder moved to a machine without it,
the seabed extra not installed, the file changed into something else since) is a warning naming
the file, and the drawing falls back to the plane: the run itself had read it.
"""

from __future__ import annotations

import math
import os
import sys
from dataclasses import dataclass

import numpy as np

#: the parameters every vehicle shares for its seabed (auv_cosim.vehicles.bathymetry)
FILE_PARAMETER, LATITUDE_PARAMETER, LONGITUDE_PARAMETER = "BathymetryFile", "OriginLatitude", "OriginLongitude"

#: the colours of the seabed by depth, from its shallowest (0) to its deepest (1) node drawn:
#: sand to deep blue (the view's colour scale and the MCAP mesh's vertex colours alike)
DEPTH_COLOURS = ((0.0, (0.93, 0.84, 0.62)), (0.35, (0.62, 0.70, 0.52)), (0.7, (0.25, 0.47, 0.55)),
                 (1.0, (0.07, 0.16, 0.36)))


@dataclass(frozen=True)
class SeabedSource:
    """The grid an instance read: its file (absolute unless a folder of an older run gave a
    relative one) and its NED origin (degrees, WGS 84)."""

    instance: str
    file: str
    latitude: float
    longitude: float


def _number(value, default: float = 0.0) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        return default
    return x if math.isfinite(x) else default


def _source(instance: str, file, latitude, longitude) -> SeabedSource | None:
    if not (isinstance(file, str) and file.strip()):
        return None
    # the FMU's default origin is 0, 0 (SeabedParameters): a scenario that sets none flew there
    return SeabedSource(instance, file, _number(latitude), _number(longitude))


def sources_of_plan(plan) -> dict[str, SeabedSource]:
    """The grids the instances of a run's plan read, their files made absolute from the current
    folder as the FMUs made them (the run's own, while it runs)."""
    from .summary import param

    out = {}
    for inst in plan.instances:
        src = _source(inst, param(plan, inst, FILE_PARAMETER), param(plan, inst, LATITUDE_PARAMETER),
                      param(plan, inst, LONGITUDE_PARAMETER))
        if src is not None:
            out[inst] = SeabedSource(inst, os.path.abspath(os.path.expanduser(src.file)), src.latitude, src.longitude)
    return out


def summary_entry(plan) -> dict:
    """summary.json's ``seabeds``: per instance with a grid, the file it read and its origin."""
    return {inst: {"file": s.file, "origin": [s.latitude, s.longitude]} for inst, s in sources_of_plan(plan).items()}


def sources_of_summary(entry) -> dict[str, SeabedSource]:
    """The sources of summary.json's ``seabeds`` (nothing from a malformed entry)."""
    out = {}
    for inst, spec in (entry.items() if isinstance(entry, dict) else ()):
        origin = spec.get("origin") if isinstance(spec, dict) else None
        if isinstance(origin, list) and len(origin) == 2:
            src = _source(inst, spec.get("file"), origin[0], origin[1])
            if src is not None:
                out[inst] = src
    return out


def sources_of_scenario(scenario: dict) -> dict[str, SeabedSource]:
    """The sources a resolved scenario (a mapping) sets in its instances' parameters."""
    out = {}
    for inst, spec in ((scenario or {}).get("instances") or {}).items():
        params = (spec.get("parameters") or {}) if isinstance(spec, dict) else {}
        src = _source(inst, params.get(FILE_PARAMETER), params.get(LATITUDE_PARAMETER), params.get(LONGITUDE_PARAMETER))
        if src is not None:
            out[inst] = src
    return out


def chosen(sources: dict[str, SeabedSource], prefer=()) -> SeabedSource | None:
    """The seabed drawn: that of the first of ``prefer`` (the drawn vehicles, in order) that
    has one, else of the first instance that has one; None without any."""
    for inst in prefer:
        if inst in sources:
            return sources[inst]
    return next(iter(sources.values()), None)


def warn(text: str) -> None:
    print(f"warning: {text}", file=sys.stderr, flush=True)


def read_seabed(source: SeabedSource | None, who: str, warn=warn):
    """The `auv_cosim.seabed.Seabed` of ``source`` (None without one); a grid that cannot be
    read is ``warn``-ed, naming ``who`` draws it, the instance and the file, and gives None
    (the plane is drawn instead)."""
    if source is None:
        return None
    try:
        from ..seabed import load_seabed

        return load_seabed(os.path.expanduser(source.file), source.latitude, source.longitude)
    except ImportError as e:
        problem = f"the seabed extra is not installed ({e.name or e}: pip install 'auv-cosim[seabed]')"
    except ValueError as e:   # SeabedError names the file
        problem = str(e)
    except OSError as e:
        problem = f"{source.file}: {e.strerror or e}"
    warn(f"{who}: the seabed of {source.instance} (BathymetryFile {source.file}) cannot be read: {problem}; "
         f"the sea floor is drawn as a plane")
    return None


@dataclass
class SeabedNodes:
    """Nodes of a seabed's NED grid: depth[i, j] (m, positive down, NaN a hole) at north[i],
    east[j]; every ``stride``-th node of the grid."""

    north: np.ndarray
    east: np.ndarray
    depth: np.ndarray
    stride: int


def nodes_over(seabed, north_range, east_range, max_per_axis: int | None = None,
               max_nodes: int | None = None) -> SeabedNodes | None:
    """The grid's nodes over a box (north_range, east_range: (low, high) in m), thinned by one
    stride on both axes (square cells, as the grid's) to at most ``max_per_axis`` a side and
    ``max_nodes`` in all; the depths are the grid's own at those nodes, holes NaN. None when
    the box holds no known depth."""
    rows, cols = seabed.depth.shape
    north = seabed.north0 + seabed.cell * np.arange(rows)
    east = seabed.east0 + seabed.cell * np.arange(cols)
    ri = np.nonzero((north >= north_range[0]) & (north <= north_range[1]))[0]
    ci = np.nonzero((east >= east_range[0]) & (east <= east_range[1]))[0]
    if ri.size < 2 or ci.size < 2:
        return None
    stride = 1
    if max_per_axis:
        stride = max(stride, math.ceil(max(ri.size, ci.size) / max_per_axis))
    if max_nodes:
        stride = max(stride, math.ceil(math.sqrt(ri.size * ci.size / max_nodes)))
    ri, ci = ri[::stride], ci[::stride]
    depth = seabed.depth[np.ix_(ri, ci)]
    if ri.size < 2 or ci.size < 2 or not np.any(np.isfinite(depth)):
        return None
    return SeabedNodes(north[ri], east[ci], depth, stride)


def triangles(nodes: SeabedNodes) -> tuple[np.ndarray, np.ndarray]:
    """(vertices, faces) of the surface through the nodes: the vertices (k x 3, NED) the nodes
    of known depth, the faces (m x 3, indices into them) two triangles a cell, each kept only
    where its three corners are known (a hole stays open). Counter-clockwise seen from above
    in east-north axes (their normals point up in ENU)."""
    rows, cols = nodes.depth.shape
    known = np.isfinite(nodes.depth)
    index = np.full((rows, cols), -1, dtype=np.int64)
    index[known] = np.arange(np.count_nonzero(known))
    nn, ee = np.meshgrid(nodes.north, nodes.east, indexing="ij")
    vertices = np.column_stack([nn[known], ee[known], nodes.depth[known]])
    a, b = index[:-1, :-1], index[:-1, 1:]      # (i, j) and its neighbour east
    c, d = index[1:, :-1], index[1:, 1:]        # their neighbours north
    faces = np.concatenate([np.stack([a, b, d], axis=-1).reshape(-1, 3), np.stack([a, d, c], axis=-1).reshape(-1, 3)])
    return vertices, faces[np.all(faces >= 0, axis=1)]


def depth_range(depth: np.ndarray) -> tuple[float, float]:
    """(shallowest, deepest) of the known depths, apart by at least a centimetre."""
    lo, hi = float(np.nanmin(depth)), float(np.nanmax(depth))
    return lo, max(hi, lo + 0.01)


def colours(depth: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """RGB (..., 3, each 0..1) of depths on DEPTH_COLOURS between ``lo`` and ``hi``."""
    f = np.clip((np.asarray(depth, dtype=float) - lo) / (hi - lo), 0.0, 1.0)
    stops = np.array([s for s, _ in DEPTH_COLOURS])
    return np.stack([np.interp(f, stops, [c[k] for _, c in DEPTH_COLOURS]) for k in range(3)], axis=-1)


def colourscale() -> list:
    """DEPTH_COLOURS as a plotly colour scale."""
    return [[s, "rgb({},{},{})".format(*(round(255 * x) for x in c))] for s, c in DEPTH_COLOURS]
