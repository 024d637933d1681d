"""The NED -> ENU/FLU conversion (auv_cosim/outputs/frames.py) against rotation matrices."""
from __future__ import annotations

import numpy as np
import pytest

from auv_cosim.outputs import frames


def _matrix(q):
    w, x, y, z = q / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


ENU_FROM_NED = np.array([[0.0, 1, 0], [1, 0, 0], [0, 0, -1]])
FRD_FROM_FLU = np.diag([1.0, -1, -1])


def test_points_swap_and_flip_exactly():
    ned = np.array([[500.123456789, -50.5, 25.25], [0.0, 0.0, -0.5]])
    enu = frames.ned_to_enu(ned)
    assert np.array_equal(enu, [[-50.5, 500.123456789, -25.25], [0.0, 0.0, 0.5]])
    assert np.array_equal(frames.frd_to_flu([1.0, 2.0, 3.0]), [1.0, -2.0, -3.0])


@pytest.mark.parametrize("seed", range(5))
def test_the_closed_form_is_the_product_of_the_rotations(seed):
    rng = np.random.default_rng(seed)
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    want = ENU_FROM_NED @ _matrix(q) @ FRD_FROM_FLU
    got = frames.attitude_to_enu_flu(q)
    assert np.linalg.norm(got) == pytest.approx(1.0)
    assert np.allclose(_matrix(got), want, atol=1e-12)


@pytest.mark.parametrize("yaw, forward_enu", [(0.0, [0, 1, 0]), (np.pi / 2, [1, 0, 0]), (np.pi, [0, -1, 0])])
def test_heading_shows_the_way_foxglove_draws_it(yaw, forward_enu):
    """Heading north (yaw 0) points the body's x along the world's y (north); east along x."""
    q = frames.attitude_to_enu_flu(frames.euler_to_quaternion(0.0, 0.0, yaw))
    assert np.allclose(_matrix(q) @ [1, 0, 0], forward_enu, atol=1e-12)
    assert np.allclose(_matrix(q) @ [0, 0, 1], [0, 0, 1], atol=1e-12)     # level: the body's up is up


def test_a_positive_pitch_is_nose_up():
    """FRD: a positive pitch turns x toward -z (down is +z), so the nose rises: up in ENU."""
    q = frames.attitude_to_enu_flu(frames.euler_to_quaternion(0.0, 0.3, 0.0))
    assert (_matrix(q) @ [1, 0, 0])[2] == pytest.approx(np.sin(0.3))
    q = frames.attitude_to_enu_flu(frames.euler_to_quaternion(0.0, -0.3, 0.0))
    assert (_matrix(q) @ [1, 0, 0])[2] == pytest.approx(-np.sin(0.3))


def test_stamps_count_from_the_run_start():
    assert frames.stamp(0.0, 0.0) == (0, 0, 0)
    assert frames.stamp(1234.5, 0.0) == (1_234_500_000_000, 1234, 500_000_000)
    assert frames.stamp(10.3, 10.0) == (300_000_000, 0, 300_000_000)
