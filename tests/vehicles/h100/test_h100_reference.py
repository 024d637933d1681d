"""The library's derivative against the independent transcription of SPEC 7.2 / 8
(tests/vehicles/h100/reference_h100.py: Fossen's matrix form, SciPy's Rotation)."""
import numpy as np
import pytest

from auv_cosim.vehicles.environment import Environment
from auv_cosim.vehicles.h100 import H100Model
from auv_cosim.vehicles.waves import WaveParameters, wave_components

from .conftest import offset_vehicle, random_inputs, random_state
from .reference_h100 import ReferenceH100

CASES = {
    "still": dict(current=(0, 0, 0), gradient=(0, 0, 0), waves=None),
    "sheared-current": dict(current=(0.3, -0.2, 0.05), gradient=(0.01, -0.02, 0.003), waves=None),
    "regular-waves": dict(current=(0.1, 0.0, 0.0), gradient=(0, 0, 0),
                          waves=WaveParameters(WaveMode="regular", WaveAmplitude=0.6, WavePeriod=5.0,
                                               WaveDirection=0.7)),
    "irregular-waves": dict(current=(0, 0.2, 0), gradient=(0, 0.01, 0),
                            waves=WaveParameters(WaveMode="irregular", SignificantWaveHeight=2.0,
                                                 PeakPeriod=7.0, WaveComponents=20, WaveSeed=3,
                                                 WaveDirection=-2.0)),
}


@pytest.mark.parametrize("general", [False, True], ids=["default-body", "offset-cg-full-added-mass"])
@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_derivative_matches_an_independent_transcription(vehicle, case, general, rng):
    params = offset_vehicle(vehicle.params, rng) if general else vehicle.params
    spec = CASES[case]
    env = Environment(CurrentVelocity=spec["current"], CurrentDepthGradient=spec["gradient"], Gravity=9.82)
    model = H100Model(params, env, spec["waves"])
    rows = () if spec["waves"] is None else wave_components(spec["waves"], 9.82)
    direction = 0.0 if spec["waves"] is None else spec["waves"].WaveDirection
    reference = ReferenceH100(params, spec["current"], spec["gradient"], rows, direction)
    for _ in range(60):
        x = random_state(rng, model.n)
        u = random_inputs(rng, model.n)
        t = rng.uniform(0, 100)
        expected = reference.derivative(t, x, u)
        assert model.derivative(x, u, t) == pytest.approx(expected, rel=1e-9, abs=1e-9)
        # off the unit sphere: R uses q/|q|, the quaternion rows carry the norm-restoring term
        x[3:7] *= rng.uniform(0.97, 1.03)
        assert model.derivative(x, u, t) == pytest.approx(reference.derivative(t, x, u), rel=1e-9, abs=1e-9)
