"""Several vehicles in one scenario (SPEC 9.4): each one's stack under its name, the order of
the vehicles changing nothing, the wakes wired by one line each and what the master refuses."""
from __future__ import annotations

import csv
import json
import textwrap

import numpy as np
import pytest

from auv_cosim.master import ScenarioError, build_plan, load_scenario
from auv_cosim.master.view import wake_axis
from master_helpers import REPO, master
from auv_cosim.master import find_scenario

STACK = find_scenario("stacks/survey")
H100_STACK = find_scenario("stacks/h100")


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
    # the order: each vehicle's stack order in turn; the noise seeds: each vehicle's
    assert m.order == ["leader_control", "leader", "leader_sensors", "follower_control", "follower", "follower_sensors"]
    assert m.noise_seed == ["leader_sensors.Seed", "follower_sensors.Seed"]
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
    # every figure printed under its vehicle's name, the control's with it; none unnamed
    lines = [line.strip() for line in run.stdout.splitlines()]
    assert not any(line.startswith(("distance", "depth error")) for line in lines), run.stdout
    follower = next(line for line in lines if line.startswith("follower: "))
    assert "depth error rms" in follower, follower     # hold guidance: no line, no cross-track error


def test_the_order_of_the_vehicles_changes_nothing(tmp_path):
    """The same two vehicles, each wired to the other's wake, declared the other way round:
    every column the same, bit for bit (and the wake reached the follower)."""
    wakes = "wakes: [leader -> follower, follower -> leader]\n"
    a = master("run", str(two_auvs(tmp_path, name="ab", wakes=wakes)), "--no-plots", out=tmp_path / "ab")
    b = master("run", str(two_auvs(tmp_path, order=("follower", "leader"), name="ba", wakes=wakes)), "--no-plots",
               out=tmp_path / "ba")
    assert a.rc == 0 and b.rc == 0, a.stderr + b.stderr
    ca, cb = _columns(a.out / "results.csv"), _columns(b.out / "results.csv")
    assert set(ca) == set(cb)
    for name in ca:
        assert np.array_equal(ca[name], cb[name]), name
    assert np.max(np.abs(ca["follower.WakeVelocity[1]"])) > 1e-3
    assert a.summary["step_order"][:3] == ["leader_control", "leader", "leader_sensors"]
    assert b.summary["step_order"][:3] == ["follower_control", "follower", "follower_sensors"]
    # the summary's figures: each vehicle's under its name, the same text whatever the order;
    # none unnamed at the top (they were the first-declared vehicle's), the run's own there
    from auv_cosim.vehicles.auv.host.figures import HEADLINE
    figures = [json.dumps({k: r.summary[k] for k in ("vehicles", "controls")}) for r in (a, b)]
    assert figures[0] == figures[1]
    assert list(a.summary["vehicles"]) == ["follower", "leader"]
    assert a.summary["vehicles"]["follower"]["distance_run_m"] != a.summary["vehicles"]["leader"]["distance_run_m"]
    for r in (a, b):
        assert not set(HEADLINE) & set(r.summary), sorted(set(HEADLINE) & set(r.summary))
        assert {"simulated_time_s", "stepping_time_s", "steps", "real_time_factor"} <= set(r.summary)


def test_the_convoy_says_what_the_wake_does_to_the_follower(tmp_path, fmus_built):
    run = master("run", "convoy", "--stop-time", "60", "--no-plots", out=tmp_path / "convoy")
    assert run.rc == 0, run
    c = run.summary["analysis"]["convoy"]
    assert c["leader"]["vehicle"] == "leader" and c["follower"]["vehicle"] == "follower"
    # in the wake the water goes with the follower: less energy per metre than the leader
    assert c["follower_energy_per_m_ratio"] < 1.0 and c["follower_wake_speed_m_s"]["mean"] > 1e-3
    assert c["gap_m"]["initial"] == pytest.approx(10.0)
    assert "convoy: follower" in run.stdout and "J/m against leader" in run.stdout
    assert "warnings" not in run.summary
    # the 3-D view draws both, and the axis of the one wake cast
    from auv_cosim.master.view import build_figure, read_results
    names = [t.name for t in build_figure(read_results(run.out)).data]
    assert {"leader track", "follower track", "leader wake axis (50 m)"} <= set(names)
    assert not any(n.startswith("follower wake axis") for n in names)
    # ... and each vehicle's series in the time plots, the floor once
    for series in ("depth", "speed", "roll", "pitch", "heading"):
        assert {f"leader {series}", f"follower {series}"} <= set(names), (series, names)
    assert "leader floor" in names and "follower floor" not in names
    assert any(n.startswith("leader ThrustPower") for n in names)
    assert any(n.startswith("follower ThrustPower") for n in names)
    resolved = (run.out / "scenario.resolved.yaml").read_text()
    assert "wakes:\n- leader -> follower" in resolved and "vehicles" not in resolved


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
    (("a -> b[1]", "c -> b[1]"), r"wakes\[1\]: 'c -> b\[1\]': row 1 of b's WakeSources already takes a's WakeSource"),
    (("a -> b", "a -> b[2]"), r"wakes\[0\]: 'a -> b': a's WakeSource already goes into row 2 of b's WakeSources"),
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


def _by_hand(source: str, row: int, pairs) -> str:
    return "connections:\n" + "".join(f"  - {source}.WakeSource[{i}] -> b.WakeSources[{row},{j}]\n" for i, j in pairs)


@pytest.mark.parametrize("pairs, messages", [
    # elements 11 and 12 crossed: the wake would be met with the thrust as its resistance
    ([(i, {11: 12, 12: 11}.get(i, i)) for i in range(1, 16)],
     [r"'a.WakeSource\[11\] -> b.WakeSources\[1,12\]': element 12 of a row of b's WakeSources takes element 12 "
      r"of a source's WakeSource \(a.WakeSource\[12\]\)",
      r"'a.WakeSource\[12\] -> b.WakeSources\[1,11\]': element 11 of a row"]),
    # a row missing two elements (its speed and resistance): the receiver would meet no wake
    ([(i, i) for i in range(1, 16) if i not in (10, 11)],
     [r"row 1 of b's WakeSources is wired in part \('a.WakeSource\[1\] -> b.WakeSources\[1,1\]', .* and 10 more\): "
      r"elements 10, 11 of a's WakeSource go nowhere"]),
])
def test_a_wake_wired_by_hand_is_checked_element_by_element(tmp_path, beacon_fmu, pairs, messages):
    """A hand-wired row whose elements are crossed, or which misses some, is refused (exit 2)
    naming the connections, and nothing is written."""
    path = beacons(tmp_path, beacon_fmu, wakes=(), extra=_by_hand("a", 1, pairs))
    run = master("run", str(path), "--no-plots", out=tmp_path / "out")
    assert run.rc == 2, run
    import re
    for message in messages:
        assert re.search(message, run.stderr), run.stderr
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_a_wake_wired_by_hand_whole_runs_as_the_line(tmp_path, beacon_fmu):
    """The fifteen connections of a row written by hand are the `wakes` line's: read before
    anyone steps, the same results."""
    by_line = beacons(tmp_path, beacon_fmu, wakes=("a -> b",), name="line")
    by_hand = beacons(tmp_path, beacon_fmu, wakes=(), extra=_by_hand("a", 1, [(i, i) for i in range(1, 16)]),
                      name="hand")
    plan = build_plan(load_scenario(by_hand))
    assert len(plan.connections) == 15 and all(c.early and c.exchange == "wakes" for c in plan.connections)
    from auv_cosim.master import run
    results = [run(p, out_dir=tmp_path / p.stem, plots=False, progress=False) for p in (by_line, by_hand)]
    assert (tmp_path / "line" / "results.csv").read_bytes() == (tmp_path / "hand" / "results.csv").read_bytes()
    assert results[1].column("b.Heard[1]")[2] == 1001


def test_a_row_exchange_owes_nothing_to_the_wakes_names(tmp_path, pinger_fmu):
    """Another FMU's exchange (Ping into a row of Pings, declared in its modelDescription):
    wired by hand, it is read before anyone steps whatever the order and checked element by
    element, as the wakes are."""
    lines = ["name: pings", "stop_time: 1", "record: all", "instances:",
             f"  q: {{fmu: {pinger_fmu}, parameters: {{Ident: 2.0}}}}",
             f"  p: {{fmu: {pinger_fmu}, parameters: {{Ident: 1.0}}}}", "connections:"]
    lines += [f"  - p.Ping[{j}] -> q.Pings[1,{j}]" for j in range(1, 16)]
    path = tmp_path / "pings.yaml"
    path.write_text("\n".join(lines) + "\n")
    plan = build_plan(load_scenario(path))
    assert all(c.early and c.exchange == "pings" and c.kind == "backward" for c in plan.connections)
    from auv_cosim.master import run
    res = run(path, out_dir=tmp_path / "out", plots=False, progress=False)
    assert np.array_equal(res.column("q.Heard[1]")[1:], res.column("p.Ping[1]")[:-1])
    path.write_text(path.read_text().replace("p.Ping[3] -> q.Pings[1,3]", "p.Ping[4] -> q.Pings[1,3]")
                    .replace("p.Ping[4] -> q.Pings[1,4]", "p.Ping[3] -> q.Pings[1,4]"))
    with pytest.raises(ScenarioError, match=r"'p.Ping\[4\] -> q.Pings\[1,3\]': element 3 of a row of q's Pings"):
        build_plan(load_scenario(path))


def test_wired_vehicles_in_water_of_different_density_are_warned_of(tmp_path, beacon_fmu):
    path = beacons(tmp_path, beacon_fmu, wakes=("a -> b",))
    path.write_text(path.read_text().replace("{Ident: 2.0}", "{Ident: 2.0, Rho: 1000.0}"))
    plan = build_plan(load_scenario(path))
    assert plan.warnings == ["wakes: a (Rho 1025) and b (Rho 1000), wired by their wakes, differ in Rho, which "
                             "both are expected to share"]
    run = master("run", str(path), "--no-plots", out=tmp_path / "out")
    assert run.rc == 0 and "warning: wakes: a (Rho 1025) and b (Rho 1000)" in run.stderr
    assert run.summary["warnings"] == plan.warnings
    assert "a.WakeSource[1] -> b.WakeSources[1,1]" in run.summary["connections"]["previous_step"]


# ---------------------------------------------------------------- wakes, with the real AUV

def test_the_follower_flies_as_the_library_alone_says(tmp_path, fmus_built):
    """Two Auv.fmu instances in the master, each wired to the other's wake by one line (Step
    mode), against the same pair flown by the vehicle library alone (references/wake_pair.py's
    library_pair: each one's row at the communication point, then each advanced with the
    other's): the tracks agree to 1 mm over 40 s, and the wake moved the follower by far more
    than that (against the pair flown with nothing wired)."""
    from references.wake_pair import CRUISE_SPEED, library_pair, starts

    lead0, follow0 = ([float(x) for x in p] for p in starts(8.0))

    def scenario(name, wakes):
        text = textwrap.dedent(f"""\
            name: {name}
            stop_time: 40
            instances:
              leader: {{fmu: fmus/Auv.fmu, parameters: {{Pos0: {lead0}, LocalVel0: [{CRUISE_SPEED}, 0.0, 0.0]}}}}
              follower: {{fmu: fmus/Auv.fmu, parameters: {{Pos0: {follow0}, LocalVel0: [{CRUISE_SPEED}, 0.0, 0.0]}}}}
            signals: {{leader.ThrustPower: 30.0, follower.ThrustPower: 30.0}}
            """) + wakes
        path = tmp_path / f"{name}.yaml"
        path.write_text(text)
        run = master("run", str(path), "--no-plots", out=tmp_path / name)
        assert run.rc == 0, run
        cols = _columns(run.out / "results.csv")
        return {v: np.column_stack([cols[f"{v}.Pos[{i}]"] for i in (1, 2, 3)]) for v in ("leader", "follower")}

    wired = scenario("pair", "wakes: [leader -> follower, follower -> leader]\n")
    alone = scenario("alone", "")
    library = library_pair(40.0, 8.0, 30.0, 0.1)
    for v in ("leader", "follower"):
        assert np.max(np.linalg.norm(wired[v] - library[v], axis=1)) < 1e-6, v   # the bar: 1 mm; it is ~1e-14
    moved = np.linalg.norm(wired["follower"][-1] - alone["follower"][-1])
    assert moved > 0.1, moved     # tens of centimetres: the wake is what the 1 mm tells apart


def test_a_sweep_varies_a_parameter_of_one_named_vehicle(tmp_path, fmus_built):
    """`--vary follower.WakeLength=5,50`: the follower's wake field ends 5 m behind a source in
    one run (the leader, 10 m ahead, reaches it no more) and 50 m in the other; the leader is
    the same in both."""
    run = master("sweep", "convoy", "--vary", "follower.WakeLength=5,50", "--stop-time", "30", "--workers", "1",
                 out=tmp_path / "sweep")
    assert run.rc == 0, run
    with open(tmp_path / "sweep" / "campaign.csv", newline="") as f:
        rows = {r["follower.WakeLength"]: r for r in csv.DictReader(f)}
    short, long = rows["5.0"], rows["50.0"]
    assert float(short["analysis.convoy.follower_wake_speed_m_s.max"]) == 0.0
    assert float(long["analysis.convoy.follower_wake_speed_m_s.max"]) > 1e-3
    assert short["analysis.convoy.leader.energy_used_J"] == long["analysis.convoy.leader.energy_used_J"]
    assert float(long["analysis.convoy.follower.energy_per_m_J"]) < float(short["analysis.convoy.follower.energy_per_m_J"])


def test_seeds_give_every_vehicle_its_own_noise_in_every_run(tmp_path):
    """`sweep convoy --seeds 3`: run k seeds the leader with k and the follower with k + 100000
    (campaigns.spec.derived_seeds): no two vehicles and no two runs share a noise sequence; the
    runs' scenarios say so, planned, before anything runs."""
    from auv_cosim.campaigns import CampaignPlan, build_campaign
    from auv_cosim.campaigns.spec import MAX_RUNS

    plan = CampaignPlan(build_campaign("convoy", None, 3, out_dir=tmp_path / "c", stop_time=5), check_types=False)
    assert plan.seed_variable == "leader_sensors.Seed" and plan.seed_others == ("follower_sensors.Seed",)
    seeds = [(r.scenario["instances"]["leader_sensors"]["parameters"]["Seed"],
              r.scenario["instances"]["follower_sensors"]["parameters"]["Seed"]) for r in plan.runs]
    assert seeds == [(k, k + MAX_RUNS) for k in (1, 2, 3)]
    assert [r.values for r in plan.runs] == [{"leader_sensors.Seed": k} for k in (1, 2, 3)]
    # the campaign's table has a column for each vehicle's seed, the varied one first
    from auv_cosim.campaigns.store import build_table
    table = build_table(plan.runs, {}, None)
    assert table.varied == ["leader_sensors.Seed"]
    assert table.columns[1:3] == ["leader_sensors.Seed", "follower_sensors.Seed"]
    assert [(row["leader_sensors.Seed"], row["follower_sensors.Seed"]) for row in table.rows] == seeds
    # a seed variable named by the campaign seeds that one alone
    plan = CampaignPlan(build_campaign("convoy", None, 2, out_dir=tmp_path / "d", stop_time=5,
                                       seed_variable="follower_sensors.Seed"), check_types=False)
    assert plan.seed_others == ()
    assert [(r.scenario["instances"]["leader_sensors"]["parameters"]["Seed"],
             r.scenario["instances"]["follower_sensors"]["parameters"]["Seed"]) for r in plan.runs] == [(1, 1), (1, 2)]


def test_the_h100_meets_the_auv_wake_as_it_passes(tmp_path, fmus_built):
    """wake_crossing: one sea (no density warning), the wake on the H100 after the AUV passed
    over it (28.6 s at 1.4 m/s from 40 m); with the H100 back in fresh water the master warns."""
    assert build_plan(load_scenario(find_scenario("wake_crossing"))).warnings == []
    run = master("run", "wake_crossing", "--stop-time", "60", "--set", "rov.Rho=1000", "--no-plots",
                 out=tmp_path / "crossing")
    assert run.rc == 0, run
    assert "warning: wakes: auv (Rho 1025 kg/m3) and rov (Rho 1000 kg/m3)" in run.stderr
    w = run.summary["analysis"]["wake_passage"]
    assert w["wake_passed"] and 28.0 < w["wake_from_s"] < 33.0 and w["max_wake_speed_m_s"] > 1e-3
    assert w["position_error_m"]["samples"] > 100 and w["position_error_before_m"]["samples"] > 100
    assert "wake passage" in run.stdout and set(run.summary["vehicles"]) == {"auv", "rov"}


def test_the_wake_axis_drawn_is_the_source_row():
    """From the stern along e, as long as asked; nothing while the source is off (U = 0)."""
    row = {f"a.WakeSource[{k}]": np.array([v, 0.0]) for k, v in
           zip(range(1, 11), (10.0, 2.0, 5.0, 0, 0, 0, -0.6, 0.8, 0.0, 1.4))}
    east, north, depth = wake_axis(row, "a", 0, 10.0)
    assert list(north) == [10.0, 4.0] and list(east) == [2.0, 10.0] and list(depth) == [5.0, 5.0]
    assert all(np.isnan(x) for x in wake_axis(row, "a", 1, 10.0)[0])


def test_what_the_stacks_set_for_the_run_is_combined(tmp_path):
    """Each vehicle's stop condition ends the run (a list), every vehicle's noise seed is the
    scenario's (a list), a stack's `stop_when: null` is no condition."""
    with_stop = tmp_path / "with_stop.yaml"
    with_stop.write_text(f"include: {STACK}\nstop_when: control.MissionFinished == true\n")
    no_stop = tmp_path / "no_stop.yaml"
    no_stop.write_text(f"include: {STACK}\nstop_when: null\n")
    path = tmp_path / "s.yaml"
    path.write_text(f"stop_time: 10\nvehicles:\n  a: {{include: {with_stop}}}\n  b: {{include: {no_stop}}}\n"
                    f"  c: {{include: {with_stop}}}\n")
    m = load_scenario(path).model
    assert m.stop_when == ["a_control.MissionFinished == true", "c_control.MissionFinished == true"]
    assert m.noise_seed == ["a_sensors.Seed", "b_sensors.Seed", "c_sensors.Seed"]
    assert m.noise_seeds() == m.noise_seed
    path.write_text(path.read_text() + "stop_when: b_control.MissionFinished == true\n")
    assert load_scenario(path).model.stop_when == "b_control.MissionFinished == true"   # the scenario's own wins
