"""The pure force functions, as seed 000 describes them, and the behaviours they produce."""
import math

import numpy as np
import pytest

from auv_cosim.vehicles.auv import AuvParameters, AuvModel, initial_state, inputs, submerged_fraction
from auv_cosim.vehicles import Environment, VehicleSimulator
from auv_cosim.vehicles.auv.foil import lift_coefficient, lift_slope
from auv_cosim.vehicles.auv.forces import (
    DIVE_PLANE,
    YAW_PLANE,
    axial_drag_wrench,
    coriolis_wrench,
    cross_flow_strip_wrench,
    roll_damping_moment,
    rudder_wrench,
    slender_body_lift_wrench,
    thrust_wrench,
)
from auv_cosim.vehicles.auv.hull import submerged_fraction_slope

P = AuvParameters()
SECTIONS = (np.array(P.section_x), np.array(P.section_diameter), np.array(P.section_length))


def _fin(plane, rel_vel, omega, delta):
    return np.array(rudder_wrench(plane, np.asarray(rel_vel, float), np.asarray(omega, float), delta, P.Rho,
                         P.RudderArea, P.RudderAspectRatio, np.array(P.RudderPos), P.RudderClMax,
                         P.RudderAoaMax, P.RudderCd0, P.RudderOswald, P.MaxRudderAngle))


def test_axial_drag_touches_surge_only(rng):
    for _ in range(20):
        w = np.array(axial_drag_wrench(rng.normal(size=3), P.Rho, 0.0314, P.AxialDragCoeff))
        assert np.all(w[1:] == 0.0)
    assert np.all(np.array(axial_drag_wrench(np.array([0.0, 1.0, -2.0]), P.Rho, 0.0314, 0.25)) == 0.0)
    assert axial_drag_wrench(np.array([-1.0, 0, 0]), P.Rho, 0.0314, 0.25)[0] > 0.0


def test_strip_wrench_has_exactly_zero_surge_and_roll(rng):
    for _ in range(20):
        w = np.array(cross_flow_strip_wrench(rng.normal(size=3), rng.normal(size=3), P.Rho, 1.1, *SECTIONS))
        assert w[0] == 0.0 and w[3] == 0.0
        assert np.any(w != 0.0)


def test_strip_wrench_opposes_sideslip_and_damps_yaw_rate():
    w = cross_flow_strip_wrench(np.array([1.5, 0.2, 0.0]), np.zeros(3), P.Rho, 1.1, *SECTIONS)
    assert w[1] < 0.0 and w[5] == pytest.approx(0.0, abs=1e-12)   # symmetric hull: no moment
    w = cross_flow_strip_wrench(np.zeros(3), np.array([0.0, 0.0, 0.3]), P.Rho, 1.1, *SECTIONS)
    assert w[5] < 0.0


def test_submerged_fraction_values_and_c1():
    r = 0.1
    assert submerged_fraction(-r, r) == 0.0
    assert submerged_fraction(0.0, r) == pytest.approx(0.5, abs=1e-15)
    assert submerged_fraction(r, r) == 1.0
    assert submerged_fraction(-5.0, r) == 0.0 and submerged_fraction(5.0, r) == 1.0
    # C1: the slope vanishes at both tangent points and matches finite differences inside
    assert submerged_fraction_slope(-r, r) == 0.0 and submerged_fraction_slope(r, r) == 0.0
    for d in (-0.099999, 0.099999):
        assert submerged_fraction_slope(d, r) < 0.01 * submerged_fraction_slope(0.0, r)
    h = 1e-7
    for d in np.linspace(-0.09, 0.09, 7):
        fd = (submerged_fraction(d + h, r) - submerged_fraction(d - h, r)) / (2 * h)
        assert submerged_fraction_slope(d, r) == pytest.approx(fd, rel=1e-6)


def test_roll_damping_opposes_roll_rate():
    assert roll_damping_moment(0.5, 4.6, 1.0) == pytest.approx(-(4.6 + 0.5) * 0.5)
    assert roll_damping_moment(-0.5, 4.6, 1.0) == pytest.approx((4.6 + 0.5) * 0.5)


def test_thrust_of_an_offset_thruster_has_a_moment():
    w = thrust_wrench(9.0, np.array([-1.0, 0.0, 0.1]))
    assert w[0] == 9.0 and w[4] == pytest.approx(0.9) and w[3] == 0.0


def test_lift_curve_is_odd_peaks_at_aoa_max_and_c1():
    a0 = P.RudderAoaMax
    assert lift_coefficient(a0, 0.8, a0) == pytest.approx(0.8)
    assert lift_slope(a0, 0.8, a0) == pytest.approx(0.0, abs=1e-12)
    for a in np.linspace(-3.0, 3.0, 61):
        assert lift_coefficient(-a, 0.8, a0) == pytest.approx(-lift_coefficient(a, 0.8, a0), abs=1e-12)
    for a in (a0 - 1e-9, a0 + 1e-9, math.pi / 2 - 1e-9, math.pi / 2 + 1e-9, 0.1, 1.0, 2.5):
        h = 1e-7
        fd = (lift_coefficient(a + h, 0.8, a0) - lift_coefficient(a - h, 0.8, a0)) / (2 * h)
        assert lift_slope(a, 0.8, a0) == pytest.approx(fd, abs=1e-5)
    # the seed's lift slope: 0.8 pi/2 / 0.436 per radian near zero
    assert lift_slope(0.0, 0.8, a0) == pytest.approx(2.882, abs=0.001)


def test_fin_signs_at_wrench_level():
    cruise = [1.5, 0.0, 0.0]
    yaw = _fin(YAW_PLANE, cruise, [0, 0, 0], 0.1)
    assert yaw[1] < 0.0 and yaw[5] > 0.0                  # force to port, turn to starboard
    assert yaw[2] == 0.0 and yaw[4] == 0.0                # nothing in the other plane
    dive = _fin(DIVE_PLANE, cruise, [0, 0, 0], 0.1)
    assert dive[2] < 0.0 and dive[4] < 0.0                # force up, nose-down moment
    assert dive[1] == 0.0 and dive[5] == 0.0
    # the stop: commands beyond MaxRudderAngle act like MaxRudderAngle
    assert np.array_equal(_fin(YAW_PLANE, cruise, [0, 0, 0], 1.0),
                          _fin(YAW_PLANE, cruise, [0, 0, 0], P.MaxRudderAngle))
    # no inflow, no force
    assert np.all(_fin(YAW_PLANE, [0, 0, 0], [0, 0, 0], 0.3) == 0.0)


def test_munk_moment_turns_the_hull_broadside():
    w = coriolis_wrench(np.array([1.5, 0.1, 0.0]), np.zeros(3), 64.0, np.array([0.3, 21.5, 21.5]),
                        np.array([3.2, 58.0, 58.0]), np.array([0.1, 19.0, 19.0]))
    assert w[5] == pytest.approx(-(58.0 - 3.2) * 1.5 * 0.1)


def test_slender_lift_uses_the_separated_end():
    ahead = slender_body_lift_wrench(np.array([1.5, 0.1, 0]), np.zeros(3), P.Rho, -1.0, 0.0314, 1.0, 0.0314)
    astern = slender_body_lift_wrench(np.array([-1.5, 0.1, 0]), np.zeros(3), P.Rho, -1.0, 0.0314, 1.0, 0.0314)
    assert ahead[1] < 0 and ahead[5] > 0       # at the tail: weathercock stable
    assert astern[1] < 0 and astern[5] < 0     # at the bow going astern


def _fly(model, u, seconds, x0, step=0.5):
    sim = VehicleSimulator(model, x0)
    for k in range(int(round(seconds / step))):
        sim.advance(k * step, (k + 1) * step, u)
    return sim.state, model.outputs(sim.state, u)


def test_positive_rudder_yaw_turns_to_starboard(neutral_model):
    x0 = neutral_model.cruise_state(1.4, depth=20.0)
    x, out = _fly(neutral_model, inputs(30.0, rudder_yaw=0.1), 5.0, x0)
    assert x[12] > 0.01 and out["Heading"] > 0.02


def test_positive_rudder_dive_pitches_nose_down_and_dives(neutral_model):
    x0 = neutral_model.cruise_state(1.4, depth=20.0)
    x, out = _fly(neutral_model, inputs(30.0, rudder_dive=0.1), 10.0, x0)
    assert out["Pitch"] < -0.05 and out["Depth"] > 20.5


def test_flat_battery_stops_thrust_and_never_goes_negative(model):
    x0 = initial_state(Pos0=(0, 0, 20), LocalVel0=(1.4, 0, 0), Battery0=100.0)
    sim = VehicleSimulator(model, x0)
    u = inputs(60.0)
    batteries = []
    for k in range(40):
        sim.advance(0.1 * k, 0.1 * (k + 1), u)
        batteries.append(sim.state[13])
    assert min(batteries) == 0.0                    # flat after 100 J / 75 W = 1.33 s
    assert all(b >= 0.0 for b in batteries)
    out = model.outputs(sim.state, u)
    assert out["Thrust"] == 0.0 and out["BatteryFraction"] == 0.0
    assert model.derivative(sim.state, u)[13] == 0.0


def test_dead_vehicle_surfaces(model):
    sim = VehicleSimulator(model, initial_state(Pos0=(0, 0, 5.0)))
    depths = []
    for k in range(600):
        sim.advance(float(k), float(k + 1), inputs(0.0))
        depths.append(sim.state[2])
    radius = model.params.Diameter / 2
    assert max(depths[300:]) < radius               # the hull breaks the surface and stays up
    # and bobs about the draught where the displaced water weighs what the vehicle does (the
    # heave at the surface has only quadratic damping: no wave radiation is modelled)
    fraction = submerged_fraction(float(np.mean(depths[300:])), radius)
    assert fraction == pytest.approx(model.params.AverageDensity / model.params.Rho, abs=5e-4)


def test_drifts_with_a_uniform_current():
    current = (0.3, -0.2, 0.0)
    model = AuvModel(AuvParameters(AverageDensity=1025.0), Environment(CurrentVelocity=current))
    x0 = initial_state(Pos0=(0, 0, 20.0), LocalVel0=current)
    x, out = _fly(model, inputs(0.0), 60.0, x0)
    assert out["Pos"][0] == pytest.approx(18.0, abs=1e-6)
    assert out["Pos"][1] == pytest.approx(-12.0, abs=1e-6)
    assert out["Speed"] == pytest.approx(0.0, abs=1e-9)
    assert np.allclose(out["Vel"], current, atol=1e-9)


def test_sheared_current_carries_a_neutral_body_at_the_local_current():
    env = Environment(CurrentVelocity=(0.1, 0.0, 0.0), CurrentDepthGradient=(0.01, 0.0, 0.0))
    model = AuvModel(AuvParameters(AverageDensity=1025.0), env)
    x0 = initial_state(Pos0=(0, 0, 20.0), LocalVel0=(0.3, 0.0, 0.0))
    x, out = _fly(model, inputs(0.0), 30.0, x0)
    assert out["Vel"][0] == pytest.approx(0.3, abs=1e-6)
    assert out["Speed"] == pytest.approx(0.0, abs=1e-6)


def test_external_force_pushes_in_ned(neutral_model):
    # heading 0.8 rad: an east force is resolved into the body frame, no moment
    q = (math.cos(0.4), 0, 0, math.sin(0.4))
    x0 = initial_state(Pos0=(0, 0, 20.0), Quater0=q)
    force = np.array([0.0, 5.0, 0.0])
    xdot = neutral_model.derivative(x0, inputs(0.0, external_force=force))
    body_force = np.array([5.0 * math.sin(0.8), 5.0 * math.cos(0.8), 0.0])
    rigid = neutral_model.hull.mass + np.array(neutral_model.params.AddedMass[:3])
    assert xdot[7:10] == pytest.approx(body_force / rigid, abs=1e-12)
    assert xdot[10:13] == pytest.approx(np.zeros(3), abs=1e-12)
    # heading north: the vehicle is pushed east
    x, out = _fly(neutral_model, inputs(0.0, external_force=force), 5.0, initial_state(Pos0=(0, 0, 20.0)))
    # (the fins' profile drag at the tail yaws it a little)
    assert out["Vel"][1] > 0.1 and abs(out["Vel"][0]) < 1e-3 * out["Vel"][1]


def test_altitude_and_sea_depth_follow_the_seafloor():
    model = AuvModel(AuvParameters(), Environment(SeaFloorDepth=50.0, SeaFloorSlope=(0.1, 0.0)))
    out = model.outputs(initial_state(Pos0=(100.0, 0.0, 12.0)), inputs())
    assert out["SeaDepth"] == pytest.approx(60.0)
    assert out["Altitude"] == pytest.approx(48.0)
