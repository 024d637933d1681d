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
