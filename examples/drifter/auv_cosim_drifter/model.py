"""DrifterModel: the drifter as a vehicle of auv-cosim's protocol (auv_cosim.vehicles.protocol):
its tables, the derivative the simulator integrates, its Jacobians and outputs.

State: position (NED, m), velocity over ground (NED, m/s), bladder volume (m3). Input: the
bladder volume commanded. The current is the environment's (auv_cosim.vehicles.environment).
"""
from __future__ import annotations

from typing import List

import numpy as np

from auv_cosim.vehicles.environment import Environment, current_ned
from auv_cosim.vehicles.linearization import finite_difference_jacobians
from auv_cosim.vehicles.parameters import state_part
from auv_cosim.vehicles.protocol import Signal, SignalTable

from .forces import bladder_rate, drag, effective_mass, net_weight
from .parameters import DrifterParameters

NED = ("north", "east", "down")

STATE = SignalTable(
    Signal("Pos", 3, "m", "Position, NED", labels=NED),
    Signal("Vel", 3, "m/s", "Velocity over ground, NED", labels=NED),
    Signal("Bladder", 1, "m3", "Volume of oil in the outer bladder (added displacement)"),
)
INPUTS = SignalTable(
    Signal("BladderCommand", 1, "m3", "Bladder volume commanded (clamped to +-MaxBladder)"),
)
OUTPUTS = SignalTable(
    Signal("Pos", 3, "m", "Position, NED", labels=NED),
    Signal("Vel", 3, "m/s", "Velocity over ground, NED", labels=NED),
    Signal("Depth", 1, "m", "Depth, positive down"),
    Signal("Bladder", 1, "m3", "Volume of oil in the outer bladder"),
    Signal("Quater", 4, "1", "Attitude quaternion, body to NED (the float does not turn)",
           labels=("w", "x", "y", "z")),
)


class DrifterModel:
    """The drifter built from its parameters and the environment; fixed from then on."""

    STATE, INPUTS, OUTPUTS = STATE, INPUTS, OUTPUTS

    def __init__(self, params: DrifterParameters, env: Environment):
        self.params, self.env = params, env
        p = params
        self.constants = np.array([p.Mass, p.Volume, p.Rho, p.DragCoefficient, p.FrontalArea,
                                   effective_mass(p.Mass, p.Volume, p.Rho, p.AddedMassCoefficient),
                                   p.BladderTimeConstant, p.MaxBladder, env.Gravity])
        self._current = (np.array(env.CurrentVelocity, dtype=float), np.array(env.CurrentDepthGradient, dtype=float))

    def derivative_at(self, t: float, x: np.ndarray, u: np.ndarray, c: np.ndarray) -> np.ndarray:
        """x' = (v, F / m_eff, b'): the net weight down, the drag through the water."""
        mass, volume, rho, cd, area, m_eff, tau, limit, gravity = c
        velocity = x[3:6]
        relative = velocity - current_ned(x[2], *self._current)
        force = drag(relative, rho, cd, area)
        force[2] += net_weight(mass, volume, x[6], rho, gravity)
        out = np.empty(7)
        out[0:3] = velocity
        out[3:6] = force / m_eff
        out[6] = bladder_rate(x[6], u[0], tau, limit)
        return out

    def derivative(self, x, u) -> np.ndarray:
        return self.derivative_at(0.0, np.asarray(x, float), np.asarray(u, float), self.constants)

    def state_jacobian(self, x, u) -> np.ndarray:
        return finite_difference_jacobians(self, x, u)[0]

    def input_jacobian(self, x, u) -> np.ndarray:
        return finite_difference_jacobians(self, x, u)[1]

    def output_vector(self, x, u, t: float = 0.0) -> np.ndarray:
        return np.concatenate([x[0:3], x[3:6], [x[2], x[6]], [1.0, 0.0, 0.0, 0.0]])

    def project_state(self, x: np.ndarray) -> None:
        """Nothing to keep: every state is free."""

    def initial_state(self, Pos0=(0.0, 0.0, 0.0), Vel0=(0.0, 0.0, 0.0), Bladder0=0.0) -> np.ndarray:
        return np.array([*state_part("Pos0", Pos0, 3), *state_part("Vel0", Vel0, 3),
                         *state_part("Bladder0", Bladder0, 1)])

    def startup_warnings(self, name: str) -> List[str]:
        p = self.params
        light, heavy = (net_weight(p.Mass, p.Volume, b, p.Rho, self.env.Gravity) for b in (p.MaxBladder, -p.MaxBladder))
        if light > 0 or heavy < 0:
            return [f"{name}: the bladder cannot make the float both rise and sink (net weight "
                    f"{heavy:.3g} N to {light:.3g} N): it will not hold a depth"]
        return []
