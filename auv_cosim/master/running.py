"""Figures computed as a run's rows stream past, in memory that does not grow with the run:
the pieces every streaming figure of a summary is made of (``summary.Stream``).

A run hands its rows over in blocks (``loop.Observer``); the figures of a day-long or a
week-long mission are made of running sums, extrema, first and last values and short windows,
each brought up to date by a block and never by the whole table. Each piece here gives the
same figure whether the rows come in one block or in many:

- ``ExactSum``: a sum with no rounding error to speak of (its partials kept to twice a
  double's precision), so that the order in which blocks come does not change it; the sum of
  the whole run as one array through numpy (pairwise) differs from the exact one by a few
  units in the 15th digit, which summary.json's 6 printed digits do not show;
- ``RunningStats``: ``summary.stats`` (mean |x|, rms, max |x|, count of the finite values) over
  the blocks;
- ``First``/``Last``: the first and last value of a column;
- ``Window``: the last rows of a few columns, those within a span of the latest time.
"""

from __future__ import annotations

import math

import numpy as np


class ExactSum:
    """The sum of every value given, exact to about 2**-106 of it: each block's values are
    summed with Shewchuk's algorithm (``math.fsum``: the exact sum, rounded once) together with
    the partials so far, which are kept as two doubles (the rounded sum and what it left out).
    NaN when a value was NaN or the infinities of both signs came; an infinity otherwise."""

    def __init__(self):
        self.hi = 0.0
        self.lo = 0.0
        self.bad = False   # a NaN, or +inf and -inf

    def add(self, values: np.ndarray) -> None:
        if self.bad or not len(values):
            return
        terms = [self.hi, self.lo, *values.tolist()]
        try:
            hi = math.fsum(terms)
        except (ValueError, OverflowError):   # -inf + inf, or a partial sum beyond a double
            self.bad = True
            return
        if not math.isfinite(hi):
            self.hi, self.lo = hi, 0.0
            self.bad = math.isnan(hi)
            return
        terms.append(-hi)
        self.hi, self.lo = hi, math.fsum(terms)   # what the rounding of hi left out

    @property
    def value(self) -> float:
        if self.bad:
            return math.nan
        return self.hi + self.lo if math.isfinite(self.hi) else self.hi


class RunningStats:
    """``summary.stats`` of every value given: mean |x|, rms, max |x| and the count over the
    finite values (None if none)."""

    def __init__(self):
        self.abs_sum = ExactSum()
        self.sq_sum = ExactSum()
        self.max = -math.inf
        self.samples = 0

    def add(self, x: np.ndarray) -> None:
        x = x[np.isfinite(x)]
        if not len(x):
            return
        a = np.abs(x)
        self.abs_sum.add(a)
        self.sq_sum.add(x * x)
        self.max = max(self.max, float(a.max()))
        self.samples += len(x)

    def result(self) -> dict | None:
        from .summary import rounded

        if not self.samples:
            return None
        n = self.samples
        return {"mean_abs": rounded(self.abs_sum.value / n), "rms": rounded(math.sqrt(self.sq_sum.value / n)),
                "max": rounded(self.max), "samples": int(n)}


class First:
    """The first value of a column (None before any row)."""

    def __init__(self):
        self.value = None

    def add(self, x: np.ndarray) -> None:
        if self.value is None and len(x):
            self.value = x[0]


class Last:
    """The last value of a column (None before any row)."""

    def __init__(self):
        self.value = None

    def add(self, x: np.ndarray) -> None:
        if len(x):
            self.value = x[-1]


class Window:
    """The rows of a few columns whose time is within ``span`` of the latest time given (and a
    few more: whole blocks are dropped once every time in them is older than that): what a
    figure of a run's last seconds needs, whatever the run's length. ``add(t, *columns)``;
    ``arrays()``: the time and each column, as one array each."""

    def __init__(self, span: float):
        self.span = span
        self.blocks: list[tuple[np.ndarray, ...]] = []

    def add(self, t: np.ndarray, *columns: np.ndarray) -> None:
        if not len(t):
            return
        self.blocks.append((t.copy(), *(c.copy() for c in columns)))
        oldest = t[-1] - self.span   # no time before this is within span of any later end
        while len(self.blocks) > 1 and self.blocks[0][0][-1] < oldest:
            self.blocks.pop(0)

    def arrays(self) -> tuple[np.ndarray, ...]:
        if not self.blocks:
            return ()
        return tuple(np.concatenate(parts) for parts in zip(*self.blocks))
