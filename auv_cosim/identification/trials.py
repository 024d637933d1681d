"""Trials made with the vehicle library itself, for when a vehicle's FMU is not at hand: the
library with the true parameters, flown open loop over an excitation, and Gaussian instrument
noise (seeded) on every measured channel. A trial flown by the master through the FMU and its
instruments is the real thing (the ident_* scenarios); this is its stand-in, the same
equations without the FMI layer."""

from __future__ import annotations

import numpy as np

from .log import TrialLog

def excitation(adapter, times: np.ndarray, segments) -> np.ndarray:
    """The input rows (commands held over the interval ending at each time) of the segments:
    (start s, stop s, body wrench (X, Y, Z, K, M, N)) each, turned into the vehicle's commands
    by its adapter (``commands_for``)."""
    u = np.zeros((len(times), len(adapter.input_names)))
    for t0, t1, wrench in segments:
        c = adapter.commands_for(wrench)
        on = (times > t0 + 1e-9) & (times <= t1 + 1e-9)
        u[on, :len(c)] = c
    return u


def library_trial(adapter, values: dict[str, float], times: np.ndarray, inputs: np.ndarray,
                  noise: dict[str, float], seed: int, channels=None,
                  depth: float = 0.0) -> tuple[TrialLog, dict[str, np.ndarray]]:
    """(the noisy trial log, the true motion) of the library with ``values`` from rest, level,
    ``depth`` m down (0: at the surface, half out of the water)."""
    names = list(channels or noise)
    window = getattr(adapter, "window_s", None)
    start = {c: np.full(len(times), depth if c == "depth" else 0.0) for c in names}
    zero = TrialLog("library trial", times, inputs, start)
    try:
        adapter.window_s = None     # the truth is one continuous run
        truth = adapter.simulate(values, zero, {})
    finally:
        adapter.window_s = window
    rng = np.random.default_rng(seed)
    measured = {c: truth[c] + noise.get(c, 0.0) * rng.standard_normal(len(times)) for c in names}
    return TrialLog(f"library trial (seed {seed})", times, inputs, measured), truth
