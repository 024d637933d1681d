"""The vehicle protocol: the AUV implements it, and the simulator and the linearisation take any
vehicle that does (a toy one here, which shares no code with the AUV)."""
import math

import numpy as np
import pytest

from auv_cosim.vehicles.auv import AuvParameters, AuvModel, inputs
from auv_cosim.vehicles import (
    ConstantTable,
    Environment,
    Signal,
    SignalTable,
    Vehicle,
    VehicleSimulator,
    finite_difference_jacobians,
    linearize,
)
from auv_cosim.vehicles.auv import dynamics
from auv_cosim.vehicles.waves import WaveParameters


class Cart:
    """A cart on a spring with a heading angle kept in (-pi, pi] by its projection:
    x = (position, velocity, angle), u = (force, turn rate). Plain Python."""

    STATE = SignalTable(Signal("Position", 1, "m", "Position"),
                        Signal("Velocity", 1, "m/s", "Velocity"),
                        Signal("Angle", 1, "rad", "Heading"))
    INPUTS = SignalTable(Signal("Force", 1, "N", "Force"), Signal("TurnRate", 1, "rad/s", "Turn"))
    OUTPUTS = SignalTable(Signal("Position", 1, "m", "Position"))

    def __init__(self, stiffness=4.0, damping=0.4):
        self.constants = np.array([stiffness, damping])
        self.projections = 0

    @staticmethod
    def derivative_at(t, x, u, c):
        return np.array([x[1], -c[0] * x[0] - c[1] * x[1] + u[0], u[1]])

    def derivative(self, x, u):
        return self.derivative_at(0.0, np.asarray(x, float), np.asarray(u, float), self.constants)

    def state_jacobian(self, x, u):
        return np.array([[0.0, 1.0, 0.0], [-self.constants[0], -self.constants[1], 0.0],
                         [0.0, 0.0, 0.0]])

    def input_jacobian(self, x, u):
        return np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])

    def output_vector(self, x, u, t=0.0):
        return np.array([x[0]])

    def project_state(self, x):
        self.projections += 1
        x[2] = math.remainder(x[2], 2.0 * math.pi)

    def initial_state(self, Position0=0.0, Velocity0=0.0, Angle0=0.0):
        return np.array([Position0, Velocity0, Angle0], dtype=float)

    def startup_warnings(self, name):
        return []


def test_the_auv_and_the_toy_are_vehicles():
    assert isinstance(AuvModel(), Vehicle)
    assert isinstance(Cart(), Vehicle)


def test_the_simulator_takes_any_vehicle_and_projects_after_each_step():
    cart = Cart()
    sim = VehicleSimulator(cart, cart.initial_state(Position0=1.0), rtol=1e-10, atol=1e-12)
    for k in range(40):   # a turn rate of 1 rad/s for 4 s: the angle wraps past pi once
        sim.advance(0.1 * k, 0.1 * (k + 1), [0.0, 1.0])
    assert cart.projections == 40
    assert sim.state[2] == pytest.approx(4.0 - 2.0 * math.pi, abs=1e-9)
    # the undamped-part solution of x'' + c x' + k x = 0 from x(0) = 1
    omega = math.sqrt(4.0 - 0.04)
    expected = math.exp(-0.2 * 4.0) * (math.cos(omega * 4.0) + 0.2 / omega * math.sin(omega * 4.0))
    assert sim.state[0] == pytest.approx(expected, abs=1e-8)


def test_the_simulator_names_the_vehicles_inputs():
    sim = VehicleSimulator(Cart(), np.zeros(3))
    with pytest.raises(ValueError, match="TurnRate"):
        sim.advance(0.0, 0.1, [0.0, math.nan])
    with pytest.raises(ValueError, match=r"2 numbers \('Force', 'TurnRate'\)"):
        sim.advance(0.0, 0.1, [0.0, 1.0, 2.0])


def test_linearize_and_the_finite_difference_reference_agree_for_any_vehicle():
    cart = Cart()
    a, b = linearize(cart, [0.3, 0.1, 0.0], [1.0, 0.0])
    a_fd, b_fd = finite_difference_jacobians(cart, [0.3, 0.1, 0.0], [1.0, 0.0])
    np.testing.assert_allclose(a, a_fd, atol=1e-8)
    np.testing.assert_allclose(b, b_fd, atol=1e-8)


def test_every_auv_output_slot_is_written():
    model = AuvModel(AuvParameters(), Environment(CurrentVelocity=(0.1, 0.2, 0.0)))
    out = model.output_vector(model.cruise_state(1.5), inputs(30.0))
    assert out.shape == (dynamics.OUTPUTS.size,)
    assert np.all(np.isfinite(out))   # output_vector starts from NaN: an unwritten slot shows
    named = model.outputs(model.cruise_state(1.5), inputs(30.0))
    assert list(named) == [s.name for s in dynamics.OUTPUTS]
    assert named["Depth"] == 10.0 and named["SeaDepth"] == 100.0 and named["Altitude"] == 90.0


def test_writing_the_outputs_in_place_gives_the_bits_of_output_vector_and_local_vector():
    for waves in (None, WaveParameters(WaveMode=1)):
        model = AuvModel(AuvParameters(), Environment(CurrentVelocity=(0.1, 0.2, 0.0)), waves)
        x = model.cruise_state(1.5, depth=0.4, heading=0.3)
        u = inputs(30.0, 0.1, -0.05)
        outputs, local_values = np.full(dynamics.OUTPUTS.size, -7.0), np.full(1, -7.0)
        model.write_outputs(x, u, 12.5, outputs, local_values)
        assert outputs.tobytes() == model.output_vector(x, u, 12.5).tobytes()
        assert local_values.tobytes() == model.local_vector(x, u, 12.5).tobytes()
        assert (local_values[0] == 0.0) == (waves is None)


def test_the_constant_table_packs_each_slot_from_its_source():
    params = AuvParameters(RudderArea=0.02, COG=(0.0, 0.0, 0.03))
    env = Environment(CurrentDepthGradient=(0.0, 0.01, 0.0), SeaFloorSlope=(0.1, 0.2))
    c = dynamics.pack_constants(params, env)
    assert c.size == dynamics.CONSTANT_COUNT == dynamics.CONSTANTS.size
    assert c[dynamics.C_RUDDER_AREA] == 0.02
    assert tuple(c[dynamics.C_COG:dynamics.C_COG + 3]) == (0.0, 0.0, 0.03)
    assert tuple(c[dynamics.C_CURRENT_GRADIENT:dynamics.C_CURRENT_GRADIENT + 3]) == (0.0, 0.01, 0.0)
    assert tuple(c[dynamics.C_SEA_FLOOR_SLOPE:dynamics.C_SEA_FLOOR_SLOPE + 2]) == (0.1, 0.2)
    assert c[dynamics.C_INITIAL_BATTERY] == params.InitialBattery
    assert len(set(dynamics.CONSTANTS.names())) == len(dynamics.CONSTANTS.names())


def test_tables_refuse_a_wrong_size_or_a_repeated_name():
    table = ConstantTable()
    table.add("pair", 2, lambda: (1.0, 2.0, 3.0))
    with pytest.raises(ValueError, match="constant pair has 3 values, its slot 2"):
        table.pack()
    with pytest.raises(ValueError, match="Pos declared twice"):
        SignalTable(Signal("Pos", 3, "m", "a"), Signal("Pos", 1, "m", "b"))


def test_the_input_table_is_the_order_of_inputs():
    u = inputs(thrust_power=30.0, rudder_yaw=0.1, rudder_dive=-0.2, external_force=(1.0, 2.0, 3.0))
    names = dynamics.INPUTS.element_names()
    assert dict(zip(names, u)) == {"ThrustPower": 30.0, "RudderYaw": 0.1, "RudderDive": -0.2,
                                   "ExternalForce[1]": 1.0, "ExternalForce[2]": 2.0,
                                   "ExternalForce[3]": 3.0}
