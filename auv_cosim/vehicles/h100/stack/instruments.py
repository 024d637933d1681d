"""The H100's instruments as plain Python: IMU, DVL, pressure depth sensor and USBL.

Every continuous channel reads ``clamp_to_range(lag(truth) + bias + noise)``, as the survey
AUV's instruments (auv_cosim/vehicles/auv/stack/instruments.py) and with the same lags
(:class:`auv_cosim.stacks.filters.FirstOrderLag`, :class:`~auv_cosim.stacks.filters.AngleLag`:
exact discretisation, initialised at the first sample, angles lagged on the circle):

* IMU: attitude (roll, pitch, heading; the heading wrapped to (-pi, pi], 0 = north), angular
  rate (body, gyro bias per axis) and specific force (body, what an accelerometer at O reads:
  the vehicle's ``SpecificForce``), one lag ``ImuLag``;
* DVL: velocity over ground in the body frame and altitude, valid while bottom lock holds
  (the true altitude finite and within ``DvlRange``); without lock ``DvlValid`` is false and
  both hold their last good values; on re-acquisition the lags restart at the new reading.
  Over a bathymetry grid (``BathymetryFile``, :mod:`auv_cosim.stacks.acoustic`, shared with the
  survey AUV's instruments) the altitude the DVL reads is that of its four Janus beams, tilted
  ``DvlBeamAngle`` from the body's z axis: the height above the plane through their hit points
  while at least three have an echo within DvlRange / cos(DvlBeamAngle), else no bottom lock
  (``dvl_beams`` counts the beams in range). The navigation feels a loss of lock through
  ``DvlValid``, as it did before. Without a file: the true altitude, as above;
* pressure depth: clamped to [0, DepthRange];
* USBL: a 3-D position fix every ``UsblPeriod`` seconds, of the position at the instant of the
  ping plus white noise (std ``UsblNoiseStd`` + ``UsblRangeNoise`` times the slant range from
  the transceiver at ``UsblOrigin``), delivered ``UsblLatency`` seconds later (the acoustic
  travel and processing time). ``UsblFixTime`` is the instant the fix describes and
  ``UsblFixCount`` counts the fixes delivered, so that a navigation filter can tell a new fix
  and compare it with its own estimate of that instant. Beyond ``UsblRange`` no fix. The
  first fix, at initialisation, is the true initial position (the launch point is known).

Noise: one ``numpy.random.Generator`` (PCG64, ``Seed``; drawn in blocks, :mod:`auv_cosim.stacks.noise`); every sample draws the same number of
standard normals (:data:`NOISE_CHANNELS`) whatever the settings, so a run is reproducible bit
for bit and switching one channel's noise off does not change the others'. With all noise,
biases and lags zero (and latency zero) every reading is the truth, bit for bit.
"""
from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field, fields
from typing import Dict, List, Sequence, Tuple


from ....stacks.acoustic import DVL_BEAMS, AcousticConfig, JanusDvl
from ....stacks.angles import wrap_pi
from ....stacks.declare import parameter
from ....stacks.filters import AngleLag, FirstOrderLag
from ....stacks.noise import NormalStream

#: the standard normals drawn per sample, in this order
NOISE_CHANNELS = ("roll", "pitch", "heading", "p", "q", "r", "fx", "fy", "fz",
                  "u", "v", "w", "altitude", "depth", "usbl_n", "usbl_e", "usbl_d")


def _is_vector(f) -> bool:
    """A field declared with `parameter(..., size=n)`, n > 1 (its declaration says so)."""
    return f.metadata.get("size", 1) > 1

_AXES = ("x (forward)", "y (starboard)", "z (down)")


@dataclass
class InstrumentConfig:
    """Parameters of :class:`H100Instruments`; the field names are the FMU parameter names."""
    Seed: int = parameter(1, None, "Seed of the noise generator (numpy PCG64); same seed, same noise, bit for bit")
    # IMU
    AttitudeNoiseStd: float = parameter(0.002, "rad", "IMU roll and pitch white-noise standard deviation")
    HeadingNoiseStd: float = parameter(0.005, "rad", "IMU heading white-noise standard deviation")
    RollBias: float = parameter(0.0, "rad", "IMU roll constant bias")
    PitchBias: float = parameter(0.0, "rad", "IMU pitch constant bias")
    HeadingBias: float = parameter(0.0, "rad", "IMU heading constant bias")
    GyroNoiseStd: float = parameter(0.002, "rad/s", "Gyro white-noise standard deviation, each axis")
    GyroBias: Sequence[float] = parameter((0.0, 0.0, 0.0), "rad/s", "Gyro constant bias", size=3, labels=_AXES)
    AccelNoiseStd: float = parameter(0.02, "m/s2", "Accelerometer white-noise standard deviation, each axis")
    AccelBias: Sequence[float] = parameter((0.0, 0.0, 0.0), "m/s2", "Accelerometer constant bias", size=3,
                                           labels=_AXES)
    ImuLag: float = parameter(0.02, "s", "IMU first-order lag time constant, on the circle for angles (0 = none)")
    # DVL
    DvlNoiseStd: float = parameter(0.005, "m/s", "DVL velocity white-noise standard deviation, each axis")
    DvlBias: Sequence[float] = parameter((0.0, 0.0, 0.0), "m/s", "DVL velocity constant bias", size=3, labels=_AXES)
    DvlLag: float = parameter(0.1, "s", "DVL first-order lag time constant (0 = none)")
    DvlRange: float = parameter(75.0, "m", "DVL bottom-lock range: largest altitude it tracks the bottom from")
    AltitudeNoiseStd: float = parameter(0.02, "m", "DVL altitude white-noise standard deviation")
    # pressure depth
    DepthNoiseStd: float = parameter(0.005, "m", "Pressure depth white-noise standard deviation")
    DepthBias: float = parameter(0.0, "m", "Pressure depth constant bias")
    DepthLag: float = parameter(0.05, "s", "Pressure depth first-order lag time constant (0 = none)")
    DepthRange: float = parameter(300.0, "m", "Pressure depth full scale; readings clamped to [0, DepthRange]")
    # USBL
    UsblNoiseStd: float = parameter(0.05, "m", "USBL fix white-noise standard deviation, each axis, at zero range")
    UsblRangeNoise: float = parameter(0.002, "1", "USBL noise standard deviation added per metre of slant range")
    UsblPeriod: float = parameter(1.0, "s", "Time between USBL pings")
    UsblLatency: float = parameter(0.5, "s", "Delay from a USBL ping to its fix")
    UsblRange: float = parameter(1000.0, "m", "Largest slant range with a USBL fix")
    UsblOrigin: Sequence[float] = parameter((0.0, 0.0, 0.0), "m", "Position of the USBL transceiver", size=3,
                                            labels=("north", "east", "down"))

    @classmethod
    def noiseless(cls, **overrides) -> "InstrumentConfig":
        """All noise, biases, lags and the USBL latency zero: every reading is the truth."""
        kw = {}
        for f in fields(cls):
            if _is_vector(f) and f.name != "UsblOrigin":
                kw[f.name] = [0.0, 0.0, 0.0]
            elif f.name.endswith(("NoiseStd", "Bias", "Lag", "RangeNoise")) or f.name == "UsblLatency":
                kw[f.name] = 0.0
        kw.update(overrides)
        return cls(**kw)

    def validate(self) -> None:
        """Raise ValueError naming the first bad parameter."""
        if isinstance(self.Seed, bool) or int(self.Seed) != self.Seed or self.Seed < 0:
            raise ValueError(f"Seed must be a non-negative integer, got {self.Seed!r}")
        for f in fields(self):
            if f.name == "Seed":
                continue
            value = getattr(self, f.name)
            if _is_vector(f):
                if len(value) != 3 or not all(math.isfinite(float(v)) for v in value):
                    raise ValueError(f"{f.name} must be 3 finite numbers, got {list(value)!r}")
                continue
            v = float(value)
            if not math.isfinite(v):
                raise ValueError(f"{f.name} must be finite, got {v!r}")
            if f.name.endswith(("NoiseStd", "Lag", "RangeNoise")) or f.name == "UsblLatency":
                if v < 0.0:
                    raise ValueError(f"{f.name} must be >= 0, got {v!r}")
            if (f.name.endswith("Range") or f.name == "UsblPeriod") and v <= 0.0:
                raise ValueError(f"{f.name} must be > 0, got {v!r}")


@dataclass
class Truth:
    """What the instruments sense: the H100 outputs of the same names."""
    pos: Sequence[float] = (0.0, 0.0, 0.0)             # Pos[1..3], NED m
    euler: Sequence[float] = (0.0, 0.0, 0.0)           # Euler[1..3]: roll, pitch, yaw (rad)
    omega: Sequence[float] = (0.0, 0.0, 0.0)           # Omega[1..3], rad/s, body
    specific_force: Sequence[float] = (0.0, 0.0, -9.82)  # SpecificForce[1..3], m/s^2, body
    local_vel: Sequence[float] = (0.0, 0.0, 0.0)       # LocalVel[1..3], m/s over ground, body
    depth: float = 0.0                                 # m
    altitude: float = math.inf                         # m above the sea floor

    def check(self) -> None:
        total = (sum(self.pos) + sum(self.euler) + sum(self.omega) + sum(self.specific_force)
                 + sum(self.local_vel) + self.depth)
        if math.isfinite(total):
            return
        for name, vector in (("Pos", self.pos), ("Euler", self.euler), ("Omega", self.omega),
                             ("SpecificForce", self.specific_force), ("LocalVel", self.local_vel)):
            for i, v in enumerate(vector):
                if not math.isfinite(v):
                    raise ValueError(f"input {name}[{i + 1}] is not finite ({v!r})")
        raise ValueError(f"input Depth is not finite ({self.depth!r})")


@dataclass
class Readings:
    euler: List[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])
    omega: List[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])
    specific_force: List[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])
    velocity: List[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])
    altitude: float = 0.0
    dvl_valid: bool = False
    depth: float = 0.0
    usbl: List[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])
    usbl_fix_time: float = 0.0
    usbl_fix_count: int = 0
    dvl_beams: int = DVL_BEAMS      # the DVL's beams with an echo within range (all without a grid)


def _clamp(x: float, lo: float, hi: float) -> float:
    return lo if x < lo else hi if x > hi else x


#: the IMU's pitch range, (-pi/2, pi/2): computed once (the same number as 0.5 * math.pi)
_HALF_PI = 0.5 * math.pi


def _three_axes(lags, truth: Sequence[float], bias: Sequence[float], std: float, z: List[float], first: int,
                dt: float) -> List[float]:
    """One three-axis instrument's readings, ``lag(truth) + bias + std * z`` per axis, with the
    normals ``z[first:first + 3]``. Written out axis by axis: this runs for three instruments
    every sample, and a comprehension would add a function object and a call of its own."""
    return [lags[0].update(float(truth[0]), dt) + bias[0] + std * z[first],
            lags[1].update(float(truth[1]), dt) + bias[1] + std * z[first + 1],
            lags[2].update(float(truth[2]), dt) + bias[2] + std * z[first + 2]]


class H100Instruments:
    """IMU, DVL, depth sensor and USBL with one seeded noise generator."""

    def __init__(self, config: InstrumentConfig | None = None, acoustic: AcousticConfig | None = None):
        self.config = config if config is not None else InstrumentConfig()
        self.config.validate()
        c = self.config
        #: the DVL's beams against the grid of `acoustic` (no grid without a BathymetryFile)
        self.dvl = JanusDvl(acoustic if acoustic is not None else AcousticConfig(), c.DvlRange)
        self.noise = NormalStream(int(c.Seed), len(NOISE_CHANNELS))
        self.f_attitude = [AngleLag(c.ImuLag), FirstOrderLag(c.ImuLag), AngleLag(c.ImuLag)]
        self.f_omega = [FirstOrderLag(c.ImuLag) for _ in range(3)]
        self.f_force = [FirstOrderLag(c.ImuLag) for _ in range(3)]
        self.f_velocity = [FirstOrderLag(c.DvlLag) for _ in range(3)]
        self.f_altitude = FirstOrderLag(c.DvlLag)
        self.f_depth = FirstOrderLag(c.DepthLag)
        self.out = Readings()
        self.time = 0.0
        self.next_ping = 0.0
        #: pings taken, waiting for their latency: (ping time, fix)
        self.pending: List[Tuple[float, List[float]]] = []

    def _filters(self) -> List[FirstOrderLag]:
        return [*self.f_attitude, *self.f_omega, *self.f_force, *self.f_velocity,
                self.f_altitude, self.f_depth]

    def initialize(self, truth: Truth, time: float = 0.0) -> Readings:
        """First reading at ``time``: the lags start at the truth, and the USBL gives the true
        position at once (fix 1, no noise, no latency: the navigation's alignment at a known
        launch point, as a real vehicle starts from a surveyed or GPS position); the regular
        pings start one period later."""
        for f in self._filters():
            f.reset()
        self.time = float(time)
        self.next_ping = self.time + self.config.UsblPeriod
        self.pending = []
        out = self.sample(truth, 0.0)
        out.usbl = [float(x) for x in truth.pos]
        out.usbl_fix_time = self.time
        out.usbl_fix_count = 1
        return out

    def sample(self, truth: Truth, dt: float) -> Readings:
        """Read the instruments after a step of length dt (lags and clock advance by dt)."""
        truth.check()
        c, o = self.config, self.out
        z = self.noise.take()
        self.time += dt
        # IMU
        euler = truth.euler
        roll_lag, pitch_lag, heading_lag = self.f_attitude
        r = wrap_pi(roll_lag.update(float(euler[0]), dt) + c.RollBias + c.AttitudeNoiseStd * z[0])
        p = pitch_lag.update(float(euler[1]), dt) + c.PitchBias + c.AttitudeNoiseStd * z[1]
        h = wrap_pi(heading_lag.update(float(euler[2]), dt) + c.HeadingBias + c.HeadingNoiseStd * z[2])
        o.euler = [r, _clamp(p, -_HALF_PI, _HALF_PI), h]
        o.omega = _three_axes(self.f_omega, truth.omega, c.GyroBias, c.GyroNoiseStd, z, 3, dt)
        o.specific_force = _three_axes(self.f_force, truth.specific_force, c.AccelBias, c.AccelNoiseStd, z, 6, dt)
        # DVL: bottom track (over a grid, the altitude and the lock of its beams)
        if self.dvl.seabed is None:
            altitude = float(truth.altitude)
        else:
            altitude = self.dvl.altitude([float(v) for v in truth.pos], [float(v) for v in euler])
            o.dvl_beams = self.dvl.beams_in_range
        if math.isfinite(altitude) and 0.0 <= altitude <= c.DvlRange:
            if not o.dvl_valid:    # (re-)acquisition: no lag from a stale value
                for f in (*self.f_velocity, self.f_altitude):
                    f.reset()
            o.velocity = _three_axes(self.f_velocity, truth.local_vel, c.DvlBias, c.DvlNoiseStd, z, 9, dt)
            o.altitude = max(self.f_altitude.update(altitude, dt) + c.AltitudeNoiseStd * z[12], 0.0)
            o.dvl_valid = True
        else:
            o.dvl_valid = False
        # pressure depth
        o.depth = _clamp(self.f_depth.update(float(truth.depth), dt) + c.DepthBias + c.DepthNoiseStd * z[13],
                         0.0, c.DepthRange)
        # USBL: ping on schedule, deliver after the latency
        eps = 1e-9 * max(1.0, abs(self.time))
        if self.time >= self.next_ping - eps:
            pos = [float(x) for x in truth.pos]
            slant = math.dist(pos, [float(x) for x in c.UsblOrigin])
            if slant <= c.UsblRange:
                std = c.UsblNoiseStd + c.UsblRangeNoise * slant
                self.pending.append((self.time, [pos[i] + std * z[14 + i] for i in range(3)]))
            while self.next_ping <= self.time + eps:
                self.next_ping += c.UsblPeriod
        while self.pending and self.pending[0][0] + c.UsblLatency <= self.time + eps:
            ping_time, fix = self.pending.pop(0)
            o.usbl, o.usbl_fix_time = fix, ping_time
            o.usbl_fix_count += 1
        return o

    # ------------------------------------------------------------------ state
    def get_state(self) -> Dict:
        """JSON-serialisable snapshot: generator, lags, clock, pending fixes, held readings."""
        return {"rng": self.noise.get_state(),
                "filters": [f.get_state() for f in self._filters()],
                "out": copy.deepcopy(vars(self.out)), "time": self.time,
                "next_ping": self.next_ping, "pending": copy.deepcopy(self.pending)}

    def set_state(self, state: Dict) -> None:
        self.noise.set_state(state["rng"])
        for f, s in zip(self._filters(), state["filters"]):
            f.set_state(s)
        for k, v in copy.deepcopy(state["out"]).items():
            setattr(self.out, k, v)
        self.time, self.next_ping = float(state["time"]), float(state["next_ping"])
        self.pending = [(float(t), list(fix)) for t, fix in copy.deepcopy(state["pending"])]
