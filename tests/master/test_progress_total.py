"""The progress bar's total is the mission's expected end where the run stops on a condition
(the survey ends at about 2037 s of its 2700 s safety net: the bar stood at 75 % at its end), and
the stop time where nothing better is known."""
from __future__ import annotations


import numpy as np
import pytest

from auv_cosim.master.engine import ProgressBar, _progress_bar, expected_end
from auv_cosim.master.plan import build_plan
from auv_cosim.master.scenario import find_scenario, load_scenario



def plan_of(name: str):
    return build_plan(load_scenario(str(find_scenario(name))))


def test_the_survey_s_expected_end_is_its_path_at_its_cruise_speed():
    plan = plan_of("survey")
    # from Pos0 (-20, 0) to the first waypoint, 5 lines of 500 m and 4 legs of 50 m, at 1.4 m/s
    assert expected_end(plan) == pytest.approx((20.0 + 5 * 500.0 + 4 * 50.0) / 1.4)
    bar = _progress_bar(plan)
    assert bar is not None and bar.total == pytest.approx(1942.857142857, abs=1e-6)
    bar.close()
    assert expected_end(plan_of("convoy")) == pytest.approx(300.0, rel=0.05)   # flown in 292.8 s


def test_without_a_stop_condition_the_bar_runs_to_the_stop_time():
    plan = plan_of("depth_step")
    assert expected_end(plan) is None
    bar = _progress_bar(plan)
    assert bar.total == plan.stop_time - plan.start_time
    bar.close()


def test_a_run_that_outlasts_its_expected_end_grows_the_total_up_to_the_safety_net():
    plan = plan_of("survey")
    progress = ProgressBar(plan)
    progress.rows(np.array([[0.0]]))
    progress.rows(np.array([[2036.9]]))
    assert progress.bar.total == pytest.approx(1.1 * 2036.9)
    progress.rows(np.array([[2690.0]]))
    assert progress.bar.total == 2700.0
    progress.close()
