"""The seabed about the vehicles' origin: a grid in NED, resampled once, and its look-up.

A bathymetry file is in its own CRS (UTM, geographic, ...) and the vehicles move in NED metres
about an origin (`auv_cosim.seabed.geodesy`). Transforming every position to the file's CRS at
every step would cost a projection per step; instead the grid is resampled once, at start-up,
onto a grid aligned with north and east in metres (`resample`). The look-up of a step is then
a bicubic interpolation (`auv_cosim.seabed.interpolation`) on that grid: the depth and its
gradient, C1-smooth, compiled (`seabed_depth`).

The resampling evaluates the file's grid with the same bicubic interpolation at each NED node,
transformed to the file's CRS with pyproj; its error on a smooth seabed is that of the
interpolation, O(h^3). A NED node whose stencil in the file's grid leaves the grid or meets a
hole is NaN, and a look-up whose stencil meets a NaN is off the grid: an `OffGridError`
naming the position, never a silent zero.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..compiled.jit import jit
from .errors import OffGridError, SeabedError
from .geodesy import check_origin, geodetic_of, local_crs
from .grids import SourceGrid, read_grid
from .interpolation import bicubic, bicubic_many

#: the most nodes a resampled grid may have (128 MiB of doubles): a larger area must be cropped
MAX_NODES = 16_000_000


@jit
def seabed_depth(depth, north0, east0, cell, north, east):
    """(depth, d depth/d north, d depth/d east) of the seabed at (north, east) (m, NED) on the
    NED grid `depth` (positive down; node [i, j] at north0 + i cell, east0 + j cell); NaN off
    the grid or next to a hole."""
    f, fu, fv = bicubic(depth, (north - north0) / cell, (east - east0) / cell)
    return f, fu / cell, fv / cell


@dataclass(frozen=True, eq=False)
class Seabed:
    """The seabed on a NED grid about an origin: `depth[i, j]` (m, positive down, NaN none)
    at north0 + i cell, east0 + j cell; `path` the file it came from."""
    path: str
    latitude: float
    longitude: float
    north0: float
    east0: float
    cell: float
    depth: np.ndarray

    @property
    def extent(self) -> tuple[float, float, float, float]:
        """(north min, north max, east min, east max) of the grid's nodes, m."""
        rows, cols = self.depth.shape
        return (self.north0, self.north0 + (rows - 1) * self.cell,
                self.east0, self.east0 + (cols - 1) * self.cell)

    def lookup(self, north: float, east: float) -> tuple[float, float, float]:
        """(depth, d depth/d north, d depth/d east) at (north, east); OffGridError off the grid."""
        d, dn, de = seabed_depth(self.depth, self.north0, self.east0, self.cell, float(north), float(east))
        if not np.isfinite(d):
            raise OffGridError(self.path, north, east, self.extent)
        return d, dn, de

    def depth_at(self, north: float, east: float) -> float:
        """The seabed's depth (m, positive down) at (north, east); OffGridError off the grid."""
        return self.lookup(north, east)[0]

    def depths(self, north, east) -> np.ndarray:
        """The depth at many points (arrays of one shape); NaN off the grid (for drawing)."""
        north, east = np.broadcast_arrays(np.asarray(north, float), np.asarray(east, float))
        out = np.empty(north.size)
        bicubic_many(self.depth, ((north.ravel() - self.north0) / self.cell),
                     ((east.ravel() - self.east0) / self.cell), out)
        return out.reshape(north.shape)

    def geodetic(self, north: float, east: float) -> tuple[float, float]:
        """(latitude, longitude) in degrees, WGS 84, of the NED point (`auv_cosim.seabed.geodesy`)."""
        return geodetic_of(float(north), float(east), self.latitude, self.longitude)


def load_seabed(path, latitude: float, longitude: float, cell: float | None = None) -> Seabed:
    """Read a bathymetry file (`auv_cosim.seabed.grids.read_grid`) and resample it onto the NED
    grid about the origin (latitude, longitude) (degrees, WGS 84); `cell` the NED grid's
    spacing (m), by default the file's finest spacing in metres at the origin."""
    check_origin(latitude, longitude)
    return resample(read_grid(path), latitude, longitude, cell)


def resample(grid: SourceGrid, latitude: float, longitude: float, cell: float | None = None) -> Seabed:
    """The `Seabed` of a file's grid about the origin (see the module)."""
    from pyproj import Transformer

    check_origin(latitude, longitude)
    local = local_crs(latitude, longitude)
    to_local = Transformer.from_crs(grid.crs, local, always_xy=True)
    from_local = Transformer.from_crs(local, grid.crs, always_xy=True)
    # the grid's outline in NED: its border nodes (the transformations are smooth, so the
    # outline bounds the interior)
    ex, ey = _border(grid.x, grid.y)
    east, north = to_local.transform(ex, ey)
    east, north = np.asarray(east), np.asarray(north)
    if not (np.all(np.isfinite(east)) and np.all(np.isfinite(north))):
        raise SeabedError(grid.path, "pyproj cannot place its border about the origin (too far from it?)")
    if cell is None:
        cell = _spacing_in_metres(grid, to_local)
    if not (np.isfinite(cell) and cell > 0.0):
        raise SeabedError(grid.path, f"cannot resample at a cell of {cell!r} m")
    north0, east0 = np.floor(north.min() / cell) * cell, np.floor(east.min() / cell) * cell
    rows = int(np.floor((north.max() - north0) / cell)) + 1
    cols = int(np.floor((east.max() - east0) / cell)) + 1
    if rows * cols > MAX_NODES:
        raise SeabedError(grid.path, f"covers {(north.max() - north.min()) / 1e3:.1f} km by "
                                     f"{(east.max() - east.min()) / 1e3:.1f} km: {rows} x {cols} nodes at a "
                                     f"{cell:g} m cell exceed {MAX_NODES}; crop it to the area of the mission")
    nn, ee = np.meshgrid(north0 + cell * np.arange(rows), east0 + cell * np.arange(cols), indexing="ij")
    x, y = from_local.transform(ee.ravel(), nn.ravel())
    x, y = np.asarray(x, float), np.asarray(y, float)
    if grid.crs.is_geographic:      # the file's longitudes may run 0..360 or -180..180
        west = 0.5 * (grid.x[0] + grid.x[-1]) - 180.0
        x = (x - west) % 360.0 + west
    rows_of, cols_of = grid.fractional_index(x, y)
    elevation = np.empty(x.size)
    bicubic_many(grid.elevation, rows_of, cols_of, elevation)
    depth = -elevation.reshape(rows, cols)
    if not np.any(np.isfinite(depth)):
        raise SeabedError(grid.path, f"covers no point about the origin {latitude:.6f}, {longitude:.6f}")
    return Seabed(grid.path, float(latitude), float(longitude), float(north0), float(east0), float(cell), depth)


def _border(x, y):
    """The nodes of a grid's border, as arrays of x and y."""
    bx = np.concatenate([x, x, np.full(y.size, x[0]), np.full(y.size, x[-1])])
    by = np.concatenate([np.full(x.size, y[0]), np.full(x.size, y[-1]), y, y])
    return bx, by


def _spacing_in_metres(grid: SourceGrid, to_local) -> float:
    """The file's finest node spacing, in metres, at the middle of the grid."""
    i, j = grid.y.size // 2, grid.x.size // 2
    e, n = to_local.transform(np.array([grid.x[j], grid.x[j + 1], grid.x[j]]),
                              np.array([grid.y[i], grid.y[i], grid.y[i + 1]]))
    return float(min(np.hypot(e[1] - e[0], n[1] - n[0]), np.hypot(e[2] - e[0], n[2] - n[0])))
