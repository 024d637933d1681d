"""The H100's navigation: the pose and velocity the controllers use, from the instruments only.

* attitude and body rates: the IMU's (its attitude solution and gyros);
* body velocity over ground: the DVL's, while it has bottom lock; without it the last
  estimate decays to rest with ``DvlLossTime`` (holding a stale velocity would run away);
* depth: the pressure sensor;
* north and east: a complementary filter. Between fixes the position is dead-reckoned with
  ``R(attitude) v_dvl`` (smooth, precise, drifting); each USBL fix (noisy, unbiased, late)
  pulls it by ``UsblGain`` times the innovation ``fix - estimate(fix time)``, the estimate *at
  the instant the fix describes*, taken from a history of the estimates over the last
  ``HISTORY`` seconds, and applied to the present estimate (the correction of a delayed
  measurement, as a Kalman filter's would be with its gain frozen). With the USBL noise std
  ``s`` the position noise left is about ``s sqrt(g / (2 - g))`` (``g`` the gain): 0.16 s at
  the default 0.05; a DVL bias ``b`` leaves an offset of about ``b T / g`` (T the fix period).
  The first fix (or, before it, the first reading) initialises the position.
"""
from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from typing import List, Optional, Sequence

from ....stacks.declare import parameter
from .frames import Attitude
from .control_kernel import dead_reckoning

HISTORY = 30.0   # s of estimates kept for late fixes


@dataclass
class NavigationConfig:
    UsblGain: float = parameter(0.05, "1", "Navigation: share of a USBL fix's innovation applied")
    DvlLossTime: float = parameter(2.0, "s", "Navigation: decay of the velocity estimate without bottom lock")

    def validate(self) -> None:
        if not (math.isfinite(self.UsblGain) and 0.0 < self.UsblGain <= 1.0):
            raise ValueError(f"UsblGain must be in (0, 1], got {self.UsblGain!r}")
        if not (math.isfinite(self.DvlLossTime) and self.DvlLossTime > 0.0):
            raise ValueError(f"DvlLossTime must be finite and > 0, got {self.DvlLossTime!r}")


@dataclass
class Measurements:
    """The H100Sensors outputs the control reads."""
    euler: Sequence[float] = (0.0, 0.0, 0.0)
    omega: Sequence[float] = (0.0, 0.0, 0.0)
    velocity: Sequence[float] = (0.0, 0.0, 0.0)
    dvl_valid: bool = True
    depth: float = 0.0
    usbl: Sequence[float] = (0.0, 0.0, 0.0)
    usbl_fix_time: float = 0.0
    usbl_fix_count: int = 0

    def check(self) -> None:
        total = (sum(self.euler) + sum(self.omega) + sum(self.velocity) + self.depth + sum(self.usbl)
                 + self.usbl_fix_time)
        if math.isfinite(total):
            return
        for name, vector in (("MeasuredEuler", self.euler), ("MeasuredOmega", self.omega),
                             ("MeasuredVelocity", self.velocity), ("UsblPosition", self.usbl)):
            for i, v in enumerate(vector):
                if not math.isfinite(v):
                    raise ValueError(f"input {name}[{i + 1}] is not finite ({v!r})")
        for name, v in (("MeasuredDepth", self.depth), ("UsblFixTime", self.usbl_fix_time)):
            if not math.isfinite(v):
                raise ValueError(f"input {name} is not finite ({v!r})")


@dataclass
class Estimate:
    pos: List[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])     # NED
    euler: List[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])
    nu: List[float] = field(default_factory=lambda: [0.0] * 6)            # body velocity, rates
    _attitude: Optional[Attitude] = field(default=None, init=False, repr=False, compare=False)

    def attitude(self) -> Attitude:
        """The trigonometry and rotation of ``euler``, computed once per attitude: the
        controllers' changes of frame this step and the dead reckoning of the next share it."""
        a = self._attitude
        if a is None or a.euler != self.euler:
            a = self._attitude = Attitude(self.euler)
        return a


class Navigation:
    """The filter of the module docstring. The history of the estimates is kept as it was
    recorded, with the sum of the fixes' corrections since then applied on reading it: a fix
    moves the whole history at the cost of one addition."""

    def __init__(self, config: NavigationConfig):
        config.validate()
        self.config = config
        self.estimate = Estimate()
        self.time = 0.0
        self.fix_count = 0
        self.history: deque = deque()     # (time, north, east) as recorded, before `correction`
        self.correction = [0.0, 0.0]      # (north, east) of the fixes since the history began

    def initialize(self, m: Measurements) -> Estimate:
        m.check()
        self.time = 0.0
        self.history.clear()
        self.correction = [0.0, 0.0]
        e = self.estimate
        e.euler = [float(a) for a in m.euler]
        e.nu = [float(v) for v in m.velocity] + [float(w) for w in m.omega] if m.dvl_valid else [0.0, 0.0, 0.0] + [float(w) for w in m.omega]
        # the first fix is the known launch point: the held point is exact in depth too
        e.pos = [float(m.usbl[0]), float(m.usbl[1]), float(m.usbl[2])]
        self.fix_count = int(m.usbl_fix_count)
        self.history.append((self.time, e.pos[0], e.pos[1]))
        return e

    def update(self, m: Measurements, dt: float) -> Estimate:
        m.check()
        e = self.estimate
        # dead reckoning over the step with the velocity of the step's start (the sample-and-
        # hold the control period imposes anyway)
        v, euler, pos = e.nu, e.euler, e.pos
        pos[0], pos[1] = dead_reckoning(pos[0], pos[1], euler[0], euler[1], euler[2], v[0], v[1], v[2], float(dt))
        self.time += dt
        e.euler = [float(a) for a in m.euler]
        if m.dvl_valid:
            velocity = [float(x) for x in m.velocity]
        else:
            decay = math.exp(-dt / self.config.DvlLossTime)
            velocity = [x * decay for x in v[0:3]]
        e.nu = velocity + [float(w) for w in m.omega]
        e.pos[2] = float(m.depth)
        if int(m.usbl_fix_count) != self.fix_count:
            self.fix_count = int(m.usbl_fix_count)
            then = self._estimate_at(float(m.usbl_fix_time))
            g = self.config.UsblGain
            dn, de = g * (float(m.usbl[0]) - then[0]), g * (float(m.usbl[1]) - then[1])
            e.pos[0] += dn
            e.pos[1] += de
            # the history moves with the estimate: a later fix is compared with corrected values
            self.correction[0] += dn
            self.correction[1] += de
        self.history.append((self.time, e.pos[0] - self.correction[0], e.pos[1] - self.correction[1]))
        while self.history[0][0] < self.time - HISTORY:
            self.history.popleft()
        return e

    def _estimate_at(self, t: float):
        """The estimate at time t, interpolated in the history (its ends outside it)."""
        h = self.history
        if not h or t >= h[-1][0]:
            return (self.estimate.pos[0], self.estimate.pos[1])
        dn, de = self.correction
        if t <= h[0][0]:
            return (h[0][1] + dn, h[0][2] + de)
        # the history is short and ordered: walk back from the newest
        for k in range(len(h) - 1, 0, -1):
            t0, t1 = h[k - 1][0], h[k][0]
            if t0 <= t <= t1:
                s = 0.0 if t1 == t0 else (t - t0) / (t1 - t0)
                return (h[k - 1][1] + s * (h[k][1] - h[k - 1][1]) + dn,
                        h[k - 1][2] + s * (h[k][2] - h[k - 1][2]) + de)
        return (h[0][1] + dn, h[0][2] + de)

    def get_state(self) -> dict:
        e = self.estimate
        return {"pos": list(e.pos), "euler": list(e.euler), "nu": list(e.nu), "time": self.time,
                "fix_count": self.fix_count, "history": [list(x) for x in self.history],
                "correction": list(self.correction)}

    def set_state(self, s: dict) -> None:
        e = self.estimate
        e.pos, e.euler, e.nu = ([float(v) for v in s[key]] for key in ("pos", "euler", "nu"))
        self.time, self.fix_count = float(s["time"]), int(s["fix_count"])
        self.history = deque(tuple(x) for x in s["history"])
        self.correction = [float(v) for v in s["correction"]]
