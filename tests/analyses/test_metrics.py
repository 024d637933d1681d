"""auv_cosim.analyses.metrics: the step-response figures of the run summaries, against closed forms."""
from __future__ import annotations

import math

import numpy as np

from auv_cosim.analyses.metrics import step_response


def test_first_order_step():
    """y = 1 - exp(-t/tau): no overshoot, 10-90 % rise tau ln 9, 5 % settling tau ln 20."""
    tau, dt = 2.0, 0.001
    t = np.arange(0.0, 40.0 + dt / 2, dt)
    r = step_response(t, 10.0 + (1.0 - np.exp(-t / tau)), 10.0, 11.0, band=0.05)
    assert r["overshoot_percent"] == 0.0
    assert abs(r["rise_time_10_90_s"] - tau * math.log(9.0)) < 2 * dt
    assert abs(r["settling_time_s"] - tau * math.log(20.0)) < 2 * dt
    assert r["settling_band"] == 0.05
    assert r["steady_state_error"] < 1e-6


def test_underdamped_step_downwards():
    """A step down with 20 % overshoot; the last 10 s average out the tail."""
    t = np.linspace(0.0, 60.0, 6001)
    zeta, wn = 0.456, 1.0  # overshoot exp(-pi zeta / sqrt(1 - zeta^2)) = 0.2
    wd = wn * math.sqrt(1 - zeta ** 2)
    unit = 1 - np.exp(-zeta * wn * t) * (np.cos(wd * t) + zeta / math.sqrt(1 - zeta ** 2) * np.sin(wd * t))
    r = step_response(t, 5.0 - 2.0 * unit, 5.0, 3.0, band=0.02)
    assert abs(r["overshoot_percent"] - 20.0) < 0.1
    assert r["settling_time_s"] is not None and 6.0 < r["settling_time_s"] < 10.0


def test_never_settled_and_short_record():
    t = np.linspace(0.0, 5.0, 51)
    r = step_response(t, 0.5 * t / 5.0, 0.0, 1.0)   # reaches half the step by the end
    assert r["settling_time_s"] is None and r["rise_time_10_90_s"] is None
    # the steady-state window is the last fifth of a short record (1 s of 5), not 10 s
    tail = t >= 4.0
    assert r["steady_state_error"] == abs(np.mean(0.5 * t[tail] / 5.0) - 1.0)
