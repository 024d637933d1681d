"""What an included scenario brings can be taken out again by the including file: a vehicle
(`vehicles: {NAME: null}`: its instances, their connections, its wakes lines), a wakes line
(`disconnect: [A -> B]`), an analysis (`analysis: {NAME: false}`); a name that is none of them
is refused with the name meant."""
from __future__ import annotations

from pathlib import Path

import pytest

from auv_cosim.master.runner import find_scenario
from auv_cosim.master.scenario import ScenarioError, load_scenario

CONVOY = find_scenario("convoy").resolve().as_posix()   # wherever the project keeps it


def _load(tmp_path, text):
    path = tmp_path / "s.yaml"
    path.write_text(f"include: {CONVOY}\n" + text)
    return load_scenario(path)


def test_a_vehicle_of_an_included_scenario_is_removed_with_its_connections_and_wakes(tmp_path):
    loaded = _load(tmp_path, "vehicles: {follower: null}\nstop_when: leader_control.MissionFinished == true\n"
                             "analysis: {convoy: false}\n")
    model = loaded.model
    assert sorted(model.instances) == ["leader", "leader_control", "leader_sensors"]
    assert not any("follower" in c for c in model.connections)
    assert model.wakes == [] and "convoy" not in model.analysis


@pytest.mark.usefixtures("fmus_built")
def test_removing_a_vehicle_says_what_else_names_it(tmp_path):
    from auv_cosim.master.plan import build_plan

    with pytest.raises(ScenarioError) as e:
        build_plan(_load(tmp_path, "vehicles: {follower: null}\n"))
    text = str(e.value)
    assert "follower_control" in text and "stop_when" in text and "analysis.convoy" in text
    # and says where it was taken out and what to do
    assert "'follower_control' was taken out by " in text and "s.yaml: vehicles.follower" in text
    assert "take this stop_when out too" in text and "take this analysis out too" in text


def test_a_misspelt_vehicle_is_refused_with_the_name_meant(tmp_path):
    with pytest.raises(ScenarioError, match=r"vehicles\.folower: .*did you mean 'follower'"):
        _load(tmp_path, "vehicles: {folower: null}\n")


def test_an_included_wakes_line_is_removed_by_disconnect(tmp_path):
    loaded = _load(tmp_path, "disconnect: [leader -> follower]\n")
    assert loaded.model.wakes == []
    assert sorted(loaded.model.instances) == sorted(load_scenario(Path(CONVOY)).model.instances)
    with pytest.raises(ScenarioError, match=r"disconnect\[0\].*follower -> leader"):
        _load(tmp_path, "disconnect: [follower -> leader]\n")   # no such line: refused, not ignored


def test_a_file_s_own_wakes_line_stays_when_it_disconnects_the_included_one(tmp_path):
    loaded = _load(tmp_path, "disconnect: [leader -> follower]\nwakes: [leader -> follower]\n")
    assert loaded.model.wakes == ["leader -> follower"]
