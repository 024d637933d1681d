"""Thrust allocation of an over-actuated vehicle (docs/physics/h100.md#allocation, Fossen 2021 ch. 11), plain Python.

From a desired body-frame wrench ``tau_d = (X, Y, Z, K, M, N)`` (N, N m) to one force per
thruster ``F_i`` (N) and its command ``c_i`` (the ESC set-point as a fraction of full speed,
[-1, 1]). The layout is given as its configuration matrix ``B`` (6 x n, column i =
``(d_i, r_i x d_i)``), so that ``tau = B F``; the limits as each thruster's largest forward and
reverse force at full speed (``k`` of docs/physics/h100.md#thrusters) and the controller's belief ``eta_hat`` of the
thruster efficiency: ``-eta_hat k_rev <= F_i <= eta_hat k_fwd``.

Two allocators with one interface (``allocate(tau_d) -> Allocation``):

* :class:`PseudoInverseAllocator`, the baseline: the weighted least-norm solution
  ``F = W^-1 B^T (B W^-1 B^T)^+ tau_d`` clipped to the limits. Exact while no thruster
  saturates; a clipped thruster's share is simply lost (the wrench bends).
* :class:`QpAllocator`: the constrained QP of docs/physics/h100.md#allocation,

      min  F^T W F + s^T Q s + rho^T |s|   s.t.  B F = tau_d + s,  lower <= F <= upper,

  solved by DAQP (a dual active-set solver in C, exact to rounding on its active set),
  warm-started: the problem is set up once per layout and each call only moves the wrench
  (the equality's bounds), so DAQP starts from the previous call's active set and a
  slowly-varying wrench is re-solved in one iteration. The slack ``s`` makes every wrench
  admissible: an unreachable ``tau_d`` (beyond the limits, or outside the range of a
  rank-deficient ``B``) degrades gracefully to the nearest reachable wrench in the slack's
  metric, and is reported (:attr:`Allocation.unmet`). The L1 term ``rho^T |s|`` (written
  ``s = s+ - s-``, ``s+- >= 0``) is an exact penalty: once ``rho`` exceeds the equality's
  Lagrange multipliers the optimum has ``s = 0`` exactly whenever ``tau_d`` is reachable, so a
  feasible wrench is reproduced to rounding (a quadratic penalty alone always leaves
  ``s = lambda / 2Q``). The quadratic term ``s^T Q s`` (the allocation's of docs/physics/h100.md#allocation) shares an unreachable
  excess out between degrees of freedom instead of dumping all of it on one. Per degree of
  freedom, ``slack_weights`` scale both: the directions given up first when the thrusters
  cannot do everything are the cheap ones.

Then ``c_i = sgn(F_i) sqrt(|F_i| / (eta_hat k_i))`` (:func:`thrust_to_command`), ``k_i`` the
forward or reverse maximum by the sign of ``F_i``: the inverse of the thruster's quadratic
law at the believed efficiency.

The reachable set of a layout: its rank and the wrench directions it cannot produce at all (the
left null space of ``B``), which seed 004 asks to mark explicitly, is the vehicle library's
:func:`auv_cosim.vehicles.h100.configuration.analyse_matrix` (:attr:`_Allocator.reach`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

import numpy as np

try:
    import daqp
except ImportError:  # pragma: no cover - daqp is a declared dependency
    daqp = None

from ..configuration import RANK_TOLERANCE, analyse_matrix

from . import control_kernel as kernels

WRENCH_NAMES = ("X", "Y", "Z", "K", "M", "N")
#: DAQP's stand-in for an infinite bound
_DAQP_INF = 1e30
#: DAQP constraint sense flags: active, at its lower bound, an equality (immutable | active)
_DAQP_ACTIVE, _DAQP_LOWER, _DAQP_EQUALITY = 1, 2, 5


# ------------------------------------------------------------------------------ commands
def thrust_to_command(forces, max_forward, max_reverse, efficiency_belief: float) -> np.ndarray:
    """``c_i = sgn(F_i) sqrt(|F_i| / (eta_hat k_i))`` clamped to [-1, 1]; a thruster with no
    authority in that direction (``k_i = 0``) gets 0. (Per element in plain Python: for the
    handful of thrusters of a vehicle that is several times faster than numpy's where/errstate.)"""
    eta = float(efficiency_belief)
    forward = (np.broadcast_to(max_forward, np.shape(forces)) * eta).tolist()
    reverse = (np.broadcast_to(max_reverse, np.shape(forces)) * eta).tolist()
    return np.array(_commands_of(np.asarray(forces, dtype=float).tolist(), forward, reverse))


def _commands_of(forces: List[float], forward: List[float], reverse: List[float]) -> List[float]:
    """The commands of the thrusters' forces, ``forward`` / ``reverse`` their believed full-speed
    forces ``eta_hat k``: ``sgn(F) sqrt(|F| / (eta_hat k))``, at most 1; 0 without authority."""
    commands = []
    sqrt = math.sqrt
    for force, k_forward, k_reverse in zip(forces, forward, reverse):
        # the sign's branches written out: one builtin call per thruster instead of four
        if force >= 0.0:
            command = sqrt(force / k_forward) if k_forward > 0.0 else 0.0
            commands.append(command if command < 1.0 else 1.0)
        elif k_reverse > 0.0:
            command = sqrt(-force / k_reverse)
            commands.append(-command if command < 1.0 else -1.0)
        else:
            commands.append(0.0)
    return commands


# ------------------------------------------------------------------------------ result
@dataclass
class Allocation:
    """One allocation: what was asked, what the thrusters will do, what is missing."""
    requested: np.ndarray      # tau_d (6)
    forces: np.ndarray         # F (n), N, within the limits
    commands: np.ndarray       # c (n), in [-1, 1]
    achieved: np.ndarray       # B F (6): the wrench the thrusters produce if the belief is right
    saturated: np.ndarray      # (n) bool: thruster at a limit
    solver_ok: bool = True     # False: the QP solver failed and the clipped pseudo-inverse was used
    iterations: int = 0

    @property
    def unmet(self) -> np.ndarray:
        """``tau_d - B F``: the part of the request the thrusters do not produce."""
        return self.requested - self.achieved

    @property
    def unmet_norm(self) -> float:
        return float(np.linalg.norm(self.unmet))


@dataclass
class ThrustCommand:
    """What a controller needs of an allocation each control period, as Python floats (the
    full record, :class:`Allocation`, costs several numpy arrays per call)."""
    commands: List[float]      # c (n), in [-1, 1]
    achieved: List[float]      # B F (6)
    unmet_norm: float          # |tau_d - B F|
    saturated_count: int       # thrusters at a limit
    solver_ok: bool = True


# ------------------------------------------------------------------------------ allocators
class _Allocator:
    """What both allocators share: the layout, limits, belief and the weighted pseudo-inverse.

    Each allocator's ``_solve(tau) -> (forces, solver_ok, iterations)`` gives the forces as a
    list of floats; :meth:`allocate` (the full record) and :meth:`command` (what a controller
    needs) both finish them with :meth:`_limited`."""

    def __init__(self, configuration: np.ndarray, max_forward, max_reverse, *,
                 efficiency_belief: float = 1.0, thruster_weights: Optional[Sequence[float]] = None):
        self.configuration = _configuration(configuration)
        n = self.configuration.shape[1]
        self.thruster_count = n
        self.max_forward = _per_thruster("max_forward", max_forward, n)
        self.max_reverse = _per_thruster("max_reverse", max_reverse, n)
        if not (math.isfinite(efficiency_belief) and efficiency_belief > 0.0):
            raise ValueError(f"efficiency_belief must be finite and > 0, got {efficiency_belief!r}")
        self.efficiency_belief = float(efficiency_belief)
        weights = np.ones(n) if thruster_weights is None else _per_thruster("thruster_weights", thruster_weights, n)
        if np.any(weights <= 0.0):
            raise ValueError(f"thruster_weights must be > 0, got {weights.tolist()}")
        self.thruster_weights = weights
        self.reach = analyse_matrix(self.configuration)
        self.upper = self.efficiency_belief * self.max_forward
        self.lower = -self.efficiency_belief * self.max_reverse
        #: per thruster (lower, upper) and the believed full-speed forces eta_hat k, Python floats
        self._bounds = list(zip(self.lower.tolist(), self.upper.tolist()))
        self._full_forward = (self.efficiency_belief * self.max_forward).tolist()
        self._full_reverse = (self.efficiency_belief * self.max_reverse).tolist()
        # a force within a nanonewton-per-newton of a limit counts as saturated
        self._saturation_margin = 1e-9 * max(float(np.max(self.upper - self.lower)), 1.0)
        #: per thruster, the open interval of the forces neither clipped nor counted saturated
        self._unsaturated = [(low + self._saturation_margin, high - self._saturation_margin)
                             for low, high in self._bounds]
        b = self.configuration
        w_inv = np.diag(1.0 / weights)
        # weighted least-norm inverse; pinv's cut-off keeps a rank-deficient B well defined
        self.weighted_pseudo_inverse = w_inv @ b.T @ np.linalg.pinv(
            b @ w_inv @ b.T, rcond=RANK_TOLERANCE)

    def _limited(self, forces: List[float]) -> Tuple[List[float], List[bool], List[float]]:
        """(forces clipped to the limits, saturated, commands), in plain Python over the few
        thrusters (numpy's per-call overhead would dominate): a force within
        ``_saturation_margin`` of a limit (or beyond it) is saturated, and clipped to it. A first
        pass settles the usual case, every force clear of its limits, with comparisons alone."""
        for force, (low, high) in zip(forces, self._unsaturated):
            if not low < force < high:
                break
        else:   # the usual case: every force clear of its limits, nothing to clip or to flag
            return forces, [False] * len(forces), _commands_of(forces, self._full_forward, self._full_reverse)
        clipped, saturated = [], []
        margin = self._saturation_margin
        for force, (low, high) in zip(forces, self._bounds):
            if force >= high:
                force = high
            elif force <= low:
                force = low
            clipped.append(force)
            saturated.append(high > low and (force >= high - margin or force <= low + margin))
        return clipped, saturated, _commands_of(clipped, self._full_forward, self._full_reverse)

    def allocate(self, wrench) -> Allocation:
        """The full record of one allocation of the wrench ``tau_d`` (6)."""
        tau = _wrench(wrench)
        forces, solver_ok, iterations = self._solve(tau)
        clipped, saturated, commands = self._limited(forces)
        forces = np.array(clipped)
        return Allocation(requested=np.array(tau), forces=forces, commands=np.array(commands),
                          achieved=self.configuration @ forces, saturated=np.array(saturated),
                          solver_ok=solver_ok, iterations=iterations)

    def command(self, wrench) -> ThrustCommand:
        """The thruster commands for the wrench ``tau_d`` (6), with what of it is unmet: the same
        allocation as :meth:`allocate`, in floats. A float64 array of six goes through the usual
        case compiled (:meth:`_clear_command`) when the allocator has one."""
        if type(wrench) is np.ndarray and wrench.shape == (6,) and wrench.dtype == np.float64:
            fast = self._clear_command(wrench)
            if fast is not None:
                return fast
        tau = _wrench(wrench)
        forces, solver_ok, _ = self._solve(tau)
        clipped, saturated, commands = self._limited(forces)
        achieved = self.configuration.dot(clipped).tolist()
        unmet = math.sqrt(sum([(t - a) * (t - a) for t, a in zip(tau, achieved)]))
        return ThrustCommand(commands, achieved, unmet, saturated.count(True), solver_ok)

    #: whether the least-norm forces, clear of every limit, are this allocator's answer
    #: (:meth:`_clear_command`)
    _least_norm_when_clear = True

    def _clear_command(self, tau: np.ndarray) -> Optional[ThrustCommand]:
        """:meth:`command` of a finite wrench whose least-norm forces are all clear of the limits
        and of the saturation margin (a vehicle holding station or manoeuvring gently, nearly
        every call), compiled (auv_cosim/vehicles/h100/stack/control_kernel.clear_commands and unmet_norm: the
        same operations as :meth:`_limited` and :meth:`command` take there); None when the wrench
        is not finite or a force is not clear: :meth:`command` then takes the general way."""
        if not self._least_norm_when_clear or not math.isfinite(sum(tau.tolist())):
            return None
        forces = self.weighted_pseudo_inverse.dot(tau)
        kept = self._kept
        if kept is None:
            kept = self._kept = (np.array(self._bounds, dtype=float), np.array(self._unsaturated, dtype=float),
                                 np.array(self._full_forward, dtype=float), np.array(self._full_reverse, dtype=float),
                                 np.zeros(self.thruster_count))
        bounds, unsaturated, full_forward, full_reverse, commands = kept
        if kernels.clear_commands(forces, bounds, unsaturated, full_forward, full_reverse, commands) != 2:
            return None
        self._after_clear_solution()
        achieved = self.configuration.dot(forces)
        return ThrustCommand(commands.tolist(), achieved.tolist(), kernels.unmet_norm(tau, achieved), 0, True)

    #: the arrays of :meth:`_clear_command` (made on its first call)
    _kept = None

    def _after_clear_solution(self) -> None:
        """What the allocator remembers of a solution whose forces are all clear (nothing here)."""

    def get_state(self):
        """What the next allocation depends on besides the request (None: nothing)."""
        return None

    def set_state(self, state) -> None:
        pass

    def _pseudo_inverse_forces(self, tau: List[float]) -> List[float]:
        """``W^-1 B^T (B W^-1 B^T)^+ tau`` (unclipped)."""
        return self.weighted_pseudo_inverse.dot(tau).tolist()


class PseudoInverseAllocator(_Allocator):
    """Baseline: ``F = W^-1 B^T (B W^-1 B^T)^+ tau_d``, clipped to the limits."""

    def _solve(self, tau: List[float]):
        return self._pseudo_inverse_forces(tau), True, 0


class QpAllocator(_Allocator):
    """The constrained allocation with slack of docs/physics/h100.md#allocation, solved by DAQP, warm-started.

    ``slack_weights`` (6) set which wrench directions give way first (the cheap ones);
    ``slack_quadratic`` is Q's scale and ``exact_penalty`` rho's. Defaults: the moments are
    weighted by ``1 / L`` with ``L`` the thrusters' mean lever arm about the origin, so a newton
    of force and a newton-metre of moment at the thrusters' own scale cost alike; ``rho`` is a
    hundred times a bound of the equality's multipliers when no thruster saturates,
    ``2 max(W) max(upper, -lower) sqrt(n) / sigma_min`` (``sigma_min`` the smallest non-zero
    singular value of ``B``); ``Q = rho / 1e4``, so that the quadratic term's marginal cost
    ``2 Q s`` stays below the L1 term's ``rho`` for unmet wrenches below 5000 N: the excess of
    one saturated direction is not traded against the others (a larger Q makes the allocation
    bend the reachable directions slightly to gain on the saturated one).

    ``least_norm_first`` (default True): on a rank-6 layout, the least-norm forces are the QP's
    solution whenever they are within the limits, and DAQP is called only when they are not
    (:meth:`_solve`).
    """

    def __init__(self, configuration: np.ndarray, max_forward, max_reverse, *,
                 efficiency_belief: float = 1.0, thruster_weights: Optional[Sequence[float]] = None,
                 slack_weights: Optional[Sequence[float]] = None, exact_penalty: Optional[float] = None,
                 slack_quadratic: Optional[float] = None, least_norm_first: bool = True):
        if daqp is None:  # pragma: no cover
            raise ImportError("QpAllocator needs the 'daqp' package (pip install daqp)")
        super().__init__(configuration, max_forward, max_reverse, efficiency_belief=efficiency_belief,
                         thruster_weights=thruster_weights)
        self.slack_weights = self._default_slack_weights() if slack_weights is None else _positive_vector(
            "slack_weights", slack_weights, 6)
        self.exact_penalty = self._default_exact_penalty() if exact_penalty is None else _positive(
            "exact_penalty", exact_penalty)
        self.slack_quadratic = self.exact_penalty / 1e4 if slack_quadratic is None else _positive(
            "slack_quadratic", slack_quadratic)
        self._setup()
        #: try the least-norm forces before DAQP (see _solve); False: DAQP every time
        self.least_norm_first = bool(least_norm_first) and self.reach.rank == 6
        #: None when every least-norm force within the limits is the QP's optimum; otherwise
        #: the rows that give each equality multiplier of ``tau`` over what the penalty allows
        self._multiplier_check = self._least_norm_multipliers() if self.least_norm_first else None
        #: the compiled usual case (_Allocator._clear_command) is _solve's least-norm shortcut
        self._least_norm_when_clear = self.least_norm_first and self._multiplier_check is None

    def _after_clear_solution(self) -> None:
        """The least-norm shortcut's active set (as _solve sets it): the slacks at zero."""
        self._sense = self._interior_sense

    def _least_norm_multipliers(self) -> Optional[np.ndarray]:
        """Where the least-norm forces ``F`` (rank 6) are within the limits, ``s = 0`` is optimal
        only while each equality multiplier ``lambda = 2 (B W^-1 B^T)^-1 tau`` (from
        ``2 W F = B^T lambda``) stays within what the L1 penalty allows: ``|lambda_i| <= rho
        w_s,i``; beyond it the QP leaves part of the wrench unmet as slack. Over forces within
        the limits, ``|lambda_i| <= sum_j |G_ij| max(-lower_j, upper_j)`` with ``lambda = G F``,
        ``G = 2 (B W^-1 B^T)^-1 B``. When that bound is below the allowance (the default
        ``rho``, a hundred times a bound of the multipliers), the least-norm forces within the
        limits are always the optimum: None. Otherwise (a small ``exact_penalty`` or
        ``slack_weights`` given) the matrix ``M`` with ``M tau = lambda_i / (rho w_s,i)``:
        each call checks ``|M tau| < 1``."""
        b, w_inv = self.configuration, np.diag(1.0 / self.thruster_weights)
        to_multipliers = 2.0 * np.linalg.inv(b @ w_inv @ b.T)
        allowance = self.exact_penalty * self.slack_weights
        largest = np.maximum(-self.lower, self.upper)
        bound = np.abs(to_multipliers @ b) @ largest
        if np.all(bound < allowance * (1.0 - 1e-9)):
            return None
        return to_multipliers / allowance[:, None]

    def _default_slack_weights(self) -> np.ndarray:
        arms = np.linalg.norm(self.configuration[3:], axis=0)   # |r_i x d_i|: each thruster's arm
        arm = float(np.mean(arms)) if np.any(arms > 0.0) else 1.0
        return np.array([1.0, 1.0, 1.0, 1.0 / arm, 1.0 / arm, 1.0 / arm])

    def _default_exact_penalty(self) -> float:
        singular = self.reach.singular_values[: self.reach.rank]
        sigma_min = float(singular[-1]) if len(singular) else 1.0
        force = float(max(np.max(self.upper), np.max(-self.lower), 1.0))
        return 100.0 * 2.0 * float(np.max(self.thruster_weights)) * force * math.sqrt(
            self.thruster_count) / sigma_min

    def _setup(self) -> None:
        n = self.thruster_count
        # variables x = (F, s+, s-); 0.5 x^T H x + f^T x
        hessian = np.diag(np.concatenate([2.0 * self.thruster_weights,
                                          2.0 * self.slack_quadratic * self.slack_weights,
                                          2.0 * self.slack_quadratic * self.slack_weights]))
        linear = np.concatenate([np.zeros(n), self.exact_penalty * self.slack_weights,
                                 self.exact_penalty * self.slack_weights])
        constraint = np.hstack([self.configuration, -np.eye(6), np.eye(6)])   # B F - s+ + s- = tau
        self._bupper = np.concatenate([self.upper, np.full(12, _DAQP_INF), np.zeros(6)])
        self._blower = np.concatenate([self.lower, np.zeros(12), np.zeros(6)])
        self._base_sense = np.concatenate([np.zeros(n + 12), np.full(6, _DAQP_EQUALITY)]).astype(np.intc)
        self._sense = self._base_sense.copy()
        self._bound_count = n + 12
        self._equality_flags = self._base_sense[n + 12:].tolist()
        #: the active set where no force is at a limit and nothing is unmet: the slacks at zero
        self._interior_sense = np.array([0] * n + [_DAQP_ACTIVE | _DAQP_LOWER] * 12 + self._equality_flags,
                                        dtype=np.intc)
        self._model = daqp.Model()
        flag, _ = self._model.setup(hessian, linear, constraint, self._bupper, self._blower, self._base_sense)
        if flag < 0:  # pragma: no cover - H is diagonal positive definite
            raise ValueError(f"thrust allocation QP set-up failed (DAQP flag {flag})")
        # feasibility of the bounds to well below a micronewton: the clip in _limited then
        # moves nothing and the wrench stays exact
        self._model.settings = {"primal_tol": 1e-12}

    def _solve(self, tau: List[float]):
        """The QP's solution for the request ``tau``.

        A fully actuated layout (rank 6) first tries the least-norm forces
        ``F = W^-1 B^T (B W^-1 B^T)^-1 tau``: they reproduce any ``tau``, and when they lie
        strictly within the limits they are the QP's optimum: no bound is active, ``s = 0``
        (``rho`` exceeds the multipliers there, see the class docstring; with a penalty
        given that may not, each call checks: :meth:`_least_norm_multipliers`), and the weighted
        least-norm solution is what remains of the problem. The active set is then the slacks
        at zero (DAQP's own at such a point) and DAQP is not called: a controller holding
        station away from the limits pays a matrix-vector product. (Below rank 6 the slacks'
        multipliers along the unreachable directions are not unique: DAQP always.)

        Otherwise DAQP. The warm start is the previous solution's active set, handed to DAQP
        explicitly (``sense``) rather than left in its workspace: the solve then depends only on
        the request and on :meth:`get_state`, so a restored allocator continues bit for bit."""
        if self.least_norm_first:
            forces = self._pseudo_inverse_forces(tau)
            if self._interior(forces) and (self._multiplier_check is None or self._within_penalty(tau)):
                self._sense = self._interior_sense
                return forces, True, 0
        equalities = self._bound_count
        self._bupper[equalities:] = tau
        self._blower[equalities:] = tau
        self._model.update(bupper=self._bupper, blower=self._blower, sense=self._sense)
        x, _, flag, info = self._model.solve()
        forces = x[: self.thruster_count].tolist()
        if flag < 1 or not math.isfinite(sum(forces)):
            # never leave the vehicle without commands: the baseline, flagged; the next call
            # starts cold (the forces are bounded: their sum overflows only if one is not finite)
            self._sense = self._base_sense.copy()
            return self._pseudo_inverse_forces(tau), False, 0
        self._remember_active_set(info["lam"])
        return forces, True, int(info["iterations"])

    def _within_penalty(self, tau: List[float]) -> bool:
        """Every equality multiplier of ``tau`` strictly below the L1 penalty's allowance (see
        :meth:`_least_norm_multipliers`): nothing of ``tau`` is cheaper left unmet."""
        for ratio in self._multiplier_check.dot(tau).tolist():
            if not -1.0 < ratio < 1.0:
                return False
        return True

    def _interior(self, forces: List[float]) -> bool:
        """Every force strictly within its limits."""
        for force, (low, high) in zip(forces, self._bounds):
            if not low < force < high:
                return False
        return True

    def _remember_active_set(self, multipliers: np.ndarray) -> None:
        """DAQP's sense flags of the active bounds: 1 active at the upper bound (multiplier > 0),
        1 | 2 at the lower one (< 0); the equalities keep theirs."""
        # one pass over the few multipliers in plain Python: four numpy masks on 20 numbers
        # cost several times more
        upper, lower = _DAQP_ACTIVE, _DAQP_ACTIVE | _DAQP_LOWER
        flags = [upper if lam > 0.0 else lower if lam < 0.0 else 0
                 for lam in multipliers[: self._bound_count].tolist()]
        self._sense = np.array(flags + self._equality_flags, dtype=np.intc)

    def get_state(self) -> list:
        """The warm start (the active set), JSON-friendly."""
        return self._sense.tolist()

    def set_state(self, state) -> None:
        sense = np.asarray(state, dtype=np.intc)
        if sense.shape != self._base_sense.shape:
            raise ValueError(f"allocator state has {sense.shape[0]} flags, expected {self._base_sense.shape[0]}")
        self._sense = sense.copy()


# ------------------------------------------------------------------------------ checks
def _configuration(configuration) -> np.ndarray:
    b = np.array(configuration, dtype=float)
    if b.ndim != 2 or b.shape[0] != 6 or b.shape[1] < 1:
        raise ValueError(f"configuration matrix must be 6 x n (n >= 1), got shape {b.shape}")
    if not np.all(np.isfinite(b)):
        raise ValueError("configuration matrix has non-finite entries")
    return b


def _per_thruster(name: str, value, n: int) -> np.ndarray:
    v = np.array(value, dtype=float)
    if v.ndim == 0:
        v = np.full(n, float(v))
    if v.shape != (n,):
        raise ValueError(f"{name} must be a number or {n} numbers (one per thruster), got shape {v.shape}")
    if not np.all(np.isfinite(v)) or np.any(v < 0.0):
        raise ValueError(f"{name} must be finite and >= 0, got {v.tolist()}")
    return v


def _positive_vector(name: str, value, size: int) -> np.ndarray:
    v = np.asarray(value, dtype=float)
    if v.shape != (size,) or not np.all(np.isfinite(v)) or np.any(v <= 0.0):
        raise ValueError(f"{name} must be {size} finite numbers > 0, got {np.asarray(value).tolist()}")
    return v.copy()


def _positive(name: str, value) -> float:
    v = float(value)
    if not (math.isfinite(v) and v > 0.0):
        raise ValueError(f"{name} must be finite and > 0, got {value!r}")
    return v


def _wrench(wrench) -> List[float]:
    """The desired wrench as six Python floats; ValueError naming a missing or non-finite
    component."""
    tau = np.ravel(wrench).tolist() if isinstance(wrench, np.ndarray) else [float(v) for v in wrench]
    if len(tau) != 6:
        raise ValueError(f"desired wrench must have 6 components (X, Y, Z, K, M, N), got {len(tau)}")
    # the sum of six finite numbers is finite unless it overflows: one cheap test in the usual
    # case, the component-wise one (which also lets an overflowing sum through) otherwise
    if not math.isfinite(sum(tau)) and not all(math.isfinite(value) for value in tau):
        bad = [name for name, value in zip(WRENCH_NAMES, tau) if not math.isfinite(value)]
        raise ValueError(f"desired wrench component(s) {', '.join(bad)} not finite: {tau}")
    return tau
