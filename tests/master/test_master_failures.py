"""What goes wrong: a malformed scenario, a missing FMU, an FMU error mid-run, a NaN on a
connection, Ctrl-C. Each gives a non-zero exit, a clear message, and leaves results.csv intact
(untouched when the scenario is refused; every computed row when the run stops)."""
from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import pytest

from master_helpers import REPO, master, popen_master
from auv_cosim.master import find_scenario

pytestmark = pytest.mark.usefixtures("fmus_built")

STACK = (find_scenario("stacks/survey")).as_posix()
PREVIOUS = "time,vehicle.Depth\n0.0,1.0\n0.1,1.0\n"


def _previous_results(out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    p = out / "results.csv"
    p.write_text(PREVIOUS)
    return p


def _rows_are_complete(path: Path) -> list[list[str]]:
    text = path.read_text()
    assert text.endswith("\n")
    lines = text.splitlines()
    width = lines[0].count(",")
    assert all(line.count(",") == width for line in lines), "a partial row"
    return [line.split(",") for line in lines]


def test_malformed_scenario_is_refused_naming_file_and_fields(tmp_path):
    scen = tmp_path / "bad.yaml"
    scen.write_text(f"""
description: broken on purpose
include: {STACK}
stop_time: 10
stop_tme: 10
instances:
  vehicle:
    parameters:
      Length: long
      Pos0: [0, 0]
connections:
  - control.ThrustPowr -> vehicle.ThrustPower
signals:
  control.DepthComand: 3.0
""")
    previous = _previous_results(tmp_path / "out")
    r = master("run", str(scen), out=tmp_path / "out")
    assert r.rc == 2, r
    err = r.stderr
    assert "nothing was run" in err
    assert "bad.yaml: stop_tme: unknown field" in err
    # the schema pass stops at the unknown field; fix it and the model checks come next
    scen.write_text(scen.read_text().replace("stop_tme: 10\n", ""))
    r = master("run", str(scen), out=tmp_path / "out")
    assert r.rc == 2, r
    err = r.stderr
    assert "bad.yaml: instances.vehicle.parameters.Length: vehicle.Length is a Real; expected a number, got 'long'" in err
    assert "bad.yaml: instances.vehicle.parameters.Pos0: 'Pos0' has 3 elements" in err
    assert "bad.yaml: connections[0]: 'control.ThrustPowr -> vehicle.ThrustPower': control (fmus/AuvControl.fmu) has no variable 'ThrustPowr' (did you mean 'ThrustPower'?)" in err
    assert 'bad.yaml: signals["control.DepthComand"]' in err and "'DepthCommand'" in err
    assert previous.read_text() == PREVIOUS  # nothing ran, nothing was touched
    assert not (tmp_path / "out" / "summary.json").exists()


def test_wrong_types_in_the_schema_name_the_field(tmp_path):
    scen = tmp_path / "types.yaml"
    scen.write_text(f"include: {STACK}\nstop_time: -5\nstep: fast\nsignals:\n  vehicle.ExternalForce[1]: {{step: {{time: 1}}}}\n")
    r = master("run", str(scen), out=tmp_path / "out")
    assert r.rc == 2, r
    assert "types.yaml: stop_time: Input should be greater than 0 (got -5)" in r.stderr
    assert "types.yaml: step: Input should be a valid number" in r.stderr
    assert 'types.yaml: signals["vehicle.ExternalForce[1]"].step.after: Field required' in r.stderr


def test_missing_fmu_is_refused_before_anything_runs(tmp_path):
    scen = tmp_path / "nofmu.yaml"
    scen.write_text(f"include: {STACK}\nstop_time: 10\ninstances:\n  vehicle:\n    fmu: fmus/NoSuchVehicle.fmu\n")
    previous = _previous_results(tmp_path / "out")
    r = master("run", str(scen), out=tmp_path / "out")
    assert r.rc == 2, r
    assert "nofmu.yaml: instances.vehicle.fmu: FMU file not found: fmus/NoSuchVehicle.fmu" in r.stderr
    assert previous.read_text() == PREVIOUS


def test_fmu_error_mid_run_stops_keeps_the_rows_and_names_instance_variable_time(tmp_path):
    # a NaN reaches vehicle.ThrustPower through a signal at t = 3 s; the Auv FMU refuses it
    scen = tmp_path / "nan.yaml"
    scen.write_text(f"""
include: {(find_scenario('depth_step')).as_posix()}
name: nan_thrust
stop_time: 20
disconnect: [vehicle.ThrustPower]
signals:
  vehicle.ThrustPower: {{step: {{time: 3.0, before: 30.0, after: .nan}}}}
""")
    out = tmp_path / "out"
    r = master("run", str(scen), "--no-plots", out=out)
    assert r.rc == 1, r
    s = r.summary
    assert s["status"] == "failed"
    f = s["failure"]
    assert f["instance"] == "vehicle" and f["variable"] == "ThrustPower" and f["time"] == 3.0
    assert f["function"] == "fmi2DoStep"
    assert "vehicle.ThrustPower" in s["reason"] and "t=3 s" in s["reason"]
    assert "vehicle.ThrustPower" in r.stderr and "t=3 s" in r.stderr
    rows = _rows_are_complete(out / "results.csv")
    times = [float(row[0]) for row in rows[1:]]
    assert times[-1] == 3.0 and len(times) == 31  # every step up to the failing one
    assert s["rows"] == 31


def test_nan_on_a_connection_stops_the_run_naming_the_connection(tmp_path, nan_fmu):
    scen = tmp_path / "nanconn.yaml"
    scen.write_text(f"""
stop_time: 10
instances:
  source: {{fmu: {nan_fmu.as_posix()}}}
  vehicle: {{fmu: fmus/Auv.fmu, parameters: {{Pos0: [0, 0, 5]}}}}
connections:
  - source.Power -> vehicle.ThrustPower
""")
    out = tmp_path / "out"
    r = master("run", str(scen), "--no-plots", out=out)
    assert r.rc == 1, r
    s = r.summary
    assert s["step_order"] == ["source", "vehicle"]
    assert s["failure"]["connection"] == "source.Power -> vehicle.ThrustPower"
    assert s["failure"]["instance"] == "vehicle" and s["failure"]["variable"] == "ThrustPower"
    assert "non-finite value nan exchanged on connection source.Power -> vehicle.ThrustPower at t=1.9 s" in s["reason"]
    rows = _rows_are_complete(out / "results.csv")
    assert float(rows[-1][0]) == pytest.approx(1.9)


def test_ctrl_c_stops_cleanly_with_every_row_on_disk(tmp_path):
    out = tmp_path / "out"
    p = popen_master("run", "survey", "--no-plots", "--no-progress", out=out)
    csv_path = out / "results.csv"
    deadline = time.time() + 120
    while time.time() < deadline:
        if csv_path.is_file() and csv_path.stat().st_size > 50_000:
            break
        if p.poll() is not None:
            pytest.fail(f"the run ended before it could be interrupted: {p.communicate()}")
        time.sleep(0.05)
    p.send_signal(signal.SIGINT)
    stdout, stderr = p.communicate(timeout=60)
    assert p.returncode == 130, (stdout, stderr)
    s = json.loads((out / "summary.json").read_text())
    assert s["status"] == "interrupted"
    assert s["reason"].startswith("interrupted by Ctrl-C (SIGINT) at t=")
    rows = _rows_are_complete(csv_path)
    assert len(rows) - 1 == s["rows"] == s["steps"] + 1
    assert float(rows[-1][0]) == pytest.approx(s["simulated_time_s"])
    assert 0 < s["simulated_time_s"] < 2700


def test_a_parameter_the_fmu_refuses_at_initialisation_is_a_refused_input(tmp_path):
    """The FMU's refusal at initialisation is the input refused, as the plan's own refusals are:
    exit 2, the setting blamed by file and field, the FMU quoted; nothing of the run is kept
    (no row was computed)."""
    out = tmp_path / "out"
    r = master("run", "depth_step", "--set", "vehicle.Length=-1", "--no-plots", out=out)
    assert r.rc == 2, r
    assert "scenario refused, nothing was run" in r.stderr
    assert "--set: vehicle.Length: vehicle.Length refused by the FMU at initialisation" in r.stderr
    assert "must be positive" in r.stderr and "Traceback" not in r.stderr
    assert not out.exists()   # the folder it would have made is not left behind
