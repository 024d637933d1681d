"""The seabed a survey covered: the swath model of a side-looking sonar or multibeam.

At each recorded step the swath is the segment perpendicular to the vehicle's heading,
centred on its true position, of half-width

    w = min(a tan(half_angle), sqrt(range^2 - a^2))      (0 when a >= range or a <= 0)

with a the vehicle's true altitude: the beam at the half-angle meets a flat seabed at
a tan(half_angle) across track, unless the slant range runs out first. Between two consecutive
steps the swath sweeps the quadrilateral of the two segments' ends; the covered seabed is the
union of those quadrilaterals. Over terrain (`seabed` given) each edge is where the beam at
the half-angle meets the grid, or the slant range runs out, marched outwards along the segment.

The union is rasterised on square cells (`cell`, m): a cell is covered when its centre lies
inside a quadrilateral (the even-odd rule, which also gives the two triangles of a bow tie
that a sharp turn makes). Each cell counts its passes: a pass is a run of quadrilaterals that
covers it without a pause longer than `revisit` seconds (the same line seen step after step is
one pass; the next line over it is a second). The gaps are the uncovered groups of cells
(8-connected) inside the polygon, or, without one, enclosed by covered cells, of more than
one cell.

Pure functions of arrays; the command and the scenario analysis that read a run are in
`auv_cosim.analyses.coverage_cli`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..compiled.jit import jit


def swath_half_width(altitude, half_angle_deg: float, max_range: float) -> np.ndarray:
    """The swath's half-width over a flat seabed (m) for each altitude (see the module)."""
    a = np.asarray(altitude, dtype=float)
    with np.errstate(invalid="ignore"):
        by_angle = a * math.tan(math.radians(half_angle_deg))
        by_range = np.sqrt(np.maximum(max_range * max_range - a * a, 0.0))
        w = np.minimum(by_angle, by_range)
    return np.where(np.isfinite(a) & (a > 0.0) & (a < max_range), w, 0.0)


def terrain_half_widths(north, east, depth, heading, half_angle_deg, max_range, seabed, step=None):
    """(port, starboard) half-widths over a `auv_cosim.seabed.Seabed`: along each side of the
    perpendicular, the last distance s at which the seabed point is seen at most half_angle
    off vertical (atan(s / (seabed depth - vehicle depth))) and within the slant range. Marched
    at `step` (m, default the grid's cell); a point off the grid ends the swath there."""
    step = seabed.cell if step is None else step
    tan_limit = math.tan(math.radians(half_angle_deg))
    s = np.arange(1, int(max_range / step) + 1) * step
    out = np.zeros((2, len(north)))
    for side, sign in enumerate((-1.0, 1.0)):
        pn = north[:, None] - sign * np.sin(heading)[:, None] * s
        pe = east[:, None] + sign * np.cos(heading)[:, None] * s
        below = seabed.depths(pn, pe) - depth[:, None]
        with np.errstate(invalid="ignore"):
            seen = (below > 0.0) & (s <= below * tan_limit) & (s * s + below * below <= max_range * max_range)
        # the swath ends at the first point not seen: the count of leading seen points
        first_unseen = np.argmin(np.concatenate([seen, np.zeros((len(north), 1), bool)], axis=1), axis=1)
        out[side] = first_unseen * step
    return out[0], out[1]


@dataclass
class CoverageRaster:
    """Pass counts on square cells: counts[i, j] covers the cell whose centre is at
    north0 + (i + 1/2) cell, east0 + (j + 1/2) cell."""
    counts: np.ndarray
    north0: float
    east0: float
    cell: float

    def centres(self):
        rows, cols = self.counts.shape
        return np.meshgrid(self.north0 + (np.arange(rows) + 0.5) * self.cell,
                           self.east0 + (np.arange(cols) + 0.5) * self.cell, indexing="ij")

    @property
    def area_m2(self) -> float:
        return float(np.count_nonzero(self.counts)) * self.cell * self.cell


def swath_corners(north, east, heading, port, starboard):
    """The ends of each step's swath segment: (port north, port east, starboard north,
    starboard east); starboard is heading + 90 degrees, (-sin, cos) in (north, east)."""
    sn, se = -np.sin(heading), np.cos(heading)
    return north - port * sn, east - port * se, north + starboard * sn, east + starboard * se


def rasterise(t, north, east, heading, port, starboard, cell: float, revisit: float = 60.0) -> CoverageRaster:
    """The union of the quadrilaterals between consecutive swaths, as pass counts (see the
    module). Steps with no swath on either side (both half-widths 0) sweep nothing."""
    pn, pe, sn_, se_ = swath_corners(north, east, heading, port, starboard)
    corners_n = np.concatenate([pn, sn_])
    corners_e = np.concatenate([pe, se_])
    north0 = math.floor(np.nanmin(corners_n) / cell) * cell - cell
    east0 = math.floor(np.nanmin(corners_e) / cell) * cell - cell
    rows = int(math.ceil((np.nanmax(corners_n) - north0) / cell)) + 2
    cols = int(math.ceil((np.nanmax(corners_e) - east0) / cell)) + 2
    counts = np.zeros((rows, cols), dtype=np.int32)
    last_seen = np.full((rows, cols), -np.inf)
    swept = ((port + starboard) > 0.0).astype(np.uint8)
    _sweep(np.asarray(t, float), pn, pe, sn_, se_, swept, north0, east0, cell, revisit, counts, last_seen)
    return CoverageRaster(counts, north0, east0, cell)


@jit
def _sweep(t, pn, pe, sn, se, swept, north0, east0, cell, revisit, counts, last_seen):
    """`rasterise`'s loop, compiled: each quadrilateral (port k, starboard k, starboard k+1,
    port k+1) marks the cells whose centres it holds (even-odd rule, `inside_polygon`'s), a
    new pass where the cell was last seen more than `revisit` seconds before."""
    rows, cols = counts.shape
    qn = np.empty(4)
    qe = np.empty(4)
    for k in range(t.shape[0] - 1):
        if swept[k] == 0 and swept[k + 1] == 0:
            continue
        qn[0], qn[1], qn[2], qn[3] = pn[k], sn[k], sn[k + 1], pn[k + 1]
        qe[0], qe[1], qe[2], qe[3] = pe[k], se[k], se[k + 1], pe[k + 1]
        if not (np.all(np.isfinite(qn)) and np.all(np.isfinite(qe))):
            continue
        i0 = max(int(math.floor((qn.min() - north0) / cell - 0.5)), 0)
        i1 = min(int(math.ceil((qn.max() - north0) / cell - 0.5)), rows - 1)
        j0 = max(int(math.floor((qe.min() - east0) / cell - 0.5)), 0)
        j1 = min(int(math.ceil((qe.max() - east0) / cell - 0.5)), cols - 1)
        for i in range(i0, i1 + 1):
            cn = north0 + (i + 0.5) * cell
            for j in range(j0, j1 + 1):
                ce = east0 + (j + 0.5) * cell
                inside = False
                for a in range(4):
                    b = (a + 1) % 4
                    if qn[a] != qn[b] and ((qn[a] > cn) != (qn[b] > cn)):
                        if ce < qe[a] + (cn - qn[a]) * (qe[b] - qe[a]) / (qn[b] - qn[a]):
                            inside = not inside
                if inside:
                    if t[k] - last_seen[i, j] > revisit:
                        counts[i, j] += 1
                    last_seen[i, j] = t[k + 1]


def inside_polygon(pn, pe, vn, ve) -> np.ndarray:
    """Whether the points (pn, pe) (broadcast arrays) are inside the polygon of vertices
    (vn, ve) by the even-odd rule: a ray towards +east crosses its edges an odd number of times."""
    inside = np.zeros(np.broadcast(pn, pe).shape, dtype=bool)
    n = len(vn)
    for a in range(n):
        b = (a + 1) % n
        n_a, e_a, n_b, e_b = vn[a], ve[a], vn[b], ve[b]
        if n_a == n_b:
            continue
        straddles = (n_a > pn) != (n_b > pn)
        e_cross = e_a + (pn - n_a) * (e_b - e_a) / (n_b - n_a)
        inside ^= straddles & (pe < e_cross)
    return inside


def find_gaps(covered: np.ndarray, region: np.ndarray | None, raster: CoverageRaster, largest: int = 50) -> list[dict]:
    """The uncovered groups of cells (8-connected) of more than one cell: inside `region` (a
    mask of the raster) when given, else those that touch no border of the raster (enclosed).
    Largest first, at most `largest`: area (m2), cells, centre north and east (m)."""
    from scipy import ndimage

    open_cells = ~covered if region is None else (~covered & region)
    labels, count = ndimage.label(open_cells, structure=np.ones((3, 3), dtype=int))
    if count == 0:
        return []
    if region is None:
        border = np.unique(np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]]))
        for label in border[border > 0]:
            labels[labels == label] = 0
    sizes = np.bincount(labels.ravel(), minlength=count + 1)
    n_centres, e_centres = raster.centres()
    gaps = []
    for label in np.argsort(sizes[1:])[::-1] + 1:
        if sizes[label] <= 1 or len(gaps) >= largest:
            break
        mask = labels == label
        gaps.append({"area_m2": float(sizes[label] * raster.cell ** 2), "cells": int(sizes[label]),
                     "north_m": round(float(n_centres[mask].mean()), 2), "east_m": round(float(e_centres[mask].mean()), 2)})
    return gaps


def coverage_figures(raster: CoverageRaster, polygon=None) -> dict:
    """area_m2 covered; with a polygon ((north, east) vertices), its area, the fraction of it
    covered and the gaps inside it; without, the enclosed gaps (see `find_gaps`)."""
    covered = raster.counts > 0
    out = {"area_m2": round(raster.area_m2, 3), "cell_m": raster.cell,
           "max_passes": int(raster.counts.max()) if raster.counts.size else 0}
    region = None
    if polygon is not None:
        vn = np.array([p[0] for p in polygon], float)
        ve = np.array([p[1] for p in polygon], float)
        raster = grow_to(raster, vn, ve)
        covered = raster.counts > 0
        cn, ce = raster.centres()
        region = inside_polygon(cn, ce, vn, ve)
        polygon_area = 0.5 * abs(np.dot(vn, np.roll(ve, -1)) - np.dot(ve, np.roll(vn, -1)))
        out["polygon_area_m2"] = round(float(polygon_area), 3)
        out["fraction"] = round(float(np.count_nonzero(covered & region)) / max(np.count_nonzero(region), 1), 6)
    gaps = find_gaps(covered, region, raster)
    out["gaps"] = gaps
    out["gap_count"] = len(gaps)
    return out


def grow_to(raster: CoverageRaster, vn, ve) -> CoverageRaster:
    """The raster grown (with zeros) to hold the polygon's vertices too."""
    cell = raster.cell
    rows, cols = raster.counts.shape
    north0 = min(raster.north0, math.floor(min(vn) / cell) * cell - cell)
    east0 = min(raster.east0, math.floor(min(ve) / cell) * cell - cell)
    north1 = max(raster.north0 + rows * cell, math.ceil(max(vn) / cell) * cell + cell)
    east1 = max(raster.east0 + cols * cell, math.ceil(max(ve) / cell) * cell + cell)
    counts = np.zeros((int(round((north1 - north0) / cell)), int(round((east1 - east0) / cell))), np.int32)
    i, j = int(round((raster.north0 - north0) / cell)), int(round((raster.east0 - east0) / cell))
    counts[i:i + rows, j:j + cols] = raster.counts
    return CoverageRaster(counts, north0, east0, cell)
