"""The survey AUV's navigation feels the loss of bottom lock (auv_cosim/vehicles/auv/stack/navigation.py).

Over a grid, without lock the navigation dead-reckons on the water track and misses the current:
its position error grows at the current's speed, against the rate the test computes itself; with
lock it stays at the instruments' noise; a GPS fix at the surface removes the drift; the drift is
part of the FMU's state."""
from __future__ import annotations

import math

import numpy as np
import pytest

from auv_cosim.vehicles.auv.stack.navigation import DeadReckoningConfig, WaterTrackDrift, water_track_velocity

pytest.importorskip("pyproj", reason="the seabed extra (pyproj) is not installed")

CURRENT_EAST = 0.3     # m/s


def test_the_water_track_estimate_is_the_speed_along_the_heading_on_the_horizontal():
    north, east = water_track_velocity(2.0, math.radians(60.0), math.radians(90.0))
    assert north == pytest.approx(0.0, abs=1e-12) and east == pytest.approx(1.0)


def test_the_drift_grows_only_without_lock_stays_after_it_and_goes_at_the_surface():
    drift = WaterTrackDrift(DeadReckoningConfig(GpsFixDepth=0.5))
    # heading north at 1.5 m/s through the water, carried east by 0.3 m/s over ground
    for _ in range(10):
        drift.advance(0.1, True, 20.0, 1.5, 0.0, 0.0, 1.5, CURRENT_EAST)
    assert not drift.active                                  # with lock: the suite's navigation
    for _ in range(10):
        drift.advance(0.1, False, 20.0, 1.5, 0.0, 0.0, 1.5, CURRENT_EAST)
    assert drift.north == pytest.approx(0.0, abs=1e-12)
    assert drift.east == pytest.approx(-CURRENT_EAST * 1.0)  # it believes it is 0.3 m west
    drift.advance(0.1, True, 20.0, 1.5, 0.0, 0.0, 1.5, CURRENT_EAST)
    assert drift.east == pytest.approx(-0.3)                 # lock regained: velocity, not position
    drift.advance(0.1, True, 0.2, 1.5, 0.0, 0.0, 1.5, CURRENT_EAST)
    assert not drift.active                                  # a GPS fix at the surface
    with pytest.raises(ValueError, match="GpsFixDepth"):
        WaterTrackDrift(DeadReckoningConfig(GpsFixDepth=-1.0))


@pytest.fixture(scope="module")
def errors(tmp_path_factory, fmus_built):
    """The navigation's error (NavNorth/NavEast minus the true position) over 40 s of
    terrain_following in a 0.3 m/s eastward current, with the DVL's range 30 m (lock at 10 m
    altitude) and 8 m (no lock)."""
    from auv_cosim.master import run

    out = {}
    for dvl_range in (30.0, 8.0):
        folder = tmp_path_factory.mktemp(f"nav{dvl_range:g}")
        result = run("terrain_following", out_dir=folder, stop_time=40, progress=False, plots=False,
                     overrides={"sensors.DvlRange": dvl_range, "vehicle.CurrentVelocity": [0.0, CURRENT_EAST, 0.0]})
        assert result.ok, result.reason
        column = result.column
        out[dvl_range] = (column("time"), column("sensors.NavNorth") - column("vehicle.Pos[1]"),
                          column("sensors.NavEast") - column("vehicle.Pos[2]"), column("sensors.AltitudeValid"))
        out[f"summary{dvl_range:g}"] = result.summary["controls"]["control"]
    return out


def test_with_bottom_lock_the_navigation_error_stays_at_the_noise(errors):
    t, north, east, lock = errors[30.0]
    assert lock.min() == 1.0
    assert np.abs(north).max() < 0.6 and np.abs(east).max() < 0.6     # NavNoiseStd 0.1 m


def test_without_bottom_lock_the_navigation_drifts_with_the_current_it_cannot_see(errors):
    t, north, east, lock = errors[8.0]
    assert lock.max() == 0.0                                  # 10 m altitude, 8 m of range
    rate = np.polyfit(t[t > 5.0], east[t > 5.0], 1)[0]
    # the water track misses the current: the error grows at -0.3 m/s east (the vehicle's own
    # sideslip is small on a straight line)
    assert rate == pytest.approx(-CURRENT_EAST, rel=0.05)
    assert east[-1] < -0.8 * CURRENT_EAST * t[-1]
    assert abs(np.polyfit(t[t > 5.0], north[t > 5.0], 1)[0]) < 0.03


def test_the_summary_says_how_long_the_lock_held_and_how_far_the_navigation_erred(errors):
    """summary.json's control figures (auv_cosim/vehicles/auv/host/seabed_figures.py): the
    share of the mission with bottom lock, and the navigation error against the truth, which the
    test recomputes from the columns."""
    for dvl_range, lock_share in ((30.0, 1.0), (8.0, 0.0)):
        figures = errors[f"summary{dvl_range:g}"]
        t, north, east, _ = errors[dvl_range]
        assert figures["bottom_lock_fraction"] == lock_share
        assert figures["navigation_error_m"]["max"] == pytest.approx(float(np.hypot(north, east).max()), rel=1e-5)
        assert figures["altitude_error_definition"] == "vehicle.Altitude - control.TargetAltitude (10 m)"
    assert errors["summary8"]["navigation_error_m"]["max"] > 0.8 * CURRENT_EAST * 40.0


def test_the_drift_is_part_of_the_fmu_state(tmp_path, fmus_built):
    """A state taken mid-drift, restored into a fresh instance, steps on to the same navigation."""
    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Slave

    from auv_cosim.master import find_scenario

    grid = str(find_scenario("terrain_following").parent / "seabeds" / "ridges_canyon.npz")
    path = str(fmus_built[1])
    md = read_model_description(path)
    refs = {v.name: v.valueReference for v in md.modelVariables}
    unzip = extract(path, str(tmp_path / "x"))

    def instance(name):
        fmu = FMU2Slave(guid=md.guid, unzipDirectory=unzip, modelIdentifier=md.coSimulation.modelIdentifier,
                        instanceName=name)
        fmu.instantiate()
        fmu.setupExperiment(startTime=0.0)
        fmu.setString([refs["BathymetryFile"]], [grid])
        fmu.setReal([refs["OriginLatitude"], refs["OriginLongitude"], refs["DvlRange"]], [59.90, 10.70, 8.0])
        fmu.setReal([refs[n] for n in ("Pos[1]", "Pos[3]", "Depth", "Speed", "Vel[1]", "Vel[2]")],
                    [0.0, 44.0, 44.0, 1.5, 1.5, CURRENT_EAST])
        fmu.enterInitializationMode()
        fmu.exitInitializationMode()
        return fmu

    a = instance("a")
    for k in range(20):
        a.doStep(0.1 * k, 0.1)
    state = a.serializeFMUstate(a.getFMUstate())
    b = instance("b")
    b.setFMUstate(b.deSerializeFMUstate(state))
    readings = []
    for fmu in (a, b):
        for k in range(20, 30):
            fmu.doStep(0.1 * k, 0.1)
        readings.append(fmu.getReal([refs["NavEast"]])[0])
        fmu.terminate()
        fmu.freeInstance()
    assert readings[0] == readings[1]
    assert readings[0] < -0.3 * 3.0 * 0.8          # three seconds without lock in the current
