"""Linear deep-water (Airy) waves, long-crested, regular or JONSWAP irregular
(docs/physics/environment.md#waves).

Shared by both vehicles: it knows points, times and gravity, nothing of a hull.

A component of amplitude `a`, angular frequency `w`, wave number `k = w^2 / g` (deep water) and
phase `phi`, travelling toward `beta` (rad, NED, 0 = toward north), has the phase
`theta = w t - k (x cos beta + y sin beta) + phi`, the surface elevation (up) `a cos theta`, and
at the depth `z` (down) the water velocity `w a e^(-k z) cos theta` along `beta` and
`w a e^(-k z) sin theta` down. The fluid acceleration is its local time derivative
(`-w^2 a e^(-k z) sin theta` along `beta`, `w^2 a e^(-k z) cos theta` down): the convective part
is second order in the wave slope and is neglected, as linear theory does.

A sea is an array of components, one row `(a, w, k, phi)` each (`wave_components`); an empty
array is still water. The kinematics are evaluated at depth `max(z, 0)`: linear theory says
nothing above the mean surface, and extrapolating its exponential upward would grow without
bound.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..compiled.jit import jit
from .parameters import ParameterSet, parameter, require

#: Columns of a component row.
AMPLITUDE, FREQUENCY, WAVE_NUMBER, PHASE = 0, 1, 2, 3

#: WaveMode values: no waves, one regular component, a JONSWAP sea.
WAVES_NONE, WAVES_REGULAR, WAVES_IRREGULAR = 0, 1, 2
WAVE_MODES = {"none": WAVES_NONE, "regular": WAVES_REGULAR, "irregular": WAVES_IRREGULAR}


@dataclass(frozen=True)
class WaveParameters(ParameterSet):
    """The sea state (docs/physics/environment.md#waves), with the names both vehicle FMUs give
    these parameters.

    `WaveMode` chooses what is used: 0 "none" (still water, the default), 1 "regular" (one
    component: `WaveAmplitude`, `WavePeriod`, phase 0) or 2 "irregular" (`WaveComponents`
    components of a JONSWAP spectrum of `SignificantWaveHeight`, `PeakPeriod` and
    `PeakEnhancement`, their phases drawn from `WaveSeed`); the library also takes the names.
    `WaveDirection` is where the waves travel to, for both.
    """

    WaveMode: int = parameter(WAVES_NONE, "", "Waves: 0 none (still water), 1 regular (one "
                              "component), 2 irregular (JONSWAP)", kind="integer")
    WaveAmplitude: float = parameter(0.5, "m", "Amplitude of the regular wave (WaveMode 1)")
    WavePeriod: float = parameter(8.0, "s", "Period of the regular wave (WaveMode 1)")
    SignificantWaveHeight: float = parameter(2.0, "m", "Significant wave height Hs of the JONSWAP sea (WaveMode 2)")
    PeakPeriod: float = parameter(8.0, "s", "Peak period Tp of the JONSWAP sea (WaveMode 2)")
    PeakEnhancement: float = parameter(3.3, "1", "JONSWAP peak enhancement factor gamma (WaveMode 2; 1 is Pierson-Moskowitz)")
    WaveComponents: int = parameter(100, "", "Number of frequency components of the JONSWAP sea (WaveMode 2)",
                                    kind="integer")
    WaveDirection: float = parameter(0.0, "rad", "Direction the waves travel toward, NED (0: toward north)")
    WaveSeed: int = parameter(0, "", "Seed of the JONSWAP sea's random phases: the same seed, the same sea",
                              kind="integer")

    def __post_init__(self):
        if isinstance(self.WaveMode, str):
            if self.WaveMode not in WAVE_MODES:
                raise ValueError(f"parameter WaveMode = {self.WaveMode!r} must be one of "
                                 f"{', '.join(WAVE_MODES)} (or 0, 1, 2)")
            object.__setattr__(self, "WaveMode", WAVE_MODES[self.WaveMode])
        super().__post_init__()

    def _validate(self):
        require("WaveMode", self.WaveMode, self.WaveMode in WAVE_MODES.values(),
                "must be 0 (none), 1 (regular) or 2 (irregular)")
        if self.WaveMode == WAVES_REGULAR:
            require("WavePeriod", self.WavePeriod, self.WavePeriod > 0, "must be positive")
            require("WaveAmplitude", self.WaveAmplitude, self.WaveAmplitude >= 0, "must not be negative")
        if self.WaveMode == WAVES_IRREGULAR:
            require("PeakPeriod", self.PeakPeriod, self.PeakPeriod > 0, "must be positive")
            require("WaveComponents", self.WaveComponents, self.WaveComponents > 0, "must be positive")
            require("SignificantWaveHeight", self.SignificantWaveHeight,
                    self.SignificantWaveHeight >= 0, "must not be negative")
            require("PeakEnhancement", self.PeakEnhancement, self.PeakEnhancement >= 1.0,
                    "must be at least 1 (1 is a Pierson-Moskowitz sea)")
            require("WaveSeed", self.WaveSeed, self.WaveSeed >= 0, "must not be negative")


def jonswap_spectrum(w, significant_height, peak_period, enhancement):
    """The JONSWAP spectrum S(w) (m^2 s / rad) in DNV's form (DNV-RP-C205 3.5.5):

    S(w) = (1 - 0.287 ln gamma) 5/16 Hs^2 wp^4 w^-5 exp(-5/4 (w/wp)^-4)
           gamma^exp(-(w - wp)^2 / (2 sigma^2 wp^2)),
    sigma 0.07 for w <= wp, 0.09 above, wp = 2 pi / Tp. The factor (1 - 0.287 ln gamma) keeps
    the area, and so Hs = 4 sqrt(m0), close to the Pierson-Moskowitz sea's.
    """
    w = np.asarray(w, dtype=float)
    wp = 2.0 * math.pi / peak_period
    sigma = np.where(w <= wp, 0.07, 0.09)
    peak = enhancement ** np.exp(-((w - wp) ** 2) / (2.0 * sigma ** 2 * wp ** 2))
    return ((1.0 - 0.287 * math.log(enhancement)) * 5.0 / 16.0 * significant_height ** 2
            * wp ** 4 * w ** -5.0 * np.exp(-1.25 * (w / wp) ** -4.0) * peak)


def wave_components(params: WaveParameters, gravity: float) -> np.ndarray:
    """The sea as an array of rows (a, w, k, phi); shape (0, 4) without waves.

    Irregular: N components at the bin midpoints `w_i = 0.5 wp + (i - 1/2) dw`,
    `dw = 2.5 wp / N` (from half to three times the peak frequency, where nearly all of the
    JONSWAP energy lies), `a_i = sqrt(2 S(w_i) dw)` (each component carries its bin's
    variance), phases `default_rng(WaveSeed).uniform(0, 2 pi, N)`: the same seed, the same sea.
    """
    if params.WaveMode == WAVES_NONE:
        return np.zeros((0, 4))
    if params.WaveMode == WAVES_REGULAR:
        w = np.array([2.0 * math.pi / params.WavePeriod])
        a = np.array([params.WaveAmplitude])
        phase = np.zeros(1)
    else:
        n = params.WaveComponents
        wp = 2.0 * math.pi / params.PeakPeriod
        dw = 2.5 * wp / n
        w = 0.5 * wp + (np.arange(1, n + 1) - 0.5) * dw
        a = np.sqrt(2.0 * jonswap_spectrum(w, params.SignificantWaveHeight, params.PeakPeriod,
                                           params.PeakEnhancement) * dw)
        phase = np.random.default_rng(params.WaveSeed).uniform(0.0, 2.0 * math.pi, n)
    return np.column_stack([a, w, w * w / gravity, phase])


@jit
def wave_kinematics(t, position, components, direction):
    """The waves' water velocity and local acceleration (both NED, 3 each) at `position` (NED)
    and time `t`: sums of the component formulas of the module docstring, at depth max(z, 0)."""
    velocity = np.zeros(3)
    acceleration = np.zeros(3)
    if components.shape[0] == 0:
        return velocity, acceleration
    cos_b = math.cos(direction)
    sin_b = math.sin(direction)
    along = position[0] * cos_b + position[1] * sin_b
    depth = max(position[2], 0.0)
    horizontal = 0.0
    down = 0.0
    horizontal_rate = 0.0
    down_rate = 0.0
    for i in range(components.shape[0]):
        a = components[i, AMPLITUDE]
        w = components[i, FREQUENCY]
        k = components[i, WAVE_NUMBER]
        theta = w * t - k * along + components[i, PHASE]
        speed = w * a * math.exp(-k * depth)
        c = math.cos(theta)
        s = math.sin(theta)
        horizontal += speed * c
        down += speed * s
        horizontal_rate -= w * speed * s
        down_rate += w * speed * c
    velocity[0] = horizontal * cos_b
    velocity[1] = horizontal * sin_b
    velocity[2] = down
    acceleration[0] = horizontal_rate * cos_b
    acceleration[1] = horizontal_rate * sin_b
    acceleration[2] = down_rate
    return velocity, acceleration


@jit
def surface_elevation(t, north, east, components, direction):
    """The elevation (up, m) of the free surface above its mean at (north, east) and time t."""
    along = north * math.cos(direction) + east * math.sin(direction)
    eta = 0.0
    for i in range(components.shape[0]):
        eta += components[i, AMPLITUDE] * math.cos(
            components[i, FREQUENCY] * t - components[i, WAVE_NUMBER] * along + components[i, PHASE])
    return eta
