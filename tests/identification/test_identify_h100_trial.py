"""The H100 identified from a trial nobody tuned the fit to (references/ident_trial.py: H100.fmu
flown through fmpy on per-axis wrench steps and a surge chirp, damping +30 %, added mass -20 %,
efficiency 0.85, noise 2 cm / 2 mrad / 5 mm/s / 2 mrad/s, results.csv's columns), by multiple
shooting from the nominal vehicle. Its first 60 s here (surge and sway steps), with the five
parameters they excite perturbed (the rest nominal: a parameter left out of the fit but wrong
is a model error, which the residuals' warnings name); the whole 180 s trial and all nine
parameters: benchmarks/bench_identify.py."""
from __future__ import annotations

import json

import pytest

from references.ident_trial import H100_TRUTH, make_trial
from tests.identification.trial_runs import python

FIVE = ["LinearDamping[1,1]", "QuadraticDamping[1,1]", "QuadraticDamping[2,2]", "AddedMass[1,1]",
        "ThrusterEfficiency"]


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    root = tmp_path_factory.mktemp("ident_h100_trial")
    log = make_trial("h100", root / "trial", duration=60.0, seed=2, truth={n: H100_TRUTH[n] for n in FIVE})
    out = root / "fit"
    r = python("-m", "auv_cosim", "identify", str(log), "--vehicle", "h100", "--fit", ",".join(FIVE),
               "--out", str(out))
    print(r.stdout)
    return r, out


def test_five_parameters_within_5_percent_from_the_nominal_and_their_errors_honest(fitted):
    r, out = fitted
    assert r.returncode == 0, r.stdout + r.stderr[-3000:]
    est = json.loads((out / "estimates.json").read_text())
    for name in FIVE:
        e, truth = est[name], H100_TRUTH[name]
        assert abs(e["nominal"] / truth - 1) > 0.1, "the fit starts away from the truth"
        assert e["value"] == pytest.approx(truth, rel=0.05), (name, e, truth)
        assert 0 < e["stderr"] < 0.05 * truth, (name, e)
        assert abs(e["value"] - truth) < 3.5 * e["stderr"], (name, e, truth)


def test_the_clean_fit_carries_no_warning_and_writes_its_vehicle_file(fitted):
    r, out = fitted
    fit = json.loads((out / "fit.json").read_text())
    assert fit["warnings"] == [] and fit["unusable"] == [], fit["warnings"]
    assert fit["stderr_method"].startswith("multiple shooting (6 windows of 10 s")
    for channel, rms in fit["residual_rms"].items():
        assert rms < 1.3 * fit["noise_levels"][channel], (channel, rms)
    assert "no warnings" in (out / "report.txt").read_text() and "no warnings" in r.stdout
    assert (out / "h100_fitted.yaml").is_file()


def test_a_duplicate_name_is_fitted_once_and_named(tmp_path):
    log = make_trial("h100", tmp_path / "trial", duration=30.0, seed=3,
                     truth={n: H100_TRUTH[n] for n in ("ThrusterEfficiency", "AddedMass[1,1]")})
    out = tmp_path / "fit"
    r = python("-m", "auv_cosim", "identify", str(log), "--vehicle", "h100", "--fit",
               "ThrusterEfficiency,AddedMass[1,1],ThrusterEfficiency", "--out", str(out), "--strict")
    fit = json.loads((out / "fit.json").read_text())
    assert [w["code"] for w in fit["warnings"]] == ["duplicate-fit"], fit["warnings"]
    assert "warning [duplicate-fit]: --fit names ThrusterEfficiency more than once" in r.stdout
    assert "warning [duplicate-fit]" in (out / "report.txt").read_text()
    assert r.returncode == 1 and "--strict: 1 warning(s); exit 1" in r.stdout
    assert set(json.loads((out / "estimates.json").read_text())) == {"ThrusterEfficiency", "AddedMass[1,1]"}
