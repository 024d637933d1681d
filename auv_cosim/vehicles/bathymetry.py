"""The seabed a vehicle meets: a bathymetry grid carried in its constant vector, and its place on Earth.

`SeabedParameters` are the FMU parameters every vehicle shares: `BathymetryFile` (empty: the
plane of `auv_cosim.vehicles.environment`, as before) and the origin of NED on WGS 84
(`OriginLatitude`, `OriginLongitude`). With a file, the grid is read and resampled once onto a
NED grid (`auv_cosim.seabed`) and packed after the vehicle's constants (`seabed_block`), so
that the compiled outputs and derivative read it with the signature they already have:

    [rows, columns, north0, east0, cell, shallowest, depth[0, 0], depth[0, 1], ...]

(`shallowest`: a depth no point of the interpolated seabed is above, `seabed_block`).

`grid_depth_at` is the look-up inside compiled code: the grid's bicubic depth and gradient. A
vehicle calls it only where it has a grid and keeps the plane's formula where it has none, so
that a vehicle without a file computes exactly what it computed before.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Optional

import numpy as np

from ..compiled.jit import jit
from ..seabed.geodesy import check_origin, geodetic_of
from ..seabed.interpolation import bicubic
from .environment import sea_floor_depth
from .parameters import ParameterSet, parameter

#: the values before the depths in a packed grid
BLOCK_HEADER = 6

#: the grids read in this process, by (absolute path, modification time, origin): a model is
#: rebuilt at every change of a tunable parameter, the grid is read and resampled once
_LOADED: dict = {}


@dataclass(frozen=True)
class SeabedParameters(ParameterSet):
    """Where on Earth the vehicle is, and the seabed under it (FMU parameters)."""

    BathymetryFile: str = parameter(
        "", None, "Bathymetry grid (GeoTIFF, NetCDF, .npz or .xyz; elevation in metres, positive up, any CRS "
        "pyproj knows): the seabed under the vehicle; empty: the plane SeaFloorDepth + SeaFloorSlope",
        kind="string")
    OriginLatitude: float = parameter(0.0, "deg", "Latitude of the NED origin, WGS 84")
    OriginLongitude: float = parameter(0.0, "deg", "Longitude of the NED origin, WGS 84")

    def _validate(self):
        check_origin(self.OriginLatitude, self.OriginLongitude)

    def seabed(self):
        """The `auv_cosim.seabed.Seabed` of BathymetryFile about the origin, or None without a
        file. ValueError naming the parameter, the file and what is wrong with it."""
        if not self.BathymetryFile:
            return None
        from ..seabed import SeabedError, load_seabed

        path = os.path.abspath(self.BathymetryFile)
        try:
            key = (path, os.stat(path).st_mtime_ns, self.OriginLatitude, self.OriginLongitude)
        except OSError:
            key = None
        if key is not None and key in _LOADED:
            return _LOADED[key]
        try:
            seabed = load_seabed(path, self.OriginLatitude, self.OriginLongitude)
        except SeabedError as e:
            raise ValueError(f"parameter BathymetryFile = {self.BathymetryFile!r}: {e.problem} ({e.path})") from None
        _LOADED.clear()           # one grid at a time is kept
        _LOADED[key] = seabed
        return seabed


def seabed_block(seabed) -> np.ndarray:
    """The grid packed for the constant vector (see the module); empty without one."""
    if seabed is None:
        return np.zeros(0)
    rows, cols = seabed.depth.shape
    # the bicubic weights sum to 1 and their negative ones to at most 0.0741 a direction, so the
    # surface overshoots its 4 x 4 nodes by at most 0.32 of their range: no point of it is above
    top, bottom = float(np.nanmin(seabed.depth)), float(np.nanmax(seabed.depth))
    shallowest = top - 0.32 * (bottom - top)
    return np.concatenate([[rows, cols, seabed.north0, seabed.east0, seabed.cell, shallowest], seabed.depth.ravel()])


@jit
def grid_depth_at(north, east, c, at):
    """(depth, d depth/d north, d depth/d east) of the seabed at (north, east) from the grid
    packed at c[at:] (NaN off the grid or next to a hole)."""
    rows = int(c[at])
    cols = int(c[at + 1])
    cell = c[at + 4]
    depth = c[at + BLOCK_HEADER:at + BLOCK_HEADER + rows * cols].reshape((rows, cols))
    f, fu, fv = bicubic(depth, (north - c[at + 2]) / cell, (east - c[at + 3]) / cell)
    return f, fu / cell, fv / cell


@jit
def seabed_under(north, east, c, at, plane_depth, plane_slope):
    """(depth, d depth/d north, d depth/d east) of the seabed under (north, east): the grid
    packed at c[at:] when at > 0 (NaN off it), else the plane plane_depth + plane_slope .
    (north, east) of `auv_cosim.vehicles.environment`."""
    if at > 0:
        return grid_depth_at(north, east, c, at)
    return sea_floor_depth(north, east, plane_depth, plane_slope), plane_slope[0], plane_slope[1]


@jit
def grid_shallowest(c, at):
    """A depth no point of the seabed packed at c[at:] is above (see `seabed_block`)."""
    return c[at + 5]


@jit
def latitude_longitude(north, east, latitude0, longitude0):
    """(latitude, longitude) in degrees of the NED point (`auv_cosim.seabed.geodesy.geodetic_of`)."""
    return geodetic_of(north, east, latitude0, longitude0)


def off_grid_problem(seabed, north: float, east: float) -> Optional[str]:
    """The message of a position off the grid (`auv_cosim.seabed.OffGridError`'s)."""
    from ..seabed import OffGridError

    return str(OffGridError(seabed.path, north, east, seabed.extent))
