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


# ---------------------------------------------------------------- wakes, with a stand-in FMU

def beacons(tmp_path, fmu, names=("a", "b", "c"), wakes=("a -> b", "b -> a", "c -> a[2]"), extra="", name="beacons"):
    lines = [f"name: {name}", "stop_time: 1", "record: all", "instances:"]
    for n in names:
        lines.append(f"  {n}: {{fmu: {fmu}, parameters: {{Ident: {ord(n) - 96}.0}}}}")
    lines += (["wakes:"] + [f"  - {w}" for w in wakes]) if wakes else []
    path = tmp_path / f"{name}.yaml"
    path.write_text("\n".join(lines) + "\n" + extra)
    return path


def test_every_wake_is_read_before_anyone_steps(tmp_path, beacon_fmu):
    """What each one heard over the step from t_k is the others' WakeSource at t_k, whatever
    the order of the instances, with either loop and either algorithm; and the wakes order
    nothing (each instance is its own, and a -> b, b -> a is no loop)."""
    runs = {}
    for label, names, extra, loop in (("abc", ("a", "b", "c"), "", "c"), ("cba", ("c", "b", "a"), "", "c"),
                                      ("python", ("b", "c", "a"), "", "python"),
                                      ("jacobi", ("a", "b", "c"), "algorithm: jacobi\n", "c")):
        path = beacons(tmp_path, beacon_fmu, names, extra=extra, name=f"beacons_{label}")
        plan = build_plan(load_scenario(path))
        assert all(c.early and c.kind == "backward" for c in plan.connections)
        assert plan.order == list(names)
        from auv_cosim.master import run
        res = run(path, out_dir=tmp_path / label, plots=False, progress=False, loop=loop)
        assert res.status == "completed", res.reason
        runs[label] = {n: res.column(n) for n in res.colmap}
    a = runs["abc"]
    # b heard a's source of the communication point its step started from; a heard b (row 1) and c (row 2)
    assert np.array_equal(a["b.Heard[1]"][1:], a["a.WakeSource[1]"][:-1])
    assert np.array_equal(a["a.Heard[1]"][1:], a["b.WakeSource[1]"][:-1])
    assert np.array_equal(a["a.Heard[2]"][1:], a["c.WakeSource[1]"][:-1])
    assert a["a.WakeSource[1]"][3] == 1003 and a["b.Heard[1]"][4] == 1003
    assert np.all(a["c.Heard[1]"] == 0)     # nothing wired to c
    for label in ("cba", "python", "jacobi"):
        assert set(runs[label]) == set(a)
        for col in a:
            assert np.array_equal(runs[label][col], a[col]), (label, col)


@pytest.mark.parametrize("wakes, message", [
    (("a -> a",), r"wakes\[0\]: 'a -> a': a is wired to its own source"),
    (("a -> b[1]", "c -> b[1]"), r"wakes\[1\]: 'c -> b\[1\]': row 1 of b's WakeSources already takes a's wake"),
    (("a -> b", "a -> b[2]"), r"wakes\[0\]: 'a -> b': a's wake already goes into row 2 of b's WakeSources"),
    (("a -> b[3]",), r"'a -> b\[3\]': b takes 2 sources \(WakeSources\[1..2,..\]\); there is no row 3"),
    (("a -> b", "c -> b", "d -> b"), r"wakes\[2\]: 'd -> b': unknown instance 'd'"),
    (("a => b",), r"wakes\[0\]: cannot read 'a => b'"),
])
def test_a_wake_counted_wrongly_is_refused(tmp_path, beacon_fmu, wakes, message):
    path = beacons(tmp_path, beacon_fmu, wakes=wakes)
    run = master("run", str(path), "--no-plots", out=tmp_path / "out")
    assert run.rc == 2, run
    assert "nothing was run" in run.stderr
    import re
    assert re.search(message, run.stderr), run.stderr
    assert not (tmp_path / "out" / "results.csv").exists()


def test_wakes_wired_by_hand_are_checked_too(tmp_path, beacon_fmu):
    """Connections written element by element: a row with two sources, a source in two rows."""
    two_rows = "connections:\n  - a.WakeSource[1] -> b.WakeSources[2,1]\n"
    path = beacons(tmp_path, beacon_fmu, wakes=("a -> b[1]",), extra=two_rows)
    with pytest.raises(ScenarioError, match=r"a's WakeSource goes into rows 1 and 2 of b's WakeSources"):
        build_plan(load_scenario(path))
    shared = "connections:\n  - c.WakeSource[1] -> b.WakeSources[1,1]\n"
    path = beacons(tmp_path, beacon_fmu, wakes=(), extra=shared + "  - a.WakeSource[2] -> b.WakeSources[1,2]\n")
    with pytest.raises(ScenarioError, match=r"row 1 of b's WakeSources takes two sources \(c and a\)"):
        build_plan(load_scenario(path))
    own = "connections:\n  - b.WakeSource[1] -> b.WakeSources[1,1]\n"
    path = beacons(tmp_path, beacon_fmu, wakes=(), extra=own)
    with pytest.raises(ScenarioError, match=r"b is wired to its own source"):
        build_plan(load_scenario(path))


def test_wired_vehicles_in_water_of_different_density_are_warned_of(tmp_path, beacon_fmu):
    path = beacons(tmp_path, beacon_fmu, wakes=("a -> b",))
    path.write_text(path.read_text().replace("{Ident: 2.0}", "{Ident: 2.0, Rho: 1000.0}"))
    plan = build_plan(load_scenario(path))
    assert plan.warnings == ["wakes: a (Rho 1025 kg/m3) and b (Rho 1000 kg/m3), wired by their wakes, are in "
                             "water of different density"]
    run = master("run", str(path), "--no-plots", out=tmp_path / "out")
    assert run.rc == 0 and "warning: wakes: a (Rho 1025 kg/m3) and b (Rho 1000 kg/m3)" in run.stderr
    assert run.summary["warnings"] == plan.warnings
    assert "a.WakeSource[1] -> b.WakeSources[1,1]" in run.summary["connections"]["previous_step"]
