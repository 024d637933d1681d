"""The H100's three controllers: from the navigation estimate and the reference to the desired
body wrench ``tau_d = (X, Y, Z, K, M, N)`` (the thrust allocation turns it into commands).

All three track the same reference (guidance.py: position, velocity, acceleration in NED;
heading, its rate and acceleration; roll and pitch level), read only the estimate, and share
the model feed-forward of :class:`~auv_cosim.vehicles.h100.stack.belief.VehicleBelief`: the wrench the
reference motion costs (``M nu_ref' + motion_wrench``) so that feedback only corrects errors.

* :class:`CascadePid` (seed 004 M3): outer loops in NED on position and on the Euler angles
  give the desired velocities, inner loops on the body velocities (auv_cosim.stacks.pid.PID,
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

from ....stacks.angles import wrap_pi
from ....stacks.declare import parameter
from ....stacks.filters import lag_coefficient
from ....stacks.pid import PID
from . import control_kernel as kernels
from .belief import VehicleBelief
from .guidance import Reference
from .navigation import Estimate

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
# The laws' arithmetic is compiled (control_kernel.py, one or two calls a step over kept float64
# arrays); the classes keep the configuration, the state (get_state / set_state) and what the
# kernels cannot reproduce bit for bit: numpy's matrix products, math.hypot, Python's round, and
# the vehicle library's motion wrench between two kernels.
class _Controller:
    def __init__(self, config: ControllerConfig, belief: VehicleBelief):
        self.config = config
        self.belief = belief
        self.limits = belief.axis_reach()
        #: the kernels' inputs (kernels.IO_SIZE: estimate, reference, heading error), the motion
        #: wrench's state (the belief's), the desired wrench
        self._io = np.zeros(kernels.IO_SIZE)
        self._x = belief.state
        self._tau = np.zeros(6)
        self._mass = belief.mass_array
        self._diagonal = belief.mass_is_diagonal
        self._feed_forward = bool(config.ModelFeedForward)
        self._no_wrench = np.zeros(6)

    def _load(self, est: Estimate, ref: Reference) -> np.ndarray:
        """The estimate, the reference and the wrapped heading error into the kernels' ``io``."""
        io = self._io
        io[:] = [*est.pos, *est.euler, *est.nu, *ref.pos, *ref.vel, *ref.acc, ref.heading_rate, ref.heading_acc,
                 wrap_pi(ref.heading - est.euler[2])]
        return io

    def _motion_wrench(self) -> np.ndarray:
        """The believed motion wrench at the pose and velocity a kernel wrote into the state
        (``M nu_ref' +`` it is the feed-forward; zero when ModelFeedForward is off)."""
        return self.belief.motion_wrench_of_state() if self._feed_forward else self._no_wrench

    def wrench(self, est: Estimate, ref: Reference, dt: float) -> List[float]:
        """The desired wrench toward the reference, ``dt = 0`` advancing no state."""
        return self.wrench_array(est, ref, dt).tolist()

    def wrench_array(self, est: Estimate, ref: Reference, dt: float) -> np.ndarray:
        """:meth:`wrench` as the controller's kept array (valid until the next call)."""
        raise NotImplementedError

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
    ``M nu_ref' + motion_wrench(pose, nu_ref)`` as its ``ff`` and the axis' reach as its output
    limits: the integrators take the current and the model error, and hold while the output is
    saturated. The loops are auv_cosim.stacks.pid.PID's law (kernels.pid_update), their state
    kept in one array (a row per loop)."""

    def __init__(self, config: ControllerConfig, belief: VehicleBelief):
        super().__init__(config, belief)
        c, m = config, np.diag(belief.mass_matrix)
        limits = self.limits.tolist()
        loops = []
        for j in range(6):
            bandwidth = c.VelocityBandwidth if j < 3 else c.RateBandwidth
            corner = c.VelocityIntegralFrequency if j < 3 else c.RateIntegralFrequency
            kp = float(m[j]) * bandwidth
            loops.append(PID(kp, kp * corner, 0.0, out_min=-limits[j], out_max=limits[j]))
        self._tf = [p.tf for p in loops]
        self._constants = np.zeros((6, kernels.LOOP_CONSTANTS_SIZE))
        for j, p in enumerate(loops):
            if p.wrap:   # pragma: no cover - the body-velocity loops wrap nothing
                raise ValueError("the compiled PID loops do not wrap")
            row = self._constants[j]
            row[kernels.LOOP_KP], row[kernels.LOOP_KI], row[kernels.LOOP_KD] = p.kp, p.ki, p.kd
            row[kernels.LOOP_OUT_MIN], row[kernels.LOOP_OUT_MAX] = p.out_min, p.out_max
            row[kernels.LOOP_I_MIN], row[kernels.LOOP_I_MAX] = p.i_min, p.i_max
            row[kernels.LOOP_I_BAND] = p.i_band
        self._lag_dt = None     # the step length of the derivative filters' coefficients
        self.loop_state = np.zeros((6, kernels.LOOP_STATE_SIZE))
        self._gains = np.array([c.PositionGain, c.AttitudeGain, c.HeadingGain, c.MaxSpeed, c.MaxYawRate], dtype=float)
        self._work = np.zeros(kernels.PID_WORK_SIZE)

    def wrench_array(self, est: Estimate, ref: Reference, dt: float) -> np.ndarray:
        io, x, work = self._load(est, ref), self._x, self._work
        if not kernels.pid_outer(io, self._gains, -1.0, x, work):
            # the speed limit may bind: its norm as CPython computes it
            kernels.pid_outer(io, self._gains, math.hypot(work[21], work[22]), x, work)
        dt = float(dt)
        if dt > 0.0 and dt != self._lag_dt:   # the filters' coefficients, once per step length
            self._lag_dt = dt
            self._constants[:, kernels.LOOP_LAG] = [lag_coefficient(dt, tf) for tf in self._tf]
        kernels.pid_inner(io, work, self._motion_wrench(), self._mass, self._diagonal, self._feed_forward,
                          self.loop_state, self._constants, dt, self._tau)
        return self._tau

    def get_state(self) -> dict:
        """Each loop's state as auv_cosim.stacks.pid.PID.get_state gives it."""
        return {"loops": [{"integral": row[kernels.LOOP_INTEGRAL],
                           "prev_meas": row[kernels.LOOP_PREV_MEAS] if row[kernels.LOOP_HAS_PREV] else None,
                           "deriv": row[kernels.LOOP_DERIV], "last_output": row[kernels.LOOP_LAST_OUTPUT],
                           "saturated": bool(row[kernels.LOOP_SATURATED])}
                          for row in self.loop_state.tolist()]}

    def set_state(self, state: dict) -> None:
        for row, s in zip(self.loop_state, state["loops"]):
            row[kernels.LOOP_INTEGRAL] = float(s["integral"])
            row[kernels.LOOP_HAS_PREV] = 0.0 if s["prev_meas"] is None else 1.0
            row[kernels.LOOP_PREV_MEAS] = 0.0 if s["prev_meas"] is None else float(s["prev_meas"])
            row[kernels.LOOP_DERIV] = float(s["deriv"])
            row[kernels.LOOP_LAST_OUTPUT] = float(s["last_output"])
            row[kernels.LOOP_SATURATED] = 1.0 if s["saturated"] else 0.0


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
        self._integral = np.zeros(4)
        self.depth = 10.0
        self._work = np.zeros(kernels.LQR_WORK_SIZE)
        self._state_vector = np.zeros(16)   # x, an array of its own as numpy made it of a list
        #: the last operating point's body velocity and its gain (looked up before gain())
        self._last_operating, self._last_gain = None, None

    @property
    def integral(self) -> List[float]:
        """The integrals of the position (heading frame) and heading errors."""
        return self._integral.tolist()

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

    def wrench_array(self, est: Estimate, ref: Reference, dt: float) -> np.ndarray:
        io, x, work = self._load(est, ref), self._x, self._work
        dt = float(dt)
        state = self._state_vector
        kernels.lqr_state(io, self._integral, dt, x, state, work)
        self.depth = est.pos[2]
        operating = x[7:10].tolist()
        if operating != self._last_operating:   # (holding station: the same point step after step)
            self._last_operating, self._last_gain = operating, self.gain(operating)
        feedback = self._last_gain.dot(state)
        kernels.lqr_wrench(state, work, feedback, self._motion_wrench(), self._mass, self._diagonal,
                           self._feed_forward, self.limits, dt, self._integral, self._tau)
        return self._tau

    def get_state(self) -> dict:
        return {"integral": self._integral.tolist(), "depth": float(self.depth)}

    def set_state(self, state: dict) -> None:
        self._integral[:] = [float(v) for v in state["integral"]]
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
        self._integral = np.zeros(6)
        arm = float(np.mean(np.linalg.norm(belief.configuration[3:], axis=0)))
        self.switching = [config.SmcSwitchingGain * k for k in (1.0, 1.0, 1.0, arm, arm, arm)]
        self._switching = np.array(self.switching)
        self._work = np.zeros(kernels.SMC_WORK_SIZE)

    @property
    def integral(self) -> List[float]:
        """The integrals of the tracking errors (NED position, Euler angles)."""
        return self._integral.tolist()

    def wrench_array(self, est: Estimate, ref: Reference, dt: float) -> np.ndarray:
        c = self.config
        io, x, work = self._load(est, ref), self._x, self._work
        dt = float(dt)
        kernels.smc_surface(io, self._integral, float(c.SmcBandwidth), bool(c.SmcIntegral), dt, x, work)
        kernels.smc_wrench(work, self.belief.motion_wrench_of_state(), self._mass, self._diagonal,
                           float(c.SmcDamping), self._switching, float(c.SmcBoundaryLayer), self.limits, dt,
                           self._integral, self._tau)
        return self._tau

    def get_state(self) -> dict:
        return {"integral": self._integral.tolist()}

    def set_state(self, state: dict) -> None:
        self._integral[:] = [float(v) for v in state["integral"]]


#: The H100's controllers by the name the FMU's `Controller` parameter takes: the one list of
#: them, which the parameter's check, the warm-up of the compiled kernels, the comparison of the
#: controllers (auv-cosim h100-compare) and the results check read. A new controller is a class
#: of `_Controller` with its gains on `ControllerConfig`, added here (docs/architecture.md).
CONTROLLERS = {"pid": CascadePid, "lqr": Lqr, "smc": SlidingMode}


def make_controller(config: ControllerConfig, belief: VehicleBelief) -> _Controller:
    config.validate()
    return CONTROLLERS[config.Controller](config, belief)
