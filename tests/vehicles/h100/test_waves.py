"""Waves (SPEC 8): the kinematics against the closed form, the JONSWAP sea, and the force a
vehicle held still in regular waves feels."""
import math

import numpy as np
import pytest

from auv_cosim.vehicles.h100 import H100Model
from auv_cosim.vehicles.h100.forces import added_mass_coriolis_wrench, damping_wrench, quadratic_damping_terms
from auv_cosim.vehicles.rotation import rotation_matrix
from auv_cosim.vehicles.waves import (
    WaveParameters,
    jonswap_spectrum,
    surface_elevation,
    wave_components,
    wave_kinematics,
)

G = 9.82


def test_regular_wave_velocity_and_acceleration_match_the_closed_form():
    waves = WaveParameters(WaveMode="regular", WaveAmplitude=0.8, WavePeriod=6.0, WaveDirection=0.5)
    rows = wave_components(waves, G)
    w = 2 * math.pi / 6.0
    k = w * w / G
    for t, point in ((0.0, (0, 0, 0)), (3.7, (12.0, -4.0, 2.5)), (11.2, (-30.0, 8.0, 7.0))):
        theta = w * t - k * (point[0] * math.cos(0.5) + point[1] * math.sin(0.5))
        decay = math.exp(-k * point[2])
        velocity, acceleration = wave_kinematics(t, np.array(point, float), rows, 0.5)
        along = w * 0.8 * decay * math.cos(theta)
        assert velocity == pytest.approx([along * math.cos(0.5), along * math.sin(0.5),
                                          w * 0.8 * decay * math.sin(theta)], abs=1e-12)
        along_rate = -w * w * 0.8 * decay * math.sin(theta)
        assert acceleration == pytest.approx([along_rate * math.cos(0.5), along_rate * math.sin(0.5),
                                              w * w * 0.8 * decay * math.cos(theta)], abs=1e-12)
        # the acceleration is the velocity's time derivative
        plus, _ = wave_kinematics(t + 1e-6, np.array(point, float), rows, 0.5)
        minus, _ = wave_kinematics(t - 1e-6, np.array(point, float), rows, 0.5)
        assert (plus - minus) / 2e-6 == pytest.approx(acceleration, abs=1e-7)
        assert surface_elevation(t, point[0], point[1], rows, 0.5) == pytest.approx(0.8 * math.cos(theta))
    # above the mean surface the kinematics are those at the surface
    above, _ = wave_kinematics(1.0, np.array([0.0, 0.0, -0.5]), rows, 0.5)
    at, _ = wave_kinematics(1.0, np.array([0.0, 0.0, 0.0]), rows, 0.5)
    assert above == pytest.approx(at)


def test_jonswap_sea_has_its_significant_height_and_is_seeded():
    waves = WaveParameters(WaveMode="irregular", SignificantWaveHeight=2.0, PeakPeriod=8.0,
                           WaveComponents=200, WaveSeed=7)
    rows = wave_components(waves, G)
    assert rows.shape == (200, 4)
    hs = 4 * math.sqrt(np.sum(rows[:, 0] ** 2) / 2)        # m0 = sum a_i^2 / 2
    assert hs == pytest.approx(2.0, rel=0.03)               # the band 0.5 .. 3 wp holds ~all energy
    wp = 2 * math.pi / 8.0
    assert rows[0, 1] == pytest.approx(0.5 * wp + 0.5 * 2.5 * wp / 200)
    assert np.array_equal(rows, wave_components(waves, G))
    other = wave_components(WaveParameters(**{**waves.__dict__, "WaveSeed": 8}), G)
    assert not np.array_equal(rows[:, 3], other[:, 3])
    assert np.array_equal(rows[:, :3], other[:, :3])
    # gamma = 1 is Pierson-Moskowitz; the DNV normalisation keeps the area close for gamma 3.3
    w = np.linspace(0.2, 5, 20000)
    area = [np.trapezoid(jonswap_spectrum(w, 2.0, 8.0, g), w) for g in (1.0, 3.3)]
    assert area[0] == pytest.approx(area[1], rel=0.03)
    assert WaveParameters().WaveMode == 0 and wave_components(WaveParameters(), G).shape == (0, 4)


@pytest.mark.parametrize("bad, words", [
    (dict(WaveMode="storm"), "WaveMode"),
    (dict(WaveMode=3), "WaveMode"),
    (dict(WaveSeed=1.5), "WaveSeed"),
    (dict(WaveMode="regular", WavePeriod=0.0), "WavePeriod"),
    (dict(WaveMode="irregular", WaveComponents=0), "WaveComponents"),
    (dict(WaveMode="irregular", PeakEnhancement=0.5), "PeakEnhancement"),
    (dict(WaveAmplitude=float("nan")), "WaveAmplitude"),
])
def test_bad_wave_parameters_are_named(bad, words):
    with pytest.raises(ValueError, match=words):
        WaveParameters(**bad)


def test_a_vehicle_held_still_in_regular_waves_feels_the_spec_force(vehicle):
    """SPEC 8: at rest, level and deep, the waves add (rho Vol I + M_A) (R^T a_w, 0) plus the
    Froude-Krylov moment rho Vol r_b x a, and the damping and added-mass Coriolis terms of the
    water's velocity; the total equals the difference of the wrenches with and without waves."""
    p = vehicle.params
    waves = WaveParameters(WaveMode="regular", WaveAmplitude=1.0, WavePeriod=7.0, WaveDirection=0.3)
    still = H100Model(p)
    wavy = H100Model(p, waves=waves)
    x = still.rest_state(depth=3.0)
    u = still.inputs()
    mass = p.mass_matrix()
    added = p.matrix("AddedMass")
    rows = wave_components(waves, G)
    surge = []
    for t in np.linspace(0.0, 7.0, 57):
        velocity, acceleration = wave_kinematics(t, x[0:3], rows, 0.3)
        relative = np.concatenate([-velocity, np.zeros(3)])     # body at rest, level: R = I
        damping = damping_wrench(p.matrix("LinearDamping"), quadratic_damping_terms(
            p.quadratic_abs_tensor(), p.quadratic_signed_tensor()), relative)
        expected = (np.concatenate([p.Rho * p.Volume * acceleration,
                                    p.Rho * p.Volume * np.cross(p.CenterOfBuoyancy, acceleration)])
                    + added @ np.concatenate([acceleration, np.zeros(3)])
                    + damping + added_mass_coriolis_wrench(added, relative))
        felt = mass @ (wavy.derivative(x, u, t)[7:13] - still.derivative(x, u, t)[7:13])
        assert felt == pytest.approx(expected, rel=1e-9, abs=1e-9)
        surge.append(felt[0])
    # for a small ROV the drag of the orbital velocity dominates: the surge force peaks between
    # the drag at the orbital speed U cos(beta) and that drag in quadrature with the inertial
    # force (rho Vol + A11) w U cos(beta), a quarter period apart
    w = 2 * math.pi / 7.0
    speed = w * 1.0 * math.exp(-w * w / G * 3.0) * math.cos(0.3)
    drag = 13.7 * speed + 141.0 * speed ** 2
    inertial = (p.Rho * p.Volume + added[0, 0]) * w * speed
    assert drag < np.max(np.abs(surge)) <= math.hypot(drag, inertial)
    assert drag == pytest.approx(72.6, abs=0.1) and inertial == pytest.approx(11.9, abs=0.1)


def test_the_auv_held_still_in_regular_waves_feels_the_spec_force():
    """SPEC 8 for the AUV (diagonal added mass, origin at the centre of buoyancy): the waves add
    the force (rho Vol I + diag(A11, A22, A33)) R^T a_w and no moment, besides the hydrodynamic
    wrench of the water's velocity; and with WaveMode none nothing changes, bit for bit."""
    from auv_cosim.vehicles.auv import AuvModel
    from auv_cosim.vehicles import Environment, quaternion_from_euler
    from auv_cosim.vehicles.auv import dynamics as auv
    from auv_cosim.vehicles.auv.model import initial_state as auv_state

    waves = WaveParameters(WaveMode="regular", WaveAmplitude=1.0, WavePeriod=7.0, WaveDirection=0.4)
    env = Environment(CurrentVelocity=(0.1, 0.0, 0.0))
    still, wavy = AuvModel(env=env), AuvModel(env=env, waves=waves)
    x = auv_state(Pos0=(3.0, -2.0, 4.0), Quater0=quaternion_from_euler(0.1, -0.05, 0.7))
    u = np.zeros(6)
    c = wavy.constants
    hull = wavy.hull
    added = np.array(wavy.params.AddedMass)
    mass = np.array([hull.mass] * 3 + [hull.inertia_xx, hull.inertia_yy, hull.inertia_yy]) + added
    rotation = rotation_matrix(x[3:7])
    rows = wave_components(waves, env.Gravity)
    for t in np.linspace(0.0, 7.0, 15):
        velocity, acceleration = wave_kinematics(t, x[0:3], rows, 0.4)
        water = rotation.T @ (np.array(env.CurrentVelocity) + velocity)
        still_water = rotation.T @ np.array(env.CurrentVelocity)
        hydro = (np.array(auv.hydrodynamic_wrench(x[7:10] - water, x[10:13], 0.0, 0.0, c))
                 - np.array(auv.hydrodynamic_wrench(x[7:10] - still_water, x[10:13], 0.0, 0.0, c)))
        over_ground = mass * (wavy.derivative_at(t, x, u, c)[7:13] - still.derivative_at(t, x, u, still.constants)[7:13])
        # over ground: M nu' gains the hydrodynamic difference and (rho Vol I + A) R^T a_w;
        # the -omega x v_w term of the relative-velocity form moves with the water's velocity
        turning = np.concatenate([-np.cross(x[10:13], water - still_water), np.zeros(3)]) * mass
        expected = hydro + np.concatenate([(wavy.params.Rho * hull.volume + added[:3]) * (rotation.T @ acceleration),
                                           np.zeros(3)]) + turning
        assert over_ground == pytest.approx(expected, rel=1e-9, abs=1e-9)
    assert np.array_equal(still.constants, auv.pack_constants(still.params, env))
    assert np.array_equal(still.derivative_at(1.0, x, u, still.constants), still.derivative(x, u))
