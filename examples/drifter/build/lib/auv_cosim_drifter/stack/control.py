"""The drifter's depth control: a PI law on the depth error gives the bladder volume, so that
the float is lighter than the water when too deep and heavier when too shallow.

    b_cmd = Kp (z_ref - z) ... sign: a positive b adds displacement (lighter, rises), so
    b_cmd = Kp (z - z_ref) + Ki integral (z - z_ref) dt - Kd w

with w the vertical velocity (down positive): damping the approach. The command is clamped to
+-limit and the integral stops growing while it is (anti-windup).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class DepthController:
    """A PI depth controller with velocity damping; `integral` is its state."""

    kp: float = 2.0e-5      # m3 per m of depth error
    ki: float = 1.0e-7      # m3 per m s
    kd: float = 4.0e-4      # m3 per m/s of vertical velocity
    limit: float = 0.0004   # m3
    integral: float = 0.0

    def command(self, depth: float, vertical_velocity: float, setpoint: float, dt: float) -> float:
        """The bladder volume for the next step (m3)."""
        error = depth - setpoint
        raw = self.kp * error + self.ki * (self.integral + error * dt) + self.kd * vertical_velocity
        if abs(raw) < self.limit:        # anti-windup: integrate only while not saturated
            self.integral += error * dt
        return min(max(raw, -self.limit), self.limit)
