"""SPEC 8 through the whole stack: the AUV holding 5 m in Hs 2 m seas (scenarios/survey_waves.yaml)
is heaved and pitched by the waves, and the plots show it; in still water it is not."""
from __future__ import annotations

import statistics

import pytest

pytestmark = pytest.mark.usefixtures("fmus_built")

SHORT = ("survey_waves", "--stop-time", "120")


def settled(run, name, after=30.0):
    times = run.column("time")
    return [v for t, v in zip(times, run.column(name)) if t >= after]


def test_waves_disturb_depth_and_pitch_and_the_plots_show_it(runs):
    waves = runs(*SHORT)
    still = runs(*SHORT, "--set", "vehicle.WaveMode=0")
    assert waves.rc == 0, waves
    assert still.rc == 0, still
    depth_waves = statistics.pstdev(settled(waves, "vehicle.Depth"))
    depth_still = statistics.pstdev(settled(still, "vehicle.Depth"))
    pitch_waves = statistics.pstdev(settled(waves, "vehicle.Pitch"))
    pitch_still = statistics.pstdev(settled(still, "vehicle.Pitch"))
    assert depth_waves > 0.02 and depth_waves > 10 * depth_still, (depth_waves, depth_still)
    assert pitch_waves > 0.005 and pitch_waves > 10 * pitch_still, (pitch_waves, pitch_still)
    for plot in ("depth.png", "attitude.png"):
        assert (waves.out / plot).stat().st_size > 20_000


def test_the_sea_surface_above_the_vehicle_is_recorded_here_and_nowhere_else(runs):
    """Auv.fmu's SurfaceElevation is a local variable, not an output: survey_waves records it by
    name (`record: [all, vehicle.SurfaceElevation]`, after every column `all` gives), a scenario
    that records `all` does not, so no other results.csv changed. In waves it is the sea's
    elevation above the vehicle (SPEC 8's closed form at its north and east), in still water 0."""
    import numpy as np

    from auv_cosim.vehicles.environment import Environment
    from auv_cosim.vehicles.waves import WaveParameters, surface_elevation, wave_components

    waves = runs(*SHORT)
    still = runs(*SHORT, "--set", "vehicle.WaveMode=0")
    header = waves.table()[0]
    assert header[-1] == "vehicle.SurfaceElevation" and header.count("vehicle.SurfaceElevation") == 1
    assert "vehicle.SurfaceElevation" not in runs("survey", "--stop-time", "2", "--no-plots").table()[0]
    sea = WaveParameters(WaveMode=2, SignificantWaveHeight=2.0, PeakPeriod=8.0, WaveDirection=0.785,
                         WaveComponents=100, WaveSeed=1)
    rows = wave_components(sea, Environment().Gravity)
    times, north, east = (np.array(waves.column(c)) for c in ("time", "vehicle.Pos[1]", "vehicle.Pos[2]"))
    expected = [surface_elevation(t, n, e, rows, 0.785) for t, n, e in zip(times, north, east)]
    assert np.allclose(waves.column("vehicle.SurfaceElevation"), expected, rtol=0, atol=1e-9)
    assert 0.3 < np.std(expected) < 0.7          # Hs 2 m: about Hs / 4
    assert set(still.column("vehicle.SurfaceElevation")) == {0.0}
