"""The vehicle as a Python object: parameters in, derivatives, Jacobians and outputs out."""
from __future__ import annotations

import math
from typing import Dict, Optional, Tuple

import numpy as np

from . import dynamics
from .dynamics import OUTPUT_LAYOUT
from .hull import hull_properties_of
from .parameters import AuvParameters, Environment
from .rotation import quaternion_from_euler


def initial_state(Pos0=(0.0, 0.0, 0.0), Quater0=(1.0, 0.0, 0.0, 0.0), LocalVel0=(0.0, 0.0, 0.0),
                  Omega0=(0.0, 0.0, 0.0), Battery0: float = 1.8e6) -> np.ndarray:
    """The 14-state vector. The quaternion is normalised; a zero or non-finite one is refused."""
    parts = {"Pos0": (Pos0, 3), "Quater0": (Quater0, 4), "LocalVel0": (LocalVel0, 3),
             "Omega0": (Omega0, 3), "Battery0": ((Battery0,), 1)}
    arrays = {}
    for name, (value, size) in parts.items():
        array = np.asarray(value, dtype=float).reshape(-1)
        if array.size != size:
            raise ValueError(f"{name} = {value!r} must have {size} elements")
        if not np.all(np.isfinite(array)):
            raise ValueError(f"{name} = {value!r} must be finite")
        arrays[name] = array
    norm = float(np.linalg.norm(arrays["Quater0"]))
    if norm < 1e-9:
        raise ValueError(f"Quater0 = {tuple(Quater0)!r} has zero norm: not an attitude")
    if arrays["Battery0"][0] < 0.0:
        raise ValueError(f"Battery0 = {Battery0!r} must not be negative")
    return np.concatenate([arrays["Pos0"], arrays["Quater0"] / norm, arrays["LocalVel0"],
                           arrays["Omega0"], arrays["Battery0"]])


def inputs(thrust_power=0.0, rudder_yaw=0.0, rudder_dive=0.0, external_force=(0.0, 0.0, 0.0)):
    """The input vector u = [ThrustPower, RudderYaw, RudderDive, ExternalForce (3)]."""
    return np.array([thrust_power, rudder_yaw, rudder_dive, *external_force], dtype=float)


class VehicleModel:
    """The AUV of seed 000/001 with fixed parameters and environment."""

    def __init__(self, params: Optional[AuvParameters] = None, env: Optional[Environment] = None):
        self.params = params if params is not None else AuvParameters()
        self.env = env if env is not None else Environment()
        self.constants = dynamics.pack_constants(self.params, self.env)
        self.hull = hull_properties_of(self.params.Length, self.params.Diameter,
                                       self.params.AverageDensity)

    # --- the equations ----------------------------------------------------------------------
    def derivative(self, x, u) -> np.ndarray:
        return dynamics.state_derivative(np.asarray(x, float), np.asarray(u, float), self.constants)

    def state_jacobian(self, x, u) -> np.ndarray:
        return dynamics.state_jacobian(np.asarray(x, float), np.asarray(u, float), self.constants)

    def input_jacobian(self, x, u) -> np.ndarray:
        return dynamics.input_jacobian(np.asarray(x, float), np.asarray(u, float), self.constants)

    def linearize(self, x, u) -> Tuple[np.ndarray, np.ndarray]:
        """A = dx'/dx and B = dx'/du at (x, u), from the analytic Jacobians."""
        return self.state_jacobian(x, u), self.input_jacobian(x, u)

    def output_vector(self, x, u) -> np.ndarray:
        return dynamics.output_vector(np.asarray(x, float), np.asarray(u, float), self.constants)

    def outputs(self, x, u) -> Dict[str, object]:
        """The outputs of seed 001 by name: arrays for vectors, floats for scalars."""
        flat = self.output_vector(x, u)
        result = {}
        for name, (start, size) in OUTPUT_LAYOUT.items():
            result[name] = float(flat[start]) if size == 1 else flat[start:start + size].copy()
        return result

    # --- operating points -------------------------------------------------------------------
    def hull_drag_per_speed_squared(self) -> float:
        """1/2 rho A_f C_d: the axial hull drag is this times u^2."""
        return 0.5 * self.params.Rho * math.pi * self.params.Diameter ** 2 / 4 * self.params.AxialDragCoeff

    def fin_drag_per_speed_squared(self) -> float:
        """Profile drag of both fin planes at zero lift: 2 x 1/2 rho A Cd0."""
        return self.params.Rho * self.params.RudderArea * self.params.RudderCd0

    def cruise_power(self, speed: float) -> float:
        """The propulsion power that holds `speed` straight and level (drag of hull and fins)."""
        drag = (self.hull_drag_per_speed_squared() + self.fin_drag_per_speed_squared()) * speed ** 2
        return drag / self.params.ThrustPerPower

    def cruise_state(self, speed: float, depth: float = 10.0, heading: float = 0.0) -> np.ndarray:
        """Straight and level at `speed` through still water, wings level, full battery."""
        return initial_state(Pos0=(0.0, 0.0, depth), Quater0=quaternion_from_euler(0.0, 0.0, heading),
                             LocalVel0=(speed, 0.0, 0.0), Battery0=self.params.InitialBattery)
