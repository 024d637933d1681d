"""The controller comparison (seed 004 M5): `auv-cosim compare SCENARIO` (auv_cosim/analyses/
h100_compare.py, a subcommand registered through an entry point) runs the scenario once per
controller (a campaign over `control.Controller`) and writes one table (CSV and markdown, from
each run's summary.json figures) and one figure. Shortened depth-step runs; a controller that
does not exist shows as a failed row, named, and the exit status says so."""
from __future__ import annotations

import csv

import numpy as np
import pytest

from tests.harness import build, master
from auv_cosim.vehicles.h100.stack.control import CONTROLLERS


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    build("H100", "H100Sensors", "H100Control")
    out = tmp_path_factory.mktemp("compare") / "depth_step"
    run = master("compare", "h100_depth_step", "--controllers", "pid,lqr,smc,mpc", "--stop-time", "20",
                 "--workers", "1", out=out, timeout=600)
    with open(out / "comparison.csv", newline="") as f:
        rows = {row["controller"]: row for row in csv.DictReader(f)}
    return run, out, rows


def test_one_table_one_figure_one_row_per_controller(compared):
    run, out, rows = compared
    assert run.rc == 1, run                                # the made-up controller failed
    assert list(rows) == ["pid", "lqr", "smc", "mpc"]
    assert [rows[c]["status"] for c in CONTROLLERS] == ["completed"] * 3
    assert rows["mpc"]["status"] == "failed" and "Controller" in rows["mpc"]["reason"]
    table = (out / "comparison.md").read_text()
    assert "| lqr |" in table and "RMS position error [m]" in table and table in run.stdout
    assert (out / "tracks.png").stat().st_size > 10_000
    for key in ("position_rms_m", "position_max_m", "settling_time_s", "thrust_effort_N_s", "propulsive_energy_J",
                "analysis.depth_step.overshoot_percent"):
        assert all(rows[c][key] != "" for c in CONTROLLERS), key
    # each run flew its own controller: the efforts differ
    assert len({rows[c]["thrust_effort_N_s"] for c in CONTROLLERS}) == 3


def test_the_table_figures_are_those_of_the_runs(compared):
    """The RMS and maximum 3-D error, recomputed here from each run's results.csv."""
    _, out, rows = compared
    for controller in CONTROLLERS:
        results = out / "runs" / f"control.Controller={controller}" / "results.csv"
        with open(results, newline="") as f:
            header = next(csv.reader(f))
        data = np.loadtxt(results, delimiter=",", skiprows=1, ndmin=2)
        col = {name: data[:, i] for i, name in enumerate(header)}
        error = np.sqrt(sum((col[f"vehicle.Pos[{i}]"] - col[f"control.RefPosition[{i}]"]) ** 2 for i in (1, 2, 3)))
        assert float(rows[controller]["position_rms_m"]) == pytest.approx(np.sqrt(np.mean(error ** 2)), rel=1e-5)
        assert float(rows[controller]["position_max_m"]) == pytest.approx(error.max(), rel=1e-5)
        thrust = np.column_stack([col[f"vehicle.Thrust[{i}]"] for i in range(1, 9)])
        effort = np.sum(np.abs(thrust).sum(axis=1)[1:] + np.abs(thrust).sum(axis=1)[:-1]) / 2 * 0.1
        assert float(rows[controller]["thrust_effort_N_s"]) == pytest.approx(effort, rel=1e-4)
        # the time with a thruster at a limit: 0.1 s for each row after the first that reports one
        saturated_rows = np.count_nonzero(col["control.SaturatedThrusters"][1:] > 0)
        assert float(rows[controller]["saturated_time_s"]) == pytest.approx(0.1 * saturated_rows, rel=1e-5, abs=1e-9)


def test_a_run_that_sets_the_plant_and_not_the_model_says_so(tmp_path):
    """The controllers' model of the vehicle is the vehicle file the control FMU carries: a run
    that changes the plant's damping changes the plant only, and the summary and the run's
    lines say so, naming the control stack's own parameter for the model's damping."""
    build("H100", "H100Sensors", "H100Control")
    plain = master("run", "h100_hold", "--stop-time", "2", "--no-plots", out=tmp_path / "plain")
    changed = master("run", "h100_hold", "--stop-time", "2", "--no-plots", "--set", "vehicle.QuadraticDamping[1,1]=90",
                     "--set", "vehicle.ThrusterEfficiency=0.8", out=tmp_path / "changed")
    assert plain.rc == 0 and changed.rc == 0, (plain, changed)
    assert "warning" not in plain.summary["h100"]["control"]["belief"]
    assert plain.summary["h100"]["control"]["belief"]["DampingScale"] == 1.0
    belief = changed.summary["h100"]["control"]["belief"]
    assert belief["plant_only"] == ["QuadraticDamping[1,1]", "ThrusterEfficiency"]
    assert "control.DampingScale" in belief["warning"] and "control.EfficiencyBelief" in belief["warning"]
    assert "warning: vehicle.QuadraticDamping[1,1], ThrusterEfficiency set for the plant only" in changed.stdout


def test_set_values_are_read_by_the_variable_s_type(tmp_path):
    """``--set`` of a Real and of a Boolean, written as text on the command line as for ``run``
    and ``sweep``: each run gets the typed value (a number, true/false), not a string."""
    build("H100", "H100Sensors", "H100Control")
    out = tmp_path / "typed"
    run = master("compare", "h100_hold", "--controllers", "pid", "--stop-time", "2", "--workers", "1",
                 "--set", "vehicle.CurrentVelocity[1]=0.1", "--set", "control.ModelFeedForward=false",
                 out=out, timeout=600)
    assert run.rc == 0, run
    scenario = (out / "runs" / "control.Controller=pid" / "scenario.yaml").read_text()
    assert "CurrentVelocity[1]: 0.1" in scenario or "CurrentVelocity: [0.1" in scenario, scenario
    assert "ModelFeedForward: false" in scenario, scenario
