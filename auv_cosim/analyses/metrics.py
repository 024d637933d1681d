"""Figures of recorded responses, shared by the run summaries and the tests (plain numpy, no
FMI, nothing of the master): one definition of each figure, so that a summary and a test
that check "the same" overshoot or settling time check the same thing."""

from __future__ import annotations

import numpy as np


def step_response(t: np.ndarray, y: np.ndarray, y0: float, y1: float, band: float = 0.05,
                  tail_s: float = 10.0, tail_fraction: float = 0.2) -> dict:
    """Figures of a step response from ``y0`` to ``y1``; ``t`` is the time since the step
    (the samples from the step on), ``y`` the response.

    - ``overshoot_percent``: the largest excursion beyond ``y1``, in percent of |y1 - y0|
      (0 if none);
    - ``rise_time_10_90_s``: from the first sample at 10 % of the step to the first at 90 %
      (None if either is never reached);
    - ``settling_time_s``: the first instant from which the response stays within
      ``band`` |y1 - y0| of ``y1`` (0 if always inside, None if it is outside at the end);
    - ``settling_band``: that band, in the units of ``y``;
    - ``steady_state_error``: |mean(y) - y1| over the last ``tail_s`` seconds, or the last
      ``tail_fraction`` of the record when that is shorter (a short record after the step is
      not all steady state).
    """
    size = y1 - y0
    sgn = 1.0 if size > 0 else -1.0
    progress = (y - y0) / size  # 0 before, 1 at the new value
    overshoot = max(0.0, float(np.max(sgn * (y - y1)))) / abs(size) * 100.0

    def first(cond):
        i = np.nonzero(cond)[0]
        return float(t[i[0]]) if len(i) else None

    t10, t90 = first(progress >= 0.1), first(progress >= 0.9)
    width = band * abs(size)
    outside = np.nonzero(np.abs(y - y1) > width)[0]
    if len(outside) == 0:
        settling = 0.0
    elif outside[-1] == len(y) - 1:
        settling = None  # never settled
    else:
        settling = float(t[outside[-1] + 1])
    tail = t >= t[-1] - min(tail_s, tail_fraction * t[-1])
    steady = float(abs(np.mean(y[tail]) - y1))
    return {"overshoot_percent": overshoot,
            "rise_time_10_90_s": (t90 - t10) if (t10 is not None and t90 is not None) else None,
            "settling_time_s": settling, "settling_band": width, "steady_state_error": steady}
