"""Several vehicles in one scenario (SPEC 9.4): each one's stack under its name, the order of
the vehicles changing nothing, the wakes wired by one line each and what the master refuses."""
from __future__ import annotations

import csv
import json
import textwrap

import numpy as np
import pytest

from auv_cosim.master import ScenarioError, build_plan, load_scenario
from master_helpers import REPO, master

STACK = REPO / "scenarios" / "stacks" / "survey.yaml"
H100_STACK = REPO / "scenarios" / "stacks" / "h100.yaml"


def _auv(name: str, north: float, seed: int, extra: str = "") -> str:
    return textwrap.indent(textwrap.dedent(f"""\
        {name}:
          include: {STACK}
          instances:
            vehicle: {{parameters: {{Pos0: [{north}, 0.0, 10.0], LocalVel0: [1.4, 0.0, 0.0]{extra}}}}}
            sensors: {{parameters: {{Seed: {seed}}}}}
            control: {{parameters: {{GuidanceMode: hold, DiveMode: depth}}}}
          signals: {{control.SpeedCommand: 1.4, control.DepthCommand: 10.0}}
        """), "  ")


def two_auvs(tmp_path, order=("leader", "follower"), wakes: str = "", name="pair", stop=20, extra=""):
    vehicles = {"leader": _auv("leader", 10.0, 1, extra), "follower": _auv("follower", 0.0, 2, extra)}
    text = f"name: {name}\nstop_time: {stop}\nvehicles:\n" + "".join(vehicles[v] for v in order) + wakes
    path = tmp_path / f"{name}.yaml"
    path.write_text(text)
    return path


def test_each_vehicle_is_its_stack_under_its_name(tmp_path):
    loaded = load_scenario(two_auvs(tmp_path))
    m = loaded.model
    assert list(m.instances) == ["leader", "leader_sensors", "leader_control",
                                 "follower", "follower_sensors", "follower_control"]
    # each vehicle's stack wired within itself, nothing across
    assert "leader_control.ThrustPower -> leader.ThrustPower" in m.connections
    assert "follower_sensors.NavNorth -> follower_control.NavNorth" in m.connections
    assert len(m.connections) == 2 * 17
    assert all(c.split(".")[0].split("_")[0] == c.split("-> ")[1].split(".")[0].split("_")[0] for c in m.connections)
    assert m.signals == {"leader_control.SpeedCommand": 1.4, "leader_control.DepthCommand": 10.0,
                         "follower_control.SpeedCommand": 1.4, "follower_control.DepthCommand": 10.0}
    # the order: each vehicle's stack order in turn; the noise seed: the first vehicle's
    assert m.order == ["leader_control", "leader", "leader_sensors", "follower_control", "follower", "follower_sensors"]
    assert m.noise_seed == "leader_sensors.Seed"
    assert m.instances["follower"].parameters["Pos0"] == [0.0, 0.0, 10.0]
    assert m.instances["follower"].parameters["Pos0"] != m.instances["leader"].parameters["Pos0"]
    # where a value came from names the vehicle
    file, fld = loaded.where("instances", "follower_sensors", "parameters", "Seed")
    assert file.endswith("pair.yaml (vehicles.follower)") and fld == "instances.follower_sensors.parameters.Seed"
    # the stack's own values are blamed on the stack, for that vehicle
    file, _ = loaded.where("instances", "leader_control", "parameters", "CruiseSpeed")
    assert file.endswith("survey.yaml (vehicle leader)")


def test_an_error_in_a_vehicle_names_the_vehicle_and_its_file(tmp_path):
    path = two_auvs(tmp_path)
    path.write_text(path.read_text().replace("GuidanceMode: hold", "GuidanceMod: hold", 1))
    with pytest.raises(ScenarioError) as e:
        build_plan(load_scenario(path))
    text = str(e.value)
    assert "pair.yaml (vehicles.leader): instances.leader_control.parameters.GuidanceMod" in text
    assert "did you mean 'GuidanceMode'" in text


def test_a_vehicle_keeps_to_itself(tmp_path):
    """A vehicle's files hold no analysis, no vehicles and no wakes; vehicles whose stacks
    disagree on the step are refused; two vehicles cannot make one instance name."""
    bad = tmp_path / "stack_with_analysis.yaml"
    bad.write_text(f"include: {STACK}\nanalysis: {{surfacing: {{}}}}\n")
    path = tmp_path / "s.yaml"
    path.write_text(f"stop_time: 10\nvehicles:\n  a: {{include: {bad}}}\n")
    with pytest.raises(ScenarioError, match=r"stack_with_analysis.yaml \(vehicle a\): analysis: not in a vehicle's files"):
        load_scenario(path)
    fast = tmp_path / "fast.yaml"
    fast.write_text(f"include: {STACK}\nstep: 0.05\n")
    path.write_text(f"stop_time: 10\nvehicles:\n  a: {{include: {STACK}}}\n  b: {{include: {fast}}}\n")
    with pytest.raises(ScenarioError, match=r"step: the vehicles' stacks disagree \(a: 0.1 .*b: 0.05"):
        load_scenario(path)
    path.write_text(f"stop_time: 10\nstep: 0.05\nvehicles:\n  a: {{include: {STACK}}}\n  b: {{include: {fast}}}\n")
    assert load_scenario(path).model.step == 0.05    # the scenario settles it
    path.write_text(f"stop_time: 10\nvehicles:\n  a: {{include: {STACK}}}\n  a_control: {{include: {STACK}}}\n")
    with pytest.raises(ScenarioError, match=r"\(vehicle a_control\): instances.a_control: the instance 'a_control' "
                                            r"is vehicle a's and vehicle a_control's"):
        load_scenario(path)


def _columns(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, values = rows[0], np.array(rows[1:], dtype=float)
    return {name: values[:, i] for i, name in enumerate(header)}


def test_two_vehicles_fly_and_the_summary_names_each(tmp_path):
    run = master("run", str(two_auvs(tmp_path)), "--no-plots", out=tmp_path / "out")
    assert run.rc == 0, run.stderr
    s = run.summary
    assert set(s["vehicles"]) == {"leader", "follower"}
    assert set(s["controls"]) == {"leader_control", "follower_control"}
    assert s["controls"]["follower_control"]["vehicle"] == "follower"
    lead, follow = s["vehicles"]["leader"], s["vehicles"]["follower"]
    assert lead["final_position_m"][0] == pytest.approx(10 + follow["final_position_m"][0], abs=0.5)
    assert "leader: distance" in run.stdout and "follower: distance" in run.stdout


def test_the_order_of_the_vehicles_changes_nothing(tmp_path):
    """The same two vehicles declared the other way round: every column the same, bit for bit."""
    a = master("run", str(two_auvs(tmp_path, name="ab")), "--no-plots", out=tmp_path / "ab")
    b = master("run", str(two_auvs(tmp_path, order=("follower", "leader"), name="ba")), "--no-plots",
               out=tmp_path / "ba")
    assert a.rc == 0 and b.rc == 0, a.stderr + b.stderr
    ca, cb = _columns(a.out / "results.csv"), _columns(b.out / "results.csv")
    assert set(ca) == set(cb)
    for name in ca:
        assert np.array_equal(ca[name], cb[name]), name
