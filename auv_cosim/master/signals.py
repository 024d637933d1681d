"""Time-varying input signals: constant, step, ramp, sine, chirp and sums of them.

A signal is evaluated once, vectorised, at every communication point of the run before the run
starts; the stepping loop then only copies one precomputed row per step. The value applied over
the step [t, t+h] is the signal's value at t (zero-order hold), like every other input.
"""

from __future__ import annotations

import math

import numpy as np

from .scenario_schema import Term


def _terms(spec) -> list:
    if isinstance(spec, list):
        return spec
    return [spec]


def evaluate(spec, times: np.ndarray, step: float) -> np.ndarray:
    """Value of a signal at ``times``. Switching instants are compared with a tolerance of a
    millionth of a step, so a step at t = 6.0 switches at the 60th step of 0.1 s, not one later
    because 60 * 0.1 = 5.999999999."""
    eps = 1e-6 * step
    out = np.zeros_like(times, dtype=float)
    for term in _terms(spec):
        if isinstance(term, bool):
            out += float(term)
            continue
        if isinstance(term, (int, float)):
            out += float(term)
            continue
        assert isinstance(term, Term)
        if term.constant is not None:
            out += float(term.constant)
        elif term.step is not None:
            s = term.step
            out += np.where(times >= s.time - eps, float(s.after), float(s.before))
        elif term.ramp is not None:
            r = term.ramp
            if r.slope is not None:
                span = np.clip(times - r.time, 0.0, r.duration if r.duration is not None else np.inf)
                out += r.before + r.slope * span
            else:
                frac = np.clip((times - r.time) / r.duration, 0.0, 1.0)
                out += r.before + (r.after - r.before) * frac
        elif term.sine is not None:
            s = term.sine
            on = times >= s.start - eps
            if s.stop is not None:
                on &= times < s.stop - eps
            out += np.where(on, s.amplitude * np.sin(2.0 * math.pi * (times - s.start) / s.period + s.phase), 0.0)
        elif term.chirp is not None:
            c = term.chirp
            tau = times - c.start
            on = (times >= c.start - eps) & (times < c.stop - eps)
            phase = 2.0 * math.pi * (c.f0 * tau + (c.f1 - c.f0) * tau ** 2 / (2.0 * (c.stop - c.start)))
            out += np.where(on, c.amplitude * np.sin(phase), 0.0)
    return out


def describe(spec) -> str:
    """A one-line human description, for the summary."""
    parts = []
    for term in _terms(spec):
        if isinstance(term, (bool, int, float)):
            parts.append(f"constant {term}")
        elif term.constant is not None:
            parts.append(f"constant {term.constant}")
        elif term.step is not None:
            s = term.step
            parts.append(f"step {s.before} -> {s.after} at t={s.time} s")
        elif term.ramp is not None:
            r = term.ramp
            if r.slope is not None:
                parts.append(f"ramp from {r.before} at {r.slope}/s from t={r.time} s"
                             + (f" for {r.duration} s" if r.duration else ""))
            else:
                parts.append(f"ramp {r.before} -> {r.after} over t={r.time}..{r.time + r.duration} s")
        elif term.sine is not None:
            s = term.sine
            parts.append(f"sine amplitude {s.amplitude} period {s.period} s from t={s.start} s"
                         + (f" to {s.stop} s" if s.stop is not None else ""))
        elif term.chirp is not None:
            c = term.chirp
            parts.append(f"chirp amplitude {c.amplitude} from {c.f0} to {c.f1} Hz over t={c.start}..{c.stop} s")
    return " + ".join(parts)


def find_step(spec):
    """The (time, before, after) of the first step term of a signal, with the other constant
    terms added to before and after; None when the signal has no step."""
    base = 0.0
    step = None
    for term in _terms(spec):
        if isinstance(term, (bool, int, float)):
            base += float(term)
        elif term.constant is not None:
            base += float(term.constant)
        elif term.step is not None and step is None:
            step = term.step
    if step is None:
        return None
    return float(step.time), base + float(step.before), base + float(step.after)
