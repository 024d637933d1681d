"""The H100's three controllers: from the navigation estimate and the reference to the desired
body wrench ``tau_d = (X, Y, Z, K, M, N)`` (the thrust allocation turns it into commands).

All three track the same reference (guidance.py: position, velocity, acceleration in NED;
heading, its rate and acceleration; roll and pitch level), read only the estimate, and share
the model feed-forward of :class:`~controllers_fmu.h100.belief.VehicleBelief`: the wrench the
reference motion costs (``M nu_ref' + motion_wrench``) so that feedback only corrects errors.

* :class:`CascadePid` (seed 004 M3): outer loops in NED on position and on the Euler angles
  give the desired velocities, inner loops on the body velocities (controllers_fmu.pid.PID,
  with anti-windup by conditional integration and output limits) give the wrench;
* :class:`Lqr` (M4): the gain of python-control's ``lqr`` on the vehicle library's
  linearisation with integral states, on errors expressed in the heading frame (the model is
  then independent of the heading); the gain is recomputed when the operating point, the
  reference's body velocity, moves by more than ``LqrScheduleStep`` (cached per point);
* :class:`SlidingMode` (M5): Slotine's sliding mode on the Fossen model in body axes, with an
  integral term in the sliding variable (steady current) and a boundary layer (no chattering).

Each has ``wrench(estimate, reference, dt) -> tau_d`` (dt = 0 evaluates without advancing any
state), ``get_state`` / ``set_state``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, List, Sequence, Tuple

import numpy as np

from ..angles import wrap_pi
from ..declare import parameter
from ..pid import PID
from .belief import VehicleBelief
from .frames import Attitude, body_rates, euler_rates, to_body, to_ned
from .guidance import Reference
from .navigation import Estimate

CONTROLLERS = ("pid", "lqr", "smc")


@dataclass
class ControllerConfig:
    """Gains of the three controllers (the field names are the FMU parameter names)."""
    Controller: str = parameter("pid", None, "Controller: 'pid' (cascade PID), 'lqr', 'smc' (sliding mode)")
    ModelFeedForward: bool = parameter(True, None, "Feed the believed model's wrench of the reference motion "
                                                   "forward (all controllers)")
    # cascade PID: outer loops (1/s), inner loops (bandwidth rad/s, integral corner rad/s)
    PositionGain: float = parameter(0.8, "1/s", "Cascade PID: outer position loop gain (desired velocity per "
                                                "metre of error)")
    AttitudeGain: float = parameter(2.0, "1/s", "Cascade PID: outer roll and pitch loop gain")
    HeadingGain: float = parameter(1.2, "1/s", "Cascade PID: outer heading loop gain")
    VelocityBandwidth: float = parameter(3.0, "rad/s", "Cascade PID: inner velocity loops' bandwidth (Kp = M_jj "
                                                       "times it)")
    RateBandwidth: float = parameter(5.0, "rad/s", "Cascade PID: inner angular rate loops' bandwidth")
    VelocityIntegralFrequency: float = parameter(0.5, "rad/s", "Cascade PID: inner velocity loops' integral corner "
                                                               "(Ki = Kp times it)")
    RateIntegralFrequency: float = parameter(0.5, "rad/s", "Cascade PID: inner rate loops' integral corner")
    MaxSpeed: float = parameter(0.8, "m/s", "Cascade PID: limit of the desired velocity (horizontal, and vertical)")
    MaxYawRate: float = parameter(0.8, "rad/s", "Cascade PID: limit of the desired yaw rate")
    # LQR: Bryson's rule, the largest acceptable error of each state and the wrench budget
    LqrPositionError: float = parameter(0.3, "m", "LQR: Bryson weight, acceptable position error")
    LqrAttitudeError: float = parameter(1.0, "rad", "LQR: Bryson weight, acceptable attitude error")
    LqrVelocityError: float = parameter(0.6, "m/s", "LQR: Bryson weight, acceptable velocity error")
    LqrRateError: float = parameter(5.0, "rad/s", "LQR: Bryson weight, acceptable angular rate error")
    LqrIntegralError: float = parameter(0.5, "m.s", "LQR: Bryson weight, acceptable integral of the position "
                                                    "(heading) error")
    LqrWrenchFraction: float = parameter(0.3, "1", "LQR: Bryson weight of the wrench, as a fraction of each axis' "
                                                   "reach")
    LqrScheduleStep: float = parameter(0.05, "m/s", "LQR: change of the operating point (reference body velocity) "
                                                    "that recomputes the gain")
    # sliding mode
    SmcBandwidth: float = parameter(1.0, "rad/s", "Sliding mode: lambda of the sliding surface")
    SmcDamping: float = parameter(3.0, "1/s", "Sliding mode: linear feedback on the sliding variable, "
                                              "K_d = SmcDamping M")
    SmcSwitchingGain: float = parameter(5.0, "N", "Sliding mode: switching gain (moments scaled by the thrusters' "
                                                  "arm)")
    SmcBoundaryLayer: float = parameter(0.1, "m/s", "Sliding mode: boundary layer width of the switching term")
    SmcIntegral: bool = parameter(True, None, "Sliding mode: integral term in the sliding surface")

    def validate(self) -> None:
        if self.Controller not in CONTROLLERS:
            raise ValueError(f"Controller must be one of {', '.join(CONTROLLERS)}; got {self.Controller!r}")
        for name, value in vars(self).items():
            if name in ("Controller", "ModelFeedForward", "SmcIntegral"):
                continue
            v = float(value)
            if not (math.isfinite(v) and v > 0.0):
                raise ValueError(f"{name} must be finite and > 0, got {value!r}")


# ------------------------------------------------------------------------------ shared pieces
# Plain Python floats throughout: six-vectors and 3 x 3 rotations, where a numpy call costs
# more than the arithmetic (frames.py).
def errors(est: Estimate, ref: Reference) -> Tuple[List[float], List[float]]:
    """(position error reference - estimate in NED, attitude error (0 - roll, 0 - pitch,
    wrapped heading error))."""
    p, q = ref.pos, est.pos
    return ([p[0] - q[0], p[1] - q[1], p[2] - q[2]],
            [-est.euler[0], -est.euler[1], wrap_pi(ref.heading - est.euler[2])])


def reference_body_motion(a: Attitude, ref: Reference) -> Tuple[List[float], List[float]]:
    """The reference's velocity and acceleration in the body axes of the estimate's attitude
    ``a``: ``nu_ref = (R^T v_ref, T^-1 (0, 0, psi_ref'))`` and its (frozen-attitude) rate."""
    nu = to_body(a.r, ref.vel) + body_rates(a, (0.0, 0.0, ref.heading_rate))
    acc = to_body(a.r, ref.acc) + body_rates(a, (0.0, 0.0, ref.heading_acc))
    return nu, acc


class _Controller:
    def __init__(self, config: ControllerConfig, belief: VehicleBelief):
        self.config = config
        self.belief = belief
        self.limits = belief.axis_reach()
        self._limit_list = self.limits.tolist()

    def feed_forward(self, est: Estimate, nu_ref: Sequence[float], acc_ref: Sequence[float]) -> List[float]:
        """``M nu_ref' + motion_wrench(pose, nu_ref)``: the wrench that moves the believed vehicle
        along the reference (zero when ModelFeedForward is off)."""
        if not self.config.ModelFeedForward:
            return [0.0] * 6
        return self.belief.mass_times(acc_ref, plus=self.belief.motion_wrench(est.pos, est.euler, nu_ref))

    def _clip(self, tau: Sequence[float]) -> List[float]:
        """Each axis within its reach, ``[-limit, limit]``."""
        return [-limit if t < -limit else limit if t > limit else t for t, limit in zip(tau, self._limit_list)]

    def get_state(self) -> dict:
        return {}

    def set_state(self, state: dict) -> None:
        pass


# ------------------------------------------------------------------------------ cascade PID
class CascadePid(_Controller):
    """Outer: ``v_d = v_ref + PositionGain (p_ref - p)`` (NED, limited to MaxSpeed),
    ``Theta'_d = (0, 0, psi_ref') + (AttitudeGain, AttitudeGain, HeadingGain) * e_Theta``, turned
    into body velocities ``nu_d = (R^T v_d, T^-1 Theta'_d)``. Inner: per body axis a PID on
    ``nu_d - nu`` with ``Kp = M_jj bandwidth``, ``Ki = Kp * integral frequency``, the feed-forward
    as its ``ff`` and the axis' reach as its output limits: the integrators take the current and
    the model error, and hold while the output is saturated."""

    def __init__(self, config: ControllerConfig, belief: VehicleBelief):
        super().__init__(config, belief)
        c, m = config, np.diag(belief.mass_matrix)
        self.loops: List[PID] = []
        for j in range(6):
            bandwidth = c.VelocityBandwidth if j < 3 else c.RateBandwidth
            corner = c.VelocityIntegralFrequency if j < 3 else c.RateIntegralFrequency
            kp = float(m[j]) * bandwidth
            self.loops.append(PID(kp, kp * corner, 0.0, out_min=-self._limit_list[j], out_max=self._limit_list[j]))

    def desired_velocity(self, est: Estimate, ref: Reference, a: Attitude) -> List[float]:
        """The outer loops: ``nu_d`` (body velocity and rates) toward the reference, ``a`` the
        estimate's attitude."""
        c = self.config
        e_pos, e_att = errors(est, ref)
        v_d = [ref.vel[i] + c.PositionGain * e_pos[i] for i in range(3)]
        horizontal = math.hypot(v_d[0], v_d[1])
        if horizontal > c.MaxSpeed:
            scale = c.MaxSpeed / horizontal
            v_d[0] *= scale
            v_d[1] *= scale
        v_d[2] = max(-c.MaxSpeed, min(c.MaxSpeed, v_d[2]))
        yaw_rate = max(-c.MaxYawRate, min(c.MaxYawRate, ref.heading_rate + c.HeadingGain * e_att[2]))
        euler_rate = (c.AttitudeGain * e_att[0], c.AttitudeGain * e_att[1], yaw_rate)
        return to_body(a.r, v_d) + body_rates(a, euler_rate)

    def wrench(self, est: Estimate, ref: Reference, dt: float) -> List[float]:
        a = est.attitude()
        nu_d = self.desired_velocity(est, ref, a)
        ff = self.feed_forward(est, *reference_body_motion(a, ref))
        nu, loops = est.nu, self.loops
        return [loops[j].update(nu_d[j], nu[j], dt, ff[j]) for j in range(6)]

    def get_state(self) -> dict:
        return {"loops": [p.get_state() for p in self.loops]}

    def set_state(self, state: dict) -> None:
        for p, s in zip(self.loops, state["loops"]):
            p.set_state(s)


# ------------------------------------------------------------------------------ LQR
class Lqr(_Controller):
    """State (heading frame, errors estimate - reference): position (3), attitude (roll,
    pitch, heading; 3), body velocity and rates less the reference's (6), the integrals of the
    position and heading errors (4). ``tau = ff - K x`` with K from ``control.lqr`` on the
    linearisation about the level pose moving at the reference's body velocity (Bryson's
    weights from the config), augmented by the integrators. The position error is rotated
    into the heading frame, where the linear model does not depend on the heading.

    The gain is designed once per operating point, the reference's body velocity rounded to
    ``LqrScheduleStep`` (cached: a point met again costs a dictionary look-up)."""

    def __init__(self, config: ControllerConfig, belief: VehicleBelief):
        super().__init__(config, belief)
        self.gains: Dict[Tuple[int, ...], np.ndarray] = {}
        self.integral = [0.0] * 4
        self.depth = 10.0

    def gain(self, nu_operating: Sequence[float]) -> np.ndarray:
        step = self.config.LqrScheduleStep
        key = tuple(int(round(float(v) / step)) for v in nu_operating[0:3])
        k = self.gains.get(key)
        if k is None:
            k = self._design(np.array([key[0] * step, key[1] * step, key[2] * step, 0.0, 0.0, 0.0]))
            self.gains[key] = k
        return k

    def _design(self, nu_operating: np.ndarray) -> np.ndarray:
        import control   # python-control: imported when an LQR is designed, not by the other controllers

        c = self.config
        a12, b12 = self.belief.linearize(max(self.depth, 1.0), nu_operating)
        # augment with the integrals of position (3) and heading (1) errors: z' = (p, psi)
        a = np.zeros((16, 16))
        a[:12, :12] = a12
        a[12:15, 0:3] = np.eye(3)
        a[15, 5] = 1.0
        b = np.zeros((16, 6))
        b[:12] = b12
        state_scale = ([c.LqrPositionError] * 3 + [c.LqrAttitudeError] * 3 + [c.LqrVelocityError] * 3
                       + [c.LqrRateError] * 3 + [c.LqrIntegralError] * 4)
        q = np.diag([1.0 / s ** 2 for s in state_scale])
        r = np.diag(1.0 / (c.LqrWrenchFraction * self.limits) ** 2)
        k, _, _ = control.lqr(a, b, q, r)
        return np.asarray(k)

    def wrench(self, est: Estimate, ref: Reference, dt: float) -> List[float]:
        a = est.attitude()
        e_pos, e_att = errors(est, ref)
        cpsi, spsi = a.cy, a.sy
        # estimate - reference, position in the heading frame
        d_pos = [-(cpsi * e_pos[0] + spsi * e_pos[1]), -(-spsi * e_pos[0] + cpsi * e_pos[1]), -e_pos[2]]
        nu_ref, acc_ref = reference_body_motion(a, ref)
        d_nu = [est.nu[j] - nu_ref[j] for j in range(6)]
        i = self.integral
        integral = [i[0] + dt * d_pos[0], i[1] + dt * d_pos[1], i[2] + dt * d_pos[2], i[3] - dt * e_att[2]]
        x = d_pos + [-e_att[0], -e_att[1], -e_att[2]] + d_nu + integral
        self.depth = est.pos[2]
        feedback = self.gain(nu_ref).dot(x).tolist()
        ff = self.feed_forward(est, nu_ref, acc_ref)
        tau = [ff[j] - feedback[j] for j in range(6)]
        clipped = self._clip(tau)
        if dt > 0.0 and clipped == tau:
            # anti-windup: integrate only while the wrench is not limited
            self.integral = integral
        return clipped

    def get_state(self) -> dict:
        return {"integral": list(self.integral), "depth": float(self.depth)}

    def set_state(self, state: dict) -> None:
        self.integral = [float(v) for v in state["integral"]]
        self.depth = float(state["depth"])


# ------------------------------------------------------------------------------ sliding mode
class SlidingMode(_Controller):
    """Slotine and Li's sliding mode on the Fossen model (Fossen 2021, sec. 16.3): with the
    tracking error ``eta~ = eta - eta_ref`` and its integral,

        nu_r = J^-1 (eta'_ref - 2 L eta~ - L^2 int eta~),   s = nu - nu_r,
        tau = M nu_r' + n(eta, nu_r) - K_d s - K sat(s / phi),

    ``L = SmcBandwidth``, ``K_d = SmcDamping M``, ``K = SmcSwitchingGain`` per axis (scaled to
    the moments by the thrusters' arm), ``phi`` the boundary layer. On ``s = 0`` the error obeys
    ``eta~'' + 2 L eta~' + L^2 eta~ = 0`` (critically damped, whatever the model); off it the
    switching term drives ``s`` to the layer against any bounded model error or current. Without
    SmcIntegral the integral term is dropped (``nu_r = J^-1 (eta'_ref - L eta~)``)."""

    def __init__(self, config: ControllerConfig, belief: VehicleBelief):
        super().__init__(config, belief)
        self.integral = [0.0] * 6
        arm = float(np.mean(np.linalg.norm(belief.configuration[3:], axis=0)))
        self.switching = [config.SmcSwitchingGain * k for k in (1.0, 1.0, 1.0, arm, arm, arm)]

    def wrench(self, est: Estimate, ref: Reference, dt: float) -> List[float]:
        c = self.config
        lam = c.SmcBandwidth
        a = est.attitude()
        r = a.r
        e_pos, e_att = errors(est, ref)
        eta_err = [-e for e in e_pos + e_att]          # estimate - reference
        eta_ref_rate = [ref.vel[0], ref.vel[1], ref.vel[2], 0.0, 0.0, ref.heading_rate]
        eta_ref_acc = [ref.acc[0], ref.acc[1], ref.acc[2], 0.0, 0.0, ref.heading_acc]
        integral = [self.integral[j] + dt * eta_err[j] for j in range(6)]
        # eta~' from the estimate: J nu - eta'_ref
        eta_rate = to_ned(r, est.nu[0:3]) + euler_rates(a, est.nu[3:6])
        eta_err_rate = [eta_rate[j] - eta_ref_rate[j] for j in range(6)]
        if c.SmcIntegral:
            eta_r_rate = [eta_ref_rate[j] - 2.0 * lam * eta_err[j] - lam * lam * integral[j] for j in range(6)]
            eta_r_acc = [eta_ref_acc[j] - 2.0 * lam * eta_err_rate[j] - lam * lam * eta_err[j] for j in range(6)]
        else:
            eta_r_rate = [eta_ref_rate[j] - lam * eta_err[j] for j in range(6)]
            eta_r_acc = [eta_ref_acc[j] - lam * eta_err_rate[j] for j in range(6)]
        nu_r = to_body(r, eta_r_rate[0:3]) + body_rates(a, eta_r_rate[3:6])
        nu_r_dot = to_body(r, eta_r_acc[0:3]) + body_rates(a, eta_r_acc[3:6])
        s = [est.nu[j] - nu_r[j] for j in range(6)]
        # M nu_r' + n(eta, nu_r), then the feedback
        model = self.belief.mass_times(nu_r_dot, plus=self.belief.motion_wrench(est.pos, est.euler, nu_r))
        damping = self.belief.mass_times(s)
        layer = c.SmcBoundaryLayer
        tau = [model[j] - c.SmcDamping * damping[j]
               - self.switching[j] * max(-1.0, min(1.0, s[j] / layer)) for j in range(6)]
        clipped = self._clip(tau)
        if dt > 0.0 and clipped == tau:
            self.integral = integral
        return clipped

    def get_state(self) -> dict:
        return {"integral": list(self.integral)}

    def set_state(self, state: dict) -> None:
        self.integral = [float(v) for v in state["integral"]]


def make_controller(config: ControllerConfig, belief: VehicleBelief) -> _Controller:
    config.validate()
    return {"pid": CascadePid, "lqr": Lqr, "smc": SlidingMode}[config.Controller](config, belief)
