"""Auv.fmu over a bathymetry grid, through fmpy alone (fmpy.simulate_fmu, nothing of the master):
a GeoTIFF in UTM and a NetCDF grid, both written by the libraries, over an analytic seabed;
the vehicle flown straight for 300 s from the origin. SeaDepth and Altitude agree with the
analytic surface (carried by pyproj's geodesic and Transformer, tests/seabed/grids.py) within
5 cm, Latitude and Longitude with pyproj's geodesic within 0.1 m; off the grid the step fails
naming the position, a bad file fails initialisation naming the parameter and the file."""
from __future__ import annotations

import math

import numpy as np
import pytest

from tests.harness import FMU_DIR, build
from tests.seabed import grids

pytest.importorskip("rasterio", reason="the seabed extra (rasterio) is not installed")
pytest.importorskip("xarray", reason="the seabed extra (xarray) is not installed")
pyproj = pytest.importorskip("pyproj", reason="the seabed extra (pyproj) is not installed")

HEADING = math.radians(35.0)
STRAIGHT = {"Pos0[3]": 20.0, "LocalVel0[1]": 1.5, "Quater0[1]": math.cos(HEADING / 2), "Quater0[4]": math.sin(HEADING / 2),
            "AverageDensity": 1025.0, "OriginLatitude": grids.ORIGIN[0], "OriginLongitude": grids.ORIGIN[1]}
OUTPUTS = ["Pos[1]", "Pos[2]", "Depth", "SeaDepth", "Altitude", "Latitude", "Longitude"]


@pytest.fixture(scope="module")
def auv():
    build("Auv")
    return str(FMU_DIR / "Auv.fmu")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("seabed_fmu")
    return {"tif": grids.write_utm_geotiff(folder / "utm.tif"), "nc": grids.write_utm_netcdf(folder / "utm.nc"),
            "latlon": grids.write_latlon_netcdf(folder / "gebco_like.nc")}


def fly(auv, start, stop_time=300.0, logger=None, **more):
    from fmpy import simulate_fmu

    return simulate_fmu(auv, stop_time=stop_time, output_interval=1.0, step_size=0.1, output=OUTPUTS,
                        start_values={**STRAIGHT, "ThrustPower": 40.0, **start, **more}, logger=logger)


def check_against_pyproj(result, crs, surface):
    geod = pyproj.Geod(ellps="WGS84")
    worst_depth = worst_place = 0.0
    for row in result[::10]:
        n, e = row["Pos[1]"], row["Pos[2]"]
        (x, y), (lat, lon) = grids.place(n, e, crs)
        worst_depth = max(worst_depth, abs(row["SeaDepth"] + surface(x, y)))
        assert row["Altitude"] == pytest.approx(row["SeaDepth"] - row["Depth"], abs=1e-9)
        worst_place = max(worst_place, geod.inv(row["Longitude"], row["Latitude"], lon, lat)[2])
    return worst_depth, worst_place


@pytest.mark.parametrize("kind", ["tif", "nc"])
def test_straight_over_a_utm_grid_matches_the_analytic_seabed_and_pyproj(auv, files, kind):
    result = fly(auv, {"BathymetryFile": str(files[kind])})
    assert math.hypot(result["Pos[1]"][-1], result["Pos[2]"][-1]) > 350.0      # 300 s at about 1.5 m/s
    x0, y0 = grids.utm_origin()
    depth, place = check_against_pyproj(result, grids.UTM, lambda x, y: grids.utm_surface(x, y, x0, y0))
    assert depth < 0.05, f"SeaDepth off the analytic seabed by {depth:.4f} m"
    assert place < 0.1, f"Latitude/Longitude off pyproj's geodesic by {place:.4f} m"
    assert np.ptp(result["SeaDepth"]) > 5.0            # the seabed under the track does vary


def test_netcdf_latlon_grid_without_grid_mapping(auv, files):
    result = fly(auv, {"BathymetryFile": str(files["latlon"])}, stop_time=200.0)
    depth, place = check_against_pyproj(result, "EPSG:4326", lambda lon, lat: grids.geographic_surface(lon, lat))
    assert depth < 0.05 and place < 0.1


def test_without_a_file_the_plane_and_the_place_on_earth(auv):
    result = fly(auv, {"SeaFloorDepth": 60.0, "SeaFloorSlope[1]": 0.01}, stop_time=100.0)
    assert result["SeaDepth"] == pytest.approx(60.0 + 0.01 * result["Pos[1]"], abs=1e-12)
    _, place = check_against_pyproj(result, "EPSG:4326", lambda lon, lat: -(60.0 + 0.0 * lon))
    assert place < 0.1


def test_off_the_grid_fails_the_step_naming_the_position(auv, files):
    from fmpy.fmi1 import FMICallException

    messages = []
    with pytest.raises(FMICallException):   # 1600 m at 1.5 m/s: off the 1500 m grid before 1200 s
        fly(auv, {"BathymetryFile": str(files["tif"])}, stop_time=1400.0,
            logger=lambda *args: messages.append(args[-1].decode() if isinstance(args[-1], bytes) else str(args[-1])))
    assert any("fmi2DoStep" in m and "no seabed at north" in m and "utm.tif" in m for m in messages), messages


def test_a_bad_file_fails_initialisation_naming_it(auv, tmp_path):
    from fmpy.fmi1 import FMICallException

    messages = []
    bad = tmp_path / "nocrs.npz"
    np.savez(bad, elevation=np.zeros((5, 5)), x=np.arange(5.0), y=np.arange(5.0))
    with pytest.raises(FMICallException):
        from fmpy import simulate_fmu

        simulate_fmu(auv, stop_time=1.0, step_size=0.1, start_values={"BathymetryFile": str(bad)},
                     logger=lambda *args: messages.append(args[-1].decode() if isinstance(args[-1], bytes) else str(args[-1])))
    assert any("BathymetryFile" in m and "nocrs.npz" in m for m in messages), messages

