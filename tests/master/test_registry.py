"""The master finds a vehicle's figures, analyses and plots through its registry (entry points)
(that it imports no vehicle package: tests/test_import_direction.py); a second vehicle adds its
own without touching auv_cosim/master/."""
from __future__ import annotations

import math

import numpy as np
import pytest
from pydantic import BaseModel, ConfigDict, Field

from auv_cosim.master import RunData, build_plan, load_scenario, registry, rounded
from auv_cosim.master.scenario import ScenarioError
from auv_cosim.master.summary import build_summary

from master_helpers import REPO
from auv_cosim.master import find_scenario

STACK = (find_scenario("stacks/survey")).as_posix()


def test_the_auv_side_is_registered():
    assert set(registry.analyses()) >= {"turning_circle", "depth_step", "zigzag", "surfacing", "battery"}
    assert "auv" in registry.figures()


class StationKeeping(BaseModel):
    model_config = ConfigDict(extra="forbid")
    vehicle: str = "vehicle"
    radius: float = Field(1.0, gt=0)


def _station_keeping(run: RunData, options: StationKeeping) -> dict:
    n, e = run.get(f"{options.vehicle}.Pos[1]"), run.get(f"{options.vehicle}.Pos[2]")
    r = np.hypot(n - n[0], e - e[0])
    return {"rms_m": rounded(math.sqrt(float(np.mean(r * r)))), "inside": bool(np.all(r <= options.radius))}


@pytest.fixture
def second_vehicle(monkeypatch):
    """What an H100 package would register through its entry points: an analysis."""
    analyses = dict(registry.analyses())
    analyses["station_keeping"] = registry.Analysis(StationKeeping, _station_keeping, lambda a: f"rms {a['rms_m']} m")
    monkeypatch.setitem(registry._cache, registry.ANALYSES, analyses)


def _scenario(tmp_path, analysis: str):
    p = tmp_path / "s.yaml"
    p.write_text(f"include: {STACK}\nstop_time: 1\nanalysis:\n{analysis}")
    return p


def test_a_registered_analysis_is_validated_and_run(tmp_path, second_vehicle, fmus_built):
    plan = build_plan(load_scenario(_scenario(tmp_path, "  station_keeping: {radius: 0.5}\n")))
    assert isinstance(plan.model.analysis["station_keeping"], StationKeeping)
    cols = {"time": 0, "vehicle.Pos[1]": 1, "vehicle.Pos[2]": 2, "vehicle.Pos[3]": 3}
    data = np.array([[0.0, 0.0, 0.0, 5.0], [0.1, 0.3, 0.4, 5.0], [0.2, 0.6, 0.8, 5.0]])
    summary = build_summary(plan, data, cols)
    assert summary["analysis"]["station_keeping"] == {"rms_m": rounded(math.sqrt((0.25 + 1.0) / 3)), "inside": False}


def test_the_options_of_a_registered_analysis_are_checked_naming_file_and_field(tmp_path, second_vehicle, fmus_built):
    with pytest.raises(ScenarioError) as e:
        load_scenario(_scenario(tmp_path, "  station_keeping: {radius: -1, colour: red}\n"))
    text = str(e.value)
    assert "s.yaml: analysis.station_keeping.radius: Input should be greater than 0" in text, text
    assert "s.yaml: analysis.station_keeping.colour: unknown field" in text, text


def test_an_unknown_analysis_names_the_known_ones(tmp_path, fmus_built):
    with pytest.raises(ScenarioError) as e:
        load_scenario(_scenario(tmp_path, "  station_keeping: {}\n"))
    assert "analysis.station_keeping: unknown analysis (known: battery, convoy, coverage, depth_step," in str(e.value)
