"""Figures of recorded responses, shared by the run summaries and the tests (plain numpy, no
FMI; of the master only the window of last samples a stream keeps): one definition of each figure, so that a summary and a test
that check "the same" overshoot or settling time check the same thing."""

from __future__ import annotations

import numpy as np

from auv_cosim.master import Window


class StepResponse:
    """The figures of ``step_response``, made as the samples come (``add(t, y)`` with each
    block, in order; ``result()``): the extrema, first crossings and the last excursion outside
    the band are brought up to date block by block, and only the last ``tail_s`` seconds of
    samples are kept for the steady-state mean. The figures are the same, bit for bit, whether
    the samples come in one block or in many."""

    def __init__(self, y0: float, y1: float, band: float = 0.05, tail_s: float = 10.0, tail_fraction: float = 0.2):
        self.y0, self.y1 = y0, y1
        self.size = y1 - y0
        self.sgn = 1.0 if self.size > 0 else -1.0
        self.width = band * abs(self.size)
        self.tail_s, self.tail_fraction = tail_s, tail_fraction
        self.count = 0
        self.beyond = None       # the largest sgn (y - y1) so far (NaN once a NaN came)
        self.t10 = self.t90 = None
        self.ever_outside = False
        self.settled_at = None   # the time of the sample after the last one outside the band
        self.tail = Window(tail_s)

    def add(self, t: np.ndarray, y: np.ndarray) -> None:
        if not len(t):
            return
        self.count += len(t)
        beyond = np.max(self.sgn * (y - self.y1))
        self.beyond = beyond if self.beyond is None else np.maximum(self.beyond, beyond)
        progress = (y - self.y0) / self.size  # 0 before, 1 at the new value
        if self.t10 is None:
            self.t10 = _first(t, progress >= 0.1)
        if self.t90 is None:
            self.t90 = _first(t, progress >= 0.9)
        outside = np.nonzero(np.abs(y - self.y1) > self.width)[0]
        if len(outside):
            self.ever_outside = True
            self.settled_at = None if outside[-1] == len(y) - 1 else float(t[outside[-1] + 1])
        elif self.ever_outside and self.settled_at is None:
            self.settled_at = float(t[0])
        self.tail.add(t, y)

    def result(self) -> dict:
        overshoot = max(0.0, float(self.beyond)) / abs(self.size) * 100.0
        if not self.ever_outside:
            settling = 0.0
        else:
            settling = self.settled_at  # None: never settled
        t, y = self.tail.arrays()
        tail = t >= t[-1] - min(self.tail_s, self.tail_fraction * t[-1])
        steady = float(abs(np.mean(y[tail]) - self.y1))
        t10, t90 = self.t10, self.t90
        return {"overshoot_percent": overshoot,
                "rise_time_10_90_s": (t90 - t10) if (t10 is not None and t90 is not None) else None,
                "settling_time_s": settling, "settling_band": self.width, "steady_state_error": steady}


def _first(t: np.ndarray, cond: np.ndarray):
    i = np.nonzero(cond)[0]
    return float(t[i[0]]) if len(i) else None


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

    The samples given whole through ``StepResponse`` (which a run's summary feeds block by
    block).
    """
    r = StepResponse(y0, y1, band, tail_s, tail_fraction)
    r.add(np.asarray(t), np.asarray(y))
    return r.result()


class SeabedContacts:
    """Each time a vehicle touched the seabed, as the rows stream past: where its Boolean output
    ``SeabedContact`` rises, the time and the place (north, east, depth, m; latitude and
    longitude, degrees WGS 84, where the run records them). The same list whether the rows come
    in one block or in many."""

    PLACE = (("north_m", "Pos[1]", 6), ("east_m", "Pos[2]", 6), ("depth_m", "Pos[3]", 6),
             ("latitude_deg", "Latitude", 10), ("longitude_deg", "Longitude", 10))

    def __init__(self, colmap: dict[str, int], vehicle: str):
        self.flag = colmap.get(f"{vehicle}.SeabedContact")
        self.place = [(key, colmap.get(f"{vehicle}.{name}"), digits) for key, name, digits in self.PLACE]
        self.touching = False
        self.contacts: list[dict] = []

    def rows(self, block: np.ndarray) -> None:
        if self.flag is None or not len(block):
            return
        flag = block[:, self.flag] > 0.5
        rising = flag & ~np.concatenate([[self.touching], flag[:-1]])
        for i in np.flatnonzero(rising):
            contact = {"time_s": float(f"{block[i, 0]:.6g}")}
            contact.update({key: float(f"{block[i, col]:.{digits}g}") for key, col, digits in self.place
                            if col is not None and np.isfinite(block[i, col])})
            self.contacts.append(contact)
        self.touching = bool(flag[-1])

    def result(self) -> dict:
        """{"seabed_contacts": [...]} for a vehicle with the output, else nothing."""
        return {} if self.flag is None else {"seabed_contacts": self.contacts}
