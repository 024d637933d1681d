"""Test grids written by the libraries themselves (rasterio, xarray), over analytic seabeds.

The analytic surface and the pyproj chain that places a NED point in the file's CRS are
written here independently of auv_cosim.seabed: a NED point is carried by pyproj's geodesic
(Geod.fwd, Karney's algorithm) to latitude/longitude, then by a pyproj Transformer to the
grid's CRS, where the surface is evaluated exactly."""
from __future__ import annotations

import math

import numpy as np

ORIGIN = (59.90, 10.70)          # latitude, longitude (degrees): Oslofjord
UTM = "EPSG:32632"               # UTM zone 32N, the zone of the origin
CELL = 5.0                       # m
HALF = 1500.0                    # the grids reach about this far from the origin, m


def utm_surface(x, y, x0, y0):
    """Elevation (m, positive up) of a smooth seabed in UTM metres: 80 m deep, a 400 m by
    300 m egg-box of +-6 m and a tilt of 2 % east, 1 % north."""
    return -(80.0 + 6.0 * np.sin(2 * np.pi * (x - x0) / 400.0) * np.cos(2 * np.pi * (y - y0) / 300.0)
             + 0.02 * (x - x0) - 0.01 * (y - y0))


def geographic_surface(lon, lat):
    """Elevation (m) of a smooth seabed in degrees: about 60 m deep with waves of 0.004 deg."""
    return -(60.0 + 5.0 * np.sin(2 * np.pi * (lon - ORIGIN[1]) / 0.008) * np.cos(2 * np.pi * (lat - ORIGIN[0]) / 0.004))


def utm_origin():
    from pyproj import Transformer
    return Transformer.from_crs("EPSG:4326", UTM, always_xy=True).transform(ORIGIN[1], ORIGIN[0])


def write_utm_geotiff(path, nodata_hole=False):
    """A north-up GeoTIFF of `utm_surface` in UTM, 5 m cells (rasterio writes it)."""
    import rasterio
    from rasterio.transform import from_origin

    x0, y0 = utm_origin()
    n = int(2 * HALF / CELL)
    left, top = math.floor(x0 / CELL) * CELL - HALF, math.floor(y0 / CELL) * CELL + HALF
    xs = left + CELL / 2 + CELL * np.arange(n)
    ys = top - CELL / 2 - CELL * np.arange(n)
    z = utm_surface(*np.meshgrid(xs, ys), x0, y0).astype("float32")
    if nodata_hole:
        z[n // 2 - 3:n // 2 + 3, n // 2 + 40:n // 2 + 46] = -9999.0
    with rasterio.open(path, "w", driver="GTiff", width=n, height=n, count=1, dtype="float32", crs=UTM,
                       transform=from_origin(left, top, CELL, CELL), nodata=-9999.0) as ds:
        ds.write(z, 1)
    return path


def write_utm_netcdf(path):
    """The same seabed as a NetCDF grid with a CF grid mapping (xarray writes it)."""
    import xarray as xr
    from pyproj import CRS

    x0, y0 = utm_origin()
    n = int(2 * HALF / CELL)
    xs = math.floor(x0 / CELL) * CELL - HALF + CELL * np.arange(n)
    ys = math.floor(y0 / CELL) * CELL - HALF + CELL * np.arange(n)
    z = utm_surface(*np.meshgrid(xs, ys), x0, y0)
    ds = xr.Dataset({"elevation": (("y", "x"), z, {"units": "m", "grid_mapping": "crs"}),
                     "crs": ((), 0, CRS.from_user_input(UTM).to_cf())},
                    coords={"x": ("x", xs, {"units": "m"}), "y": ("y", ys, {"units": "m"})})
    ds.to_netcdf(path)
    return path


def write_latlon_netcdf(path, step=0.0001):
    """A GEBCO-like NetCDF-4 grid with CF lat/lon coordinates and no grid mapping (WGS 84 by
    convention), of `geographic_surface` (xarray writes it)."""
    import xarray as xr

    lat = ORIGIN[0] - 0.012 + step * np.arange(int(0.024 / step) + 1)
    lon = ORIGIN[1] - 0.024 + step * np.arange(int(0.048 / step) + 1)
    z = geographic_surface(*np.meshgrid(lon, lat))
    ds = xr.Dataset({"elevation": (("lat", "lon"), z.astype("float32"), {"units": "m"})},
                    coords={"lat": ("lat", lat, {"units": "degrees_north", "standard_name": "latitude"}),
                            "lon": ("lon", lon, {"units": "degrees_east", "standard_name": "longitude"})})
    ds.to_netcdf(path, format="NETCDF4")
    return path


def place(north, east, crs):
    """The NED point (north, east) about ORIGIN in `crs`, by pyproj's geodesic then Transformer:
    (x, y), and its (latitude, longitude)."""
    from pyproj import Geod, Transformer

    lon, lat, _ = Geod(ellps="WGS84").fwd(ORIGIN[1], ORIGIN[0], math.degrees(math.atan2(east, north)),
                                          math.hypot(north, east))
    x, y = Transformer.from_crs("EPSG:4326", crs, always_xy=True).transform(lon, lat)
    return (x, y), (lat, lon)
