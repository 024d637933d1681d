"""`VehicleSlave` around a toy vehicle (no AUV): what a vehicle must provide to become an FMU,
and what the slave does with it. As Python objects, no FMU build."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pytest
from pythonfmu.enums import Fmi2Status

from auv_cosim.fmu import FmuError, VehicleSlave
from auv_cosim.vehicles import Signal, SignalTable, VehicleSimulator


def declared(default, unit, description, **more):
    return field(default=default, metadata={"unit": unit, "description": description, **more})


@dataclass(frozen=True)
class CartParameters:
    Stiffness: float = declared(4.0, "1/s", "Spring stiffness per unit mass (s^-2 as 1/s here)")
    Damping: float = declared(0.4, "1/s", "Damping per unit mass", variability="tunable")
    Offset: tuple = declared((0.0, 0.0), "m", "Rest position", size=2, labels=("x", "y"))

    def __post_init__(self):
        if not self.Stiffness > 0:
            raise ValueError(f"parameter Stiffness = {self.Stiffness!r} must be positive")


class Cart:
    """x'' = -k (x - x0) - c x' + F; a heading turning at a commanded rate, kept in (-pi, pi]."""

    STATE = SignalTable(Signal("Position", 1, "m", "Position"),
                        Signal("Velocity", 1, "m/s", "Velocity"),
                        Signal("Angle", 1, "rad", "Heading"))
    INPUTS = SignalTable(Signal("Force", 1, "m/s2", "Force per unit mass"),
                         Signal("TurnRate", 1, "rad/s", "Turn rate"))
    OUTPUTS = SignalTable(Signal("Position", 1, "m", "Position"),
                          Signal("Speed", 1, "m/s", "Speed"))

    def __init__(self, params: CartParameters):
        self.params = params
        self.constants = np.array([params.Stiffness, params.Damping, params.Offset[0]])

    @staticmethod
    def derivative_at(t, x, u, c):
        return np.array([x[1], -c[0] * (x[0] - c[2]) - c[1] * x[1] + u[0], u[1]])

    def output_vector(self, x, u, t=0.0):
        return np.array([x[0], abs(x[1])])

    def project_state(self, x):
        x[2] = math.remainder(x[2], 2.0 * math.pi)

    def initial_state(self, Position0, Velocity0, Angle0):
        return np.array([Position0, Velocity0, Angle0], dtype=float)

    def startup_warnings(self, name):
        return [f"{name}: a soft spring"] if self.params.Stiffness < 1.0 else []


class CartSlave(VehicleSlave):
    vehicle_class = Cart
    parameter_classes = (CartParameters,)
    simulator_class = VehicleSimulator
    initial_state_defaults = {"Position0": 0.0, "Velocity0": 0.0, "Angle0": 0.0}


def refs(slave):
    return {v.name: v.value_reference for v in slave.vars.values()}


def started(**values):
    slave = CartSlave(instance_name="cart")
    slave.setup_experiment(0.0)
    slave.enter_initialization_mode()
    r = refs(slave)
    slave.set_real([r[n] for n in values], list(values.values()))
    slave.exit_initialization_mode()
    return slave


def test_the_variables_come_from_the_tables_and_the_declarations():
    slave = CartSlave(instance_name="cart")
    described = [(v.name, v.causality.name, v.variability.name, slave.fmu_meta[v.name]["unit"],
                  v.description) for v in slave.vars.values()]
    assert described == [
        ("Force", "input", "continuous", "m/s2", "Force per unit mass"),
        ("TurnRate", "input", "continuous", "rad/s", "Turn rate"),
        ("Position", "output", "continuous", "m", "Position"),
        ("Speed", "output", "continuous", "m/s", "Speed"),
        ("Stiffness", "parameter", "fixed", "1/s", "Spring stiffness per unit mass (s^-2 as 1/s here)"),
        ("Damping", "parameter", "tunable", "1/s", "Damping per unit mass"),
        ("Offset[1]", "parameter", "fixed", "m", "Rest position: x"),
        ("Offset[2]", "parameter", "fixed", "m", "Rest position: y"),
        ("Position0", "parameter", "fixed", "m", "Initial position"),
        ("Velocity0", "parameter", "fixed", "m/s", "Initial velocity"),
        ("Angle0", "parameter", "fixed", "rad", "Initial heading"),
        ("RelativeTolerance", "parameter", "tunable", "1", "Relative tolerance of the dopri5 integrator"),
        ("AbsoluteTolerance", "parameter", "tunable", "1",
         "Absolute tolerance of the dopri5 integrator (on every state, in its own unit)"),
    ]
    assert slave.fmu_meta["Position"]["depends_on"] == []


def test_the_slave_flies_the_vehicle_and_projects_its_state():
    slave = started(Position0=1.0, RelativeTolerance=1e-10, AbsoluteTolerance=1e-12)
    r = refs(slave)
    assert slave.get_real([r["Position"], r["Speed"]]) == [1.0, 0.0]
    slave.set_real([r["TurnRate"]], [1.0])
    for k in range(40):
        assert slave.do_step(0.1 * k, 0.1)
    omega = math.sqrt(4.0 - 0.04)
    expected = math.exp(-0.8) * (math.cos(omega * 4.0) + 0.2 / omega * math.sin(omega * 4.0))
    assert slave.get_real([r["Position"]])[0] == pytest.approx(expected, abs=1e-8)
    assert slave._sim.state[2] == pytest.approx(4.0 - 2.0 * math.pi, abs=1e-9)   # projected


def test_a_nan_input_fails_the_step_naming_it_and_the_vehicle_stays():
    slave = started(Position0=1.0)
    r = refs(slave)
    slave.set_real([r["TurnRate"]], [math.nan])
    assert slave.do_step(0.0, 0.1) is False
    errors = [m.msg for m in slave.log_queue if m.status == Fmi2Status.error]
    assert "input TurnRate = nan is not finite" in errors[-1]
    assert slave._sim.state[0] == 1.0


def test_a_bad_parameter_fails_initialisation_naming_it_and_warnings_are_logged():
    slave = CartSlave(instance_name="cart")
    slave.setup_experiment(0.0)
    slave.enter_initialization_mode()
    slave.set_real([refs(slave)["Stiffness"]], [-1.0])
    with pytest.raises(FmuError, match="parameter Stiffness = -1.0 must be positive"):
        slave.exit_initialization_mode()
    soft = started(Stiffness=0.5)
    assert [m.msg for m in soft.log_queue if m.status == Fmi2Status.warning] == ["cart: a soft spring"]


def test_a_tunable_parameter_rebuilds_the_vehicle_and_keeps_its_state():
    slave = started(Position0=1.0)
    slave.do_step(0.0, 0.5)
    before = slave._sim.state
    slave.set_real([refs(slave)["Damping"]], [2.0])
    slave.do_step(0.5, 0.0)   # a zero step: the rebuild alone
    assert slave._model.params.Damping == 2.0
    np.testing.assert_array_equal(slave._sim.state, before)


def test_the_inputs_are_the_simulators_input_array_and_survive_a_rebuild():
    """A step copies no input: the input variables are the elements of the array the integrator
    reads (VehicleSimulator.inputs), also after a tunable parameter rebuilt the simulator."""
    slave = started(Position0=1.0)
    r = refs(slave)
    slave.set_real([r["Force"], r["TurnRate"]], [0.5, 0.25])
    assert slave._inputs_now is slave._sim.inputs
    slave.do_step(0.0, 0.1)
    slave.set_real([r["Damping"]], [2.0])
    slave.do_step(0.1, 0.1)   # rebuilt: a new simulator, the same inputs in its array
    assert slave._inputs_now is slave._sim.inputs and slave._sim.inputs.tolist() == [0.5, 0.25]
    assert slave.get_real([r["Force"], r["TurnRate"]]) == [0.5, 0.25]


def test_a_restored_state_continues_bit_for_bit():
    slave = started(Position0=1.0)
    slave.do_step(0.0, 0.5)
    saved = slave._fmu_state_from_bytes(slave._fmu_state_to_bytes(slave._get_fmu_state()))
    slave.do_step(0.5, 0.5)
    after = slave._sim.state
    slave._set_fmu_state(saved)
    slave.do_step(0.5, 0.5)
    np.testing.assert_array_equal(slave._sim.state, after)


def test_a_slave_missing_an_initial_state_default_or_a_dataclass_says_so():
    class NoAngle(CartSlave):
        initial_state_defaults = {"Position0": 0.0, "Velocity0": 0.0}

    with pytest.raises(ValueError, match="initial_state_defaults lacks Angle0"):
        NoAngle(instance_name="x")

    class Plain:
        pass

    class NotDeclared(CartSlave):
        parameter_classes = (Plain,)

    with pytest.raises(TypeError, match="parameter class Plain is not a dataclass"):
        NotDeclared(instance_name="x")
