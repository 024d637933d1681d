"""The H100 on its tether through the master (auv_cosim/vehicles/h100/scenarios/stacks/h100_tether.yaml): Tether.fmu's
force and moment reach the vehicle, station keeping holds on the tether in the cross current,
the winch pays out on the transect, and the tether's figures and line reach summary.json and
the run's report. Shortened (60-70 s) to keep the suite's cost modest; the README's table comes
from the full runs (`auv-cosim compare h100_tether_hold`, `h100_untethered_hold`)."""
from __future__ import annotations

import numpy as np
import pytest

from tests.harness import build, master


@pytest.fixture(scope="module", autouse=True)
def fmus():
    build("H100", "H100Sensors", "H100Control", "Tether")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = {}
    for scenario in ("h100_tether_hold", "h100_untethered_hold"):
        run = master("run", scenario, "--stop-time", "60", "--no-plots",
                     out=tmp_path_factory.mktemp(scenario) / "run")
        assert run.rc == 0, run.stderr
        out[scenario] = run
    return out


def vectors(run, name):
    return np.column_stack([run.column(f"{name}[{i}]") for i in (1, 2, 3)])


def test_the_tether_pulls_the_vehicle_by_its_fastening(runs):
    run = runs["h100_tether_hold"]
    force, moment = vectors(run, "tether.EndForce"), vectors(run, "tether.EndMoment")
    lever = vectors(run, "tether.EndPoint") - vectors(run, "vehicle.Pos")
    # the fastening 0.22 m aft, 0.05 m up: the lever's length whatever the attitude
    assert np.linalg.norm(lever, axis=1) == pytest.approx(np.hypot(0.22, 0.05), abs=2e-3)
    # the moment about the body origin is the lever across the force (the lever of the step's end)
    assert np.abs(moment - np.cross(lever, force)).max() < 2e-3 * np.abs(force).max()
    # the current (east) blows the tether into a bow that pulls the ROV east, and its weight down
    late = slice(len(force) // 2, None)
    assert force[late, 1].mean() > 0.3 and force[late, 2].mean() > 0.0
    assert run.summary["tether"]["tether"]["end_tension_max_N"] == pytest.approx(
        float(np.max(run.column("tether.EndTension"))), rel=1e-5)   # summary.json keeps 6 digits
    assert "tether: end tension mean" in run.stdout


def test_station_keeping_holds_on_the_tether_and_feels_it(runs):
    tethered, free = runs["h100_tether_hold"].summary, runs["h100_untethered_hold"].summary
    assert tethered["h100"]["control"]["position_rms_m"] < 0.1
    # the thrusters' saturation time is reported (0 s here: a 1 N pull is far from their limits)
    saturated = np.asarray(runs["h100_tether_hold"].column("control.SaturatedThrusters"))
    assert tethered["h100"]["control"]["saturated_time_s"] == pytest.approx(0.1 * np.count_nonzero(saturated[1:]),
                                                                            abs=1e-9)
    assert "thrusters saturated" in runs["h100_tether_hold"].stdout
    assert "tether" not in free
    # the same noise and current: what differs is the tether
    assert not np.array_equal(vectors(runs["h100_tether_hold"], "vehicle.Pos"),
                              vectors(runs["h100_untethered_hold"], "vehicle.Pos"))


def test_the_transect_pays_the_tether_out(tmp_path):
    run = master("run", "h100_tether_transect", "--stop-time", "70", "--no-plots", out=tmp_path / "run")
    assert run.rc == 0, run.stderr
    length = np.asarray(run.column("tether.UnstretchedLength"))
    time = np.asarray(run.column("time"))
    assert length[0] == 35.0 and length[-1] == pytest.approx(35.0 + 0.35 * 60.0, rel=1e-9)
    assert np.all(np.diff(length[time <= 60.0]) > 0)
    assert vectors(run, "vehicle.Pos")[-1, 0] > 35.0            # on its way out to 40 m


def test_compare_flies_each_controller_with_and_without_the_tether(tmp_path):
    """`auv-cosim compare h100_tether_hold --without tether`: the same controllers on the scenario
    as is and on it without the tether instance (a scenario file written in OUT); one table."""
    import csv

    out = tmp_path / "compare"
    # a --set of the tether applies where there is one
    run = master("compare", "h100_tether_hold", "--without", "tether", "--controllers", "pid", "--stop-time", "5",
                 "--workers", "1", "--set", "tether.Length=40", out=out, timeout=600)
    assert run.rc == 0, run.stderr
    with open(out / "comparison.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [(r["controller"], r["flown"], r["status"]) for r in rows] == [
        ("pid", "as is", "completed"), ("pid", "without tether", "completed")]
    assert "| pid without tether |" in run.stdout and "thrusters saturated [s]" in run.stdout
    with open(out / "without_tether" / "runs" / "control.Controller=pid" / "results.csv", newline="") as f:
        without = next(csv.reader(f))
    with open(out / "runs" / "control.Controller=pid" / "results.csv", newline="") as f:
        tethered = next(csv.reader(f))
    assert "tether.EndForce[1]" in tethered and not any(c.startswith("tether.") for c in without)
    with open(out / "runs" / "control.Controller=pid" / "results.csv", newline="") as f:
        assert float(next(csv.DictReader(f))["tether.UnstretchedLength"]) == 40.0
    assert rows[0]["position_rms_m"] != rows[1]["position_rms_m"]


def test_compare_without_an_instance_the_scenario_lacks_is_refused_before_anything_runs(tmp_path):
    out = tmp_path / "compare"
    run = master("compare", "h100_tether_hold", "--without", "winch", "--stop-time", "1", out=out)
    assert run.rc == 2 and "winch" in run.stderr and "tether" in run.stderr, run.stderr
    assert not out.exists()
