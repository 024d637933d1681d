"""The chirp signal term (a linear frequency sweep, for identification manoeuvres)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from auv_cosim.master.scenario_schema import Term
from auv_cosim.master.signals import describe, evaluate


def test_a_chirp_sweeps_from_f0_to_f1_between_start_and_stop_and_is_zero_outside():
    term = Term(chirp={"amplitude": 2.0, "start": 10.0, "stop": 110.0, "f0": 0.05, "f1": 0.5})
    t = np.arange(0.0, 120.0, 0.001)
    y = evaluate(term, t, 0.001)
    assert np.all(y[t < 10.0] == 0.0) and np.all(y[t >= 110.0] == 0.0)
    assert np.max(np.abs(y)) == pytest.approx(2.0, abs=1e-3)
    # the local frequency from the zero crossings: f0 at the start, f1 at the end, linear between
    on = (t >= 10.0) & (t < 110.0)
    crossings = t[on][1:][np.diff(np.signbit(y[on])) != 0]
    crossings = crossings[crossings > 10.0 + 1e-6]
    half_periods = np.diff(crossings)
    mid = 0.5 * (crossings[1:] + crossings[:-1])
    freq = 1.0 / (2.0 * half_periods)
    expected = 0.05 + (0.5 - 0.05) * (mid - 10.0) / 100.0
    assert np.max(np.abs(freq - expected)) < 0.01
    assert "chirp" in describe(term) and "0.05" in describe(term)


def test_a_chirp_needs_its_stop_after_its_start():
    with pytest.raises(ValueError, match="stop"):
        Term(chirp={"amplitude": 1.0, "start": 5.0, "stop": 5.0, "f0": 0.1, "f1": 0.2})
