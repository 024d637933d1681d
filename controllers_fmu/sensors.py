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
  the others. They are drawn from the generator in blocks (:mod:`controllers_fmu.noise`): the
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
from typing import Dict, List, Sequence

from .angles import wrap_pi
from .declare import parameter
from .filters import AngleLag, FirstOrderLag
from .noise import NormalStream

NOISE_CHANNELS = ("depth", "roll", "pitch", "heading", "speed", "altitude", "north", "east")


@dataclass
class SensorConfig:
    """Parameters of :class:`SensorSuite`, each declared with its unit and description: the
    field names are the FMU parameter names (fmu_support.declare)."""
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


def _clamp(x: float, lo: float, hi: float) -> float:
    return lo if x < lo else hi if x > hi else x


class SensorSuite:
    """All four instruments with one seeded noise generator."""

    def __init__(self, config: SensorConfig | None = None):
        self.config = config if config is not None else SensorConfig()
        self.config.validate()
        c = self.config
        self.noise = NormalStream(int(c.Seed), len(NOISE_CHANNELS))
        self.f_depth = FirstOrderLag(c.DepthLag)
        self.f_roll = AngleLag(c.AhrsLag)
        self.f_pitch = FirstOrderLag(c.AhrsLag)
        self.f_heading = AngleLag(c.AhrsLag)
        self.f_speed = FirstOrderLag(c.DvlLag)
        self.f_alt = FirstOrderLag(c.DvlLag)
        self.f_north = FirstOrderLag(c.NavLag)
        self.f_east = FirstOrderLag(c.NavLag)
        self.out = SensorOutputs()
        self.samples = 0

    # ------------------------------------------------------------------ sampling
    def initialize(self, truth: TruthInputs) -> SensorOutputs:
        """First reading: the lags start at the truth (steady state)."""
        for f in self._filters():
            f.reset()
        return self.sample(truth, 0.0)

    def sample(self, truth: TruthInputs, dt: float) -> SensorOutputs:
        """Read the instruments after a step of length dt (the lags advance by dt)."""
        truth.check()
        c = self.config
        # Python floats: arithmetic on numpy scalars costs 4 times more (each lag's update takes
        # its input as a float, too)
        z_depth, z_roll, z_pitch, z_heading, z_speed, z_altitude, z_north, z_east = self.noise.take()
        o = self.out
        # pressure depth
        d = self.f_depth.update(truth.depth, dt) + c.DepthBias + c.DepthNoiseStd * z_depth
        o.depth = _clamp(d, 0.0, c.DepthRange)
        # AHRS
        roll, pitch, heading = truth.euler
        r = wrap_pi(self.f_roll.update(roll, dt) + c.RollBias + c.AttitudeNoiseStd * z_roll)
        o.roll = _clamp(r, -c.AttitudeRange, c.AttitudeRange)
        p = self.f_pitch.update(pitch, dt) + c.PitchBias + c.AttitudeNoiseStd * z_pitch
        o.pitch = _clamp(p, -c.AttitudeRange, c.AttitudeRange)
        o.heading = wrap_pi(self.f_heading.update(heading, dt) + c.HeadingBias
                            + c.HeadingNoiseStd * z_heading)
        # DVL: water-track speed, bottom-track altitude
        o.speed = self.f_speed.update(truth.speed, dt) + c.SpeedBias + c.SpeedNoiseStd * z_speed
        alt = float(truth.altitude)
        if math.isfinite(alt) and 0.0 <= alt <= c.DvlRange:
            if not o.altitude_valid:
                self.f_alt.reset()            # re-acquisition: no lag from a stale value
            a = self.f_alt.update(alt, dt) + c.AltitudeBias + c.AltitudeNoiseStd * z_altitude
            o.altitude = max(a, 0.0)
            o.altitude_valid = True
        else:
            o.altitude_valid = False          # hold o.altitude (last good value)
        # navigation
        north, east = truth.pos[0], truth.pos[1]
        o.nav_north = self.f_north.update(north, dt) + c.NavBiasNorth + c.NavNoiseStd * z_north
        o.nav_east = self.f_east.update(east, dt) + c.NavBiasEast + c.NavNoiseStd * z_east
        self.samples += 1
        return o

    # ------------------------------------------------------------------ state
    def _filters(self) -> List[FirstOrderLag]:
        return [self.f_depth, self.f_roll, self.f_pitch, self.f_heading, self.f_speed,
                self.f_alt, self.f_north, self.f_east]

    def get_state(self) -> Dict:
        """JSON-serialisable snapshot: generator state, filter states, held outputs."""
        return {
            "rng": self.noise.get_state(),
            "filters": [f.get_state() for f in self._filters()],
            "out": dict(vars(self.out)),
            "samples": self.samples,
        }

    def set_state(self, state: Dict) -> None:
        self.noise.set_state(state["rng"])
        for f, s in zip(self._filters(), state["filters"]):
            f.set_state(s)
        for k, v in state["out"].items():
            setattr(self.out, k, v)
        self.samples = int(state["samples"])
