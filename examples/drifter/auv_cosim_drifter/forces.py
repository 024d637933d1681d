"""The drifter's forces, each a small pure function with its formula. NED axes (z down); the
float is a vertical cylinder that does not rotate, so its forces act on its velocity alone."""
from __future__ import annotations

import math

import numpy as np


def net_weight(mass: float, volume: float, bladder: float, rho: float, gravity: float) -> float:
    """Weight less buoyancy, down positive (N): W = (m - rho (V + b)) g. The bladder volume b
    adds to the displaced volume: oil pumped out makes the float lighter than the water."""
    return (mass - rho * (volume + bladder)) * gravity


def drag(relative_velocity: np.ndarray, rho: float, drag_coefficient: float, area: float) -> np.ndarray:
    """Quadratic drag against the velocity through the water (N): D = -1/2 rho C_d A |v_r| v_r,
    with one coefficient for every direction (a slender float crossing a current is rare)."""
    speed = math.sqrt(float(relative_velocity @ relative_velocity))
    return -0.5 * rho * drag_coefficient * area * speed * relative_velocity


def effective_mass(mass: float, volume: float, rho: float, added_mass_coefficient: float) -> float:
    """Mass plus added mass (kg): m + C_a rho V. Accelerating the float accelerates the water
    around it too."""
    return mass + added_mass_coefficient * rho * volume


def bladder_rate(bladder: float, command: float, time_constant: float, limit: float) -> float:
    """The pump's first-order lag towards the command clamped to +-limit (m3/s):
    b' = (clamp(b_cmd) - b) / tau."""
    target = min(max(command, -limit), limit)
    return (target - bladder) / time_constant
