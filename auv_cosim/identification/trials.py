"""Trials made with the vehicle library itself, for when a vehicle's FMU is not at hand: the
library with the true parameters, flown open loop over an excitation, and Gaussian instrument
noise (seeded) on every measured channel. A trial flown by the master through the FMU and its
instruments is the real thing (the ident_* scenarios); this is its stand-in, the same
equations without the FMI layer."""

from __future__ import annotations

import numpy as np

from .log import TrialLog

#: white-noise standard deviations of the H100's instruments (auv_cosim.vehicles.auv.stack H100Sensors'
#: defaults' order of magnitude: IMU attitude and gyro, DVL, pressure depth)
H100_NOISE = {"depth": 0.01, "roll": 0.002, "pitch": 0.002, "heading": 0.005, "surge": 0.01, "sway": 0.01,
              "heave": 0.01, "p": 0.005, "q": 0.005, "r": 0.005}

#: the H100's excitation: (start s, stop s, body wrench (X, Y, Z, K, M, N)), one axis at a time,
#: at two force levels and both signs (linear and quadratic damping apart), thrusters off in
#: between (free decay: damping against added mass)
H100_SEGMENTS = [(2, 12, (10, 0, 0, 0, 0, 0)), (15, 25, (35, 0, 0, 0, 0, 0)), (28, 36, (-25, 0, 0, 0, 0, 0)),
                 (40, 50, (0, 0, 10, 0, 0, 0)), (53, 61, (0, 0, 30, 0, 0, 0)), (64, 72, (0, 0, -25, 0, 0, 0)),
                 (76, 84, (0, 20, 0, 0, 0, 0)), (88, 94, (0, 0, 0, 0, 0, 2))]


def excitation(adapter, times: np.ndarray, segments=H100_SEGMENTS) -> np.ndarray:
    """The input rows (commands held over the interval ending at each time) of the segments."""
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
