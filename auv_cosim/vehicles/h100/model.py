"""The H100 as a Python object: parameters in; derivatives, Jacobians, linearisations, outputs
out. It implements `auv_cosim.vehicles.protocol.Vehicle` (the second vehicle beside the AUV)."""
from __future__ import annotations

from typing import Dict, Optional, Sequence, Tuple

import numpy as np

from ..bathymetry import SeabedParameters, off_grid_problem
from ..environment import Environment
from ..parameters import state_part
from ..rotation import quaternion_rate_matrix
from ..simulator import held_inputs
from ..waves import WaveParameters
from ..wake import WAKE_EXCHANGE, WakeParameters
from . import dynamics
from .configuration import LayoutReport, analyse_layout, describe_direction
from .dynamics import BODY_STATES, input_table, output_table, state_table
from .forces import steady_speed, weight_and_buoyancy
from .parameters import H100Parameters

#: The H100's default water: von Benzon et al. 2022 use g = 9.82 m/s2 (W = 132.57 N,
#: docs/physics/h100.md#parameters).
DEFAULT_ENVIRONMENT = Environment(Gravity=9.82)


def initial_state(n_thrusters: int, Pos0=(0.0, 0.0, 0.0), Quater0=(1.0, 0.0, 0.0, 0.0),
                  LocalVel0=(0.0, 0.0, 0.0), Omega0=(0.0, 0.0, 0.0), PropellerSpeed0=None) -> np.ndarray:
    """The (13 + n)-state vector; the thrusters at rest unless given (each within [-1, 1] of
    full speed). The quaternion is normalised; a zero or non-finite one is refused, naming it."""
    given = {"Pos0": Pos0, "Quater0": Quater0, "LocalVel0": LocalVel0, "Omega0": Omega0,
             "PropellerSpeed0": np.zeros(n_thrusters) if PropellerSpeed0 is None else PropellerSpeed0}
    arrays = {}
    for signal in state_table(n_thrusters):
        name = signal.name + "0"
        arrays[name] = np.array(state_part(name, given[name], signal.size))
    norm = float(np.linalg.norm(arrays["Quater0"]))
    if norm < 1e-9:
        raise ValueError(f"Quater0 = {tuple(Quater0)!r} has zero norm: not an attitude")
    for i, speed in enumerate(arrays["PropellerSpeed0"]):
        # a fraction of full speed, as the commands it follows (clamped to [-1, 1])
        if not -1.0 <= speed <= 1.0:
            raise ValueError(f"PropellerSpeed0[{i + 1}] = {float(speed)!r} must be within [-1, 1]: "
                             f"a fraction of the propeller's full speed")
    arrays["Quater0"] = arrays["Quater0"] / norm
    return np.concatenate([arrays[signal.name + "0"] for signal in state_table(n_thrusters)])


class H100Model:
    """The H100 (docs/physics/h100.md) with fixed parameters, environment and sea (a `Vehicle`).

    Its tables (STATE, INPUTS, OUTPUTS) depend on the number of thrusters: each instance has
    them; `for_thrusters(n)` gives a subclass that has them as class attributes too, which the
    FMU slave (built for one vehicle file) reads before any instance exists.
    """

    #: The compiled derivative with the time first, handed to SciPy as it is.
    derivative_at = staticmethod(dynamics.state_derivative)
    #: The same written into an array (`derivative_into(t, x, u, c, xdot)`): the simulator's.
    derivative_into = staticmethod(dynamics.state_derivative_into)
    #: One communication step with the propeller lag solved in closed form (the commands are
    #: held, the lag is linear): the simulator integrates the rigid body's 13 states with
    #: `step_derivative_into`, the thrusters' impulse taken out of the velocity, and rebuilds
    #: the whole state with `state_after_step` (auv_cosim.vehicles.h100.dynamics, the comment above
    #: step_held_size). The integrator then never sees the propellers' transient nor a
    #: propeller reversing, and takes a station-keeping step whole: 7 evaluations of DOPRI5
    #: where the lag integrated took 19 to 23 of DOPRI5 or DOP853 (benchmarks/bench_h100.py).
    step_derivative_into = staticmethod(dynamics.step_derivative_into)
    #: The same with held, c and ydot in one array (auv_cosim.vehicles.packed): what the simulator
    #: hands SciPy.
    step_derivative_packed = staticmethod(dynamics.step_derivative_packed)
    hold_step = staticmethod(dynamics.step_held)
    integrated_size = BODY_STATES
    #: SciPy's DOPRI5 (the AUV's) at rtol 2e-5 instead of the AUV's 1e-4: with the lag solved,
    #: DOPRI5 at 1e-4 drifts 1.4 to 2.1 cm in bench_h100.py's 200 s of manoeuvres in waves (the
    #: 1 cm target); at 2e-5 it stays within 3.6 mm taking 7 to 11.5 evaluations a step, where
    #: DOP853 (8th order, the H100's integrator before this choice) takes 13 at any tolerance,
    #: the fewest a restarted DOP853 step can take.
    INTEGRATOR = "dopri5"
    TOLERANCES = (2e-5, 1e-6)
    #: Among others (docs/physics/environment.md#meeting-wakes, auv_cosim.vehicles.wake): up to
    #: three of their wake source rows after the inputs (`GIVEN_INPUTS` values a caller gives), held
    #: over each step in an array of `INPUT_ARRAY_SIZE` (`hold_inputs` fills its end at the step's
    #: start); the FMU's WakeSources and its output WakeVelocity (EXTRA_OUTPUTS). The H100 casts
    #: nothing.
    EXTRA_INPUTS = dynamics.EXTRA_INPUTS
    EXTRA_OUTPUTS = dynamics.EXTRA_OUTPUTS
    #: Boolean outputs after every other variable: SeabedContact (auv_cosim.vehicles.contact)
    FLAG_OUTPUTS = dynamics.FLAG_OUTPUTS
    #: how the FMU declares those ports to a host (its input alone: auv_cosim.vehicles.wake)
    EXCHANGES = (WAKE_EXCHANGE,)
    hold_inputs = staticmethod(dynamics.hold_inputs)

    def __init__(self, params: H100Parameters, env: Optional[Environment] = None,
                 waves: Optional[WaveParameters] = None, wake: Optional[WakeParameters] = None,
                 place: Optional[SeabedParameters] = None):
        self.params = params
        self.env = env if env is not None else DEFAULT_ENVIRONMENT
        self.waves = waves if waves is not None else WaveParameters()
        self.wake = wake if wake is not None else WakeParameters()
        self.place = place if place is not None else SeabedParameters()
        #: the seabed grid about the origin (auv_cosim.seabed.Seabed), None: SeaFloorDepth
        self.seabed = self.place.seabed()
        self.n = params.thruster_count
        self.constants = dynamics.pack_constants(params, self.env, self.waves, self.wake,
                                                 (self.place.OriginLatitude, self.place.OriginLongitude),
                                                 self.seabed)
        self.STATE = state_table(self.n)
        self.INPUTS = input_table(self.n)
        self.OUTPUTS = output_table(self.n)
        self.GIVEN_INPUTS = dynamics.given_inputs(self.n)
        self.INPUT_ARRAY_SIZE = dynamics.input_array_size(self.n)
        self.output_layout = self.OUTPUTS.layout
        self.held_size = dynamics.step_held_size(self.n)

    @classmethod
    def for_thrusters(cls, n: int) -> type:
        """A subclass whose class attributes STATE, INPUTS, OUTPUTS (and the sizes of the held
        inputs) are those of n thrusters."""
        return type(f"{cls.__name__}{n}", (cls,), {
            "STATE": state_table(n), "INPUTS": input_table(n), "OUTPUTS": output_table(n),
            "GIVEN_INPUTS": dynamics.given_inputs(n), "INPUT_ARRAY_SIZE": dynamics.input_array_size(n)})

    def input_problem(self, code: int, u) -> str:
        """The words of a `hold_inputs` code: which row and element of WakeSources is malformed."""
        return dynamics.input_problem(code, u, self.n)

    def held_inputs(self, x, u) -> np.ndarray:
        """What the vehicle holds over a step that starts at x with the inputs u (the table's, or
        with the others' rows: `wake.with_sources`): the inputs and the wake block filled as the
        simulator fills it. A malformed row raises ValueError naming it."""
        return held_inputs(self, x, u)

    def wake_velocity(self, x, held, t: float = 0.0) -> np.ndarray:
        """The others' wakes at x over the step just ended
        (docs/physics/environment.md#meeting-wakes, `WakeVelocity`, NED)."""
        return dynamics.wake_velocity_now(float(t), np.asarray(x, float), np.asarray(held, float),
                                          self.constants)

    # --- sizes and vectors -------------------------------------------------------------------
    @property
    def state_size(self) -> int:
        return BODY_STATES + self.n

    @property
    def input_size(self) -> int:
        return self.n + 6

    def initial_state(self, **parts) -> np.ndarray:
        """The state from its parts (Pos0, Quater0, LocalVel0, Omega0, PropellerSpeed0)."""
        return initial_state(self.n, **parts)

    def project_state(self, x: np.ndarray) -> None:
        """Nothing to do: the quaternion's norm-restoring term keeps it on the unit sphere, R is
        built from q/|q| in between, and the propeller speeds stay within their commands."""

    def state_after_step(self, y, held, t: float) -> np.ndarray:
        """The whole state at t from the integrator's 13 states y of the step `held` (see
        step_derivative_into): the velocity with the thrusters' share put back, the propeller
        speeds from their lag's closed form."""
        x = np.empty(self.state_size)   # filled by compiled code: no array handed back to Python
        dynamics.step_end_state_into(y, held, float(t), self.constants, x)
        return x

    def startup_warnings(self, name: str):
        """A layout that cannot produce every wrench is legal: say which ones it cannot."""
        report = self.layout()
        if report.fully_actuated:
            return []
        lost = "; ".join(describe_direction(row) for row in report.unreachable)
        return [f"{name}: the thruster layout has rank {report.rank} < 6 (singular values "
                f"{', '.join(f'{v:.3g}' for v in report.singular_values)}): it cannot produce {lost}"]

    def inputs(self, commands: Optional[Sequence[float]] = None, external_force=(0.0, 0.0, 0.0),
               external_moment=(0.0, 0.0, 0.0)) -> np.ndarray:
        """u = [ThrusterCommand (n), ExternalForce (3, NED), ExternalMoment (3, NED)]."""
        commands = np.zeros(self.n) if commands is None else np.asarray(commands, dtype=float)
        if commands.shape != (self.n,):
            raise ValueError(f"{self.n} thruster commands expected, got {commands!r}")
        return np.concatenate([commands, np.asarray(external_force, float), np.asarray(external_moment, float)])

    # --- the equations ----------------------------------------------------------------------
    def derivative(self, x, u, t: float = 0.0) -> np.ndarray:
        return dynamics.state_derivative(float(t), np.asarray(x, float), np.asarray(u, float), self.constants)

    def state_jacobian(self, x, u, t: float = 0.0) -> np.ndarray:
        return dynamics.state_jacobian(float(t), np.asarray(x, float), np.asarray(u, float), self.constants)

    def input_jacobian(self, x, u, t: float = 0.0) -> np.ndarray:
        return dynamics.input_jacobian(float(t), np.asarray(x, float), np.asarray(u, float), self.constants)

    def linearize(self, x, u, t: float = 0.0) -> Tuple[np.ndarray, np.ndarray]:
        """A = dx'/dx and B = dx'/du at (x, u), from the analytic Jacobians (full state)."""
        return self.state_jacobian(x, u, t), self.input_jacobian(x, u, t)

    def linearize_reduced(self, x, u, t: float = 0.0) -> Tuple[np.ndarray, np.ndarray]:
        """A and B in minimal attitude coordinates: the state (Pos, delta, LocalVel, Omega,
        propeller speeds), 12 + n, with delta the small rotation vector (body axes) off the
        attitude of x: q = q_x (x) (1, delta/2). So delta' = Omega to first order, and the
        quaternion's norm direction, which no input moves, is gone (what an LQR wants).

        A_r = P A Phi, B_r = P B with Phi = dx/dx_r (the quaternion block T(q_x) = dq/d delta)
        and P its left inverse (the block 4 T(q_x)^T, since T^T T = I/4 for a unit q_x).
        """
        x = np.asarray(x, float).copy()
        x[3:7] /= np.linalg.norm(x[3:7])
        a, b = self.linearize(x, u, t)
        rate = quaternion_rate_matrix(x[3:7])
        phi = np.zeros((self.state_size, self.state_size - 1))
        phi[0:3, 0:3] = np.eye(3)
        phi[3:7, 3:6] = rate
        phi[7:, 6:] = np.eye(self.state_size - 7)
        p = np.zeros((self.state_size - 1, self.state_size))
        p[0:3, 0:3] = np.eye(3)
        p[3:6, 3:7] = 4.0 * rate.T
        p[6:, 7:] = np.eye(self.state_size - 7)
        return p @ a @ phi, p @ b

    def output_vector(self, x, u, t: float = 0.0) -> np.ndarray:
        return dynamics.output_vector(float(t), np.asarray(x, float), np.asarray(u, float), self.constants)

    def output_problem(self, outputs: np.ndarray) -> Optional[str]:
        """Why the outputs just written cannot stand, or None: off the grid of BathymetryFile (or
        next to a hole in it), the vehicle has no altitude to report."""
        if self.seabed is None or np.isfinite(outputs[dynamics.Y_ALTITUDE]):
            return None
        return off_grid_problem(self.seabed, outputs[dynamics.Y_POS], outputs[dynamics.Y_POS + 1])

    def write_outputs(self, x, u, t, outputs, local_values) -> None:
        """`output_vector` written into the FMU's output array (the H100 has no LOCALS); x and u
        float arrays, as the FMU and the simulator hold them."""
        dynamics.output_into(float(t), x, u, self.constants, outputs)

    def outputs(self, x, u, t: float = 0.0) -> Dict[str, object]:
        """The outputs (docs/physics/h100.md#fmu-interface) by name: arrays for vectors, floats for
        scalars."""
        flat = self.output_vector(x, u, t)
        result = {}
        for name, (start, size) in self.output_layout.items():
            if size == 1 and name not in ("Thrust", "PropellerSpeed"):
                result[name] = float(flat[start])
            else:
                result[name] = flat[start:start + size].copy()
        return result

    # --- figures -------------------------------------------------------------------------------
    def layout(self) -> LayoutReport:
        return analyse_layout(self.params.ThrusterPos, self.params.ThrusterDir)

    def weight_and_buoyancy(self) -> Tuple[float, float]:
        """(W, B) in N, fully submerged."""
        p = self.params
        return weight_and_buoyancy(p.Mass, p.Volume, p.Rho, self.env.Gravity)

    def sink_rate(self) -> float:
        """The steady vertical speed (m/s, down positive) with the thrusters off, from
        L_33 w + Qa_333 w^2 = W - B (attitude unchanged: the default body's pure heave)."""
        weight, buoyancy = self.weight_and_buoyancy()
        excess = weight - buoyancy
        linear = self.params.matrix("LinearDamping")[2, 2]
        quadratic = self.params.quadratic_abs_tensor()[2, 2, 2]
        return float(np.sign(excess) * steady_speed(abs(excess), linear, quadratic))

    def rest_state(self, depth: float = 10.0) -> np.ndarray:
        """At rest, level, thrusters stopped, `depth` m down (deep enough to be submerged)."""
        return self.initial_state(Pos0=(0.0, 0.0, depth))

    def restoring_stiffness(self, depth: float = 10.0) -> Tuple[float, float]:
        """(roll, pitch) restoring stiffness at rest, N m/rad: minus the derivative of the
        weight's and buoyancy's moment against a small rotation about body x (y), from the
        linearisation (W z_g - B z_b each, when the CG and CB lie on the vertical through O)."""
        x = self.rest_state(depth)
        a, _ = self.linearize_reduced(x, self.inputs())
        wrench_per_angle = self.params.mass_matrix() @ a[6:12, 3:6]
        return -float(wrench_per_angle[3, 0]), -float(wrench_per_angle[4, 1])


def linearize(params: H100Parameters, state, inputs, environment=None, waves=None,
              t: float = 0.0, reduced: bool = False) -> Tuple[np.ndarray, np.ndarray]:
    """(A, B) = (dx'/dx, dx'/du) of the H100 at the state and inputs given (a trim point).

    Full state (13 + n: Pos, Quater, LocalVel, Omega, propeller speeds) by default; with
    `reduced=True` the attitude is the 3-vector of small body rotations (12 + n states, see
    `H100Model.linearize_reduced`), the form an LQR design wants.
    """
    model = H100Model(params, environment, waves)
    if reduced:
        return model.linearize_reduced(state, inputs, t)
    return model.linearize(state, inputs, t)
