"""The seabed is solid (auv_cosim/vehicles/contact.py): the penalty force's shape, the AUV stopped
on a sloping seabed, its Jacobian in contact against central differences, and nothing added
clear of the seabed."""
from __future__ import annotations

import math

import numpy as np
import pytest

from auv_cosim.vehicles import Environment
from auv_cosim.vehicles.auv import AuvModel, AuvParameters, initial_state
from auv_cosim.vehicles.auv import dynamics
from auv_cosim.vehicles.contact import (DAMPING, SOFT_LAYER, STIFFNESS, contact_force_ned, contact_ramp,
                                        contact_step)
from auv_cosim.vehicles.simulator import VehicleSimulator

from ..central import central

FLOOR = Environment(SeaFloorDepth=30.0, SeaFloorSlope=(0.05, -0.02))


def test_the_penalty_grows_from_zero_with_a_continuous_slope():
    """ramp and step are C1: no jump in value or slope at first contact or at the soft layer."""
    h = 1e-9
    for f in (contact_ramp, contact_step):
        for at in (0.0, SOFT_LAYER):
            assert f(at + h) == pytest.approx(f(at - h), abs=1e-8)
            slope_in = (f(at + 2 * h) - f(at + h)) / h
            slope_out = (f(at - h) - f(at - 2 * h)) / h
            assert slope_in == pytest.approx(slope_out, abs=1e-3)   # slopes reach 1 (ramp), 150 /m (step)
    assert contact_ramp(-0.1) == 0.0 and contact_step(-0.1) == 0.0
    assert contact_ramp(0.1) == pytest.approx(0.1 - SOFT_LAYER / 2) and contact_step(0.1) == 1.0


def test_the_force_is_along_the_normal_and_damps_the_way_in():
    slope = (0.2, -0.1)
    s = math.sqrt(1 + 0.2 ** 2 + 0.1 ** 2)
    f = contact_force_ned(30.05, (0.0, 0.0, 0.0), 30.0, *slope)
    normal = np.array([0.2, -0.1, -1.0]) / s
    assert np.allclose(np.array(f[4:7]), normal)
    magnitude = STIFFNESS * (0.05 / s - SOFT_LAYER / 2)
    assert np.allclose(f[0:3], magnitude * normal) and f[3] == DAMPING
    sinking = contact_force_ned(30.05, (0.0, 0.0, 0.3), 30.0, *slope)      # going deeper: pushed harder
    assert np.linalg.norm(sinking[0:3]) == pytest.approx(magnitude + DAMPING * 0.3 / s)
    assert contact_force_ned(29.9, (0.0, 0.0, 1.0), 30.0, *slope) == (0.0,) * 7


def _sinking(pos=(10.0, -5.0, 28.0)):
    model = AuvModel(AuvParameters(AverageDensity=1060.0), FLOOR)     # heavy: it sinks
    return model, initial_state(Pos0=pos)


def test_a_heavy_auv_comes_to_rest_on_a_sloping_seabed():
    """Sinking at about 0.3 m/s onto a 5 % slope, it is stopped within 2 cm and stays on the
    seabed (its penetration steady to a millimetre over the last 10 s: with no friction in the
    model it may slide along the slope, never into it)."""
    model, x = _sinking()
    sim = VehicleSimulator(model, x)
    u = np.zeros(model.INPUTS.size)
    out = np.zeros(dynamics.Y_SEABED_CONTACT + 1)
    below = []
    for k in range(600):                                   # 60 s
        state = sim.step(0.1 * k, 0.1 * (k + 1), u)
        dynamics.write_outputs(0.1 * (k + 1), state, u, model.constants, out)
        below.append(state[2] + model.params.Diameter / 2 - (30.0 + 0.05 * state[0] - 0.02 * state[1]))
    assert out[dynamics.Y_SEABED_CONTACT] == 1.0
    assert 0.0 < max(below) < 0.02                         # stopped within 2 cm of the seabed
    assert np.ptp(below[-100:]) < 1e-3                     # and resting on it


def test_clear_of_the_seabed_nothing_is_added():
    model, x = _sinking(pos=(0.0, 0.0, 20.0))
    u = np.zeros(model.INPUTS.size)
    out = np.zeros(dynamics.Y_SEABED_CONTACT + 1)
    dynamics.write_outputs(0.0, x, u, model.constants, out)
    assert out[dynamics.Y_SEABED_CONTACT] == 0.0
    assert dynamics._seabed_contact(x, np.eye(3), model.constants) == (0.0,) * 7


@pytest.mark.parametrize("depth", [30.065, 30.3])  # the seabed 30.16 m there, the keel 0.1 m below: in the soft layer, beyond it
def test_the_jacobian_in_contact_against_central_differences(depth):
    model = AuvModel(AuvParameters(), FLOOR)
    angle = 0.3
    x = initial_state(Pos0=(4.0, 2.0, depth), Quater0=(math.cos(angle / 2), 0.0, math.sin(angle / 2), 0.0),
                      LocalVel0=(1.2, 0.1, 0.25), Omega0=(0.01, -0.02, 0.03), Battery0=1e5)
    u = np.array([30.0, 0.1, -0.1, 0.0, 0.0, 0.0])
    assert dynamics._seabed_contact(x, dynamics.rotation_matrix(x[3:7]), model.constants)[3] > 0.0
    j = dynamics.state_jacobian(x, u, model.constants)
    numeric = central(lambda s: dynamics.state_derivative(s, u, model.constants), x, h=1e-7)
    velocity = slice(dynamics.X_VEL, dynamics.X_VEL + 6)
    assert np.allclose(j[velocity, velocity], numeric[velocity, velocity], rtol=1e-5, atol=1e-4)
