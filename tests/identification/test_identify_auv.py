"""Identification of the AUV from a trial log (auv_cosim/identification/, `auv-cosim identify`).

A trial is the AUV FMU with perturbed true drag coefficients and its instruments' noise, flown
open loop by the master through the identification manoeuvre (scenarios/ident_auv.yaml,
shortened here); the fit starts from the nominal values. The full demonstration (longer logs,
more parameters, the H100) is tools/identify_demo.py."""
from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from tests.identification.trial_runs import fly, python

TRUTH = {"AxialDragCoeff": 0.25 * 1.2, "CrossFlowDragCoeff": 1.1 * 0.8}   # nominal 0.25, 1.1


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    root = tmp_path_factory.mktemp("ident_auv")
    trial = fly("ident_auv", root / "trial", 60, TRUTH)
    check = fly("ident_auv_check", root / "check", 60, TRUTH)
    out = root / "fit"
    r = python("-m", "auv_cosim", "identify", str(trial), "--vehicle", "auv",
                "--fit", "AxialDragCoeff,CrossFlowDragCoeff", "--check", str(check), "--out", str(out))
    print(r.stdout)
    assert r.returncode == 0, r.stdout + r.stderr[-3000:]
    return r.stdout, out


def test_the_drag_coefficients_are_recovered_within_5_percent_from_nominal(fitted):
    stdout, out = fitted
    est = json.loads((out / "estimates.json").read_text())
    assert set(est) == set(TRUTH)
    for name, truth in TRUTH.items():
        e = est[name]
        assert e["nominal"] != pytest.approx(truth, rel=0.1), "the fit must start away from the truth"
        assert e["value"] == pytest.approx(truth, rel=0.05), f"{name}: {e['value']} against {truth}"
        assert e["stderr"] is not None and 0 < e["stderr"] < 0.05 * truth, e
        # the truth lies within a few standard errors: the errors are honest
        assert abs(e["value"] - truth) < 5 * e["stderr"] + 1e-3 * truth, e
    assert "AxialDragCoeff" in est["CrossFlowDragCoeff"]["correlations"]


def test_the_fitted_model_predicts_a_held_out_manoeuvre_better(fitted):
    stdout, out = fitted
    held = json.loads((out / "fit.json").read_text())["heldout"]["rms_position_error_m"]
    assert held["fitted"] < 0.5 * held["nominal"], held
    assert "held-out" in stdout and "nominal" in stdout


def test_the_fit_writes_residuals_a_plot_and_a_vehicle_file(fitted):
    import yaml

    _, out = fitted
    fit = json.loads((out / "fit.json").read_text())
    # the residuals are at the instruments' noise level: the model explains the motion
    for channel, rms in fit["residual_rms"].items():
        assert rms < 1.5 * fit["noise_levels"][channel], (channel, rms, fit["noise_levels"][channel])
    with open(out / "residuals.csv") as f:
        header = next(csv.reader(f))
    assert header[0] == "time" and "north_residual" in header
    assert (out / "fit.png").stat().st_size > 10_000
    params = yaml.safe_load((out / "auv_parameters.yaml").read_text())
    est = json.loads((out / "estimates.json").read_text())
    assert params["AxialDragCoeff"] == pytest.approx(est["AxialDragCoeff"]["value"])
    assert params["Length"] == 2.0     # the rest: the nominal vehicle


def test_a_user_csv_is_read_through_a_column_map(tmp_path):
    from auv_cosim.identification import LogError, read_log, vehicle_adapter

    adapter = vehicle_adapter("auv")
    t = np.arange(0, 2.01, 0.1)
    path = tmp_path / "log.csv"
    with open(path, "w") as f:
        f.write("t_s,P,dr,de,x,y,z\n")
        for k, tk in enumerate(t):
            f.write(f"{tk},{30 + k},0.1,0,{1.4 * tk},0,{10}\n")
    log = read_log(path, adapter, {"time": "t_s", "ThrustPower": "P", "RudderYaw": "dr", "RudderDive": "de",
                                   "north": "x", "east": "y", "depth": "z"}, hold="starting")
    assert log.inputs[1, 0] == 30 and log.inputs[2, 0] == 31, "held from their own row on: moved one row later"
    assert set(log.measured) == {"north", "east", "depth"}
    with pytest.raises(LogError, match="'P2'"):
        read_log(path, adapter, {"time": "t_s", "ThrustPower": "P2"})
    with pytest.raises(LogError, match="RudderYaw"):
        read_log(path, adapter, {"time": "t_s", "ThrustPower": "P"})
    r = python("-m", "auv_cosim", "identify", str(path), "--vehicle", "auv", "--fit", "NoSuchCoeff",
                "--columns", "time=t_s,ThrustPower=P,RudderYaw=dr,RudderDive=de,north=x", "--out", str(tmp_path / "o"))
    assert r.returncode == 2 and "NoSuchCoeff" in r.stderr, r.stderr
