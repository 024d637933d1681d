"""The H100's analytic Jacobians (state and inputs) against central finite differences."""
import numpy as np
import pytest

from auv_cosim.vehicles.environment import Environment
from auv_cosim.vehicles.h100 import H100Model, linearize
from auv_cosim.vehicles.h100.forces import (
    added_mass_coriolis_jacobian,
    added_mass_coriolis_wrench,
    damping_jacobian,
    damping_wrench,
    quadratic_damping_terms,
    rigid_body_coriolis_jacobian,
    rigid_body_coriolis_wrench,
    thruster_force,
    thruster_force_slope,
)
from auv_cosim.vehicles.waves import WaveParameters

from ..central import central
from .conftest import offset_vehicle, random_inputs, random_spd, random_state




def test_wrench_jacobians_match_central_differences(rng):
    for _ in range(20):
        nu = rng.normal(scale=0.7, size=6)
        added = random_spd(rng, 6, 3.0)
        linear = rng.normal(size=(6, 6))
        quad_abs = rng.normal(size=(6, 6, 6))
        quad = rng.normal(size=(6, 6, 6))
        mass, cog, inertia = 13.5, rng.normal(scale=0.05, size=3), random_spd(rng, 3, 0.3)
        pairs = [
            (lambda v: rigid_body_coriolis_wrench(v, mass, cog, inertia),
             rigid_body_coriolis_jacobian(nu, mass, cog, inertia)),
            (lambda v: added_mass_coriolis_wrench(added, v), added_mass_coriolis_jacobian(added, nu)),
            (lambda v: damping_wrench(linear, quadratic_damping_terms(quad_abs, quad), v), damping_jacobian(linear, quad_abs, quad, nu)),
        ]
        for wrench, analytic in pairs:
            assert analytic == pytest.approx(central(wrench, nu), rel=1e-6, abs=1e-6)
    for s in (-0.8, -0.1, 0.0, 0.3, 1.0):
        numeric = (thruster_force(s + 1e-7, 51.5, 40.2, 0.9) - thruster_force(s - 1e-7, 51.5, 40.2, 0.9)) / 2e-7
        assert thruster_force_slope(s, 51.5, 40.2, 0.9) == pytest.approx(numeric, abs=1e-5)


MODELS = {
    "default": lambda p, rng: H100Model(p),
    "current-offset-cg-full-added-mass": lambda p, rng: H100Model(
        offset_vehicle(p, rng), Environment(CurrentVelocity=(0.3, -0.2, 0.05),
                                            CurrentDepthGradient=(0.01, -0.02, 0.003))),
    "waves": lambda p, rng: H100Model(p, Environment(CurrentVelocity=(0.1, 0, 0)), WaveParameters(
        WaveMode="irregular", SignificantWaveHeight=1.5, PeakPeriod=6.0, WaveComponents=15,
        WaveSeed=1, WaveDirection=0.4)),
}


@pytest.mark.parametrize("name", list(MODELS), ids=list(MODELS))
def test_state_and_input_jacobians_match_central_differences(vehicle, name, rng):
    model = MODELS[name](vehicle.params, rng)
    for _ in range(12):
        x = random_state(rng, model.n, depth=(0.5, 20.0))
        u = random_inputs(rng, model.n)
        t = rng.uniform(0, 50)
        analytic = model.state_jacobian(x, u, t)
        numeric = central(lambda s: model.derivative(s, u, t), x)
        scale = np.maximum(1.0, np.abs(numeric))
        assert np.max(np.abs(analytic - numeric) / scale) < 1e-5
        # the analytic blocks alone: kinematics, the velocity block, the thrusters
        n = model.n
        for rows, cols in ((slice(0, 3), slice(3, 10)), (slice(3, 7), slice(3, 13)),
                           (slice(7, 13), slice(7, 13 + n)), (slice(13, 13 + n), slice(0, 13 + n))):
            assert analytic[rows, cols] == pytest.approx(numeric[rows, cols], rel=1e-5, abs=1e-6)
        analytic_b = model.input_jacobian(x, u, t)
        numeric_b = central(lambda v: model.derivative(x, v, t), u)
        assert analytic_b == pytest.approx(numeric_b, rel=1e-6, abs=1e-6)


def test_linearize_at_rest_gives_the_spec_eigenvalues(vehicle):
    """SPEC 7.3: velocity eigenvalues -2.19 (pitch), -1.03 (heave), -0.69 (surge) and three
    zeros; the thrusters' lag -1/T; roll undamped at 2 pi / 3.67 s; pitch damping ratio 0.58."""
    model = H100Model(vehicle.params)
    x, u = model.rest_state(), model.inputs()
    a, b = linearize(vehicle.params, x, u)
    assert a.shape == (21, 21) and b.shape == (21, 14)
    velocity = np.sort(np.linalg.eigvals(a[7:13, 7:13]).real)
    assert velocity == pytest.approx([-2.19, -1.03, -0.69, 0, 0, 0], abs=0.005)
    a_r, b_r = linearize(vehicle.params, x, u, reduced=True)
    assert a_r.shape == (20, 20) and b_r.shape == (20, 14)
    eig = np.linalg.eigvals(a_r)
    assert np.sum(np.isclose(eig, -10.0)) == 8                     # 1 / ThrusterTimeConstant
    roll = eig[np.argmax(eig.imag)]
    assert roll.real == pytest.approx(0.0, abs=1e-12)
    assert 2 * np.pi / roll.imag == pytest.approx(3.67, abs=0.005)
    pitch = [e for e in eig if e.imag > 0 and e.real < -0.1][0]
    assert -pitch.real / abs(pitch) == pytest.approx(0.58, abs=0.005)
    # the reduced attitude rates are the body rates
    assert a_r[3:6, 9:12] == pytest.approx(np.eye(3))
