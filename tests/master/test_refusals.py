"""Every command refuses what it cannot do and never overwrites what it was not asked to: what a
demanding user found wrong in export-ssp, view, the vehicle files and the resolved scenario, one
test per finding (numbered as in its report), then the same kind of problem in the other
commands. Through the CLI (in this process where no FMU runs, else in a fresh one) or the
public API; runs are short."""
from __future__ import annotations

import re
import shutil
import zipfile
from pathlib import Path

import pytest
import yaml

from auv_cosim.master import ScenarioError, load_scenario
from auv_cosim.cli import main as cli
from auv_cosim.master.plan import build_plan

from master_helpers import REPO, master
from auv_cosim.master import find_scenario

pytestmark = pytest.mark.usefixtures("fmus_built")

DEPTH_STEP = (find_scenario("depth_step")).as_posix()


def leftovers(folder: Path) -> list[str]:
    """Temporary files a write left behind."""
    return sorted(p.name for p in folder.rglob("*") if p.name.endswith((".partial", ".tmp")))


def scenario_with_its_fmu(tmp_path: Path) -> tuple[Path, Path]:
    """depth_step with the vehicle's FMU beside the scenario file (named relative to it)."""
    fmu = tmp_path / "Auv.fmu"
    shutil.copy(REPO / "fmus" / "Auv.fmu", fmu)
    scenario = tmp_path / "s.yaml"
    scenario.write_text(f"include: {DEPTH_STEP}\nstop_time: 1\ninstances:\n  vehicle: {{fmu: Auv.fmu}}\n")
    return scenario, fmu


# ------------------------------------------------------------------------------ the findings


def test_01_export_ssp_replaces_no_file_unasked_and_never_its_inputs(tmp_path, capsys):
    scenario, fmu = scenario_with_its_fmu(tmp_path)
    readme = tmp_path / "README"
    readme.write_text("mine\n")
    scenario_text, fmu_bytes = scenario.read_bytes(), fmu.read_bytes()
    assert cli(["export-ssp", str(scenario), str(readme)]) == 2
    assert "README: exists; give --force to replace it" in capsys.readouterr().err
    assert readme.read_text() == "mine\n"
    # an input of the export: not even with --force (the scenario, a file it includes, an FMU)
    for target in (scenario, Path(DEPTH_STEP), fmu):
        before = target.read_bytes()
        assert cli(["export-ssp", str(scenario), str(target), "--force"]) == 2
        assert "is one of this command's inputs" in capsys.readouterr().err
        assert target.read_bytes() == before
    assert scenario.read_bytes() == scenario_text and fmu.read_bytes() == fmu_bytes
    # asked to: replaced, whole
    assert cli(["export-ssp", str(scenario), str(readme), "--force"]) == 0
    with zipfile.ZipFile(readme) as archive:
        assert "SystemStructure.ssd" in archive.namelist()
    assert leftovers(tmp_path) == []


def test_02_a_value_an_fmu_refuses_at_initialisation_is_a_refused_input(tmp_path):
    """A matrix element refused through its row (ThrusterDir[1,1..3]), an initial state out of
    its range: exit 2 naming the setting, nothing run, nothing kept."""
    for values, blamed, said in (
            (["vehicle.ThrusterDir[1,1]=0", "vehicle.ThrusterDir[1,2]=0", "vehicle.ThrusterDir[1,3]=0"],
             "--set: vehicle.ThrusterDir[1,1]: vehicle.ThrusterDir[1,1..3] refused by the FMU", "has zero length"),
            (["vehicle.PropellerSpeed0[2]=1e6"], "--set: vehicle.PropellerSpeed0[2]: vehicle.PropellerSpeed0[2] refused",
             "PropellerSpeed0[2] = 1000000.0 must be within [-1, 1]"),
            # its norm overflowed: the thruster pushed nowhere, and the run went on
            (["vehicle.ThrusterDir[1,1]=1e200"], "--set: vehicle.ThrusterDir[1,1]: vehicle.ThrusterDir[1,1] refused",
             "ThrusterDir[1,1] = 1e+200 is beyond +-1e+12"),
            # a gain of the control stack (every FMU's Real parameters are held to the range)
            (["control.PositionGain=-1e13"], "--set: control.PositionGain: control.PositionGain refused",
             "PositionGain = -10000000000000.0 is beyond +-1e+12")):
        out = tmp_path / values[-1].split("=")[0]
        r = master("run", "h100_hold", "--stop-time", "1", "--no-plots",
                   *[a for v in values for a in ("--set", v)], out=out)
        assert r.rc == 2, r
        assert "scenario refused, nothing was run" in r.stderr and blamed in r.stderr and said in r.stderr
        assert not out.exists()   # the folder it would have made is not left behind


def test_03_a_run_removes_the_view_of_an_earlier_run(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "view.html").write_text("<html>the earlier scenario</html>")
    (out / ".track.png.x1y2.partial").write_bytes(b"what a killed plot left")
    (out / "notes.txt").write_text("mine")
    r = master("run", "depth_step", "--stop-time", "0.5", "--no-plots", "-q", out=out)
    assert r.rc == 0, r
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt", "results.csv", "scenario.resolved.yaml",
                                                      "summary.json"]


def test_a_run_removes_what_export_made_of_the_earlier_run(tmp_path):
    """results.mcap, results.parquet and rosbag/ made by `export` from an earlier run describe
    its results: a run that replaces them in the folder takes them away too (they had another
    length than the new results.csv)."""
    out = tmp_path / "out"
    assert master("run", "depth_step", "--stop-time", "1", "--no-plots", "-q", out=out).rc == 0
    exported = master("export", str(out), "--format", "mcap,parquet")
    assert exported.rc == 0, exported.stderr
    assert (out / "results.mcap").is_file() and (out / "results.parquet").is_file()
    r = master("run", "depth_step", "--stop-time", "0.5", "--no-plots", "-q", out=out)
    assert r.rc == 0, r
    assert sorted(p.name for p in out.iterdir()) == ["results.csv", "scenario.resolved.yaml", "summary.json"]


def test_04_export_ssp_into_a_folder_is_refused_and_leaves_nothing(tmp_path, capsys):
    folder = tmp_path / "somewhere"
    folder.mkdir()
    assert cli(["export-ssp", "depth_step", str(folder)]) == 2
    assert "somewhere: is a folder" in capsys.readouterr().err
    assert list(folder.iterdir()) == [] and leftovers(tmp_path) == []


@pytest.mark.parametrize("name, content, words", [
    ("results.csv", b"\xb3\x00\xff binary", "results.csv: not a text file in UTF-8 (byte 0xb3 at offset 0)"),
    # one row (its 200,000 digits read as inf): too few for a view
    ("results.csv", b"time,a\n0," + b"9" * 200_000 + b"\n", "results.csv: 1 data row(s); a view needs at least 2"),
    ("results.csv", b"time,a\n0,1\n0.1,2,3\n0.2,3\n", "results.csv, line 3: 3 fields where the header has 2"),
    ("scenario.resolved.yaml", b"\xff\xfe", "scenario.resolved.yaml: not readable YAML"),
])
def test_05_view_of_a_file_that_is_not_text_is_an_error_naming_it(tmp_path, capsys, name, content, words):
    (tmp_path / "results.csv").write_text("time,rov.Pos[1],rov.Pos[2],rov.Pos[3]\n0,0,0,1\n1,1,0,1\n")
    (tmp_path / name).write_bytes(content)
    assert cli(["view", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err
    assert not (tmp_path / "view.html").exists()


def test_06_the_resolved_scenario_of_a_run_with_disconnect_runs_again_as_it_is(tmp_path):
    """turning_circle disconnects control.RudderYaw -> vehicle.RudderYaw; the resolved file holds
    the connections made (and an FMU named relative to its scenario by a path found from the
    results folder), so it plans as the scenario did, from another folder."""
    scenario, fmu = scenario_with_its_fmu(tmp_path)
    scenario.write_text(f"include: {(find_scenario('turning_circle')).as_posix()}\nstop_time: 0.2\n"
                        f"instances:\n  vehicle: {{fmu: Auv.fmu}}\n")
    out = tmp_path / "results" / "a"
    r = master("run", str(scenario), "--no-plots", "-q", out=out)
    assert r.rc == 0, r
    moved = tmp_path / "elsewhere" / "resolved.yaml"
    moved.parent.mkdir()
    shutil.copy(out / "scenario.resolved.yaml", moved)
    assert "disconnect" not in yaml.safe_load(moved.read_text())
    original, again = build_plan(load_scenario(scenario)), build_plan(load_scenario(moved))
    assert [c.text for c in again.connections] == [c.text for c in original.connections]
    assert again.instances["vehicle"].fmu_path == fmu.resolve()
    assert [(v.name, x) for v, x in again.instances["vehicle"].params] == \
        [(v.name, x) for v, x in original.instances["vehicle"].params]
    assert [s.target for s in again.signals] == [s.target for s in original.signals]


def test_07_the_h100_figures_command_refuses_by_name_and_reads_its_options(tmp_path, capsys):
    from auv_cosim.vehicles.h100.__main__ import main as figures
    from auv_cosim.vehicles.h100.forces import steady_speed
    from auv_cosim.vehicles.h100.vehicle_file import VEHICLES_DIR

    with pytest.raises(SystemExit) as done:
        figures(["--help"])
    assert done.value.code == 0 and "usage: python -m auv_cosim.vehicles.h100" in capsys.readouterr().out
    (tmp_path / "broken.yaml").write_text("name: [unclosed\n")
    assert figures([str(tmp_path / "broken.yaml"), str(tmp_path / "missing.yaml")]) == 2
    err = capsys.readouterr().err
    assert f"error: {tmp_path / 'broken.yaml'}: not valid YAML" in err
    assert f"error: {tmp_path / 'missing.yaml'}: cannot read" in err and "Traceback" not in err
    # damping that does not hold a force: no steady speed, said in words
    for name in ("body.yaml", "thrusters_8.yaml"):
        shutil.copy(Path(VEHICLES_DIR) / "h100" / name, tmp_path / name)
    body = (tmp_path / "body.yaml").read_text()
    body = body.replace("LinearDamping: [13.7, 0.0, 33.0,", "LinearDamping: [-13.7, 0.0, -33.0,")
    body = body.replace("QuadraticDamping: [141.0, 217.0, 190.0,", "QuadraticDamping: [-141.0, 217.0, -190.0,")
    (tmp_path / "body.yaml").write_text(body)
    (tmp_path / "v.yaml").write_text("name: V\nbody: body.yaml\nthrusters: thrusters_8.yaml\n")
    assert figures([str(tmp_path / "v.yaml")]) == 0
    out = capsys.readouterr().out
    assert "sink rate, thrusters off: none" in out and "no steady speed" in out
    assert steady_speed(10.0, 13.7, 141.0) == pytest.approx((-13.7 + (13.7 ** 2 + 4 * 141.0 * 10.0) ** 0.5) / 282.0)
    for linear, quadratic in ((-13.7, 0.0), (0.0, 0.0), (-13.7, -141.0), (13.7, -1.0)):
        assert steady_speed(100.0, linear, quadratic) != steady_speed(100.0, linear, quadratic)  # NaN
    assert steady_speed(0.0, 0.0, 0.0) == 0.0


def test_09_an_integrator_failure_says_which_state_ran_away_and_when(tmp_path):
    """In words, through the FMU to the run's reason: no numpy array, no place in the code."""
    from auv_cosim.vehicles.h100 import H100Model, load_vehicle
    from auv_cosim.vehicles.simulator import IntegrationError, VehicleSimulator

    params = load_vehicle().params
    stiff = params.replace(QuadraticDamping=tuple(1e11 if i == 14 else q for i, q in enumerate(params.QuadraticDamping)))
    model = H100Model(stiff)
    sim = VehicleSimulator(model, model.initial_state(Pos0=(0, 0, 5), LocalVel0=(0, 0, 0.5)), max_steps=50)
    with pytest.raises(IntegrationError) as failed:
        sim.advance(0.0, 0.1, model.inputs())
    message = str(failed.value)
    assert message.startswith("dopri5 could not integrate from t=0 s to t=0.1 s: larger nsteps is needed at t=")
    assert "LocalVel[3] went from 0.5 to" in message and "m/s" in message and "array" not in message

    # a vehicle running away downward: the seabed out of its reach (a solid seabed would catch it)
    r = master("run", "h100_hold", "--stop-time", "1", "--no-plots", "-q",
               "--set", "vehicle.LinearDamping[3,3]=-1e6", "--set", "vehicle.SeaFloorDepth=1e6", out=tmp_path / "out")
    assert r.rc == 1, r
    reason = r.summary["reason"]
    assert "dopri5 could not integrate from t=" in reason and " at t=" in reason
    assert "the state" in reason and "array" not in reason and ".py:" not in reason, reason


def test_09_the_initial_propeller_speeds_are_fractions_of_full_speed():
    from auv_cosim.vehicles.h100 import initial_state

    assert initial_state(2, PropellerSpeed0=(1.0, -1.0))[-2:].tolist() == [1.0, -1.0]
    for bad in ((1.5, 0.0), (0.0, -1e6)):
        with pytest.raises(ValueError, match=r"PropellerSpeed0\[\d\] = .* must be within \[-1, 1\]"):
            initial_state(2, PropellerSpeed0=bad)


# ------------------------------------------------------------------------------ the same kind elsewhere


def test_the_one_write_helper_writes_whole_or_not_at_all(tmp_path):
    from auv_cosim.master import output_target, write_whole

    target = tmp_path / "f.txt"
    target.write_text("before")

    def broken(f):
        f.write(b"half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_whole(target, broken)
    assert target.read_text() == "before" and leftovers(tmp_path) == []
    write_whole(target, "after")
    assert target.read_text() == "after" and (target.stat().st_mode & 0o777) == 0o666 & ~_umask()
    with pytest.raises(ScenarioError, match="f.txt: exists; give --force"):
        output_target(target, option="OUT")
    assert output_target(target, option="OUT", force=True) == target
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    with pytest.raises(ScenarioError, match="one of this command's inputs"):
        output_target(link, option="OUT", inputs=[target], force=True)


def _umask() -> int:
    import os

    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def test_view_replaces_its_own_page_but_no_other_file_unasked_and_never_the_results(tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    (run / "results.csv").write_text("time,rov.Pos[1],rov.Pos[2],rov.Pos[3]\n0,0,0,1\n1,1,0,1\n")
    (run / "view.html").write_text("old page")
    assert cli(["view", str(run), "--frames", "2"]) == 0
    assert (run / "view.html").read_text().startswith("<!DOCTYPE html>")
    other = tmp_path / "page.html"
    other.write_text("mine")
    assert cli(["view", str(run), "--out", str(other)]) == 2
    assert "page.html: exists; give --force" in capsys.readouterr().err and other.read_text() == "mine"
    assert cli(["view", str(run), "--out", str(other), "--force", "--frames", "2"]) == 0
    before = (run / "results.csv").read_bytes()
    assert cli(["view", str(run), "--out", str(run / "results.csv"), "--force"]) == 2
    assert "is one of this command's inputs" in capsys.readouterr().err
    assert (run / "results.csv").read_bytes() == before and leftovers(tmp_path) == []


def test_run_refuses_an_out_folder_that_holds_its_own_scenario(tmp_path):
    """Running a run's scenario.resolved.yaml again into its own folder would remove the file
    being run: refused before anything is touched."""
    out = tmp_path / "a"
    out.mkdir()
    resolved = out / "scenario.resolved.yaml"
    resolved.write_text(f"include: {DEPTH_STEP}\nstop_time: 0.5\n")
    (out / "results.csv").write_text("earlier rows\n")
    r = master("run", str(resolved), "--no-plots", out=out)
    assert r.rc == 2, r
    assert "scenario.resolved.yaml in it is an input of this run" in r.stderr
    assert (out / "results.csv").read_text() == "earlier rows\n" and resolved.is_file()


def test_identify_refuses_an_out_it_cannot_use_before_any_fit(tmp_path, capsys):
    log = tmp_path / "log.csv"
    log.write_text("time,vehicle.ThrustPower,vehicle.RudderYaw,vehicle.RudderDive,vehicle.Pos[1]\n0,30,0,0,0\n")
    a_file = tmp_path / "a_file"
    a_file.write_text("mine")
    identify = ["identify", str(log), "--vehicle", "auv", "--fit", "AxialDragCoeff"]
    assert cli([*identify, "--out", str(a_file)]) == 2
    assert "a_file: exists and is not a folder" in capsys.readouterr().err
    # a vehicle file an earlier fit wrote, given as the starting point of a fit into that folder
    out = tmp_path / "fit"
    out.mkdir()
    (out / "auv_parameters.yaml").write_text("AxialDragCoeff: 0.3\n")
    assert cli([*identify, "--vehicle-file", str(out / "auv_parameters.yaml"), "--out", str(out)]) == 2
    assert "auv_parameters.yaml: is one of this command's inputs" in capsys.readouterr().err
    assert (out / "auv_parameters.yaml").read_text() == "AxialDragCoeff: 0.3\n" and a_file.read_text() == "mine"


def test_identify_refuses_a_window_of_the_log_it_cannot_fit(tmp_path, capsys):
    log = tmp_path / "log.csv"
    log.write_text("time,vehicle.ThrustPower,vehicle.RudderYaw,vehicle.RudderDive,vehicle.Pos[1]\n"
                   "0,30,0,0,0\n0.1,30,0,0,0.1\n0.2,30,0,0,0.2\n")
    for window, words in ((("--start", "nan"), "--start nan: a time in seconds"),
                          (("--start", "0.2", "--stop", "0.1"), "--start 0.2 must come before --stop 0.1"),
                          (("--start", "5"), "0 sample(s) of")):
        assert cli(["identify", str(log), "--vehicle", "auv", "--fit", "AxialDragCoeff", *window,
                    "--out", str(tmp_path / "o")]) == 2
        err = capsys.readouterr().err
        assert words in err and "zero-size array" not in err, err


def test_validate_names_what_is_not_a_file(capsys):
    assert cli(["validate", "/dev/null"]) == 2
    assert "/dev/null: not a regular file" in capsys.readouterr().err


def test_08_one_number_rule_for_the_master_and_its_clients(tmp_path):
    """`1e3` is a number in a scenario, a campaign file, a --set or --vary list; `true` is not."""
    from auv_cosim.master import load_yaml
    from auv_cosim.campaigns.spec import load_campaign_file, parse_vary_option

    assert load_yaml("a: [1e3, -2.5E-1, 1_0, .5]\nb: true\n") == {"a": [1000.0, -0.25, 10, 0.5], "b": True}
    campaign = tmp_path / "c.yaml"
    campaign.write_text(f"scenario: {DEPTH_STEP}\nstop_time: 1e1\nvary:\n  vehicle.Length: [1.8e0, 2e0]\n")
    c = load_campaign_file(campaign)
    assert c.stop_time == 10.0 and c.vary["vehicle.Length"] == [1.8, 2.0]
    assert parse_vary_option("vehicle.Pos0=[[0,0,1e1]]") == ("vehicle.Pos0", [[0, 0, 10.0]], False)
    plan = build_plan(load_scenario(DEPTH_STEP, {"vehicle.Pos0": ["0", "0", "1e1"]}))
    assert dict((v.name, x) for v, x in plan.instances["vehicle"].params)["Pos0[3]"] == 10.0
    scenario = tmp_path / "s.yaml"
    scenario.write_text(f"include: {DEPTH_STEP}\ninstances:\n  vehicle:\n    parameters:\n      Pos0: [true, 0, 5]\n")
    with pytest.raises(ScenarioError, match=r"Pos0: vehicle.Pos0\[1\] is a Real; expected a number, got True"):
        build_plan(load_scenario(scenario))


def _vehicle_files(tmp_path: Path, body=(), thrusters=()) -> str:
    """The default H100's vehicle files copied, each text replacement (old, new) made."""
    from auv_cosim.vehicles.h100.vehicle_file import VEHICLES_DIR

    texts = {}
    for name, changes in (("body.yaml", body), ("thrusters_8.yaml", thrusters)):
        text = (Path(VEHICLES_DIR) / "h100" / name).read_text()
        for old, new in changes:
            assert old in text, old
            text = text.replace(old, new)
        (tmp_path / name).write_text(text)
        texts[name] = text
    (tmp_path / "v.yaml").write_text("name: V\nbody: body.yaml\nthrusters: thrusters_8.yaml\n")
    return str(tmp_path / "v.yaml")


def test_02_finite_but_absurd_values_are_refused_by_name(tmp_path):
    """A direction whose norm overflows pushed nowhere; a position, a mass, an initial state
    beyond +-1e12 (SI) are refused, naming the element as the FMU names it."""
    from auv_cosim.vehicles.auv import initial_state
    from auv_cosim.vehicles.h100 import VehicleFileError, load_vehicle

    params = load_vehicle().params
    for change, named in (({"ThrusterDir": (0.0, 1e200, 0.0) + params.ThrusterDir[3:]}, "ThrusterDir[1,2] = 1e+200"),
                          ({"ThrusterPos": (-1e16,) + params.ThrusterPos[1:]}, "ThrusterPos[1,1] = -1e+16"),
                          ({"Mass": 1e200}, "Mass = 1e+200"),
                          ({"Inertia": (1e300,) + params.Inertia[1:]}, "Inertia[1,1] = 1e+300")):
        with pytest.raises(ValueError, match=rf"parameter {re.escape(named)} is beyond \+-1e\+12"):
            params.replace(**change)
    with pytest.raises(ValueError, match=r"parameter Pos0\[2\] = 1e\+200 is beyond"):
        initial_state(Pos0=(0.0, 1e200, 0.0))
    path = _vehicle_files(tmp_path, thrusters=[("direction: [1, -1, 0]}", "direction: [1, 1e200, 0]}")])
    with pytest.raises(VehicleFileError, match=r"thrusters_8.yaml: field thrusters\[1\]\.direction\[2\]: 1e\+200 is beyond"):
        load_vehicle(path)


def test_08_one_number_rule_for_every_field_of_the_vehicle_files(tmp_path):
    """`1e3` is a number in a matrix's diagonal shorthand as in a thruster's position; `true`
    and quoted text are numbers nowhere; the errors name the file and the element."""
    from auv_cosim.vehicles.h100 import VehicleFileError, load_vehicle

    vehicle = load_vehicle(_vehicle_files(tmp_path, body=[("LinearDamping: [13.7,", "LinearDamping: [1.37e1,"),
                                                          ("Mass: 13.5", "Mass: 1.35e1")],
                                          thrusters=[("position: [0.156, 0.111,", "position: [1.56e-1, 0.111,")]))
    default = load_vehicle().params
    assert vehicle.params == default
    for body, thrusters, words in (
            ([("LinearDamping: [13.7,", "LinearDamping: [1e308,")], [], "body.yaml: field LinearDamping[1,1]: 1e+308 is beyond"),
            ([("LinearDamping: [13.7,", "LinearDamping: [true,")], [], "body.yaml: field LinearDamping[1,1]: True is true/false"),
            ([("Mass: 13.5", "Mass: '13.5'")], [], "body.yaml: field Mass: '13.5' is not a number"),
            ([], [("position: [0.156, 0.111,", "position: [true, 0.111,")],
             "thrusters_8.yaml: field thrusters[1].position[1]: True is true/false, not a number"),
            ([], [("MaxThrustForward: 51.5", "MaxThrustForward: yes")], "field MaxThrustForward: True is true/false")):
        with pytest.raises(VehicleFileError) as refused:
            load_vehicle(_vehicle_files(tmp_path, body=body, thrusters=thrusters))
        assert words in str(refused.value)
