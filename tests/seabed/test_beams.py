"""The acoustic beams against a grid (auv_cosim/seabed/beams.py) and the AUV's DVL and altimeter
over one (auv_cosim/vehicles/auv/stack/terrain.py), on planes where the answers are exact."""
from __future__ import annotations

import math

import numpy as np
import pytest

from auv_cosim.seabed import Seabed
from auv_cosim.seabed.beams import beam_range, janus_beams, plane_altitude
from auv_cosim.vehicles.auv.stack.terrain import TerrainConfig, TerrainInstruments

H0, A, B = 50.0, 0.1, -0.05          # depth = H0 + A north + B east


def plane(cell=5.0, half=400.0):
    n = np.arange(-half, half + cell, cell)
    north, east = np.meshgrid(n, n, indexing="ij")
    return Seabed("plane.npz", 59.9, 10.7, -half, -half, cell, H0 + A * north + B * east)


def rotation(roll, pitch, heading):
    from auv_cosim.vehicles.rotation import quaternion_from_euler, rotation_matrix

    return rotation_matrix(np.asarray(quaternion_from_euler(roll, pitch, heading), float))


@pytest.mark.parametrize("attitude", [(0.0, 0.0, 0.0), (0.1, -0.2, 2.0), (-0.3, 0.15, -1.0)])
def test_each_beam_meets_the_plane_where_the_algebra_says(attitude):
    s, p = plane(), (12.0, -30.0, 20.0)
    beams = janus_beams(rotation(*attitude), math.radians(30.0))
    for d in beams:
        assert np.linalg.norm(d) == pytest.approx(1.0)
        exact = (H0 + A * p[0] + B * p[1] - p[2]) / (d[2] - A * d[0] - B * d[1])
        r = beam_range(s.depth, s.north0, s.east0, s.cell, *p, *d, 200.0)
        assert r == pytest.approx(exact, abs=1e-6)
        assert math.isnan(beam_range(s.depth, s.north0, s.east0, s.cell, *p, *d, exact - 0.1))   # beyond range
    ranges = np.array([beam_range(s.depth, s.north0, s.east0, s.cell, *p, *d, 200.0) for d in beams])
    # the DVL's altitude: the height above the plane of the hit points, along the vertical
    assert plane_altitude(*p, ranges, beams) == pytest.approx(H0 + A * p[0] + B * p[1] - p[2], abs=1e-6)
    ranges[1] = np.nan                                     # three beams still give the plane
    assert plane_altitude(*p, ranges, beams) == pytest.approx(H0 + A * p[0] + B * p[1] - p[2], abs=1e-6)
    ranges[2] = np.nan                                     # two do not
    assert math.isnan(plane_altitude(*p, ranges, beams))


def test_a_beam_pointing_up_or_from_below_the_seabed_has_no_echo():
    s = plane()
    assert math.isnan(beam_range(s.depth, s.north0, s.east0, s.cell, 0.0, 0.0, 20.0, 0.0, 0.0, -1.0, 500.0))
    assert math.isnan(beam_range(s.depth, s.north0, s.east0, s.cell, 0.0, 0.0, 60.0, 0.0, 0.0, 1.0, 500.0))


def test_the_dvl_locks_while_three_beams_are_in_range_and_the_altimeter_reads_its_beam(monkeypatch):
    terrain = TerrainInstruments(TerrainConfig(AltimeterNoiseStd=0.0), seed=1, dvl_range=30.0)
    terrain.seabed = plane()
    slant = 30.0 / math.cos(math.radians(30.0))
    level = (0.0, 0.0, 0.0)
    assert terrain.dvl_altitude((0.0, 0.0, 30.0), level) == pytest.approx(20.0, abs=1e-6)
    assert terrain.beams_in_range == 4
    # on the 10 % slope the beams toward deeper water are longer: 29 m above the seabed one of
    # them is beyond the slant range (lock kept on three), 29.5 m two (lock lost)
    for altitude, in_range in ((29.0, 3), (29.5, 2)):
        pos = (0.0, 0.0, H0 - altitude)
        beams = janus_beams(rotation(*level), math.radians(30.0))
        s = terrain.seabed
        ranges = [beam_range(s.depth, s.north0, s.east0, s.cell, *pos, *d, 1e3) for d in beams]
        assert sum(r <= slant for r in ranges) == in_range
        measured = terrain.dvl_altitude(pos, level)
        assert terrain.beams_in_range == in_range
        assert (measured == pytest.approx(altitude, abs=1e-6)) if in_range == 3 else math.isinf(measured)
    assert math.isinf(terrain.dvl_altitude((0.0, 0.0, H0 - 40.0), level)) and terrain.beams_in_range == 0
    reading, valid = terrain.altimeter((0.0, 0.0, 30.0), (0.0, 0.2, 0.0), 20.0)   # pitched 0.2 rad
    exact = 20.0 / (math.cos(0.2) - A * math.sin(0.2))     # along body z, tilted north, over the slope
    assert valid and reading == pytest.approx(exact, abs=1e-6)


def test_without_a_grid_the_altimeter_reads_the_true_altitude_along_its_tilted_beam():
    terrain = TerrainInstruments(TerrainConfig(AltimeterNoiseStd=0.0), seed=1, dvl_range=30.0)
    reading, valid = terrain.altimeter((0.0, 0.0, 0.0), (0.1, 0.2, 1.0), 25.0)
    assert valid and reading == pytest.approx(25.0 / (math.cos(0.1) * math.cos(0.2)))
    assert terrain.altimeter((0.0, 0.0, 0.0), (0.0, 0.0, 0.0), 150.0) == (0.0, False)   # beyond 100 m


def test_auv_sensors_refuse_a_bad_bathymetry_file_naming_it(tmp_path, fmus_built):
    from fmpy import simulate_fmu
    from fmpy.fmi1 import FMICallException

    from tests.harness import FMU_DIR

    messages = []
    with pytest.raises(FMICallException):
        simulate_fmu(str(FMU_DIR / "AuvSensors.fmu"), stop_time=1.0, step_size=0.1,
                     start_values={"BathymetryFile": str(tmp_path / "missing.tif")},
                     logger=lambda *args: messages.append(args[-1].decode() if isinstance(args[-1], bytes) else str(args[-1])))
    assert any("BathymetryFile" in m and "missing.tif" in m for m in messages), messages


def test_the_written_out_solve_is_numpy_s_on_normal_equations_and_nan_when_singular():
    """plane_altitude's 3 x 3 solve (Cramer's rule, not numpy.linalg.solve: its compilation
    took a fresh process about 20 s) against numpy's, on the normal equations of random hits."""
    from auv_cosim.seabed.beams import _first_of_solution

    rng = np.random.default_rng(5)
    for _ in range(200):
        rows = np.column_stack([np.ones(4), rng.normal(scale=8.0, size=(4, 2))])
        m, v = rows.T @ rows, rows.T @ rng.normal(30.0, 5.0, size=4)
        assert _first_of_solution(m, v) == pytest.approx(np.linalg.solve(m, v)[0], rel=1e-9, abs=1e-9)
    line = np.column_stack([np.ones(3), np.arange(3.0), 2.0 * np.arange(3.0)])      # hits on one line
    assert math.isnan(_first_of_solution(line.T @ line, line.T @ np.ones(3)))
