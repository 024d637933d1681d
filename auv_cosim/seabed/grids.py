"""Reading a bathymetry grid from a file: GeoTIFF, NetCDF, .npz or .xyz.

Every reader returns a `SourceGrid`: the node coordinates along x and y (ascending), the elevation (metres, positive up: GEBCO's convention, so the seabed is negative),
NaN where the file has no data, and the grid's CRS as pyproj understands it. What a reader
cannot be sure of it refuses (`SeabedError` naming the file and the problem) rather than guess:
a grid without a CRS, a rotated grid, axes that are not monotonic, a file with no 2-D elevation variable.

* GeoTIFF (.tif, .tiff): band 1, read with rasterio; the CRS from the file; nodata -> NaN.
* NetCDF (.nc, .nc4, .grd, .cdf): read with xarray (GEBCO's and GMT's grids). The elevation
  is the one two-dimensional data variable (or the one named elevation, z, topo, Band1); the
  CRS comes from its CF ``grid_mapping`` variable; without one, CF latitude/longitude
  coordinates mean WGS 84 (EPSG:4326), and projected x/y coordinates without a grid mapping
  are refused. ``positive = "down"`` on the variable flips the sign.
* .npz: ``elevation`` (or ``topo`` or ``z``) of shape (len(y), len(x)) with ``x``, ``y`` and
  ``crs`` (any string pyproj reads), or with ``latitude``/``longitude`` (``lat``/``lon``) and
  no ``crs``: WGS 84 (matplotlib's ``topobathy.npz`` sample is such a grid).
* .xyz: text lines ``x y z`` covering a regular grid, with the CRS on a first line
  ``# crs: <anything pyproj reads>`` (an .xyz carries no CRS otherwise).

The libraries (rasterio, xarray with a NetCDF engine, pyproj) are imported only when a file
needs them: they come with the project's ``seabed`` extra.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .errors import SeabedError

GEOTIFF = (".tif", ".tiff")
NETCDF = (".nc", ".nc4", ".grd", ".cdf")
ELEVATION_NAMES = ("elevation", "z", "topo", "Band1")
LATITUDE_NAMES = ("lat", "latitude")
LONGITUDE_NAMES = ("lon", "longitude")


@dataclass(frozen=True)
class SourceGrid:
    """A grid as its file gives it: elevation[row, column] at (x[column], y[row]) in `crs`;
    the axes ascending, evenly spaced or not (a rectilinear grid)."""
    path: str
    x: np.ndarray
    y: np.ndarray
    elevation: np.ndarray
    crs: object          # a pyproj.CRS

    def fractional_index(self, x, y) -> tuple[np.ndarray, np.ndarray]:
        """(row, column) of points in the CRS as fractional node indices (NaN outside): linear
        in the coordinate between two nodes, so an evenly spaced axis maps exactly."""
        return (np.interp(y, self.y, np.arange(self.y.size), left=np.nan, right=np.nan),
                np.interp(x, self.x, np.arange(self.x.size), left=np.nan, right=np.nan))


def read_grid(path) -> SourceGrid:
    """The grid of a bathymetry file (the format from its suffix; see the module)."""
    path = Path(path)
    if not path.is_file():
        raise SeabedError(path, "no such file")
    suffix = path.suffix.lower()
    if suffix in GEOTIFF:
        return _read_geotiff(path)
    if suffix in NETCDF:
        return _read_netcdf(path)
    if suffix == ".npz":
        return _read_npz(path)
    if suffix == ".xyz":
        return _read_xyz(path)
    raise SeabedError(path, f"unknown format {suffix!r}: expected a GeoTIFF ({', '.join(GEOTIFF)}), "
                            f"a NetCDF grid ({', '.join(NETCDF)}), .npz or .xyz")


def make_grid(path, x, y, elevation, crs) -> SourceGrid:
    """A checked `SourceGrid`: axes strictly monotonic (made ascending, the elevation's rows
    and columns flipped to match), at least 4 x 4 nodes (the interpolation's stencil), NaN for
    holes, the CRS parsed by pyproj."""
    from pyproj import CRS
    from pyproj.exceptions import CRSError

    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    z = np.array(elevation, dtype=float)
    if z.ndim != 2 or z.shape != (y.size, x.size):
        raise SeabedError(path, f"elevation of shape {z.shape} does not match {y.size} y by {x.size} x nodes")
    if x.size < 4 or y.size < 4:
        raise SeabedError(path, f"a grid needs at least 4 x 4 nodes, this one has {y.size} x {x.size}")
    if x[1] < x[0]:
        x, z = x[::-1], z[:, ::-1]
    if y[1] < y[0]:
        y, z = y[::-1], z[::-1, :]
    for name, axis in (("x", x), ("y", y)):
        if not np.all(np.isfinite(axis)) or np.any(np.diff(axis) <= 0):
            raise SeabedError(path, f"the {name} coordinates are not strictly monotonic: not a grid")
    if not np.any(np.isfinite(z)):
        raise SeabedError(path, "every node is nodata")
    try:
        crs = CRS.from_user_input(crs)
    except CRSError as e:
        raise SeabedError(path, f"pyproj cannot read its CRS {str(crs)[:80]!r}: {e}") from None
    z[~np.isfinite(z)] = np.nan
    return SourceGrid(str(path), x, y, z, crs)


def _read_geotiff(path: Path) -> SourceGrid:
    """Band 1 of a north-up GeoTIFF; the node of a pixel is its centre (rasterio's transform
    maps pixel corners)."""
    try:
        import rasterio
    except ImportError:
        raise SeabedError(path, "reading a GeoTIFF needs rasterio (pip install 'auv-cosim[seabed]')") from None
    try:
        with rasterio.open(path) as ds:
            t = ds.transform
            if t.b != 0.0 or t.d != 0.0:
                raise SeabedError(path, "a rotated raster (its transform has shear terms) is not supported")
            if ds.crs is None:
                raise SeabedError(path, "the GeoTIFF has no CRS")
            band = ds.read(1, masked=True).astype(float).filled(np.nan)
            x = t.c + t.a * (np.arange(ds.width) + 0.5)
            y = t.f + t.e * (np.arange(ds.height) + 0.5)
            crs = ds.crs.to_wkt()
    except rasterio.errors.RasterioError as e:
        raise SeabedError(path, f"rasterio cannot read it: {e}") from None
    return make_grid(path, x, y, band, crs)


def _coordinate(ds, var, names, axis):
    """The name of the variable's dimension that is a latitude (axis "Y") or longitude
    ("X") by CF: by its units, its standard name or its name; None when none is."""
    units = ("degrees_north", "degree_north", "degrees_n") if axis == "Y" else \
            ("degrees_east", "degree_east", "degrees_e")
    for dim in var.dims:
        c = ds[dim] if dim in ds.variables else None
        attrs = c.attrs if c is not None else {}
        if str(attrs.get("units", "")).lower() in units or \
                attrs.get("standard_name") in ("latitude" if axis == "Y" else "longitude",) or dim.lower() in names:
            return dim
    return None


def _read_netcdf(path: Path) -> SourceGrid:
    try:
        import xarray as xr
    except ImportError:
        raise SeabedError(path, "reading NetCDF needs xarray and a NetCDF engine "
                                "(pip install 'auv-cosim[seabed]')") from None
    try:
        ds = xr.open_dataset(path, decode_times=False, mask_and_scale=True)
    except (OSError, ValueError) as e:
        raise SeabedError(path, f"xarray cannot open it as NetCDF: {e}") from None
    with ds:
        candidates = [n for n, v in ds.data_vars.items() if v.ndim == 2]
        named = [n for n in ELEVATION_NAMES if n in candidates]
        if named:
            name = named[0]
        elif len(candidates) == 1:
            name = candidates[0]
        else:
            raise SeabedError(path, f"cannot tell the elevation among its 2-D variables {candidates} "
                                    f"(expected one, or one named {', '.join(ELEVATION_NAMES)})")
        var = ds[name]
        lat = _coordinate(ds, var, LATITUDE_NAMES, "Y")
        lon = _coordinate(ds, var, LONGITUDE_NAMES, "X")
        mapping = var.attrs.get("grid_mapping")
        if mapping:
            if mapping not in ds.variables:
                raise SeabedError(path, f"{name}'s grid_mapping {mapping!r} is not a variable of the file")
            crs = _cf_crs(path, ds[mapping].attrs)
            ydim, xdim = var.dims
        elif lat and lon:
            crs, ydim, xdim = "EPSG:4326", lat, lon   # CF latitude/longitude without a mapping: WGS 84
        else:
            raise SeabedError(path, f"{name} has neither a grid_mapping nor latitude/longitude coordinates: "
                                    f"its CRS is unknown")
        if var.dims != (ydim, xdim):
            var = var.transpose(ydim, xdim)
        z = var.values.astype(float)
        if str(var.attrs.get("positive", "up")).lower() == "down":
            z = -z
        return make_grid(path, ds[xdim].values, ds[ydim].values, z, crs)


def _cf_crs(path, attrs):
    from pyproj import CRS
    from pyproj.exceptions import CRSError

    try:
        return CRS.from_cf(dict(attrs))
    except CRSError as e:
        raise SeabedError(path, f"pyproj cannot read its CF grid mapping: {e}") from None


def _read_npz(path: Path) -> SourceGrid:
    try:
        data = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as e:
        raise SeabedError(path, f"numpy cannot read it as .npz: {e}") from None
    with data:
        keys = set(data.files)
        z = next((k for k in ("elevation", "topo", "z") if k in keys), None)
        if z is None:
            raise SeabedError(path, f"no elevation array (expected elevation, topo or z; it has {sorted(keys)})")
        lat = next((k for k in ("latitude", "lat") if k in keys), None)
        lon = next((k for k in ("longitude", "lon") if k in keys), None)
        if {"x", "y"} <= keys:
            if "crs" not in keys:
                raise SeabedError(path, "x and y without a crs entry: its CRS is unknown")
            return make_grid(path, data["x"], data["y"], data[z], str(data["crs"]))
        if lat and lon:
            crs = str(data["crs"]) if "crs" in keys else "EPSG:4326"
            return make_grid(path, data[lon], data[lat], data[z], crs)
        raise SeabedError(path, f"no coordinates (expected x, y and crs, or latitude and longitude; "
                                f"it has {sorted(keys)})")


def _read_xyz(path: Path) -> SourceGrid:
    with open(path, encoding="utf-8") as f:
        first = f.readline().strip()
    if not first.lower().startswith("# crs:"):
        raise SeabedError(path, "an .xyz grid needs its CRS on a first line '# crs: <EPSG code or WKT>'")
    try:
        table = np.loadtxt(path, comments="#", ndmin=2)
    except ValueError as e:
        raise SeabedError(path, f"not three numbers a line: {e}") from None
    if table.shape[1] != 3:
        raise SeabedError(path, f"expected three columns x y z, found {table.shape[1]}")
    x, col = np.unique(table[:, 0], return_inverse=True)
    y, row = np.unique(table[:, 1], return_inverse=True)
    z = np.full((y.size, x.size), np.nan)
    z[row, col] = table[:, 2]
    if len(table) != x.size * y.size:
        raise SeabedError(path, f"{len(table)} points do not make a full grid of {y.size} x {x.size} nodes "
                                f"(missing nodes may be written with z = nan)")
    return make_grid(path, x, y, z, first.split(":", 1)[1].strip())
