"""Angle wrapping and the exactly discretised first-order lags."""
import math

import numpy as np
import pytest

from auv_cosim.stacks.angles import angle_diff, wrap_pi
from auv_cosim.stacks.filters import AngleLag, FirstOrderLag, lag_coefficient


@pytest.mark.parametrize("a, expected", [
    (0.0, 0.0), (math.pi, math.pi), (-math.pi, math.pi), (3 * math.pi, math.pi),
    (-3 * math.pi, math.pi), (2 * math.pi, 0.0), (math.radians(350), math.radians(-10)),
    (math.radians(-190), math.radians(170)), (1.0, 1.0), (-1.0, -1.0),
])
def test_wrap_pi_half_open_interval(a, expected):
    assert wrap_pi(a) == pytest.approx(expected, abs=1e-12)


def test_wrap_pi_range_and_identity_inside():
    rng = np.random.default_rng(0)
    for a in rng.uniform(-50, 50, 2000):
        w = wrap_pi(a)
        assert -math.pi < w <= math.pi
        assert math.isclose(math.cos(w), math.cos(a), abs_tol=1e-9)
        assert math.isclose(math.sin(w), math.sin(a), abs_tol=1e-9)
    for a in rng.uniform(-3.14, 3.14, 200):   # already wrapped: returned bit for bit
        assert wrap_pi(a) == a


def test_angle_diff_short_way():
    assert angle_diff(math.radians(350), math.radians(10)) == pytest.approx(math.radians(-20))
    assert angle_diff(math.radians(10), math.radians(350)) == pytest.approx(math.radians(20))


def test_lag_exact_step_response():
    tau, dt = 0.7, 0.1
    f = FirstOrderLag(tau)
    f.update(0.0, dt)                       # initialises at 0
    for k in range(1, 50):
        y = f.update(1.0, dt)
        assert y == pytest.approx(1.0 - math.exp(-k * dt / tau), rel=1e-12, abs=1e-15)


def test_lag_is_exact_for_any_step_split():
    """Exact discretisation: two half steps with the input held equal one full step."""
    a, b = FirstOrderLag(0.5), FirstOrderLag(0.5)
    a.update(0.0, 0.1), b.update(0.0, 0.1)
    a.update(2.0, 0.2)
    b.update(2.0, 0.1), b.update(2.0, 0.1)
    assert a.y == pytest.approx(b.y, rel=1e-14)
    assert lag_coefficient(0.1, 0.5) == math.exp(-0.2)


def test_zero_lag_is_pass_through_bit_for_bit():
    f, g = FirstOrderLag(0.0), AngleLag(0.0)
    rng = np.random.default_rng(1)
    for x in rng.normal(size=100) * 1e3:
        assert f.update(x, 0.1) == x
    for x in rng.uniform(-math.pi, math.pi, 100):
        assert g.update(x, 0.1) == x


def test_angle_lag_takes_the_short_way_across_pi():
    f = AngleLag(1.0)
    f.update(math.radians(170), 0.1)
    seen = []
    for _ in range(200):
        y = f.update(math.radians(-170), 0.1)
        assert -math.pi < y <= math.pi
        seen.append(y)
    # it went through +-180 deg, never through 0
    assert min(abs(v) for v in seen) > math.radians(160)
    assert seen[-1] == pytest.approx(math.radians(-170), abs=1e-6)


def test_lag_state_roundtrip():
    f = FirstOrderLag(0.3)
    f.update(1.0, 0.1); f.update(2.0, 0.1)
    s = f.get_state()
    a = [f.update(3.0, 0.1) for _ in range(3)]
    f.set_state(s)
    assert [f.update(3.0, 0.1) for _ in range(3)] == a
