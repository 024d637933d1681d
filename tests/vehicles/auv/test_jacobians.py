"""The analytic Jacobians against central finite differences."""

import numpy as np
import pytest

from auv_cosim.vehicles.auv import AuvParameters, AuvModel, initial_state
from auv_cosim.vehicles import Environment
from auv_cosim.vehicles.auv.forces import (
    DIVE_PLANE,
    YAW_PLANE,
    coriolis_jacobian,
    coriolis_wrench,
    cross_flow_strip_jacobian,
    cross_flow_strip_wrench,
    rudder_wrench,
    rudder_wrench_jacobian,
    slender_body_lift_jacobian,
    slender_body_lift_wrench,
)

from ..central import central

P = AuvParameters()
ENVIRONMENTS = [
    Environment(),
    Environment(CurrentVelocity=(0.2, -0.3, 0.05), CurrentDepthGradient=(0.01, 0.005, 0.0)),
]


def _random_state(rng, speed_sign=1.0):
    q = rng.normal(size=4)
    return initial_state(
        Pos0=(rng.normal(scale=50), rng.normal(scale=50), rng.uniform(2.0, 50.0)),
        Quater0=q,
        LocalVel0=(speed_sign * rng.uniform(0.5, 2.0), rng.normal(scale=0.3), rng.normal(scale=0.3)),
        Omega0=rng.normal(scale=0.3, size=3),
        Battery0=rng.uniform(1e3, 1e6),
    )


def _inputs(rng, power, yaw, dive):
    return np.array([power, yaw, dive, *rng.normal(scale=5.0, size=3)])


CASES = [
    # (power, rudder yaw, rudder dive, direction): inside and outside the clamp and the stop
    (30.0, 0.1, -0.2, 1.0),
    (-10.0, 0.5, -0.6, 1.0),      # power below the clamp, both fins beyond the stop
    (200.0, -0.3, 0.34, 1.0),     # power above the clamp
    (60.0, 0.2, 0.1, -1.0),       # going astern
]


@pytest.mark.parametrize("env", ENVIRONMENTS, ids=["still", "sheared-current"])
@pytest.mark.parametrize("case", CASES, ids=["nominal", "below-clamp", "above-clamp", "astern"])
def test_state_jacobian_matches_central_differences(env, case, rng):
    model = AuvModel(P, env)
    power, yaw, dive, sign = case
    for _ in range(5):
        x = _random_state(rng, sign)
        u = _inputs(rng, power, yaw, dive)
        analytic = model.state_jacobian(x, u)
        numeric = central(lambda s: model.derivative(s, u), x)
        numeric[:, 13] = 0.0     # the battery enters only through an on/off switch
        scale = np.maximum(1.0, np.abs(numeric))
        assert np.max(np.abs(analytic - numeric) / scale) < 2e-6
        # the analytic blocks of seed 000 (velocity block, kinematics) on their own
        blocks = (slice(7, 13), slice(7, 13)), (slice(0, 3), slice(3, 10)), (slice(3, 7), slice(3, 13))
        for rows, cols in blocks:
            assert np.allclose(analytic[rows, cols], numeric[rows, cols], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("env", ENVIRONMENTS, ids=["still", "sheared-current"])
@pytest.mark.parametrize("case", CASES, ids=["nominal", "below-clamp", "above-clamp", "astern"])
def test_input_jacobian_matches_central_differences(env, case, rng):
    model = AuvModel(P, env)
    power, yaw, dive, sign = case
    for _ in range(5):
        x = _random_state(rng, sign)
        u = _inputs(rng, power, yaw, dive)
        analytic = model.input_jacobian(x, u)
        numeric = central(lambda v: model.derivative(x, v), u)
        assert np.allclose(analytic, numeric, rtol=1e-5, atol=1e-6)


def test_power_column_is_zero_while_the_battery_is_flat(rng):
    model = AuvModel(P, Environment())
    x = _random_state(rng)
    x[13] = 0.0
    assert np.all(model.input_jacobian(x, np.array([30.0, 0, 0, 0, 0, 0]))[:, 0] == 0.0)


def _velocity_case(rng):
    return rng.normal(scale=[1.0, 0.3, 0.3]) + np.array([1.0, 0, 0]), rng.normal(scale=0.3, size=3)


def test_rudder_wrench_jacobian_matches_finite_differences(rng):
    args = (P.Rho, P.RudderArea, P.RudderAspectRatio, np.array(P.RudderPos), P.RudderClMax,
            P.RudderAoaMax, P.RudderCd0, P.RudderOswald, P.MaxRudderAngle)
    for plane in (YAW_PLANE, DIVE_PLANE):
        for delta in (0.0, 0.2, -0.34, 0.5, -1.0):
            for _ in range(5):
                v, w = _velocity_case(rng)
                jac, d_delta = rudder_wrench_jacobian(plane, v, w, delta, *args)
                f = lambda nu: rudder_wrench(plane, nu[:3], nu[3:], delta, *args)
                assert np.allclose(jac, central(f, np.concatenate([v, w])), rtol=1e-5, atol=1e-7)
                g = lambda d: rudder_wrench(plane, v, w, d[0], *args)
                assert np.allclose(d_delta, central(g, [delta])[:, 0], rtol=1e-5, atol=1e-7)


def test_hull_wrench_jacobians_match_finite_differences(rng):
    sections = (np.array(P.section_x), np.array(P.section_diameter), np.array(P.section_length))
    for _ in range(10):
        v, w = _velocity_case(rng)
        nu = np.concatenate([v, w])
        f = lambda n: cross_flow_strip_wrench(n[:3], n[3:], P.Rho, 1.1, *sections)
        assert np.allclose(cross_flow_strip_jacobian(v, w, P.Rho, 1.1, *sections), central(f, nu),
                           rtol=1e-5, atol=1e-7)
        lift_args = (P.Rho, -1.0, 0.0314, 1.0, 0.02)
        f = lambda n: slender_body_lift_wrench(n[:3], n[3:], *lift_args)
        assert np.allclose(slender_body_lift_jacobian(v, w, *lift_args), central(f, nu),
                           rtol=1e-5, atol=1e-7)
        mass_args = (64.0, np.array([0.3, 21.5, 21.5]), np.array([3.2, 58, 58.]), np.array([0.1, 19, 19.]))
        f = lambda n: coriolis_wrench(n[:3], n[3:], *mass_args)
        assert np.allclose(coriolis_jacobian(v, w, *mass_args), central(f, nu), rtol=1e-5, atol=1e-7)


SEAS = {
    "regular": dict(WaveMode="regular", WaveAmplitude=1.0, WavePeriod=6.0, WaveDirection=0.4),
    "irregular": dict(WaveMode="irregular", SignificantWaveHeight=2.0, PeakPeriod=8.0, WaveComponents=20,
                      WaveSeed=3, WaveDirection=-1.0),
}


@pytest.mark.parametrize("sea", SEAS, ids=list(SEAS))
@pytest.mark.parametrize("case", CASES[:1] + CASES[3:], ids=["nominal", "astern"])
def test_jacobians_in_waves_match_central_differences_of_the_derivative_in_waves(sea, case, rng):
    """With waves the water velocity (in v_r and in -omega x v_w) and the waves' acceleration
    depend on time, position and attitude: the Jacobians at a time t are those of the
    derivative at t in waves (what SciPy integrates), not of still water."""
    from auv_cosim.vehicles.waves import WaveParameters

    env = ENVIRONMENTS[1]
    model = AuvModel(P, env, WaveParameters(**SEAS[sea]))
    still = AuvModel(P, env)
    power, yaw, dive, sign = case
    for _ in range(4):
        x = _random_state(rng, sign)
        x[2] = rng.uniform(1.0, 8.0)             # near the surface, where the waves are strong
        u = _inputs(rng, power, yaw, dive)
        t = rng.uniform(0.0, 100.0)
        analytic = model.state_jacobian(x, u, t)
        numeric = central(lambda s: model.derivative(s, u, t), x)
        numeric[:, 13] = 0.0
        scale = np.maximum(1.0, np.abs(numeric))
        assert np.max(np.abs(analytic - numeric) / scale) < 2e-6
        assert np.allclose(model.input_jacobian(x, u, t), central(lambda v: model.derivative(x, v, t), u),
                           rtol=1e-5, atol=1e-6)
        # the waves matter here: the still-water Jacobian is off
        assert np.max(np.abs(still.state_jacobian(x, u) - numeric) / scale) > 1e-3
    # without a time, the still-water pair, whatever the sea
    assert np.array_equal(model.state_jacobian(x, u), still.state_jacobian(x, u))
    assert np.array_equal(model.derivative(x, u), still.derivative(x, u))
