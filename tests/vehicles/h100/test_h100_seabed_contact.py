"""The H100 meets the solid seabed (auv_cosim/vehicles/contact.py, the AUV's force, not a copy):
its frame's lowest point is the bottom of the box of height `Height` centred on the centre of
buoyancy (the box its submerged fraction takes); heavier than the water with its thrusters off,
it sinks onto the seabed and rests there within millimetres; its Jacobian in contact matches
central differences; clear of the seabed nothing is added."""
from __future__ import annotations

import math

import numpy as np
import pytest

from auv_cosim.vehicles.contact import DAMPING, SOFT_LAYER, STIFFNESS
from auv_cosim.vehicles.h100 import H100Model, dynamics
from auv_cosim.vehicles.h100.model import DEFAULT_ENVIRONMENT
from auv_cosim.vehicles.simulator import VehicleSimulator

from ..central import central

FLOOR = 12.0


def _model(vehicle, **params):
    return H100Model(vehicle.params.replace(**params) if params else vehicle.params,
                     DEFAULT_ENVIRONMENT.replace(SeaFloorDepth=FLOOR))


def _lowest(model, x):
    """The frame's lowest point, written out here: O's depth + the vertical of R r_b + Height/2."""
    rotation = dynamics.attitude(x[3:7])
    return x[2] + rotation[2, :] @ np.asarray(model.params.CenterOfBuoyancy, float) + model.params.Height / 2


def _outputs(model, x, u):
    out = np.zeros(model.OUTPUTS.size + dynamics.EXTRA_OUTPUT_SIZE + 1)
    dynamics.output_into(0.0, x, u, model.constants, out)
    return out


def _resting_penetration(net_weight):
    """delta at rest, written out from the force's law: K ramp(delta) = W - B (nothing else acts on
    a frame at rest, level, thrusters off), ramp(d) = d^2 / (2 e) within the soft layer e."""
    ramp = net_weight / STIFFNESS
    return math.sqrt(2.0 * SOFT_LAYER * ramp) if ramp < SOFT_LAYER / 2 else ramp + SOFT_LAYER / 2


@pytest.mark.parametrize("extra_mass, overshoot", [(0.0, 0.003), (2.0, 0.01)])
def test_heavy_with_thrusters_off_it_comes_to_rest_on_the_seabed(vehicle, extra_mass, overshoot):
    """The default H100 is 1 N heavier than the water it displaces (W 132.57 N, B 131.59 N): from
    0.4 m above the seabed it sinks at a few centimetres a second, touches it at 16.7 s, and
    rests 1.0 mm into it (2.6 mm at most on the way). 2 kg heavier (20.6 N) it rests 4.5 mm in
    (8.2 mm at most)."""
    model = _model(vehicle, Mass=vehicle.params.Mass + extra_mass)
    x = model.initial_state(Pos0=(3.0, -2.0, FLOOR - 0.127 - 0.4))
    sim = VehicleSimulator(model, x)
    u = model.inputs()
    below, touching = [], []
    for k in range(600):                                      # 60 s
        x = sim.step(0.1 * k, 0.1 * (k + 1), u)
        below.append(_lowest(model, x) - FLOOR)
        touching.append(_outputs(model, x, u)[-1])
    assert touching[0] == 0.0 and touching[-1] == 1.0
    assert np.array_equal(np.array(touching) == 1.0, np.array(below) > 0.0)   # the output is the frame below it
    assert 0.0 < max(below) < overshoot                       # stopped within millimetres
    weight, buoyancy = model.weight_and_buoyancy()
    assert below[-1] == pytest.approx(_resting_penetration(weight - buoyancy), abs=1e-6)   # and at rest on it
    assert np.ptp(below[-100:]) < 1e-6 and abs(x[9]) < 1e-6
    assert x[0:2] == pytest.approx([3.0, -2.0], abs=1e-6)    # straight down: no moment, no slide on a level seabed


def test_clear_of_the_seabed_nothing_is_added(vehicle):
    model = _model(vehicle)
    x = model.initial_state(Pos0=(0.0, 0.0, FLOOR - 0.2), LocalVel0=(0.1, 0.0, 0.3))
    u = model.inputs()
    assert _outputs(model, x, u)[-1] == 0.0
    assert dynamics.contact_on_frame(x, x[7:13], dynamics.attitude(x[3:7]), model.constants) == (0.0,) * 7
    clear = H100Model(vehicle.params, DEFAULT_ENVIRONMENT.replace(SeaFloorDepth=300.0))
    assert np.array_equal(model.derivative(x, u), clear.derivative(x, u))      # bit for bit


@pytest.mark.parametrize("into", [0.004, 0.05])   # in the soft layer (1 cm), beyond it
def test_the_jacobian_in_contact_against_central_differences(vehicle, into):
    model = _model(vehicle)
    angle = 0.2
    quaternion = (math.cos(angle / 2), math.sin(angle / 2) * 0.6, math.sin(angle / 2) * 0.8, 0.0)
    x = model.initial_state(Pos0=(1.0, 2.0, 0.0), Quater0=quaternion, LocalVel0=(0.2, -0.1, 0.15),
                            Omega0=(0.02, -0.01, 0.03), PropellerSpeed0=[0.1 * (i % 3) for i in range(model.n)])
    x[2] = FLOOR + into - (_lowest(model, x) - x[2])        # the lowest point `into` below the seabed
    u = model.inputs(commands=[0.2] * model.n)
    contact = dynamics.contact_on_frame(x, x[7:13], dynamics.attitude(x[3:7]), model.constants)
    assert contact[3] > 0.0 and (contact[3] == DAMPING) == (into > 0.01)
    j = model.state_jacobian(x, u)
    numeric = central(lambda s: model.derivative(s, u), x, h=1e-7)
    assert np.allclose(j, numeric, rtol=1e-5, atol=2e-4)
    # the contact's damping is in the analytic velocity block: without it the block is off
    clear = H100Model(vehicle.params, DEFAULT_ENVIRONMENT.replace(SeaFloorDepth=300.0))
    assert not np.allclose(clear.state_jacobian(x, u)[7:13, 7:13], numeric[7:13, 7:13], rtol=1e-5, atol=2e-4)


def test_the_controllers_model_meets_no_seabed(vehicle):
    """The control stack's belief (auv_cosim/vehicles/h100/stack/belief.py) knows no seabed: below
    the default environment's 100 m floor its feed-forward and its linearisation are those of
    open water (with the default floor they would hold the contact's thousands of newtons)."""
    from auv_cosim.vehicles.h100.stack.belief import VehicleBelief

    belief = VehicleBelief(vehicle.params)
    nu = [0.2, 0.0, -0.1, 0.0, 0.0, 0.05]
    assert belief.motion_wrench((0.0, 0.0, 150.0), (0.0, 0.0, 0.3), nu) == \
        belief.motion_wrench((0.0, 0.0, 20.0), (0.0, 0.0, 0.3), nu)
    assert np.array_equal(belief.linearize(150.0, np.array(nu))[0], belief.linearize(20.0, np.array(nu))[0])
    floored = H100Model(vehicle.params)                               # the default environment: 100 m
    x = floored.initial_state(Pos0=(0.0, 0.0, 150.0), LocalVel0=nu[0:3], Omega0=nu[3:6])
    assert abs(floored.derivative(x, floored.inputs())[9]) > 100.0    # the contact there, without the belief's water
