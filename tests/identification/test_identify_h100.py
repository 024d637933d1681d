"""Identification of the H100 through the command line (`auv-cosim identify --vehicle h100`).

A trial is H100.fmu with perturbed true parameters (surge quadratic damping +30 %, heave added
mass -20 %, thruster efficiency 0.85) and H100Sensors' noise, flown open loop by the master
through the identification manoeuvre (scenarios/ident_h100.yaml, cut to its surge and heave
steps here to keep the cost modest); the fit starts from the nominal vehicle. The open-loop
H100 is unstable at speed, so the fit is by multiple shooting (windows of 10 s whose starts are
fitted along, tied by continuity). The whole manoeuvre with four parameters:
tools/identify_demo.py h100; a trial of another schedule: test_identify_h100_trial.py."""
from __future__ import annotations

import json

import numpy as np
import pytest

from tests.identification.trial_runs import fly, python

NOMINAL = {"QuadraticDamping[1,1]": 141.0, "AddedMass[3,3]": 18.68, "ThrusterEfficiency": 1.0}
TRUTH = {"QuadraticDamping[1,1]": 141.0 * 1.3, "AddedMass[3,3]": 18.68 * 0.8, "ThrusterEfficiency": 0.85}


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    root = tmp_path_factory.mktemp("ident_h100")
    trial = fly("ident_h100", root / "trial", 74, TRUTH)         # surge and heave steps
    check = fly("ident_h100_check", root / "check", 46, TRUTH)   # its heave and surge steps
    out = root / "fit"
    r = python("-m", "auv_cosim", "identify", str(trial), "--vehicle", "h100", "--fit", ",".join(TRUTH),
                "--check", str(check), "--out", str(out))
    print(r.stdout)
    assert r.returncode == 0, r.stdout + r.stderr[-3000:]
    return r.stdout, out, trial


def test_the_trial_stays_in_the_vehicle_s_envelope(fitted):
    """Open loop, but the manoeuvre keeps the vehicle submerged, off the sea floor and slow."""
    import csv

    _, _, trial = fitted
    with open(trial) as f:
        rows = list(csv.DictReader(f))
    depth = np.array([float(r["vehicle.Depth"]) for r in rows])
    speed = np.array([float(r["vehicle.LocalVel[1]"]) for r in rows])
    pitch = np.array([float(r["vehicle.Euler[2]"]) for r in rows])
    assert 2.0 < depth.min() and depth.max() < 25.0, (depth.min(), depth.max())
    assert np.abs(speed).max() < 1.0 and np.abs(pitch).max() < 0.5
    assert all(r["sensors.DvlValid"] in ("1", "True", "true") for r in rows[1:])
    # the commands the fit reads are the ones the master applied
    assert {f"vehicle.ThrusterCommand[{i}]" for i in range(1, 9)} <= set(rows[0])


def test_damping_added_mass_and_thruster_efficiency_are_recovered_within_5_percent(fitted):
    stdout, out, _ = fitted
    est = json.loads((out / "estimates.json").read_text())
    assert set(est) == set(TRUTH)
    for name, truth in TRUTH.items():
        e = est[name]
        assert e["nominal"] == NOMINAL[name] and abs(e["nominal"] / truth - 1) > 0.1, "the fit starts away"
        assert e["value"] == pytest.approx(truth, rel=0.05), f"{name}: {e['value']} against {truth}"
        assert e["stderr"] is not None and 0 < e["stderr"] < 0.05 * truth, e
        # the truth lies within a few standard errors
        assert abs(e["value"] - truth) < 3.5 * e["stderr"], e
    fit = json.loads((out / "fit.json").read_text())
    assert fit["stderr_method"].startswith("multiple shooting"), fit["stderr_method"]
    assert "standard errors: multiple shooting" in stdout


def test_the_fitted_model_predicts_the_held_out_manoeuvre_better(fitted):
    stdout, out, _ = fitted
    held = json.loads((out / "fit.json").read_text())["heldout"]["rms_position_error_m"]
    assert held["fitted"] < 0.5 * held["nominal"], held
    assert "held-out" in stdout and "RMS position error nominal" in stdout


def test_the_fitted_vehicle_file_loads_with_the_fitted_values(fitted):
    from auv_cosim.vehicles.h100 import load_vehicle

    _, out, _ = fitted
    est = json.loads((out / "estimates.json").read_text())
    vehicle = load_vehicle(str(out / "h100_fitted.yaml"))
    default = load_vehicle()
    assert vehicle.params.ThrusterEfficiency == pytest.approx(est["ThrusterEfficiency"]["value"])
    assert vehicle.params.matrix("AddedMass")[2, 2] == pytest.approx(est["AddedMass[3,3]"]["value"])
    assert vehicle.params.matrix("QuadraticDamping")[0, 0] == pytest.approx(est["QuadraticDamping[1,1]"]["value"])
    assert vehicle.params.ThrusterPos == default.params.ThrusterPos
    assert vehicle.params.Mass == default.params.Mass

