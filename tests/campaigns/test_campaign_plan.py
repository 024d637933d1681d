"""Campaign planning, tables, resume bookkeeping and command-line parsing: no FMU is run here
(a few tests read the FMUs' modelDescription.xml to type the varied values)."""

from __future__ import annotations

import argparse
import csv
import json
import os
from pathlib import Path

import pytest
import yaml

from auv_cosim.campaigns.cli import _args_to_campaign, add_parser, cmd_sweep
from auv_cosim.campaigns.sweep import CampaignPlan, build_campaign
from auv_cosim.campaigns.spec import (
    CampaignError,
    apply_overrides,
    expand,
    format_value,
    inputs_hash,
    linspace,
    load_campaign_file,
    parse_vary_option,
    plan_runs,
    run_ids,
)
from auv_cosim.campaigns.store import (
    CampaignLock,
    build_table,
    finished_summary,
    flatten_figures,
    table_reason,
)
from auv_cosim import units
from auv_cosim.master import build_plan, coerce_value, file_sha256, load_scenario

# imported at collection, not in the tests: tests/master/ is a package named `master` as well
from auv_cosim.campaigns import plots as campaign_plots
from auv_cosim.campaigns import worker as campaign_worker
from auv_cosim.master import find_scenario


def coerce(value, typ, what, from_text):
    """The master's coercion as campaigns call it (a Real must be finite)."""
    return coerce_value(value, typ, what, from_text, finite=True)

FMUS_BUILT = all((units.fmu_folder() / f"{n}.fmu").is_file() for n in ("Auv", "AuvSensors", "AuvControl"))
needs_fmus = pytest.mark.skipif(not FMUS_BUILT, reason="FMUs not built (./build.sh)")


def _parser():
    p = argparse.ArgumentParser(prog="auv-cosim")
    sub = p.add_subparsers(dest="command", required=True)
    add_parser(sub)
    return p


# --------------------------------------------------------------------------------------------
# --vary parsing
# --------------------------------------------------------------------------------------------


def test_vary_list_is_text_typed_later():
    assert parse_vary_option("vehicle.Length=1.5, 1.6,-1") == ("vehicle.Length", ["1.5", "1.6", "-1"], True)


def test_vary_range_is_inclusive_linspace():
    t, v, is_text = parse_vary_option("control.CruiseSpeed=1.2:1.6:3")
    assert (t, is_text) == ("control.CruiseSpeed", False)
    assert v == [1.2, 1.4, 1.6]
    assert linspace(0.0, 1.0, 1) == [0.0]
    assert linspace(0.0, 0.3, 4)[-1] == 0.3


def test_vary_yaml_list_for_vectors_and_commas():
    t, v, is_text = parse_vary_option("vehicle.CurrentVelocity=[[0,0.2,0],[0,0.4,0]]")
    assert (t, v, is_text) == ("vehicle.CurrentVelocity", [[0, 0.2, 0], [0, 0.4, 0]], False)
    t, v, _ = parse_vary_option('control.Waypoints=["0,0,5; 100,0,5", "0,0,5; 200,0,5"]')
    assert v == ["0,0,5; 100,0,5", "0,0,5; 200,0,5"]
    t, v, _ = parse_vary_option("vehicle.CurrentVelocity[2]=0,0.3")
    assert t == "vehicle.CurrentVelocity[2]"


@pytest.mark.parametrize("text, field", [
    ("vehicle.Length", "vehicle.Length"),        # no '='
    ("Length=1,2", "Length"),                   # no instance
    ("vehicle.Length=", "vehicle.Length"),      # no values
    ("vehicle.Length=1,,2", "vehicle.Length"),  # empty value
    ("vehicle.X=[1, 2", "vehicle.X"),           # broken YAML
])
def test_vary_errors_name_the_option(text, field):
    with pytest.raises(CampaignError) as e:
        parse_vary_option(text)
    assert e.value.problems[0][0] == "--vary"
    assert e.value.problems[0][1] == field


def test_coerce_against_fmu_types():
    assert coerce("2", "Real", "v.L", True) == 2.0 and isinstance(coerce("2", "Real", "v.L", True), float)
    assert coerce("3", "Integer", "s.Seed", True) == 3
    assert coerce(3.0, "Integer", "s.Seed", False) == 3
    assert coerce("on", "Boolean", "x", True) is True
    assert coerce("mission", "String", "c.GuidanceMode", True) == "mission"
    assert coerce(1, "Real", "v.L", False) == 1.0
    assert coerce([0, 1, 0], "Real", "v.C", False) == [0.0, 1.0, 0.0]
    assert coerce("1.5", None, "x", True) == 1.5 and coerce("abc", None, "x", True) == "abc"
    with pytest.raises(ValueError, match="Integer"):
        coerce("1.5", "Integer", "s.Seed", True)
    with pytest.raises(ValueError, match="Real"):
        coerce("fast", "Real", "c.CruiseSpeed", True)
    with pytest.raises(ValueError, match="Boolean"):
        coerce(1, "Boolean", "x", False)
    for bad in ("nan", "inf", "-inf"):          # refused like the scenario loader does
        with pytest.raises(ValueError, match="v.L must be a finite number"):
            coerce(bad, "Real", "v.L", True)
    with pytest.raises(ValueError, match="finite"):
        coerce(float("nan"), "Real", "v.L", False)


# --------------------------------------------------------------------------------------------
# the product, run ids, overrides, hashes
# --------------------------------------------------------------------------------------------


def test_product_order_and_seeds_innermost():
    runs = expand({"a.X": [1, 2], "b.Y": ["p", "q"]}, seeds=2, seed_variable="s.Seed")
    assert len(runs) == 8
    assert runs[0] == {"a.X": 1, "b.Y": "p", "s.Seed": 1}
    assert runs[1] == {"a.X": 1, "b.Y": "p", "s.Seed": 2}
    assert runs[2] == {"a.X": 1, "b.Y": "q", "s.Seed": 1}
    assert runs[-1] == {"a.X": 2, "b.Y": "q", "s.Seed": 2}
    assert expand({}) == [{}]
    assert expand({}, seeds=3, seed_variable="s.Seed") == [{"s.Seed": 1}, {"s.Seed": 2}, {"s.Seed": 3}]
    with pytest.raises(CampaignError, match="no variable to seed"):
        expand({}, seeds=3)  # the campaign code knows no instance's seed
    with pytest.raises(CampaignError):
        expand({"s.Seed": [1]}, seeds=2, seed_variable="s.Seed")


def test_run_ids_readable_stable_unique():
    runs = expand({"vehicle.Length": [2.0, -1.0], "vehicle.CurrentVelocity[2]": [0.25]}, seeds=2, seed_variable="sensors.Seed")
    ids = run_ids(runs)
    assert ids[0] == "vehicle.Length=2+vehicle.CurrentVelocity_2=0.25+sensors.Seed=1"
    assert ids[2].startswith("vehicle.Length=-1+")
    assert len(set(ids)) == len(ids)
    # extending a list does not rename the runs that were there already
    more = expand({"vehicle.Length": [2.0, -1.0, 3.0], "vehicle.CurrentVelocity[2]": [0.25]}, seeds=2, seed_variable="sensors.Seed")
    assert set(ids) <= set(run_ids(more))
    # unsafe characters and long names get a hash, never a path separator
    odd = run_ids([{"control.Waypoints": "0,0,5; 100,0,5/x"}, {"control.Waypoints": "0,0,5; 100,0,5:x"}])
    assert all("/" not in i and " " not in i and ";" not in i for i in odd)
    assert odd[0] != odd[1]
    long = run_ids([{"a.X": "y" * 300}])[0]
    assert len(long) < 120
    assert run_ids([{}]) == ["base"]


def test_format_value():
    assert format_value(2.0) == "2" and format_value(0.1) == "0.1" and format_value(-1) == "-1"
    assert format_value(True) == "true" and format_value([0.0, 0.3, 0.0]) == "[0,0.3,0]"


BASE = {
    "name": "demo",
    "stop_time": 20.0,
    "instances": {
        "vehicle": {"fmu": "fmus/Auv.fmu", "parameters": {"Pos0": [0.0, 0.0, 0.5], "CurrentVelocity[3]": 0.1}},
        "sensors": {"fmu": "fmus/AuvSensors.fmu", "parameters": {"Seed": 1}},
    },
}


def test_apply_overrides_scalars_and_vector_elements():
    out = apply_overrides(BASE, {"vehicle.Length": 1.8, "vehicle.Pos0[3]": 5.0, "sensors.Seed": 4,
                                 "vehicle.CurrentVelocity[2]": 0.3})
    p = out["instances"]["vehicle"]["parameters"]
    assert p["Length"] == 1.8
    assert p["Pos0"] == [0.0, 0.0, 5.0]  # the element replaced inside the list
    assert p["CurrentVelocity[2]"] == 0.3 and p["CurrentVelocity[3]"] == 0.1
    assert out["instances"]["sensors"]["parameters"]["Seed"] == 4
    assert BASE["instances"]["vehicle"]["parameters"]["Pos0"] == [0.0, 0.0, 0.5]  # a copy
    whole = apply_overrides(BASE, {"vehicle.CurrentVelocity": [0.0, 0.2, 0.0]})
    assert "CurrentVelocity[3]" not in whole["instances"]["vehicle"]["parameters"]
    with pytest.raises(CampaignError, match="unknown instance 'control'"):
        apply_overrides(BASE, {"control.CruiseSpeed": 1.0})


def test_plan_runs_hash_depends_on_scenario_and_fmus():
    fmus = {"vehicle": "a" * 64, "sensors": "b" * 64}
    runs = plan_runs(BASE, {"vehicle.Length": [1.8, 2.0]}, 2, "sensors.Seed", fmus, "# {run_id}\n")
    assert [r.index for r in runs] == [0, 1, 2, 3]
    assert runs[0].scenario_text.startswith(f"# {runs[0].run_id}\n")
    assert yaml.safe_load(runs[3].scenario_text)["instances"]["sensors"]["parameters"]["Seed"] == 2
    assert len({r.inputs_hash for r in runs}) == 4
    again = plan_runs(BASE, {"vehicle.Length": [1.8, 2.0]}, 2, "sensors.Seed", fmus, "# {run_id}\n")
    assert [r.inputs_hash for r in again] == [r.inputs_hash for r in runs]  # deterministic
    rebuilt = plan_runs(BASE, {"vehicle.Length": [1.8, 2.0]}, 2, "sensors.Seed", {**fmus, "vehicle": "c" * 64}, "# {run_id}\n")
    assert all(a.inputs_hash != b.inputs_hash for a, b in zip(runs, rebuilt))  # a rebuilt FMU reruns
    assert inputs_hash("x", {}) != inputs_hash("y", {})
    # the comment header (paths as seen from the client's folder) is not an input
    other = plan_runs(BASE, {"vehicle.Length": [1.8, 2.0]}, 2, "sensors.Seed", fmus, "# elsewhere {run_id}\n")
    assert [r.inputs_hash for r in other] == [r.inputs_hash for r in runs]


# --------------------------------------------------------------------------------------------
# campaign files
# --------------------------------------------------------------------------------------------


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_campaign_file_loads_and_resolves_paths(tmp_path):
    scen = _write(tmp_path / "s.yaml", "stop_time: 10\n")
    f = _write(tmp_path / "c.yaml", """
scenario: s.yaml
vary:
  vehicle.Length: [1.8, 2.0]
  control.CruiseSpeed: {start: 1.0, stop: 1.5, num: 3}
seeds: 2
set: {vehicle.Pos0: [0, 0, 5]}
stop_time: 30
out: out/here
""")
    c = load_campaign_file(f)
    assert c.scenario == scen.resolve()
    assert c.vary == {"vehicle.Length": [1.8, 2.0], "control.CruiseSpeed": [1.0, 1.25, 1.5]}
    assert c.seeds == 2 and c.stop_time == 30 and c.fixed == {"vehicle.Pos0": [0, 0, 5]}
    assert c.out == tmp_path / "out" / "here"
    assert c.where["vehicle.Length"][1] == 'vary["vehicle.Length"]'


@pytest.mark.parametrize("body, field, words", [
    ("vary: {vehicle.Length: [1]}\n", "scenario", "Field required"),
    ("scenario: s.yaml\nseeds: 0\n", "seeds", "greater than or equal to 1"),
    ("scenario: s.yaml\nstop_tme: 3\n", "stop_tme", "unknown field"),
    ("scenario: s.yaml\nvary: {vehicle.Length: []}\n", 'vary["vehicle.Length"]', "at least 1"),
    ("scenario: s.yaml\nvary: {vehicle.Length: {start: 1, stop: 2}}\n", 'vary["vehicle.Length"].num', "Field required"),
    ("scenario: s.yaml\nvary: {Length: [1, 2]}\n", "vary.Length", "INSTANCE.VARIABLE"),
    ("scenario: nowhere.yaml\n", "scenario", "not found"),
    ("scenario: s.yaml\nworkers: 2\nscheduler: tcp://x:8786\n", "", "not both"),
])
def test_campaign_file_errors_name_file_and_field(tmp_path, body, field, words):
    _write(tmp_path / "s.yaml", "stop_time: 10\n")
    f = _write(tmp_path / "bad.yaml", body)
    with pytest.raises(CampaignError) as e:
        load_campaign_file(f)
    text = str(e.value)
    assert "bad.yaml" in text and words in text, text
    assert any(fld == field or fld.startswith(field) for _, fld, _ in e.value.problems), e.value.problems


def test_cli_arguments_override_campaign_file(tmp_path):
    _write(tmp_path / "s.yaml", "stop_time: 10\n")
    f = _write(tmp_path / "c.yaml", "scenario: s.yaml\nvary: {vehicle.Length: [1.8]}\nseeds: 2\nstop_time: 30\n")
    args = _parser().parse_args(["sweep", str(f), "--vary", "vehicle.Length=2,2.2", "--stop-time", "5",
                                 "--set", "vehicle.Pos0=[0,0,3]", "--set", "sensors.DepthNoiseStd=0.1"])
    c = _args_to_campaign(args)
    assert c.vary["vehicle.Length"] == ["2", "2.2"] and "vehicle.Length" in c.text_values
    assert c.seeds == 2 and c.stop_time == 5.0
    assert c.fixed == {"vehicle.Pos0": [0, 0, 3], "sensors.DepthNoiseStd": "0.1"}
    assert ("set", "sensors.DepthNoiseStd") in c.text_values


def test_workers_and_scheduler_are_exclusive():
    with pytest.raises(SystemExit):
        _parser().parse_args(["sweep", "survey", "--workers", "2", "--scheduler", "tcp://x:1"])


# --------------------------------------------------------------------------------------------
# typing and checking against the real FMUs (modelDescription only)
# --------------------------------------------------------------------------------------------


@needs_fmus
def test_plan_of_real_scenario_types_values_and_writes_runnable_scenarios(tmp_path):
    c = build_campaign("survey", {"vehicle.Length": ["1.8", "-1"], "vehicle.CurrentVelocity[2]": [0, 0.2]}, 2,
                       out_dir=tmp_path / "c", stop_time=5, text_vary={"vehicle.Length"})
    plan = CampaignPlan(c)
    assert len(plan.runs) == 8
    assert plan.vary["vehicle.Length"] == [1.8, -1.0]
    assert plan.vary["vehicle.CurrentVelocity[2]"] == [0.0, 0.2]  # ints typed as Reals
    scen = yaml.safe_load(plan.runs[0].scenario_text)
    assert "include" not in scen and scen["disconnect"] == [] and scen["stop_time"] == 5.0
    assert scen["instances"]["vehicle"]["fmu"] == "fmus/Auv.fmu"  # relative to the project root
    assert scen["instances"]["sensors"]["parameters"]["Seed"] == 1
    # the resolved scenario of a run loads and resolves on its own, from another folder
    p = tmp_path / "alone" / "scenario.yaml"
    p.parent.mkdir()
    p.write_text(plan.runs[3].scenario_text)
    plan_alone = build_plan(load_scenario(p))
    assert plan_alone.stop_time == 5.0
    campaign_yaml = yaml.safe_load(plan.campaign_yaml())
    assert campaign_yaml["out"] == "." and campaign_yaml["seeds"] == 2


@needs_fmus
@pytest.mark.parametrize("vary, seeds, words", [
    ({"vehicle.Lenght": ["1"]}, None, "did you mean 'Length'"),
    ({"sensors.Seed": ["x"]}, None, "Integer"),
    ({"vehicle.Pos": ["1"]}, None, "output"),
    ({"vehicle.CurrentVelocity": [[0, 1]]}, None, "vector of 3"),
    ({"rover.Length": ["1"]}, None, "unknown instance 'rover'"),
    ({"sensors.Seed": ["1"]}, 2, "also varied"),
])
def test_bad_variables_refused_before_anything_runs(tmp_path, vary, seeds, words):
    c = build_campaign("survey", vary, seeds, out_dir=tmp_path / "c", stop_time=5, text_vary=set(vary))
    with pytest.raises(CampaignError) as e:
        CampaignPlan(c)
    assert words in str(e.value)
    assert str(e.value).startswith("--vary") or str(e.value).startswith("--seeds")
    assert not (tmp_path / "c").exists()


@needs_fmus
def test_seeds_vary_the_noise_seed_the_scenario_declares(tmp_path):
    """No vehicle's seed in the campaign code: the stack names it (noise_seed), a campaign
    may name another (seed_variable), and a scenario without one is refused, saying so."""
    stack = (find_scenario("stacks/survey")).as_posix()
    assert CampaignPlan(build_campaign("survey", None, 2, out_dir=tmp_path / "a", stop_time=5)).seed_variable == "sensors.Seed"
    mine = _write(tmp_path / "mine.yaml", f"include: {stack}\nstop_time: 5\ninstances: {{imu: {{fmu: fmus/AuvSensors.fmu}}}}\n"
                                          "noise_seed: imu.Seed\n")
    given = build_campaign(str(mine), None, 2, out_dir=tmp_path / "b")
    plan = CampaignPlan(given)
    assert [r.values for r in plan.runs] == [{"imu.Seed": 1}, {"imu.Seed": 2}]
    assert plan.campaign.seed_variable == "imu.Seed" and "seed_variable" in plan.campaign.where
    # the plan works on a copy: the caller's campaign is as it was given
    assert given.seed_variable is None and "seed_variable" not in given.where
    plan = CampaignPlan(build_campaign(str(mine), None, 2, out_dir=tmp_path / "c", seed_variable="sensors.Seed"))
    assert [r.values for r in plan.runs] == [{"sensors.Seed": 1}, {"sensors.Seed": 2}]
    # free_drift removes the sensors of the stack: their noise_seed goes with them
    with pytest.raises(CampaignError) as e:
        CampaignPlan(build_campaign("free_drift", None, 2, out_dir=tmp_path / "d", stop_time=5))
    assert "declares no noise_seed" in str(e.value) and "--seed-variable" in str(e.value)
    assert CampaignPlan(build_campaign("free_drift", {"vehicle.Length": [1.8]}, None, out_dir=tmp_path / "e",
                                       stop_time=5)).seed_variable is None


@needs_fmus
def test_cli_refusal_exit_code_and_message(tmp_path, capsys):
    f = _write(tmp_path / "c.yaml", f"scenario: {find_scenario('survey')}\nvary: {{vehicle.Lenght: [1.0]}}\n")
    args = _parser().parse_args(["sweep", str(f), "--out", str(tmp_path / "o")])
    assert cmd_sweep(args) == 2
    err = capsys.readouterr().err
    assert 'c.yaml: vary["vehicle.Lenght"]: vehicle has no variable' in err or "c.yaml: vary.vehicle.Lenght: vehicle has no variable 'Lenght'" in err


@needs_fmus
def test_dry_run_lists_runs(tmp_path, capsys):
    args = _parser().parse_args(["sweep", "survey", "--vary", "vehicle.Length=1.8,2", "--seeds", "2",
                                 "--stop-time", "5", "--out", str(tmp_path / "o"), "--dry-run"])
    assert cmd_sweep(args) == 0
    out = capsys.readouterr().out
    assert "4 runs" in out and "vehicle.Length=2+sensors.Seed=2" in out
    assert not (tmp_path / "o").exists()


# --------------------------------------------------------------------------------------------
# resume bookkeeping, figures, the table
# --------------------------------------------------------------------------------------------


def _summary(run_dir: Path, status="completed", h="h1", finished=True, steps=200, results=True, **extra):
    run_dir.mkdir(parents=True, exist_ok=True)
    s = {"status": status, "reason": "r", "steps": steps, "simulated_time_s": 20.0, "distance_run_m": 25.0,
         "depth_error_m": {"mean_abs": 1.0, "rms": 2.0, "max": 3.0, "samples": 200},
         "vehicles": {"vehicle": {"distance_run_m": 25.0, "max_depth_m": 3.5, "final_position_m": [1.0, 2.0, 3.0]}},
         "analysis": {"depth_step": {"overshoot_percent": 2.0, "acceptance": {"overshoot_below_5_percent": True}}},
         "wall_time_s": 1.0, "files": {"results": "x"},
         "campaign": {"inputs_hash": h, "finished": finished, "run_wall_time_s": 1.5, "worker": "w:1"}, **extra}
    (run_dir / "summary.json").write_text(json.dumps(s))
    if results:
        (run_dir / "results.csv").write_text("time\n0\n")
    return s


def test_finished_needs_summary_hash_and_status(tmp_path):
    assert finished_summary(tmp_path / "none", "h1") is None
    _summary(tmp_path / "a")
    assert finished_summary(tmp_path / "a", "h1") is not None
    assert finished_summary(tmp_path / "a", "h2") is None  # other inputs
    _summary(tmp_path / "b", finished=False)
    assert finished_summary(tmp_path / "b", "h1") is None
    _summary(tmp_path / "c", status="interrupted")
    assert finished_summary(tmp_path / "c", "h1") is None
    _summary(tmp_path / "d", status="failed")
    assert finished_summary(tmp_path / "d", "h1") is not None
    assert finished_summary(tmp_path / "d", "h1", retry_failed=True) is None
    _summary(tmp_path / "e", results=False)
    assert finished_summary(tmp_path / "e", "h1") is None
    (tmp_path / "f").mkdir()
    (tmp_path / "f" / "summary.json").write_text("{trunc")
    assert finished_summary(tmp_path / "f", "h1") is None
    s = json.loads((tmp_path / "a" / "summary.json").read_text())
    del s["campaign"]  # written by master.run, the worker died before adding its block
    (tmp_path / "a" / "summary.json").write_text(json.dumps(s))
    assert finished_summary(tmp_path / "a", "h1") is None


def test_the_figures_of_several_vehicles_are_each_one_s_under_its_name():
    """A run of several vehicles has no headline figures at the top: the campaign's table gets
    each vehicle's and each control stack's, named, and no unnamed column."""
    s = {"status": "completed", "simulated_time_s": 20.0,
         "vehicles": {"follower": {"distance_run_m": 27.0, "energy_used_J": 900.0, "max_depth_m": 10.0},
                      "leader": {"distance_run_m": 28.0, "energy_used_J": 910.0, "max_depth_m": 10.0}},
         "controls": {"follower_control": {"mission_completed": False, "depth_error_m": {"rms": 0.1}},
                      "leader_control": {"mission_completed": True, "depth_error_m": {"rms": 0.2}}}}
    f = flatten_figures(s)
    assert f["vehicles.follower.distance_run_m"] == 27.0 and f["vehicles.leader.energy_used_J"] == 910.0
    assert f["controls.follower_control.mission_completed"] is False
    assert f["controls.leader_control.depth_error_m.rms"] == 0.2
    assert not [k for k in f if "." not in k and k != "simulated_time_s"], f


def test_the_plots_show_the_figures_the_variable_moves():
    """A figure that barely moves (a vehicle the variable does not drive, flown a little
    longer: a part in 1e5) is no panel; those that change fill the panels, in the table's order;
    a figure near zero that changes (a cross-track offset) is drawn."""
    from types import SimpleNamespace

    from auv_cosim.campaigns.plots import MAX_PANELS, plot_figures

    still = [f"vehicles.leader.x{i}" for i in range(MAX_PANELS)]
    moved = [f"vehicles.follower.y{i}" for i in range(5)] + ["vehicles.follower.offset"]
    rows = [dict({f: 100.0 + 1e-3 * k for f in still}, **{f: 1.0 + 0.1 * k * (j + 1) for j, f in enumerate(moved)},
                 status="completed") for k in range(3)]
    for k, r in enumerate(rows):
        r["vehicles.follower.offset"] = 0.004 * (k - 1)
    table = SimpleNamespace(rows=rows, figures=still[:6] + moved + still[6:])
    assert plot_figures(table) == moved
    single = SimpleNamespace(rows=rows[:1], figures=still[:3] + moved[:2])
    assert plot_figures(single) == still[:3] + moved[:2]          # one run: every numeric figure


def test_flatten_figures():
    f = flatten_figures(_summary(Path("/tmp/_unused_campaign_test"), results=False))
    assert f["distance_run_m"] == 25.0
    assert f["depth_error_m.rms"] == 2.0 and "depth_error_m.samples" not in f
    assert f["vehicles.vehicle.max_depth_m"] == 3.5
    assert "vehicles.vehicle.distance_run_m" not in f  # a copy of the headline figure
    assert f["vehicles.vehicle.final_position_m[3]"] == 3.0
    assert f["analysis.depth_step.acceptance.overshoot_below_5_percent"] is True
    assert "wall_time_s" not in f and "files" not in f and "campaign" not in f and "steps" not in f


def test_table_and_csv(tmp_path):
    fmus = {"vehicle": "a" * 64}
    runs = plan_runs(BASE, {"vehicle.Length": [1.8, -1.0, 2.0]}, None, "sensors.Seed", fmus)
    ok = _summary(tmp_path / "ok")
    bad = {"status": "failed", "reason": "vehicle: fmi2ExitInitializationMode returned fatal at t=0 s: Fatal py exception",
           "steps": 0, "distance_run_m": 0.0,
           "failure": {"instance": "vehicle", "messages": ["parameter Length = -1.0 must be positive", "Fatal py exception encountered"]}}
    states = {runs[0].run_id: {"status": "completed", "reason": "reached stop time 20 s", "summary": ok, "reused": True},
              runs[1].run_id: {"status": "failed", "reason": bad["reason"], "summary": bad}}
    t = build_table(runs, states, tmp_path)
    assert len(t) == 3 and t.columns[:4] == ["run_id", "vehicle.Length", "status", "reason"]
    assert t["status"] == ["completed", "failed", "pending"]
    assert t[1]["reason"].startswith("vehicle: parameter Length = -1.0 must be positive (")
    assert t[1]["distance_run_m"] is None  # nothing was simulated
    assert t[0]["distance_run_m"] == 25.0 and t[0]["reused"] is True
    assert t.where(status="failed")[0]["vehicle.Length"] == -1.0
    assert t.counts() == {"completed": 1, "failed": 1, "pending": 1} and not t.ok
    t.to_csv(tmp_path / "campaign.csv")
    rows = list(csv.DictReader(open(tmp_path / "campaign.csv")))
    assert rows[0]["vehicle.Length"] == "1.8" and rows[0]["distance_run_m"] == "25.0"
    assert rows[1]["distance_run_m"] == "" and rows[0]["reused"] == "true"
    assert rows[2]["status"] == "pending"
    pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow is in the outputs extra")
    assert t.to_parquet(tmp_path / "campaign.parquet")
    table = pq.read_table(tmp_path / "campaign.parquet")
    assert table.column_names == t.columns
    assert table.column("vehicle.Length").to_pylist() == [1.8, -1.0, 2.0]
    assert str(table.schema.field("vehicle.Length").type) == "double"
    assert table.column("distance_run_m").to_pylist()[:2] == [25.0, None]
    assert table.column("status").to_pylist() == ["completed", "failed", "pending"]
    assert table.column("reused").to_pylist()[0] is True


def test_table_reason_without_fmu_message():
    assert table_reason("failed", "a\nb", None) == "a b"
    assert table_reason("completed", "reached stop time", {"failure": {"messages": ["x"]}}) == "reached stop time"


def test_plots_of_a_table(tmp_path):
    make_plots = campaign_plots.make_plots
    fmus = {"vehicle": "a" * 64}
    runs = plan_runs(BASE, {"vehicle.Length": [1.8, 2.0], "vehicle.Pos0[3]": [1.0, 2.0]}, 2, "sensors.Seed", fmus)
    states = {}
    for i, r in enumerate(runs):
        s = _summary(tmp_path / r.run_id, results=False)
        s["distance_run_m"] = 20.0 + i
        states[r.run_id] = {"status": "completed" if i else "failed", "reason": "", "summary": s}
    t = build_table(runs, states, tmp_path)
    files = make_plots(t, tmp_path / "plots", "sensors.Seed")
    assert sorted(p.name for p in files) == ["vs_vehicle.Length.png", "vs_vehicle.Pos0_3.png"]
    assert all(p.stat().st_size > 10000 for p in files)


def test_lock_refuses_a_second_sweep_and_recovers_a_stale_one(tmp_path):
    with CampaignLock(tmp_path):
        with pytest.raises(CampaignError, match="another sweep"):
            CampaignLock(tmp_path).acquire()
    assert not (tmp_path / ".campaign.lock").exists()
    import socket

    (tmp_path / ".campaign.lock").write_text(f"{socket.gethostname()} 999999999\n")  # a dead pid
    with CampaignLock(tmp_path):
        pass


def test_worker_refuses_fmus_that_differ_or_were_rebuilt_under_it(tmp_path, monkeypatch):
    monkeypatch.setattr(campaign_worker, "_loaded_builds", {})
    fmu = tmp_path / "Thing.fmu"
    fmu.write_bytes(b"build 1")
    h1 = file_sha256(fmu)
    texts = {"thing": str(fmu)}
    assert campaign_worker.check_fmus(tmp_path, texts, {"thing": h1}) is None
    assert campaign_worker.check_fmus(tmp_path, texts, {"thing": "0" * 64}).startswith("thing: FMU")
    os.utime(fmu, ns=(1, 1))
    fmu.write_bytes(b"build 2!")
    h2 = file_sha256(fmu)
    msg = campaign_worker.check_fmus(tmp_path, texts, {"thing": h2})
    assert "already run another build of Thing.fmu" in msg and "restart the workers" in msg
    assert "not found" in campaign_worker.check_fmus(tmp_path, {"thing": str(tmp_path / "none.fmu")}, {})


def _in_a_pty(code: str) -> str:
    import pty
    import sys as _sys

    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.execv(_sys.executable, [_sys.executable, "-c", code])
    out = b""
    try:
        while True:
            out += os.read(fd, 4096)
    except OSError:
        pass
    os.waitpid(pid, 0)
    return out.decode(errors="replace")


def test_progress_bar_on_a_terminal_only():
    code = ("from auv_cosim.campaigns.sweep import _progress_bar as p\n"
            "b = p(5, 1, 'demo', None)\n"
            "b.update(2); b.close()\n"
            "import io, sys\n"
            "print('piped:', p(5, 0, 'demo', None) is None if not sys.stderr.isatty() else 'tty')\n")
    out = _in_a_pty(code)
    assert "demo:" in out and "3/5" in out and "run" in out, out
    from auv_cosim.campaigns.sweep import _progress_bar

    assert _progress_bar(5, 0, "demo", None) is None or os.isatty(2)  # pytest captures stderr: no bar
    assert _progress_bar(5, 0, "demo", False) is None
