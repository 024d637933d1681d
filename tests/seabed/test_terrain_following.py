"""The scenario terrain_following (the AUV unit's scenarios/terrain_following.yaml) and the data it
carries: flown from an empty folder, the survey AUV holds 10 m over a synthetic seabed whose depth
varies by more than 20 m under its track; terrain.png draws depth, seabed and altitude along it.

The figures pinned (measured: altitude RMS error 0.25 m after the first minute with the
look-ahead of the slope flown, 0.41 m without it, lowest 9.4 m, the DVL's bottom lock kept,
1.50 m/s):
- altitude RMS error <= 0.5 m after the first minute, at 1.5 m/s;
- never below 8 m (no contact with the seabed), the DVL's AltitudeValid all along, from its
  four beams against the grid (the sensors take the scenario's BathymetryFile too)."""
from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("pyproj", reason="the seabed extra (pyproj) is not installed")

TARGET = 10.0


@pytest.fixture(scope="module")
def flown(tmp_path_factory, fmus_built):
    """The scenario by name, run from an empty folder: its seabed file is found beside it."""
    import os

    from auv_cosim.master import run

    folder = tmp_path_factory.mktemp("terrain_following")
    before = os.getcwd()
    os.chdir(folder)
    try:
        result = run("terrain_following", out_dir=folder / "out", progress=False, plots=True)
    finally:
        os.chdir(before)
    assert result.ok and result.summary["mission_completed"], result.reason
    return folder / "out", result.column


def test_holds_10_m_altitude_over_terrain_within_half_a_metre_rms(flown):
    out, column = flown
    after = column("time") >= 60.0
    altitude = column("vehicle.Altitude")
    assert np.ptp(column("vehicle.SeaDepth")) > 20.0                  # the terrain under the track
    rms = float(np.sqrt(np.mean((altitude[after] - TARGET) ** 2)))
    assert rms <= 0.5, f"altitude RMS error {rms:.3f} m after the first minute"
    assert altitude.min() > 8.0                                       # never near the seabed
    assert column("sensors.AltitudeValid")[after].min() == 1.0        # bottom lock kept
    assert column("sensors.DvlBeamsInRange").min() >= 3                # on at least three beams
    measured = column("sensors.MeasuredAltitude")[after]                # from the beams' plane
    assert float(np.sqrt(np.mean((measured - altitude[after]) ** 2))) < 0.3
    assert column("sensors.AltimeterValid").min() == 1.0
    assert column("vehicle.Speed")[after].mean() == pytest.approx(1.5, abs=0.05)
    # the summary's figures of the altitude mode, over the whole mission (the first minute too)
    figures = json.loads((out / "summary.json").read_text())["controls"]["control"]
    assert figures["altitude_error_m"]["rms"] <= 0.5 and figures["lowest_altitude_m"] > 8.0
    assert figures["bottom_lock_fraction"] == 1.0 and figures["navigation_error_m"]["rms"] < 0.3
    # the place on Earth: the origin's, moving north along the line
    assert column("vehicle.Latitude")[0] == pytest.approx(59.90 - 30.0 / 111_000, abs=1e-5)
    assert np.all(np.diff(column("vehicle.Latitude")[after]) > 0.0)


def _altitude_rms(column):
    after = column("time") >= 60.0
    return float(np.sqrt(np.mean((column("vehicle.Altitude")[after] - TARGET) ** 2)))


def test_the_look_ahead_of_the_slope_flown_cuts_the_altitude_error_by_a_third(flown, tmp_path):
    """The same flight without the look-ahead (TerrainSlopeDistance 0: the depth loop sees only
    the altitude error) keeps further from the target altitude: the glide angle of the slope
    flown is what the scenario's figure owes to it."""
    from auv_cosim.master import run

    _, column = flown
    result = run("terrain_following", out_dir=tmp_path / "plain", progress=False, plots=False,
                 overrides={"control.TerrainSlopeDistance": 0.0})
    assert result.ok, result.reason
    with_look_ahead, without = _altitude_rms(column), _altitude_rms(result.column)
    assert with_look_ahead < (2.0 / 3.0) * without, (with_look_ahead, without)
    assert without > 0.3                                               # the terrain is not trivial


def test_the_terrain_figure_and_the_resolved_file(flown):
    out, _ = flown
    assert (out / "terrain.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "terrain.png" in json.dumps(json.loads((out / "summary.json").read_text()))
    resolved = (out / "scenario.resolved.yaml").read_text()
    assert "seabeds/ridges_canyon.npz" in resolved and "BathymetryFile: /" in resolved


def test_the_shipped_seabed_is_what_the_script_writes(tmp_path):
    from auv_cosim.master import find_scenario
    from references import synthetic_seabed

    shipped = np.load(find_scenario("terrain_following").parent / "seabeds" / "ridges_canyon.npz")
    written = np.load(synthetic_seabed.main(tmp_path / "again.npz"))
    assert shipped.files == written.files
    for key in shipped.files:
        assert np.array_equal(shipped[key], written[key]), key


def test_a_file_parameter_is_the_file_beside_the_scenario_that_sets_it(tmp_path, monkeypatch):
    """A relative ``...File`` value names the file beside the scenario file when there is one
    (whatever the cwd); otherwise, and for any other parameter, the value is passed as it is."""
    from auv_cosim.master import load_scenario

    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "grid.npz").write_bytes(b"x")
    scenario = tmp_path / "s.yaml"
    scenario.write_text("stop_time: 1\ninstances:\n  v:\n    fmu: fmus/Auv.fmu\n    parameters:\n"
                        "      BathymetryFile: data/grid.npz\n  w:\n    fmu: fmus/Auv.fmu\n    parameters:\n"
                        "      BathymetryFile: data/none.npz\n")
    monkeypatch.chdir(tmp_path.parent)
    instances = load_scenario(scenario).model.instances
    assert instances["v"].parameters["BathymetryFile"] == str((tmp_path / "data" / "grid.npz").resolve())
    assert instances["w"].parameters["BathymetryFile"] == "data/none.npz"
