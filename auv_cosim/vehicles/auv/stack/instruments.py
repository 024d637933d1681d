"""The vehicle's instruments as plain Python: depth sensor, AHRS, DVL and navigation.

Every channel reads ``clamp_to_range(lag(truth) + bias + noise)``:

* ``lag``: first-order lag, exact discretisation ``a = exp(-dt/tau)``; tau = 0 passes the
  truth through. Angles (roll, heading) are lagged on the circle (wrapped error). The lag is
  initialised with the first sample, so there is no start-up transient.
* ``bias``: constant.
* ``noise``: white, ``std * z`` with ``z`` standard normal from one seeded
  ``numpy.random.Generator`` (PCG64, ``Seed``). Every sample draws the same fixed number of
  normals (:data:`NOISE_CHANNELS`, in that order) whatever the std values, so a run is
  reproducible bit for bit and switching one channel's noise off does not change the noise of
  the others. They are drawn from the generator in blocks (:mod:`auv_cosim.stacks.noise`): the
  same values as one draw per sample, for a tenth of the cost.

With std, bias and lag all zero an instrument output is the truth, bit for bit (headings and
roll are reported wrapped to (-pi, pi]; depth and altitude are clamped to their ranges).

Instruments and their ranges
----------------------------
* pressure depth sensor: ``MeasuredDepth`` clamped to [0, DepthRange];
* AHRS: ``MeasuredRoll`` / ``MeasuredHeading`` wrapped to (-pi, pi] (heading 0 = north,
  pi/2 = east), ``MeasuredRoll`` and ``MeasuredPitch`` clamped to +-AttitudeRange;
* DVL: ``MeasuredSpeed`` is the speed through the water (water track, always valid);
  ``MeasuredAltitude`` needs bottom lock, which holds while the true altitude is finite and
  within [0, DvlRange]. Without lock ``AltitudeValid`` is false and ``MeasuredAltitude`` holds
  the last good value (0 before the first lock); on re-acquisition the altitude lag restarts at
  the new reading;
* navigation: ``NavNorth``, ``NavEast``: the position used by guidance (no range limit).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Dict, Sequence

import numpy as np

from ....stacks.declare import parameter
from ....stacks.filters import lag_coefficient
from ....stacks.noise import NormalStream

NOISE_CHANNELS = ("depth", "roll", "pitch", "heading", "speed", "altitude", "north", "east")


@dataclass
class SensorConfig:
    """Parameters of :class:`SensorSuite`, each declared with its unit and description: the
    field names are the FMU parameter names (auv_cosim.fmu.declare)."""
    Seed: int = parameter(
        1, None, "Seed of the noise generator (numpy PCG64); same seed, same noise, bit for bit")
    DepthNoiseStd: float = parameter(0.01, "m", "Depth sensor white-noise standard deviation")
    DepthBias: float = parameter(0.0, "m", "Depth sensor constant bias")
    DepthLag: float = parameter(0.1, "s", "Depth sensor first-order lag time constant (0 = none)")
    DepthRange: float = parameter(
        300.0, "m", "Depth sensor full scale; readings clamped to [0, DepthRange]")
    AttitudeNoiseStd: float = parameter(
        0.002, "rad", "AHRS roll and pitch white-noise standard deviation")
    HeadingNoiseStd: float = parameter(0.005, "rad", "AHRS heading white-noise standard deviation")
    RollBias: float = parameter(0.0, "rad", "AHRS roll constant bias")
    PitchBias: float = parameter(0.0, "rad", "AHRS pitch constant bias")
    HeadingBias: float = parameter(0.0, "rad", "AHRS heading constant bias")
    AhrsLag: float = parameter(
        0.05, "s", "AHRS first-order lag time constant, on the circle for angles (0 = none)")
    AttitudeRange: float = parameter(
        math.pi, "rad", "AHRS range: |roll| and |pitch| readings clamped to it")
    SpeedNoiseStd: float = parameter(
        0.01, "m/s", "DVL speed-through-water white-noise standard deviation")
    SpeedBias: float = parameter(0.0, "m/s", "DVL speed constant bias")
    AltitudeNoiseStd: float = parameter(0.05, "m", "DVL altitude white-noise standard deviation")
    AltitudeBias: float = parameter(0.0, "m", "DVL altitude constant bias")
    DvlLag: float = parameter(0.2, "s", "DVL first-order lag time constant (0 = none)")
    DvlRange: float = parameter(30.0, "m", "DVL bottom-lock range: largest altitude it measures")
    NavNoiseStd: float = parameter(
        0.1, "m", "Navigation position white-noise standard deviation (north and east)")
    NavBiasNorth: float = parameter(0.0, "m", "Navigation north constant bias")
    NavBiasEast: float = parameter(0.0, "m", "Navigation east constant bias")
    NavLag: float = parameter(0.0, "s", "Navigation first-order lag time constant (0 = none)")

    @classmethod
    def noiseless(cls, **overrides) -> "SensorConfig":
        """All noise, biases and lags zero: every instrument is an exact copy of the truth."""
        kw = {f.name: 0.0 for f in fields(cls) if f.name.endswith(("NoiseStd", "Bias", "Lag"))
              or f.name in ("NavBiasNorth", "NavBiasEast")}
        kw.update(overrides)
        return cls(**kw)

    def validate(self) -> None:
        """Raise ValueError naming the first bad parameter."""
        if isinstance(self.Seed, bool) or int(self.Seed) != self.Seed or self.Seed < 0:
            raise ValueError(f"Seed must be a non-negative integer, got {self.Seed!r}")
        for f in fields(self):
            if f.name == "Seed":
                continue
            v = float(getattr(self, f.name))
            if not math.isfinite(v):
                raise ValueError(f"{f.name} must be finite, got {v!r}")
            if f.name.endswith(("NoiseStd", "Lag")) and v < 0.0:
                raise ValueError(f"{f.name} must be >= 0, got {v!r}")
            if f.name.endswith("Range") and v <= 0.0:
                raise ValueError(f"{f.name} must be > 0, got {v!r}")


@dataclass
class TruthInputs:
    """The truth the instruments sense (the Auv outputs of the same names)."""
    pos: Sequence[float] = (0.0, 0.0, 0.0)      # Pos[1..3], NED m
    euler: Sequence[float] = (0.0, 0.0, 0.0)    # Euler[1..3]: roll, pitch, heading, rad
    depth: float = 0.0                          # m
    speed: float = 0.0                          # m/s, through the water
    altitude: float = math.inf                  # m above the seafloor
    vel: Sequence[float] = (0.0, 0.0, 0.0)      # Vel[1..3], NED m/s (not used yet)

    def check(self) -> None:
        # Runs every step, so the usual case (all fine) is decided by two sums: a sum is NaN
        # when a term is NaN, and finite only when every term is. A suspicious sum (which
        # may also come from inf - inf or an overflow) goes through the element-wise check.
        if (not math.isnan(sum(self.pos) + sum(self.euler) + sum(self.vel))
                and math.isfinite(self.depth + self.speed)):
            return
        vals = {"Pos": self.pos, "Euler": self.euler, "Vel": self.vel}
        for name, vec in vals.items():
            for i, v in enumerate(vec):
                if math.isnan(v):
                    raise ValueError(f"input {name}[{i + 1}] is NaN")
        for name, v in (("Depth", self.depth), ("Speed", self.speed)):
            if not math.isfinite(v):
                raise ValueError(f"input {name} is not finite ({v!r})")
        # a NaN altitude passes: no seafloor seen, handled as a loss of bottom lock


@dataclass
class SensorOutputs:
    depth: float = 0.0
    roll: float = 0.0
    pitch: float = 0.0
    heading: float = 0.0
    speed: float = 0.0
    altitude: float = 0.0
    altitude_valid: bool = False
    nav_north: float = 0.0
    nav_east: float = 0.0


class SensorSuite:
    """All four instruments with one seeded noise generator. A sample's arithmetic is one
    compiled call (auv_cosim/vehicles/auv/stack/instruments_kernel.py) over arrays kept here: `sample` takes and
    returns the dataclasses above, `sample_into` the arrays (what the FMU's slave hands it)."""

    def __init__(self, config: SensorConfig | None = None):
        # imported here: the kernel needs auv_cosim.vehicles's switch between compiled and plain
        # Python, and importing auv_cosim.vehicles.auv.stack must not need the vehicle library (the H100's
        # instrument FMU carries auv_cosim.vehicles.auv.stack without it)
        from . import instruments_kernel as kernel

        self.config = config if config is not None else SensorConfig()
        self.config.validate()
        c = self.config
        self.noise = NormalStream(int(c.Seed), len(NOISE_CHANNELS))
        self._kernel = kernel
        self.constants = np.zeros(kernel.CONSTANTS_SIZE)
        rows = ((kernel.BIAS, (c.DepthBias, c.RollBias, c.PitchBias, c.HeadingBias, c.SpeedBias,
                               c.AltitudeBias, c.NavBiasNorth, c.NavBiasEast)),
                (kernel.STD, (c.DepthNoiseStd, c.AttitudeNoiseStd, c.AttitudeNoiseStd, c.HeadingNoiseStd,
                              c.SpeedNoiseStd, c.AltitudeNoiseStd, c.NavNoiseStd, c.NavNoiseStd)),
                (kernel.TAU, (c.DepthLag, c.AhrsLag, c.AhrsLag, c.AhrsLag, c.DvlLag, c.DvlLag,
                              c.NavLag, c.NavLag)))
        for start, values in rows:
            self.constants[start:start + kernel.CHANNELS] = [float(v) for v in values]
        self.constants[kernel.DEPTH_RANGE] = c.DepthRange
        self.constants[kernel.ATTITUDE_RANGE] = c.AttitudeRange
        self.constants[kernel.DVL_RANGE] = c.DvlRange
        self._time_constants = [float(v) for v in rows[2][1]]
        self._dt = None     # the step length whose lag coefficients `constants` holds
        self.state = np.zeros(kernel.STATE_SIZE)
        self._truth = np.zeros(kernel.TRUTH_SIZE)
        self._readings = np.zeros(kernel.READINGS_SIZE)
        self.out = SensorOutputs()
        self.samples = 0

    # ------------------------------------------------------------------ sampling
    def initialize(self, truth: TruthInputs) -> SensorOutputs:
        """First reading: the lags start at the truth (steady state)."""
        self._reset_lags()
        return self.sample(truth, 0.0)

    def initialize_into(self, truth: np.ndarray, readings: np.ndarray) -> bool:
        """`initialize` over arrays, as `sample_into`."""
        self._reset_lags()
        return self.sample_into(truth, readings, 0.0)

    def _reset_lags(self) -> None:
        self.state[self._kernel.LAG_STARTED:self._kernel.LAG_STARTED + self._kernel.CHANNELS] = 0.0

    def sample(self, truth: TruthInputs, dt: float) -> SensorOutputs:
        """Read the instruments after a step of length dt (the lags advance by dt)."""
        self._truth[:] = (*truth.pos, *truth.euler, truth.depth, truth.speed, truth.altitude, *truth.vel)
        valid = self.sample_into(self._truth, self._readings, dt)
        o = self.out
        (o.depth, o.roll, o.pitch, o.heading, o.speed, o.altitude, o.nav_north,
         o.nav_east) = self._readings.tolist()
        o.altitude_valid = valid
        return o

    def sample_into(self, truth: np.ndarray, readings: np.ndarray, dt: float) -> bool:
        """`sample` over arrays: the truth in the FMU's input order (sensor_kernel.TRUTH_SIZE
        float64 values), the Real readings written into `readings` (READINGS_SIZE float64, the
        FMU's output order); returns the bottom lock (AltitudeValid). Raises ValueError naming
        a bad input, nothing advanced."""
        if dt != self._dt:    # the lags' coefficients, computed once per step length
            self.constants[self._kernel.COEFFICIENT:self._kernel.COEFFICIENT + self._kernel.CHANNELS] = [
                lag_coefficient(dt, tau) for tau in self._time_constants]
            self._dt = dt
        block, at = self.noise.block()
        kernel = self._kernel
        if kernel.sample_into(truth, block, at, self.constants, self.state, readings, False):
            self._truth_of(truth).check()     # raises for a bad input
            for name, index in (("Euler[1]", kernel.EULER), ("Euler[3]", kernel.EULER + 2)):
                if math.isinf(truth[index]):   # an angle that cannot be wrapped
                    raise ValueError(f"input {name} is not finite ({float(truth[index])!r})")
            kernel.sample_into(truth, block, at, self.constants, self.state, readings, True)
        self.noise.advance()
        self.samples += 1
        return self.state[kernel.BOTTOM_LOCK] != 0.0   # numpy's bool: the native wrapper reads it directly

    @staticmethod
    def _truth_of(values: np.ndarray) -> TruthInputs:
        v = values.tolist()
        return TruthInputs(v[0:3], v[3:6], v[6], v[7], v[8], v[9:12])

    # ------------------------------------------------------------------ state
    def get_state(self) -> Dict:
        """JSON-serialisable snapshot: generator state, lag states, the DVL's held altitude and
        bottom lock."""
        k = self._kernel
        lags = [y if started else None for y, started in
                zip(self.state[k.LAG_OUTPUT:k.LAG_OUTPUT + k.CHANNELS].tolist(),
                    self.state[k.LAG_STARTED:k.LAG_STARTED + k.CHANNELS].tolist())]
        return {
            "rng": self.noise.get_state(),
            "filters": lags,
            "held_altitude": float(self.state[k.HELD_ALTITUDE]),
            "bottom_lock": bool(self.state[k.BOTTOM_LOCK]),
            "samples": self.samples,
        }

    def set_state(self, state: Dict) -> None:
        k = self._kernel
        self.noise.set_state(state["rng"])
        for channel, y in enumerate(state["filters"]):
            self.state[k.LAG_OUTPUT + channel] = 0.0 if y is None else float(y)
            self.state[k.LAG_STARTED + channel] = 0.0 if y is None else 1.0
        self.state[k.HELD_ALTITUDE] = float(state["held_altitude"])
        self.state[k.BOTTOM_LOCK] = 1.0 if state["bottom_lock"] else 0.0
        self.samples = int(state["samples"])
