"""The H100's wrench functions against their formulas (SPEC 7.2, seed 002)."""
import math

import numpy as np
import pytest

from auv_cosim.vehicles.h100.forces import (
    added_mass_coriolis_matrix,
    added_mass_coriolis_wrench,
    damping_matrix,
    damping_wrench,
    external_wrench,
    froude_krylov_wrench,
    inertia_about_origin,
    quadratic_damping_terms,
    restoring_wrench,
    rigid_body_coriolis_wrench,
    rigid_body_mass_matrix,
    submerged_fraction,
    thruster_force,
    thruster_speed_rate,
    thrusters_wrench,
)
from auv_cosim.vehicles.rotation import quaternion_from_euler, rotation_matrix

from .conftest import random_spd


def test_rigid_body_mass_matrix_with_the_cg_off_the_origin(rng):
    m, rg = 13.5, np.array([0.02, -0.01, 0.03])
    ig = random_spd(rng, 3, 0.3)
    m_rb = rigid_body_mass_matrix(m, rg, ig)
    assert m_rb == pytest.approx(m_rb.T)
    assert np.all(np.linalg.eigvalsh(m_rb) > 0)
    # momentum of the body about O: linear m (v + omega x r_g), angular I_g omega + r_g x p
    v, omega = rng.normal(size=3), rng.normal(size=3)
    momentum = m_rb @ np.concatenate([v, omega])
    linear = m * (v + np.cross(omega, rg))
    velocity_of_cg = v + np.cross(omega, rg)
    angular = ig @ omega + np.cross(rg, m * velocity_of_cg)
    assert momentum == pytest.approx(np.concatenate([linear, angular]))
    # the parallel-axis theorem: I_o = I_g + m (|r|^2 I - r r^T)
    assert inertia_about_origin(m, rg, ig) == pytest.approx(ig + m * (rg @ rg * np.eye(3) - np.outer(rg, rg)))


def test_rigid_body_coriolis_does_no_work_and_vanishes_without_rotation(rng):
    m, rg, io = 13.5, rng.normal(scale=0.05, size=3), random_spd(rng, 3, 0.3)
    nu = rng.normal(size=6)
    assert rigid_body_coriolis_wrench(nu, m, rg, io) @ nu == pytest.approx(0.0, abs=1e-12)
    nu[3:] = 0.0
    assert rigid_body_coriolis_wrench(nu, m, rg, io) == pytest.approx(np.zeros(6), abs=1e-15)


def seed_002_full_coriolis(ma, state):
    """buildFullCoriolisMatrix of seed 002, transcribed block by block."""
    def skew3(v):
        return np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
    m11, m12, m21, m22 = ma[:3, :3], ma[:3, 3:], ma[3:, :3], ma[3:, 3:]
    v1, v2 = state[:3], state[3:]
    c = np.zeros((6, 6))
    c[:3, 3:] = -skew3(m11 @ v1 + m12 @ v2)
    c[3:, :3] = -skew3(m11 @ v1 + m12 @ v2)
    c[3:, 3:] = -skew3(m21 @ v1 + m22 @ v2)
    return c


def test_added_mass_coriolis_is_seed_002s_full_matrix(rng):
    for _ in range(10):
        ma = random_spd(rng, 6, 2.0)
        nu = rng.normal(size=6)
        c = added_mass_coriolis_matrix(ma, nu)
        assert c == pytest.approx(seed_002_full_coriolis(ma, nu))
        assert c + c.T == pytest.approx(np.zeros((6, 6)))
        assert added_mass_coriolis_wrench(ma, nu) == pytest.approx(-c @ nu)


def test_munk_moment_of_a_diagonal_added_mass():
    """Surge u with sway v: the yaw moment -(A22 - A11) u v (Fossen's Munk moment)."""
    ma = np.diag([6.36, 7.12, 18.68, 0.189, 0.135, 0.222])
    w = added_mass_coriolis_wrench(ma, np.array([0.8, 0.3, 0, 0, 0, 0]))
    assert w[5] == pytest.approx(-(7.12 - 6.36) * 0.8 * 0.3)


def test_damping_matrix_is_seed_002s_with_positive_coefficients(rng):
    linear = rng.normal(size=36)
    quad_abs = rng.normal(size=216)
    quad = rng.normal(size=216)
    state = rng.normal(size=6)
    seed = np.zeros((6, 6))          # buildDampingMatrix: D(i,j) = -linear - sum(...) (negative convention)
    for i in range(6):
        for j in range(6):
            seed[i, j] = -linear[i * 6 + j]
            for k in range(6):
                seed[i, j] -= quad_abs[i * 36 + j * 6 + k] * abs(state[k]) + quad[i * 36 + j * 6 + k] * state[k]
    d = damping_matrix(linear.reshape(6, 6), quad_abs.reshape(6, 6, 6), quad.reshape(6, 6, 6), state)
    assert d == pytest.approx(-seed)
    terms = quadratic_damping_terms(quad_abs, quad)
    assert terms.shape == (216, 5)    # a dense random tensor: every entry is a term
    assert damping_wrench(linear.reshape(6, 6), terms, state) \
        == pytest.approx(seed @ state)


def test_submerged_fraction_is_a_c1_smoothstep():
    h = 0.254
    assert submerged_fraction(-h / 2 - 1e-9, h) == 0.0
    assert submerged_fraction(0.0, h) == pytest.approx(0.5)
    assert submerged_fraction(h / 2 + 1e-9, h) == 1.0
    assert submerged_fraction(h / 4, h) == pytest.approx(3 * 0.75 ** 2 - 2 * 0.75 ** 3)
    eps = 1e-7
    for edge in (-h / 2, h / 2):     # slope zero at both edges of the box: C1
        assert (submerged_fraction(edge + eps, h) - submerged_fraction(edge - eps, h)) / (2 * eps) \
            == pytest.approx(0.0, abs=1e-5)


def test_restoring_wrench_rights_a_heeled_vehicle():
    rotation = rotation_matrix(quaternion_from_euler(0.1, 0.0, 0.0))
    w = restoring_wrench(rotation, 13.5, 0.0134, 1000.0, 9.82, np.zeros(3), np.array([0, 0, -0.01]), 1.0)
    buoyancy = 1000 * 9.82 * 0.0134
    assert w[3] == pytest.approx(-buoyancy * 0.01 * math.sin(0.1))      # back toward upright
    assert np.linalg.norm(w[:3]) == pytest.approx(13.5 * 9.82 - buoyancy)


def test_thrusters_forward_and_reverse():
    assert thruster_force(1.0, 51.5, 40.2, 1.0) == 51.5
    assert thruster_force(-1.0, 51.5, 40.2, 1.0) == -40.2
    assert thruster_force(0.5, 51.5, 40.2, 0.8) == pytest.approx(0.8 * 51.5 * 0.25)
    assert thruster_speed_rate(3.0, 0.2, 0.1) == pytest.approx((1.0 - 0.2) / 0.1)   # command clamped
    positions = np.array([[0.1, 0.2, 0.0], [0.0, 0.0, 0.3]])
    directions = np.array([[0.0, 0.0, -1.0], [1.0, 0.0, 0.0]])
    w = thrusters_wrench(np.array([2.0, 3.0]), positions, directions)
    assert w == pytest.approx([3.0, 0, -2.0, -0.4, 0.2 + 0.9, 0.0])


def test_external_and_froude_krylov_wrenches():
    rotation = rotation_matrix(quaternion_from_euler(0.0, 0.0, math.pi / 2))   # heading east
    w = external_wrench(rotation, np.array([0.0, 10.0, 0.0]), np.array([0.0, 0.0, 2.0]))
    assert w == pytest.approx([10.0, 0, 0, 0, 0, 2.0], abs=1e-12)
    fk = froude_krylov_wrench(np.array([1.0, 0, 0]), 1000.0, 0.0134, np.array([0, 0, -0.01]))
    assert fk == pytest.approx([13.4, 0, 0, 0, -0.134, 0])
