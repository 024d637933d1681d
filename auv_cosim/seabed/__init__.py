"""The seabed: bathymetry grids from files, a place on Earth, terrain queries.

Shared by the vehicles, their instruments and the analyses of a run; imports only the
compiled floor. `load_seabed(path, latitude, longitude)` reads a GeoTIFF, NetCDF, .npz or .xyz
grid (`grids`) and resamples it once onto a grid aligned with north and east about the origin
(`terrain`), whose look-up is a C1-smooth bicubic interpolation (`interpolation`);
`geodetic_of` places a NED point on WGS 84 (`geodesy`). The file readers' libraries (rasterio,
xarray, pyproj) are imported only when a file is read.
"""
from .errors import OffGridError, SeabedError
from .geodesy import geodetic_of
from .terrain import Seabed, load_seabed, resample, seabed_depth

__all__ = ["OffGridError", "Seabed", "SeabedError", "geodetic_of", "load_seabed", "resample", "seabed_depth"]
