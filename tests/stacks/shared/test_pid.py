"""The discrete PID: limits, anti-windup (conditional integration), integral band,
derivative on the measurement, heading wrap, state."""
import math

import pytest

from auv_cosim.stacks.pid import PID


def test_proportional_and_limits():
    pid = PID(2.0, out_min=-1.0, out_max=1.0)
    assert pid.update(0.25, 0.0, 0.1) == pytest.approx(0.5)
    assert pid.update(10.0, 0.0, 0.1) == 1.0
    assert pid.update(-10.0, 0.0, 0.1) == -1.0
    assert pid.saturated


def test_feed_forward_inside_the_limits():
    pid = PID(1.0, out_min=0.0, out_max=120.0)
    assert pid.update(1.5, 1.5, 0.1, ff=32.6) == pytest.approx(32.6)
    assert pid.update(1.5, 1.0, 0.1, ff=200.0) == 120.0
    assert pid.update(0.0, 1.0, 0.1, ff=0.0) == 0.0


def test_integral_accumulates_when_unsaturated():
    pid = PID(0.0, ki=0.5, out_min=-10, out_max=10)
    for _ in range(10):
        u = pid.update(1.0, 0.0, 0.1)
    assert u == pytest.approx(0.5)          # 10 * 0.5 * 1.0 * 0.1
    assert pid.integral == pytest.approx(0.5)


def test_anti_windup_holds_integrator_in_saturation_and_recovers_at_once():
    pid = PID(1.0, ki=1.0, out_min=-1.0, out_max=1.0)
    naive_integral = 0.0
    for _ in range(1000):                   # 100 s with a large positive error
        u = pid.update(5.0, 0.0, 0.1)
        naive_integral += 5.0 * 0.1
        assert u == 1.0
    assert pid.integral <= 1.0              # never more than the output range
    assert naive_integral == pytest.approx(500.0)
    # the error changes sign: the output leaves the upper limit at the very next step
    u = pid.update(0.0, 0.5, 0.1)
    assert u < 1.0
    assert u == pytest.approx(pid.integral - 0.5)


def test_anti_windup_lets_the_integrator_unwind_while_saturated():
    """Conditional integration blocks only the direction that deepens the saturation."""
    pid = PID(10.0, ki=1.0, out_min=-1.0, out_max=1.0, i_min=-5.0, i_max=5.0)
    pid.integral = 0.8
    u = pid.update(-0.2, 0.0, 0.1)          # P = -2: saturated low, integral pushes down
    assert u == -1.0 and pid.integral == pytest.approx(0.8)
    u = pid.update(0.2, 0.0, 0.1)           # saturated high, error positive: held
    assert u == 1.0 and pid.integral == pytest.approx(0.8)
    pid2 = PID(10.0, ki=1.0, out_min=-1.0, out_max=1.0)
    pid2.integral = 0.8
    pid2.update(-0.05, 0.0, 0.1)            # P=-0.5, total 0.3-0.005: not saturated: integrates
    assert pid2.integral == pytest.approx(0.8 - 0.005)


def test_integral_band():
    pid = PID(0.0, ki=1.0, out_min=-10, out_max=10, i_band=0.5)
    pid.update(2.0, 0.0, 0.1)
    assert pid.integral == 0.0
    pid.update(0.4, 0.0, 0.1)
    assert pid.integral == pytest.approx(0.04)
    with pytest.raises(ValueError):
        PID(1.0, i_band=0.0)


def test_derivative_on_measurement_no_kick_and_sign():
    pid = PID(0.0, kd=1.0)
    pid.update(0.0, 0.0, 0.1)
    assert pid.update(100.0, 0.0, 0.1) == 0.0   # reference step: no derivative kick
    u = pid.update(100.0, 0.1, 0.1)             # measurement rising at 1/s
    assert u == pytest.approx(-1.0)


def test_derivative_filter_is_a_first_order_lag():
    pid = PID(0.0, kd=1.0, tf=0.5)
    pid.update(0.0, 0.0, 0.1)
    u = pid.update(0.0, 0.1, 0.1)
    assert u == pytest.approx(-(1 - math.exp(-0.2)))


def test_heading_error_wrapped_short_way():
    """Reference 350 deg from 10 deg: turn 20 deg to port, i.e. a negative command."""
    pid = PID(1.0, wrap=True, out_min=-0.35, out_max=0.35)
    u = pid.update(math.radians(350), math.radians(10), 0.1)
    assert u == pytest.approx(math.radians(-20))
    pid = PID(1.0, wrap=True)
    assert pid.update(math.radians(-170), math.radians(170), 0.1) == pytest.approx(math.radians(20))


def test_wrapped_derivative_across_pi():
    pid = PID(0.0, kd=1.0, wrap=True)
    pid.update(0.0, math.radians(179), 0.1)
    u = pid.update(0.0, math.radians(-179), 0.1)  # +2 deg in 0.1 s, not -358 deg
    assert u == pytest.approx(-math.radians(2) / 0.1)


def test_zero_dt_does_not_advance():
    pid = PID(1.0, ki=1.0, kd=1.0)
    pid.update(1.0, 0.0, 0.1)
    s = pid.get_state()
    pid.update(5.0, 3.0, 0.0)
    assert pid.get_state() == s


def test_state_roundtrip():
    pid = PID(1.0, ki=0.3, kd=0.2, tf=0.3, out_min=-1, out_max=1)
    for k in range(5):
        pid.update(1.0, 0.1 * k, 0.1)
    s = pid.get_state()
    a = [pid.update(1.0, 0.05 * k, 0.1) for k in range(10)]
    pid.set_state(s)
    assert [pid.update(1.0, 0.05 * k, 0.1) for k in range(10)] == a


def test_inverted_limits_refused():
    with pytest.raises(ValueError):
        PID(1.0, out_min=1.0, out_max=-1.0)
