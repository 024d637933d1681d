"""The H100 run figures on made-up runs whose answers are known."""
import math

import numpy as np
import pytest

from auv_cosim.vehicles.h100.host import stack_figures as figures


def test_station_keeping_rms_and_max_of_a_known_error():
    t = np.arange(0.0, 100.0, 0.1)
    ref = np.tile([1.0, 2.0, 5.0], (len(t), 1))
    pos = ref + np.column_stack([0.1 * np.sin(t), np.zeros_like(t), np.zeros_like(t)])
    out = figures.station_keeping(t, pos, ref, np.zeros_like(t), np.zeros_like(t))
    assert out["position_rms_m"] == pytest.approx(0.1 / math.sqrt(2), rel=1e-2)
    assert out["position_max_m"] == pytest.approx(0.1, rel=1e-3)


def test_settling_time():
    t = np.arange(0.0, 10.0, 0.1)
    e = np.where(t < 3.05, 1.0, 0.01)
    assert figures.settling_time(t, e, 0.05) == pytest.approx(3.1)
    assert figures.settling_time(t, np.zeros_like(t), 0.05) == 0.0
    assert figures.settling_time(t, np.ones_like(t), 0.05) is None


def test_cross_track_error_from_the_legs():
    t = np.arange(0.0, 45.0, 0.1)
    pos = np.column_stack([t * 0.2, np.full_like(t, 0.3), np.full_like(t, 5.0)])   # 0.3 m off the first leg
    out = figures.tracking(t, pos, pos, np.zeros_like(t), np.zeros_like(t), [(0, 0, 5), (10, 0, 5), (10, 10, 5)], skip=0.0)
    assert out["mean_cross_track_error_m"] == pytest.approx(0.3, abs=1e-9)


def test_manoeuvre_yaw_lag_and_lateral_drift():
    t = np.arange(0.0, 120.0, 0.1)
    ref_heading = 0.3 * np.sin(2 * np.pi * t / 30.0)
    heading = 0.3 * np.sin(2 * np.pi * (t - 1.5) / 30.0)          # 1.5 s late
    ref = np.column_stack([np.zeros_like(t), np.zeros_like(t), np.full_like(t, 5.0)])
    pos = ref + np.column_stack([np.zeros_like(t), np.full_like(t, 0.2), np.zeros_like(t)])
    out = figures.manoeuvre(t, pos, ref, heading, ref_heading)
    assert out["yaw_lag_s"] == pytest.approx(1.5, abs=0.11)
    assert out["lateral_drift_max_m"] == pytest.approx(0.2, abs=0.02)


def test_effort_and_momentum_theory_energy():
    t = np.arange(0.0, 10.0 + 1e-9, 0.1)
    thrust = np.tile([10.0, -10.0], (len(t), 1))
    out = figures.effort(t, thrust)
    assert out["thrust_effort_N_s"] == pytest.approx(200.0)
    area = math.pi * 0.076 ** 2 / 4
    assert out["propulsive_energy_J"] == pytest.approx(2 * 10 ** 1.5 / math.sqrt(2000 * area) * 10, rel=1e-5)


def test_stack_figures_from_the_run_columns_by_name():
    t = np.arange(0.0, 20.0 + 1e-9, 0.1)
    columns = {"time": t, "vehicle.Euler[3]": np.zeros_like(t), "control.RefHeading": np.zeros_like(t),
               "vehicle.Thrust[1]": np.full_like(t, 2.0), "vehicle.Thrust[2]": np.full_like(t, -2.0)}
    for i, offset in zip((1, 2, 3), (0.3, 0.0, 0.0)):
        columns[f"control.RefPosition[{i}]"] = np.full_like(t, 5.0)
        columns[f"vehicle.Pos[{i}]"] = np.full_like(t, 5.0) + np.where(t < 4.0, offset, 0.0)
    out = figures.stack_figures(columns.get)
    assert out["position_max_m"] == pytest.approx(0.3)
    assert out["settling_time_s"] == pytest.approx(4.0)          # back inside 0.1 m from t = 4 s
    assert out["thrust_effort_N_s"] == pytest.approx(80.0)       # 2 thrusters x 2 N x 20 s
    assert "tracking" not in out and "manoeuvre" not in out
    assert figures.stack_figures(columns.get, mode="sway")["manoeuvre"]["lateral_drift_max_m"] == pytest.approx(0.0)
    assert figures.stack_figures({k: v for k, v in columns.items() if k != "control.RefHeading"}.get) == {}


def test_saturated_time_counts_the_steps_whose_rows_report_a_saturated_thruster():
    from auv_cosim.vehicles.h100.host.figures import saturated_time

    t = np.array([0.0, 0.1, 0.2, 0.3, 0.5, 0.6])
    # the steps ending at 0.1 (2 at a limit), 0.3 and 0.5 (the longer step, 0.2 s) count; the first
    # row (the initial state) ends no step
    assert saturated_time(t, np.array([3, 2, 0, 1, 1, 0])) == pytest.approx(0.1 + 0.1 + 0.2)
    assert saturated_time(t, np.zeros(6, dtype=int)) == 0.0
    assert saturated_time(t[:1], np.array([4])) == 0.0
