"""The named warnings of a fit (auv_cosim.identification.fit.diagnose) and the identifiability
check before it: finding 4 of a demanding user's report (a fit whose residuals were 5-12 times
the noise, a parameter at its bound, a standard error of exactly 0, duplicate --fit names, none
flagged). A fit with its residuals at the noise and every parameter away from its bounds,
determined and apart, carries none."""
from __future__ import annotations

import json

import numpy as np
import pytest

from auv_cosim.cli import main as cli
from auv_cosim.identification.fit import FitResult, diagnose, unusable
from tests.identification.test_log_checks import h100_log


def a_fit(**change) -> FitResult:
    rng = np.random.default_rng(1)
    fr = FitResult("h100", ["A", "B"], {"A": (2.0, 0.02), "B": (5.0, 0.1)}, {"A": 1.5, "B": 4.0},
                   {"A": {"B": 0.3}, "B": {"A": 0.3}}, {}, {"heave": 0.005, "r": 0.002},
                   {"heave": 0.005 * rng.standard_normal(500), "r": 0.002 * rng.standard_normal(500)},
                   {}, {}, 20, True, "converged", bounds={"A": (0.0, np.inf), "B": (0.0, np.inf)})
    for k, v in change.items():
        setattr(fr, k, v)
    return fr


def codes(fr) -> list[str]:
    return [w["code"] for w in diagnose(fr)]


def test_4_a_clean_fit_has_no_warning():
    assert diagnose(a_fit()) == []


def test_4_each_poor_fit_is_named():
    fr = a_fit(residuals={"heave": np.full(100, 0.03), "r": np.full(100, 0.002)})
    (w,) = diagnose(fr)
    assert w["code"] == "residual-above-noise" and w["message"].startswith("heave: residual RMS 0.03 is 6.0 times")
    assert codes(a_fit(bounds={"A": (0.0, 2.0), "B": (0.0, np.inf)})) == ["at-bound"]
    assert codes(a_fit(estimates={"A": (1e-9, 0.01), "B": (5.0, 0.1)})) == ["at-bound", "stderr-above-value"]
    assert codes(a_fit(estimates={"A": (2.0, 0.0), "B": (5.0, 0.1)})) == ["zero-stderr"]
    assert codes(a_fit(estimates={"A": (2.0, None), "B": (5.0, 0.1)})) == ["zero-stderr"]
    assert codes(a_fit(estimates={"A": (2.0, 3.0), "B": (5.0, 0.1)})) == ["stderr-above-value"]
    assert codes(a_fit(correlations={"A": {"B": -0.995}, "B": {"A": -0.995}})) == ["correlated"]
    assert codes(a_fit(success=False)) == ["not-converged"]
    assert unusable(diagnose(a_fit(estimates={"A": (0.0, 0.0), "B": (5.0, 0.1)}))) == ["at-bound", "zero-stderr"]
    assert unusable(diagnose(a_fit(correlations={"A": {"B": 0.99}, "B": {"A": 0.99}}))) == []


def test_4_a_parameter_the_log_does_not_move_is_refused_before_the_fit(tmp_path, capsys):
    """All commands zeroed: the efficiency has no effect (its standard error was exactly 0)."""
    def no_commands(lines):
        header = lines[0].split(",")
        for i in range(1, len(lines)):
            cells = lines[i].split(",")
            for j, h in enumerate(header):
                if "ThrusterCommand" in h:
                    cells[j] = "0"
            lines[i] = ",".join(cells)
    log = h100_log(tmp_path / "log.csv", rows=200, edit=no_commands)
    assert cli(["identify", str(log), "--vehicle", "h100", "--fit", "ThrusterEfficiency,QuadraticDamping[1,1]",
                "--out", str(tmp_path / "fit")]) == 2
    err = capsys.readouterr().err
    assert "the log does not move ThrusterEfficiency (its sensitivity is 0" in err, err
    assert "QuadraticDamping" not in err.split("does not move")[1]
