"""What the H100's controllers believe about the vehicle: its mass matrix, the wrench its motion
costs, its linearisation, its thrusters. All of it from the vehicle library
(``auv_cosim.vehicles.h100``): the controllers hold no physics of their own.

The belief may differ from the truth: the controller is given its own parameters (a vehicle file
with other damping, another efficiency ``eta_hat``), and it assumes still water (it does not
know the current; integral action and robustness deal with it).

Frames: ``eta = (north, east, down, roll, pitch, yaw)``, ZYX Euler angles; ``nu`` the body
velocity over ground and the body rates.
"""
from __future__ import annotations

from typing import List, Tuple

import numpy as np

from ..model import DEFAULT_ENVIRONMENT, H100Model
from ..parameters import H100Parameters
from .. import dynamics as h100_dynamics
from ...rotation import quaternion_from_euler


#: The controllers' water: still, and its floor deeper than any sea, so that their model never
#: meets the seabed's contact force (auv_cosim.vehicles.contact) in its feed-forward or its
#: linearisation: the plant's seabed is the vehicle FMU's, which the controllers do not know.
BELIEVED_WATER = DEFAULT_ENVIRONMENT.replace(SeaFloorDepth=1.0e6)


class VehicleBelief:
    """The controller's model of the H100 (its parameters; still water, no seabed)."""

    def __init__(self, params: H100Parameters, efficiency_belief: float = 1.0):
        self.params = params
        self.model = H100Model(params, BELIEVED_WATER)
        self.thruster_count = params.thruster_count
        self.mass_matrix = params.mass_matrix()
        self.configuration = self.model.layout().matrix
        self.efficiency_belief = float(efficiency_belief)
        #: the thrusters' states of the state vector the motion wrench is evaluated on (stopped)
        self._thrusters_stopped = self.model.initial_state()[13:].tolist()
        self._inputs = self.model.inputs()
        #: scratch of motion_wrench: the state it fills (thrusters stopped) and the wrench written
        self._state = np.array([0.0] * 13 + self._thrusters_stopped)
        self._holding = np.zeros(6)
        #: the mass matrix for the compiled control laws (control_kernel.py), and whether it is diagonal
        self.mass_array = np.ascontiguousarray(self.mass_matrix, dtype=float)
        #: the usual case (CG at the origin): the kernels multiply by the diagonal alone
        self.mass_is_diagonal = bool(np.array_equal(np.diag(np.diag(self.mass_matrix)), self.mass_matrix))
        #: at rest, level, 10 m down: the LQR's first operating point. Computed here, whatever
        #: the controller, so that building the FMU compiles (and ships in numba's cache) every
        #: function of the vehicle library a controller may call.
        self.rest_linearization = self.linearize(10.0, np.zeros(6))

    def motion_wrench(self, pos, euler, nu) -> List[float]:
        """The wrench the thrusters must add to hold ``nu`` steady at this pose: minus the sum of
        restoring, Coriolis and damping wrenches of the vehicle library (its
        ``holding_wrench_into``, ``generalized_force``'s sums with the thrusters stopped, no
        external force, still water)."""
        x = self._state
        x[0:3] = pos
        x[3:7] = quaternion_from_euler(euler[0], euler[1], euler[2])
        x[7:13] = nu
        # into kept arrays: a compiled call that builds and hands back no array costs a third
        h100_dynamics.holding_wrench_into(0.0, x, self._inputs, self.model.constants, self._holding)
        return self._holding.tolist()

    @property
    def state(self) -> np.ndarray:
        """The state vector the motion wrench is evaluated on: the compiled control laws write
        the pose (position, quaternion) and the body velocity into its first 13 entries, then
        call :meth:`motion_wrench_of_state` (control_kernel.py)."""
        return self._state

    def motion_wrench_of_state(self) -> np.ndarray:
        """:meth:`motion_wrench` of the pose and velocity already written into :attr:`state`, as
        the kept array it is written into (valid until the next call)."""
        h100_dynamics.holding_wrench_into(0.0, self._state, self._inputs, self.model.constants, self._holding)
        return self._holding

    def linearize(self, depth: float, nu_operating) -> Tuple[np.ndarray, np.ndarray]:
        """(A, B) of the 12 states (position, small rotation, LocalVel, Omega) about the level
        pose at ``depth``, heading north, moving at ``nu_operating``, with the body wrench as
        the input (the library's ExternalForce / ExternalMoment, equal to a body wrench at
        that pose): the linearisation an LQR design wants."""
        x = self.model.initial_state(Pos0=(0.0, 0.0, depth))
        x[7:13] = nu_operating
        a, b = self.model.linearize_reduced(x, self.model.inputs())
        n = self.thruster_count
        return a[:12, :12].copy(), b[:12, n:n + 6].copy()

    def axis_reach(self) -> np.ndarray:
        """For each wrench direction alone, the largest magnitude the thrusters could give it if
        nothing else were asked (N, N m): ``sum_i |B_ji| max(k_fwd, k_rev) eta_hat``; a bound
        for the controllers' output limits (the allocation finds what is really reachable)."""
        k = max(self.params.MaxThrustForward, self.params.MaxThrustReverse) * self.efficiency_belief
        return np.abs(self.configuration) @ np.full(self.thruster_count, k)
