"""The vehicles' wake ports (SPEC 9: WakeSource, WakeSources, WakeVelocity) in the master: quiet in
a scenario that wires none (not read, not recorded by `record: all`, not listed as unconnected
inputs), so a vehicle alone records what it did before they existed; those a `record` entry
names are recorded; all are ordinary variables as soon as a connection or a signal wires one."""
from __future__ import annotations

from pathlib import Path

import pytest

from auv_cosim.master import load_scenario
from auv_cosim.master.layout import layout_row
from auv_cosim.master.exchanges import Exchange, read_exchanges
from auv_cosim.master.plan import build_plan

from master_helpers import REPO, master
from auv_cosim.master import find_scenario

pytestmark = pytest.mark.usefixtures("fmus_built")

SURVEY = (find_scenario("survey")).as_posix()
H100 = (find_scenario("h100_hold")).as_posix()


def _plan(tmp_path: Path, text: str):
    path = tmp_path / "s.yaml"
    path.write_text(text)
    return build_plan(load_scenario(path))


def is_wake_port(name: str) -> bool:
    return name.split("[", 1)[0] in ("WakeSource", "WakeSources", "WakeVelocity")


def _wake(names):
    return [n for n in names if is_wake_port(n.split(".", 1)[-1])]


@pytest.mark.parametrize("scenario", [SURVEY, H100])
def test_a_scenario_without_wakes_leaves_the_ports_quiet(scenario):
    plan = build_plan(load_scenario(scenario))
    vehicle = plan.instances["vehicle"]
    assert _wake(vehicle.vars)                                   # the FMU has them
    assert not _wake(v.name for v in vehicle.outputs + vehicle.inputs)
    assert not _wake(plan.record) and not _wake(plan.unconnected_inputs)
    assert not _wake(layout_row(plan).columns)                  # not read after a step


def test_the_vehicles_fmus_declare_their_wake_ports():
    """The master knows the ports from what each FMU declares (its modelDescription's row
    exchange), not from their names: the AUV casts and meets wakes, the H100 only meets them."""
    assert read_exchanges(REPO / "fmus" / "Auv.fmu") == {"wakes": Exchange(
        "wakes", "WakeSource", "WakeSources", "CastWake", ("WakeSource", "WakeSources", "WakeVelocity"), ("Rho",))}
    for name in ("H100", "H100_6"):
        assert read_exchanges(REPO / "fmus" / f"{name}.fmu") == {"wakes": Exchange(
            "wakes", None, "WakeSources", None, ("WakeSources", "WakeVelocity"), ("Rho",))}
    for name in ("AuvSensors", "AuvControl", "H100Control"):
        assert read_exchanges(REPO / "fmus" / f"{name}.fmu") == {}


@pytest.mark.parametrize("record, expected", [
    ("[all, vehicle.WakeVelocity]", ["vehicle.WakeVelocity[1]", "vehicle.WakeVelocity[2]", "vehicle.WakeVelocity[3]"]),
    ("['vehicle.WakeSource[*']", [f"vehicle.WakeSource[{j}]" for j in range(1, 16)]),
    ("['vehicle.WakeVelocity[2]']", ["vehicle.WakeVelocity[2]"]),
])
def test_record_naming_a_port_records_it(tmp_path, record, expected):
    plan = _plan(tmp_path, f"include: {SURVEY}\nrecord: {record}\n")
    assert _wake(plan.record) == expected                       # those named, no other port
    assert set(expected) <= set(layout_row(plan).colmap)
    assert not _wake(plan.unconnected_inputs)


def test_a_wake_connection_wakes_every_port(tmp_path):
    # the vehicle wired to a constant row by a signal: the ports are ordinary variables, and
    # `record: all` records the outputs (WakeSource, WakeVelocity) as any other
    plan = _plan(tmp_path, f"include: {SURVEY}\nsignals:\n  vehicle.WakeSources[1,15]: 0.0\n")
    outputs = [v.name for v in plan.instances["vehicle"].outputs]
    assert "WakeVelocity[1]" in outputs and "WakeSource[15]" in outputs
    assert "vehicle.WakeVelocity[3]" in plan.record
    assert "vehicle.WakeSources[2,1]" in plan.unconnected_inputs


def test_recorded_wake_velocity_of_a_vehicle_alone_is_zero(tmp_path):
    run = master("run", SURVEY, "--stop-time", "5", "--no-plots", "--set", "vehicle.CastWake=true",
                 out=tmp_path / "r")
    assert run.rc == 0, run.stderr
    header = run.csv_path.read_text().splitlines()[0]
    assert "WakeVelocity" not in header and "WakeSource" not in header
    path = tmp_path / "s.yaml"
    path.write_text(f"include: {SURVEY}\nrecord: [all, vehicle.WakeVelocity, vehicle.WakeSource]\n")
    run = master("run", str(path), "--stop-time", "5", "--no-plots", "--set", "vehicle.CastWake=true",
                 out=tmp_path / "w")
    assert run.rc == 0, run.stderr
    assert run.column("vehicle.WakeVelocity[1]")[-1] == 0.0     # nobody else: no wake met
    assert run.column("vehicle.WakeSource[10]")[-1] > 1.0       # its own row: U of the survey
