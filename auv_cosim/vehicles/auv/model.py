"""The AUV as a Python object: parameters in, derivatives, Jacobians and outputs out. It
implements `auv_cosim.vehicles.protocol.Vehicle`."""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import numpy as np

from . import dynamics
from .authority import dive_authority_warning
from .dynamics import BATTERY, INPUTS, OUTPUTS, STATE
from .forces import drag_per_speed_squared, frontal_area
from .hull import hull_properties_of
from .parameters import AuvParameters, AuvWakeParameters
from ..bathymetry import SeabedParameters, off_grid_problem
from ..environment import Environment
from ..parameters import state_part
from ..linearization import linearize
from ..simulator import held_inputs
from ..waves import WaveParameters
from ..rotation import quaternion_from_euler
from ..wake import SOURCE_SIZE, WAKE_EXCHANGE

def initial_state(Pos0=(0.0, 0.0, 0.0), Quater0=(1.0, 0.0, 0.0, 0.0), LocalVel0=(0.0, 0.0, 0.0),
                  Omega0=(0.0, 0.0, 0.0), Battery0: float = 1.8e6) -> np.ndarray:
    """The 14-state vector. The quaternion is normalised; a zero or non-finite one is refused."""
    given = {"Pos0": Pos0, "Quater0": Quater0, "LocalVel0": LocalVel0, "Omega0": Omega0,
             "Battery0": Battery0}
    arrays = {}
    for signal in STATE:
        name = signal.name + "0"
        arrays[name] = np.array(state_part(name, given[name], signal.size))
    norm = float(np.linalg.norm(arrays["Quater0"]))
    if norm < 1e-9:
        raise ValueError(f"Quater0 = {tuple(Quater0)!r} has zero norm: not an attitude")
    if arrays["Battery0"][0] < 0.0:
        raise ValueError(f"Battery0 = {Battery0!r} must not be negative")
    arrays["Quater0"] = arrays["Quater0"] / norm
    return np.concatenate([arrays[signal.name + "0"] for signal in STATE])


def inputs(thrust_power=0.0, rudder_yaw=0.0, rudder_dive=0.0, external_force=(0.0, 0.0, 0.0)):
    """The input vector u in the order of `INPUTS`: ThrustPower, RudderYaw, RudderDive,
    ExternalForce (3)."""
    u = np.zeros(INPUTS.size)
    u[INPUTS.start("ThrustPower")] = thrust_power
    u[INPUTS.start("RudderYaw")] = rudder_yaw
    u[INPUTS.start("RudderDive")] = rudder_dive
    force = INPUTS.start("ExternalForce")
    u[force:force + 3] = external_force
    return u


class AuvModel:
    """The AUV of seed 000/001 with fixed parameters and environment (a `Vehicle`)."""

    STATE = STATE
    INPUTS = INPUTS
    OUTPUTS = OUTPUTS
    #: Values for plots that are not outputs (dynamics.LOCALS): FMU "local" variables.
    LOCALS = dynamics.LOCALS
    #: The compiled derivative with the time first, handed to SciPy as it is.
    derivative_at = staticmethod(dynamics.state_derivative_at)
    #: The same written into an array (`derivative_into(t, x, u, c, xdot)`): the simulator's.
    derivative_into = staticmethod(dynamics.state_derivative_into)
    #: The same with u, c and xdot in one array (`derivative_packed(t, x, work)`,
    #: auv_cosim.vehicles.packed): what the simulator hands SciPy.
    derivative_packed = staticmethod(dynamics.state_derivative_packed)
    #: Among others (docs/physics/environment.md#wakes, auv_cosim.vehicles.wake): up to three of
    #: their wake source rows after the inputs (`GIVEN_INPUTS` values a caller gives:
    #: `wake.with_sources(u, rows)`), held over each step in an array of `INPUT_ARRAY_SIZE`
    #: (`hold_inputs` fills its end at the step's start; `input_problem` words a refused row). The
    #: FMU's WakeSources and its outputs WakeSource and WakeVelocity (EXTRA_OUTPUTS, after the
    #: table's outputs in its array).
    EXTRA_INPUTS = dynamics.EXTRA_INPUTS
    EXTRA_OUTPUTS = dynamics.EXTRA_OUTPUTS
    #: how the FMU declares those ports to a host (auv_cosim.vehicles.wake.WAKE_EXCHANGE)
    EXCHANGES = (WAKE_EXCHANGE,)
    #: Boolean outputs after every other variable: SeabedContact (auv_cosim.vehicles.contact)
    FLAG_OUTPUTS = dynamics.FLAG_OUTPUTS
    GIVEN_INPUTS = dynamics.GIVEN_INPUTS
    INPUT_ARRAY_SIZE = dynamics.INPUT_ARRAY_SIZE
    hold_inputs = staticmethod(dynamics.hold_inputs)
    input_problem = staticmethod(dynamics.input_problem)

    def __init__(self, params: Optional[AuvParameters] = None, env: Optional[Environment] = None,
                 waves: Optional[WaveParameters] = None, wake: Optional[AuvWakeParameters] = None,
                 place: Optional[SeabedParameters] = None):
        self.params = params if params is not None else AuvParameters()
        self.env = env if env is not None else Environment()
        self.waves = waves if waves is not None else WaveParameters()
        self.wake = wake if wake is not None else AuvWakeParameters()
        self.place = place if place is not None else SeabedParameters()
        #: the seabed grid about the origin (auv_cosim.seabed.Seabed), None: the plane of `env`
        self.seabed = self.place.seabed()
        self.constants = dynamics.pack_constants(self.params, self.env, self.waves, self.wake,
                                                 (self.place.OriginLatitude, self.place.OriginLongitude),
                                                 self.seabed)
        self.hull = hull_properties_of(self.params.Length, self.params.Diameter,
                                       self.params.AverageDensity)

    # --- the equations ----------------------------------------------------------------------
    # Without a time: in still water, whatever the sea (the linearisation's trim points are
    # still-water ones); with a time t: at t in this model's waves
    # (docs/physics/environment.md#waves), as SciPy integrates.
    def derivative(self, x, u, t: Optional[float] = None) -> np.ndarray:
        if t is None:
            return dynamics.state_derivative(np.asarray(x, float), np.asarray(u, float), self.constants)
        return dynamics.state_derivative_at(float(t), np.asarray(x, float), np.asarray(u, float), self.constants)

    def state_jacobian(self, x, u, t: Optional[float] = None) -> np.ndarray:
        if t is None:
            return dynamics.state_jacobian(np.asarray(x, float), np.asarray(u, float), self.constants)
        return dynamics.state_jacobian_at(float(t), np.asarray(x, float), np.asarray(u, float), self.constants)

    def input_jacobian(self, x, u, t: Optional[float] = None) -> np.ndarray:
        if t is None:
            return dynamics.input_jacobian(np.asarray(x, float), np.asarray(u, float), self.constants)
        return dynamics.input_jacobian_at(float(t), np.asarray(x, float), np.asarray(u, float), self.constants)

    def linearize(self, x, u) -> Tuple[np.ndarray, np.ndarray]:
        """A = dx'/dx and B = dx'/du at (x, u), from the analytic Jacobians."""
        return linearize(self, x, u)

    def output_vector(self, x, u, t: float = 0.0) -> np.ndarray:
        """The outputs at time t (the AUV's do not depend on it)."""
        return dynamics.output_vector(float(t), np.asarray(x, float), np.asarray(u, float), self.constants)

    def write_outputs(self, x, u, t: float, outputs: np.ndarray, local_values: np.ndarray) -> None:
        """`output_vector` and `local_vector` at time t written into the two float arrays (the
        FMU's refresh after each step: one compiled call, nothing allocated)."""
        dynamics.write_outputs_and_locals(float(t), x, u, self.constants, outputs, local_values)

    def local_vector(self, x, u, t: float = 0.0) -> np.ndarray:
        """The values of `LOCALS` at time t (the sea surface's elevation above the vehicle)."""
        return dynamics.local_vector(float(t), np.asarray(x, float), np.asarray(u, float), self.constants)

    # --- among others (docs/physics/environment.md#wakes) -----------------------------------
    def held_inputs(self, x, u) -> np.ndarray:
        """What the vehicle holds over a step that starts at x with the inputs u (the table's, or
        with the others' rows: `wake.with_sources`): the inputs and the wake block filled as the
        simulator fills it. A malformed row raises ValueError naming it."""
        return held_inputs(self, x, u)

    def wake_source(self, x, held, t: float = 0.0) -> np.ndarray:
        """The row this vehicle publishes at x (docs/physics/environment.md#wake-source,
        `WakeSource[1..15]`): `held` the inputs held over the step just ended with its wake block (a
        simulator's `inputs`, or `held_inputs`; the table's inputs alone: no others' wakes)."""
        return dynamics.wake_outputs(float(t), np.asarray(x, float), np.asarray(held, float),
                                     self.constants)[:SOURCE_SIZE]

    def wake_velocity(self, x, held, t: float = 0.0) -> np.ndarray:
        """The others' wakes at x over the step just ended
        (docs/physics/environment.md#meeting-wakes, `WakeVelocity`, NED): the value held ("Step") or
        the field at x from the held rows ("Evaluation")."""
        return dynamics.wake_outputs(float(t), np.asarray(x, float), np.asarray(held, float),
                                     self.constants)[SOURCE_SIZE:SOURCE_SIZE + 3]

    def outputs(self, x, u) -> Dict[str, object]:
        """The outputs of seed 001 by name: arrays for vectors, floats for scalars."""
        return OUTPUTS.split(self.output_vector(x, u))

    def output_problem(self, outputs: np.ndarray) -> Optional[str]:
        """Why the outputs just written cannot stand, or None: a vehicle over no known seabed
        (off the grid of BathymetryFile, or next to a hole in it) has no SeaDepth to report."""
        if self.seabed is None or np.isfinite(outputs[dynamics.Y_SEA_DEPTH]):
            return None
        return off_grid_problem(self.seabed, outputs[dynamics.Y_POS], outputs[dynamics.Y_POS + 1])

    @staticmethod
    def project_state(x: np.ndarray) -> None:
        """A step that ends just past a flat battery leaves it at zero (its derivative switches
        off there). The quaternion needs nothing: its kinematics restore the unit norm."""
        if x[BATTERY] < 0.0:
            x[BATTERY] = 0.0

    def initial_state(self, **parts) -> np.ndarray:
        """`initial_state` with this vehicle's InitialBattery as the default Battery0."""
        parts.setdefault("Battery0", self.params.InitialBattery)
        return initial_state(**parts)

    def startup_warnings(self, name: str) -> List[str]:
        warning = dive_authority_warning(self.params, self.env.Gravity, name=name)
        return [warning] if warning else []

    # --- operating points -------------------------------------------------------------------
    def hull_drag_per_speed_squared(self) -> float:
        """1/2 rho A_f C_d: the axial hull drag is this times u^2."""
        return drag_per_speed_squared(self.params.Rho, frontal_area(self.params.Diameter),
                                      self.params.AxialDragCoeff)

    def fin_drag_per_speed_squared(self) -> float:
        """Profile drag of both fin planes at zero lift: 2 x 1/2 rho A Cd0."""
        return 2.0 * drag_per_speed_squared(self.params.Rho, self.params.RudderArea,
                                            self.params.RudderCd0)

    def cruise_power(self, speed: float) -> float:
        """The propulsion power that holds `speed` straight and level (drag of hull and fins)."""
        drag = (self.hull_drag_per_speed_squared() + self.fin_drag_per_speed_squared()) * speed ** 2
        return drag / self.params.ThrustPerPower

    def cruise_state(self, speed: float, depth: float = 10.0, heading: float = 0.0) -> np.ndarray:
        """Straight and level at `speed` through still water, wings level, full battery."""
        return initial_state(Pos0=(0.0, 0.0, depth), Quater0=quaternion_from_euler(0.0, 0.0, heading),
                             LocalVel0=(speed, 0.0, 0.0), Battery0=self.params.InitialBattery)
