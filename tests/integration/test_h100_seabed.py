"""The H100 over a bathymetry grid, through its FMUs and the master: H100Sensors' DVL reads
altitude and bottom lock from its four Janus beams against the grid (auv_cosim/stacks/acoustic.py),
and the navigation feels the loss of lock.

The seabed: a slope in UTM about 59.90 N, 10.70 E, 29 m below the vehicle at the start and
falling to the north (25 m + 45 m (1 + tanh((north - 10 m) / 15 m)) / 2). The H100 flies the
first minute of h100_waypoints (north 10 m at 0.3 m/s, then east) twice with the same seed: with
DvlRange 100 m every beam echoes all along; with DvlRange 60 m the two forward beams, which
reach down the slope, go out of range after a few seconds (the beams in range drop to 2), lock
is lost, the navigation's velocity decays (DvlLossTime) and only the USBL's fixes pull the
dead-reckoned position: its error grows from centimetres to metres.

Measured: with lock, the horizontal navigation error at most 0.11 m; without, lock lost at 4.4 s
(north 1.4 m), the error up to 8.8 m."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pyproj", reason="the seabed extra (pyproj) is not installed")

ORIGIN = (59.90, 10.70)


def _write_slope(path):
    from pyproj import Transformer

    x0, y0 = Transformer.from_crs("EPSG:4326", "EPSG:32632", always_xy=True).transform(ORIGIN[1], ORIGIN[0])
    x, y = x0 + np.arange(-200.0, 201.0, 5.0), y0 + np.arange(-200.0, 201.0, 5.0)
    north = np.meshgrid(x - x0, y - y0)[1]
    depth = 25.0 + 45.0 * 0.5 * (1.0 + np.tanh((north - 10.0) / 15.0))
    np.savez(path, elevation=-depth, x=x, y=y, crs="EPSG:32632")
    return path


@pytest.fixture(scope="module")
def flown(tmp_path_factory, fmus_built):
    from auv_cosim.master import run

    folder = tmp_path_factory.mktemp("h100_seabed")
    grid = str(_write_slope(folder / "slope.npz"))
    runs = {}
    for dvl_range in (100.0, 60.0):
        overrides = {f"{instance}.{name}": value for instance in ("vehicle", "sensors") for name, value in
                     (("BathymetryFile", grid), ("OriginLatitude", ORIGIN[0]), ("OriginLongitude", ORIGIN[1]))}
        overrides["sensors.DvlRange"] = dvl_range
        out = folder / f"range{dvl_range:g}"
        result = run("h100_waypoints", out_dir=out, stop_time=60.0, overrides=overrides, plots=False,
                     progress=False)
        assert result.ok, result.reason
        runs[dvl_range] = result.column
    return runs


def _navigation_error(column):
    return np.hypot(column("control.NavPosition[1]") - column("vehicle.Pos[1]"),
                    column("control.NavPosition[2]") - column("vehicle.Pos[2]"))


def test_with_every_beam_in_range_lock_holds_and_the_navigation_stays_within_centimetres(flown):
    column = flown[100.0]
    assert column("sensors.DvlValid").min() == 1.0 and column("sensors.DvlBeamsInRange").min() == 4
    assert np.ptp(column("vehicle.SeaDepth")) > 10.0                    # over the slope, not a plane
    # the height above the plane of the beams' hit points, 17 m apart over a curved slope: within
    # 4 m (measured) of the height above the point under the vehicle
    measured, true = column("sensors.MeasuredAltitude"), column("vehicle.Altitude")
    assert np.max(np.abs(measured - true)) < 0.15 * true.min()
    assert _navigation_error(column).max() < 0.3


def test_down_the_slope_the_beams_lose_lock_and_the_navigation_error_grows(flown):
    column, locked = flown[60.0], flown[100.0]
    valid, beams, time = column("sensors.DvlValid"), column("sensors.DvlBeamsInRange"), column("time")
    assert valid[0] == 1.0 and beams[0] == 4                             # lock at the start
    lost = int(np.argmax(valid < 0.5))
    assert 0 < lost and time[lost] < 15.0
    assert np.all(beams[valid < 0.5] < 3) and np.all(beams[valid > 0.5] >= 3)   # lock = three beams
    assert valid[time > 20.0].mean() < 0.5                               # lost for most of the rest
    error = _navigation_error(column)
    assert error[time < time[lost]].max() < 0.3                          # as good as with lock before
    assert error[time > 20.0].max() > 2.0                                # metres after
    assert error.max() > 10.0 * _navigation_error(locked).max()
