"""Identification of the H100 (identification/, the H100 library of SPEC 7).

The trial here is made with the H100 library (identification/trials.py: the true parameters,
open loop over a per-axis excitation, seeded instrument noise), not yet by the master through
H100.fmu. The open-loop H100 is unstable at speed, so the fit predicts over 5 s windows, each
started from the (smoothed) measured state."""
from __future__ import annotations

import numpy as np
import pytest

from identification import excitation, identify, library_trial, rms_position_error, vehicle_adapter
from identification.trials import H100_NOISE

FIT = ["QuadraticDamping[1,1]", "AddedMass[3,3]", "ThrusterEfficiency"]


@pytest.fixture(scope="module")
def fitted():
    adapter = vehicle_adapter("h100")
    nominal = adapter.nominal()
    truth = dict(nominal)
    truth["QuadraticDamping[1,1]"] *= 1.3      # damping +30 %
    truth["AddedMass[3,3]"] *= 0.8             # added mass -20 %
    truth["ThrusterEfficiency"] = 0.85
    t = np.round(np.arange(0.0, 72.01, 0.1), 10)
    noise = dict(H100_NOISE, north=0.0, east=0.0)   # the true position: compared, not fitted
    log, _ = library_trial(adapter, truth, t, excitation(adapter, t), noise, seed=3)
    fr = identify(log, adapter, FIT)
    # a held-out manoeuvre: other levels, other order, other noise
    segments = [(2, 10, (0, 0, -15, 0, 0, 0)), (12, 22, (25, 0, 0, 0, 0, 0)), (25, 33, (0, 0, 20, 0, 0, 0)),
                (36, 44, (-15, 0, 0, 0, 0, 0))]
    th = np.round(np.arange(0.0, 46.01, 0.1), 10)
    check, _ = library_trial(adapter, truth, th, excitation(adapter, th, segments), noise, seed=4)
    return adapter, truth, nominal, fr, check


def test_damping_added_mass_and_thruster_efficiency_are_recovered_within_5_percent(fitted):
    adapter, truth, nominal, fr, _ = fitted
    print(fr.report)
    for name in FIT:
        value, stderr = fr.estimates[name]
        assert value == pytest.approx(truth[name], rel=0.05), (name, value, truth[name])
        assert abs(nominal[name] / truth[name] - 1) > 0.1, "the fit starts away from the truth"
        assert stderr is not None and stderr < 0.05 * truth[name]


def test_the_fitted_model_predicts_a_held_out_manoeuvre_better(fitted):
    adapter, truth, nominal, fr, check = fitted
    e_nom = rms_position_error(adapter, check, adapter.simulate(nominal, check, {}))
    e_fit = rms_position_error(adapter, check, adapter.simulate(fr.values, check, {}))
    print(f"held-out RMS position error (5 s windows): nominal {e_nom:.4f} m, fitted {e_fit:.4f} m")
    assert e_fit < 0.5 * e_nom


def test_the_fitted_vehicle_file_loads_with_the_fitted_values(fitted, tmp_path):
    from vehicle_model.h100 import load_vehicle

    adapter, truth, nominal, fr, _ = fitted
    path = adapter.write_vehicle_file(fr.values, tmp_path / "h100_fitted.yaml", note="test")
    vehicle = load_vehicle(str(path))
    assert vehicle.params.ThrusterEfficiency == pytest.approx(fr.estimates["ThrusterEfficiency"][0])
    assert vehicle.params.matrix("AddedMass")[2, 2] == pytest.approx(fr.estimates["AddedMass[3,3]"][0])
    assert vehicle.params.matrix("QuadraticDamping")[0, 0] == pytest.approx(fr.estimates["QuadraticDamping[1,1]"][0])
    assert vehicle.params.ThrusterPos == adapter.vehicle.params.ThrusterPos
    assert vehicle.params.Mass == adapter.vehicle.params.Mass
