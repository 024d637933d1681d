"""The figures of SPEC 2.4 / seed 001, from the defaults."""
import math

import numpy as np
import pytest

from auv_cosim.vehicles.auv import AuvParameters, AuvModel, hull_properties_of, initial_state, inputs
from auv_cosim.vehicles import Environment, VehicleSimulator
from auv_cosim.vehicles.auv.dynamics import C_RHO, pack_constants
from auv_cosim.vehicles.auv.forces import (
    YAW_PLANE,
    axial_drag_wrench,
    coriolis_jacobian,
    rudder_wrench_jacobian,
    slender_body_lift_jacobian,
    weight_and_buoyancy_wrench,
)
from auv_cosim.vehicles.rotation import quaternion_from_euler, rotation_matrix

P = AuvParameters()
CRUISE = np.array([1.5, 0.0, 0.0])
ZERO = np.zeros(3)


def test_mass_properties():
    hull = hull_properties_of(P.Length, P.Diameter, P.AverageDensity)
    assert hull.mass == pytest.approx(64.088, abs=0.001)
    assert hull.inertia_xx == pytest.approx(0.3204, abs=0.0001)
    assert hull.inertia_yy == pytest.approx(21.52, abs=0.01)
    net_buoyancy = (P.Rho - P.AverageDensity) * hull.volume
    assert net_buoyancy == pytest.approx(0.314, abs=0.001)


def test_hull_drag_at_1p5():
    w = axial_drag_wrench(CRUISE, P.Rho, math.pi * P.Diameter ** 2 / 4, P.AxialDragCoeff)
    assert -w[0] == pytest.approx(9.06, abs=0.005)


def _steady_speed(params):
    model = AuvModel(params, Environment())
    sim = VehicleSimulator(model, initial_state(Pos0=(0, 0, 20), LocalVel0=(1.4, 0, 0)))
    u = inputs(30.0)
    for k in range(30):
        sim.advance(10.0 * k, 10.0 * (k + 1), u)
    return model.outputs(sim.state, u)["Speed"]


def test_steady_speed_at_30W_without_fins():
    assert _steady_speed(AuvParameters(AverageDensity=1025.0, RudderArea=0.0)) == pytest.approx(1.495, abs=0.001)


def test_steady_speed_at_30W_with_default_fins():
    assert _steady_speed(AuvParameters(AverageDensity=1025.0)) == pytest.approx(1.438, abs=0.001)


def test_fin_profile_drag_is_0p33_u_squared(model):
    assert model.fin_drag_per_speed_squared() == pytest.approx(0.33, abs=0.005)


def test_roll_restoring_stiffness_and_critical_damping():
    hull = hull_properties_of(P.Length, P.Diameter, P.AverageDensity)
    roll = 1e-4
    r = rotation_matrix(quaternion_from_euler(roll, 0.0, 0.0))
    w = weight_and_buoyancy_wrench(r, 10.0, hull.mass, hull.volume, hull.radius, P.Rho, 9.81,
                                   np.array(P.COG), 1.0)
    stiffness = -w[3] / roll
    assert stiffness == pytest.approx(12.57, abs=0.01)
    critical = 2.0 * math.sqrt(stiffness * (hull.inertia_xx + P.AddedMass[3]))
    assert critical == pytest.approx(4.6, abs=0.01)
    assert P.RollDampingLinear == pytest.approx(critical, abs=0.01)


def test_munk_moment_derivative():
    j = coriolis_jacobian(CRUISE, ZERO, 64.088, np.array([0.32, 21.5, 21.5]),
                          np.array(P.AddedMass[:3]), np.array(P.AddedMass[3:]))
    assert j[5, 1] == pytest.approx(-82, abs=0.5)      # N_v
    assert j[4, 2] == pytest.approx(82, abs=0.5)       # M_w = (A33 - A11) u


def test_tail_force_derivatives():
    c = pack_constants(P, Environment())
    j = slender_body_lift_jacobian(CRUISE, ZERO, c[C_RHO], -1.0, math.pi * 0.01, 1.0, math.pi * 0.01)
    assert j[5, 1] == pytest.approx(48, abs=0.5)       # N_v
    assert j[5, 5] == pytest.approx(-48, abs=0.5)      # N_r


def test_fin_derivatives():
    j, _ = rudder_wrench_jacobian(YAW_PLANE, CRUISE, ZERO, 0.0, P.Rho, P.RudderArea,
                                  P.RudderAspectRatio, np.array(P.RudderPos), P.RudderClMax,
                                  P.RudderAoaMax, P.RudderCd0, P.RudderOswald, P.MaxRudderAngle)
    assert j[5, 1] == pytest.approx(30, abs=0.5)       # N_v
    assert j[5, 5] == pytest.approx(-26, abs=0.5)      # N_r


def _eigenvalues(model, indices):
    x = model.cruise_state(1.5)
    a, _ = model.linearize(x, inputs(model.cruise_power(1.5)))
    return np.sort(np.linalg.eigvals(a[np.ix_(indices, indices)]).real)


def test_linear_eigenvalues_sway_yaw(model):
    # states v (8) and r (12); yaw angle is a pure integrator
    assert _eigenvalues(model, [8, 12]) == pytest.approx([-1.84, -0.67], abs=0.02)


def test_linear_eigenvalues_heave_pitch(model):
    # states w (9), q (11) and q2 (5), which is half the pitch angle at level attitude
    assert _eigenvalues(model, [9, 11, 5]) == pytest.approx([-1.66, -0.67, -0.19], abs=0.02)


def test_endurance_at_cruise(neutral_model):
    sim = VehicleSimulator(neutral_model, neutral_model.cruise_state(1.438, depth=20.0))
    u = inputs(30.0)
    t, flat_at = 0.0, None
    while t < 40400.0:
        sim.advance(t, t + 100.0, u)
        t += 100.0
        if flat_at is None and sim.state[13] <= 0.0:
            flat_at = t
    assert flat_at == pytest.approx(40000.0, abs=100.0)
    out = neutral_model.outputs(sim.state, u)
    assert out["Battery"] == 0.0 and out["Thrust"] == 0.0
