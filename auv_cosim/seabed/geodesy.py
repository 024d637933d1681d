"""A place on Earth: the vehicles' NED plane laid on WGS 84 at an origin.

The convention: the point (north, east) of NED lies at the geodesic distance
sqrt(north^2 + east^2) from the origin, at the azimuth atan2(east, north) (clockwise from
true north). That is the azimuthal equidistant projection centred on the origin (PROJ's
``aeqd`` on WGS 84, whose ellipsoidal form solves the same geodesic problems): exact along
every line through the origin and within centimetres of a local tangent plane over the few
kilometres a survey spans, and unambiguous for any distance.

`geodetic_of` solves the direct geodesic problem with Vincenty's iteration (T. Vincenty,
"Direct and inverse solutions of geodesics on the ellipsoid with application of nested
equations", Survey Review 23(176), 1975), compiled, because the vehicles report Latitude and
Longitude every step; its agreement with pyproj's geodesic (Karney's algorithm) is tested to a
millimetre. `local_crs` is the same plane as a pyproj CRS, for transforming whole grids once.
"""
from __future__ import annotations

import math

from ..compiled.jit import jit

#: WGS 84: semi-major axis (m) and flattening
WGS84_A = 6378137.0
WGS84_F = 1.0 / 298.257223563


def check_origin(latitude: float, longitude: float) -> None:
    """Refuse an origin that is no place on Earth (ValueError naming the parameter)."""
    if not (math.isfinite(latitude) and -90.0 < latitude < 90.0):
        raise ValueError(f"OriginLatitude must be in (-90, 90) degrees, got {latitude!r}")
    if not (math.isfinite(longitude) and -540.0 <= longitude <= 540.0):
        raise ValueError(f"OriginLongitude must be a finite longitude in degrees, got {longitude!r}")


def local_crs(latitude: float, longitude: float):
    """The NED plane at the origin as a pyproj CRS (x east, y north, metres): the azimuthal
    equidistant projection of WGS 84 centred on the origin (see the module)."""
    from pyproj import CRS

    return CRS.from_proj4(f"+proj=aeqd +lat_0={latitude!r} +lon_0={longitude!r} +x_0=0 +y_0=0 "
                          f"+datum=WGS84 +units=m +no_defs")


@jit
def geodetic_of(north, east, latitude0, longitude0):
    """(latitude, longitude) in degrees of the NED point (north, east) (m) about the origin
    (latitude0, longitude0) in degrees: Vincenty's direct problem on WGS 84 with distance
    hypot(north, east) and azimuth atan2(east, north). The iteration on the angular distance
    sigma converges to 1e-12 rad (6 um) in a few rounds for any distance under half the
    Earth's circumference."""
    a = WGS84_A
    f = WGS84_F
    b = a * (1.0 - f)
    s = math.hypot(north, east)
    if s == 0.0:
        return latitude0, longitude0
    alpha1 = math.atan2(east, north)
    sin_alpha1 = math.sin(alpha1)
    cos_alpha1 = math.cos(alpha1)
    tan_u1 = (1.0 - f) * math.tan(math.radians(latitude0))
    cos_u1 = 1.0 / math.sqrt(1.0 + tan_u1 * tan_u1)
    sin_u1 = tan_u1 * cos_u1
    sigma1 = math.atan2(tan_u1, cos_alpha1)
    sin_alpha = cos_u1 * sin_alpha1
    cos2_alpha = 1.0 - sin_alpha * sin_alpha
    u2 = cos2_alpha * (a * a - b * b) / (b * b)
    big_a = 1.0 + u2 / 16384.0 * (4096.0 + u2 * (-768.0 + u2 * (320.0 - 175.0 * u2)))
    big_b = u2 / 1024.0 * (256.0 + u2 * (-128.0 + u2 * (74.0 - 47.0 * u2)))
    sigma = s / (b * big_a)
    cos_2sigma_m = 0.0
    sin_sigma = 0.0
    cos_sigma = 1.0
    for _ in range(50):
        cos_2sigma_m = math.cos(2.0 * sigma1 + sigma)
        sin_sigma = math.sin(sigma)
        cos_sigma = math.cos(sigma)
        delta = big_b * sin_sigma * (cos_2sigma_m + big_b / 4.0 * (
            cos_sigma * (-1.0 + 2.0 * cos_2sigma_m * cos_2sigma_m)
            - big_b / 6.0 * cos_2sigma_m * (-3.0 + 4.0 * sin_sigma * sin_sigma)
            * (-3.0 + 4.0 * cos_2sigma_m * cos_2sigma_m)))
        previous = sigma
        sigma = s / (b * big_a) + delta
        if abs(sigma - previous) < 1e-12:
            break
    cos_2sigma_m = math.cos(2.0 * sigma1 + sigma)
    sin_sigma = math.sin(sigma)
    cos_sigma = math.cos(sigma)
    x = sin_u1 * sin_sigma - cos_u1 * cos_sigma * cos_alpha1
    latitude = math.atan2(sin_u1 * cos_sigma + cos_u1 * sin_sigma * cos_alpha1,
                          (1.0 - f) * math.sqrt(sin_alpha * sin_alpha + x * x))
    lam = math.atan2(sin_sigma * sin_alpha1, cos_u1 * cos_sigma - sin_u1 * sin_sigma * cos_alpha1)
    c = f / 16.0 * cos2_alpha * (4.0 + f * (4.0 - 3.0 * cos2_alpha))
    big_l = lam - (1.0 - c) * f * sin_alpha * (sigma + c * sin_sigma * (
        cos_2sigma_m + c * cos_sigma * (-1.0 + 2.0 * cos_2sigma_m * cos_2sigma_m)))
    longitude = longitude0 + math.degrees(big_l)
    longitude = (longitude + 180.0) % 360.0 - 180.0
    return math.degrees(latitude), longitude
