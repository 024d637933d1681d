"""Real-time pacing of a run (``run --realtime FACTOR``).

The loop asks the pacer before it makes the step from each communication point ``t``
(``every = 1``) and once more at the end. The pacer holds the loop until the wall clock has
reached the point's due time

    due(t) = wall_0 + (t - t_0) / FACTOR

where ``wall_0`` is the wall clock at the first point ``t_0``. Every due time is reckoned from
that one origin, never from the previous step: a step that runs late makes the next step start
late only if it is still late then, and the steps after a late one catch up (run without
waiting) until they are on time again. Lateness does not accumulate: it is bounded by the
slowest stretch of steps, not by their number.

The lateness of a point is how long after its due time the loop was let go (after the sleep,
so the clock's and the scheduler's overshoot count too); it is never negative: the pacer never
lets the loop run early. An **overrun** is a point let go later than the paced length of the
step before it (``(t_k - t_k-1) / FACTOR``): that step did not fit into its slot of wall time.

``summary()`` gives what summary.json keeps under ``realtime``.

A factor is refused before the run (``check``, a ScenarioError naming ``--realtime``) when
it is not a finite number above 0, or when the wait of one step (``step / FACTOR``) is longer
than the operating system's timers can wait (``threading.TIMEOUT_MAX``, some 292 years on
Linux): such a wait cannot be slept, and the run would fail at its first step.

Ctrl-C and SIGTERM end the wait at once: the loop gives the pacer its interrupt
(``wake_on``), whose ``wait`` returns when a signal comes (``time.sleep`` would sleep on
after the handler); the loop then stops as an unpaced run does.
"""

from __future__ import annotations

import math
import threading
import time

import numpy as np


class RealTimePacer:
    """Paces the loop at ``factor`` times the wall clock (1: real time, 10: ten times faster).

    ``clock`` and ``sleep`` are the wall clock (seconds, monotonic) and the way to wait; tests
    give a fake pair. ``sleep`` may return early; a sleep that returns True ends the wait
    (an interrupt's ``wait``, see ``wake_on``)."""

    every = 1

    def __init__(self, factor: float, clock=time.monotonic, sleep=time.sleep):
        if not (isinstance(factor, (int, float)) and math.isfinite(factor) and factor > 0
                and math.isfinite(1.0 / factor)):
            raise ValueError(f"the real-time factor must be a finite number above 0 (got {factor!r})")
        self.factor = float(factor)
        self.clock, self.sleep = clock, sleep
        self.t0: float | None = None
        self.wall0 = 0.0
        self.last_wall = 0.0
        self.last_t = 0.0
        self._lateness: list[float] = []
        self._overruns = 0

    def check(self, plan) -> None:
        """Refuse (ScenarioError naming ``--realtime``) a factor whose wait for one step of
        ``plan`` cannot be slept, before anything runs."""
        from ..master.scenario import ScenarioError

        wait = plan.step / self.factor
        whole = (plan.stop_time - plan.start_time) / self.factor
        if not (math.isfinite(wait) and math.isfinite(whole)) or wait > threading.TIMEOUT_MAX:
            raise ScenarioError("--realtime", f"{self.factor:g}",
                                f"a step of {plan.step:g} s would wait {wait:.3g} s of wall time, longer than a "
                                f"timer can wait ({threading.TIMEOUT_MAX:.3g} s): give a factor of at least "
                                f"{plan.step / threading.TIMEOUT_MAX:.3g}")

    def wake_on(self, interrupt) -> None:
        """Wait on ``interrupt.wait`` (it returns True when Ctrl-C or SIGTERM came): the loop
        calls this before its first step."""
        wait = getattr(interrupt, "wait", None)
        if callable(wait):
            self.sleep = wait

    def due(self, t: float) -> float:
        """The wall time at which the point at simulated time t is due."""
        return self.wall0 + (t - self.t0) / self.factor

    def pace(self, t: float) -> None:
        now = self.clock()
        if self.t0 is None:
            self.t0, self.wall0 = t, now
        due = self.due(t)
        while now < due:
            if self.sleep(min(due - now, threading.TIMEOUT_MAX)) is True:
                return   # interrupted: the loop stops; this point was never let go
            now = self.clock()
        late = now - due
        if self._lateness and late > (t - self.last_t) / self.factor:
            self._overruns += 1
        self._lateness.append(late)
        self.last_wall, self.last_t = now, t

    def lateness(self) -> np.ndarray:
        """The lateness of every point paced so far (s), in order."""
        return np.asarray(self._lateness)

    def summary(self) -> dict:
        """``realtime`` of summary.json: the factor, the paced stepping's wall time (first point
        to the last, the end of the run included), the lateness's median, 99th percentile and
        maximum (s), the points paced and how many of them were overruns (all of them to the
        microsecond: a nanosecond of lateness is no figure)."""
        late = self.lateness()
        out = {
            "factor": self.factor,
            "wall_s": round(self.last_wall - self.wall0, 6) if len(late) else 0.0,
            "simulated_s": round(self.last_t - self.t0, 9) if len(late) else 0.0,
            "points": int(len(late)),
            "lateness_median_s": round(float(np.median(late)), 6) if len(late) else None,
            "lateness_p99_s": round(float(np.percentile(late, 99)), 6) if len(late) else None,
            "lateness_max_s": round(float(late.max()), 6) if len(late) else None,
            "overruns": self._overruns,
        }
        return out
