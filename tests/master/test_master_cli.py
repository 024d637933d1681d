"""The CLI around the runs: help, list, validate; determinism; Jacobi; a second vehicle; the
recorded-variable override."""
from __future__ import annotations

import pytest

from auv_cosim.cli import main
from auv_cosim.master.scenario import scenario_fmus

from master_helpers import REPO, master
from auv_cosim.master import find_scenario

STACK = (find_scenario("stacks/survey")).as_posix()
SCENARIOS = ["battery", "current", "depth_step", "disturbance", "free_drift", "survey", "turning_circle", "zigzag"]


@pytest.mark.parametrize("argv", [["--help"], ["run", "--help"], ["validate", "--help"], ["list", "--help"]])
def test_help_everywhere(argv, capsys):
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 0
    assert "usage: auv-cosim" in capsys.readouterr().out


def test_list_shows_every_scenario_with_its_description(capsys):
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    names = [line.split()[0] for line in lines]
    assert set(SCENARIOS) <= set(names)
    for line in lines:
        assert len(line.split(None, 1)) == 2, f"no description: {line!r}"


def test_validate_passes_the_project_fmus_and_fails_a_broken_one(tmp_path, fmus_built):
    r = master("validate")
    assert r.rc == 0, r
    # every FMU the scenarios name, the master knowing none of them by name
    for name in ("Auv", "AuvSensors", "AuvControl", "H100", "H100Sensors", "H100Control"):
        assert f"fmus/{name}.fmu: OK" in r.stdout, r.stdout
    assert r.stdout.count(": OK") == len(scenario_fmus())
    bad = tmp_path / "Broken.fmu"
    bad.write_text("not a zip")
    r = master("validate", str(bad))
    assert r.rc == 1, r
    assert "Broken.fmu: 1 problem(s)" in r.stdout


def test_validate_defaults_to_the_fmus_the_scenarios_name(tmp_path):
    (tmp_path / "stacks").mkdir()
    (tmp_path / "stacks" / "s.yaml").write_text("instances:\n  a: {fmu: fmus/Auv.fmu}\n  b: {fmu: here/Own.fmu}\n")
    (tmp_path / "one.yaml").write_text("include: stacks/s.yaml\ninstances:\n  c: {fmu: fmus/AuvControl.fmu}\n  a: null\n")
    (tmp_path / "broken.yaml").write_text("instances: [\n")
    (tmp_path / "stacks" / "here").mkdir()
    (tmp_path / "stacks" / "here" / "Own.fmu").write_bytes(b"PK")  # beside the file naming it
    assert scenario_fmus(tmp_path) == sorted([REPO / "fmus" / "Auv.fmu", REPO / "fmus" / "AuvControl.fmu",
                                              tmp_path / "stacks" / "here" / "Own.fmu"])


def test_two_runs_give_byte_identical_results(tmp_path, fmus_built):
    a = master("run", "depth_step", "--stop-time", "30", "--no-plots", out=tmp_path / "a")
    b = master("run", "depth_step", "--stop-time", "30", "--no-plots", out=tmp_path / "b")
    assert a.rc == b.rc == 0, (a, b)
    da, db = (tmp_path / "a" / "results.csv").read_bytes(), (tmp_path / "b" / "results.csv").read_bytes()
    assert len(da) > 10_000
    assert da == db
    assert a.summary["rows"] == 301


def test_jacobi_runs_and_reads_every_connection_from_the_previous_step(tmp_path, fmus_built):
    scen = tmp_path / "jacobi.yaml"
    scen.write_text(f"include: {(find_scenario('depth_step')).as_posix()}\nname: jacobi\nalgorithm: jacobi\nstop_time: 10\n")
    r = master("run", str(scen), "--no-plots", out=tmp_path / "out")
    assert r.rc == 0, r
    s = r.summary
    assert s["algorithm"] == "jacobi"
    assert s["connections"]["same_step"] == []
    assert len(s["connections"]["previous_step"]) == 23


def test_a_second_vehicle_and_a_chosen_record(tmp_path, fmus_built):
    scen = tmp_path / "two.yaml"
    scen.write_text(f"""
include: {STACK}
name: two
stop_time: 20
instances:
  control: {{parameters: {{GuidanceMode: hold}}}}
  vehicle2:
    fmu: fmus/Auv.fmu
    parameters: {{Pos0: [0, 30, 5]}}
signals:
  vehicle2.ThrustPower: 30
  vehicle2.RudderYaw: {{ramp: {{time: 5, slope: 0.02, duration: 5}}}}
  control.SpeedCommand: 1.4
  control.DepthCommand: 5
record: [vehicle.Pos*, vehicle2.Pos, vehicle2.RudderYaw, control.ThrustPower]
""")
    r = master("run", str(scen), out=tmp_path / "out")
    assert r.rc == 0, r
    header, rows = r.table()
    assert header == ["time", "vehicle.Pos[1]", "vehicle.Pos[2]", "vehicle.Pos[3]", "vehicle2.Pos[1]",
                      "vehicle2.Pos[2]", "vehicle2.Pos[3]", "vehicle2.RudderYaw", "control.ThrustPower"]
    rudder = r.column("vehicle2.RudderYaw")
    assert rudder[0] == 0.0 and rudder[-1] == pytest.approx(0.1)
    s = r.summary
    assert set(s["vehicles"]) == {"vehicle", "vehicle2"}
    assert s["vehicles"]["vehicle2"]["distance_run_m"] > 5.0
    assert s["init_order"] == ["vehicle", "sensors", "control", "vehicle2"]
    assert "vehicle2.ExternalForce[1]" in s["unconnected_inputs"]


@pytest.mark.parametrize("flag, value", [
    ("--stop-time", "inf"), ("--stop-time", "nan"), ("--stop-time", "0"), ("--stop-time", "-1"),
    ("--step", "inf"), ("--step", "nan"), ("--step", "0"), ("--step", "-0.1"),
])
def test_degenerate_stop_time_or_step_is_refused_before_anything_runs(flag, value, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", "depth_step", flag, value, "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"{flag}:" in err and "Traceback" not in err
    assert not (out / "results.csv").exists()


def test_degenerate_step_in_a_file_names_the_file(tmp_path, capsys):
    scenario = tmp_path / "bad_step.yaml"
    scenario.write_text(f"include: {(find_scenario('depth_step')).as_posix()}\nstep: .inf\n")
    assert main(["run", str(scenario), "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "bad_step.yaml: step: Input should be a finite number" in err
