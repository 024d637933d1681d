"""Thrust allocation (SPEC 7.4): the wrench reproduced when feasible, the limits never exceeded,
graceful degradation and reporting of what is unreachable, rank-deficient layouts, commands."""
import math

import numpy as np
import pytest

from auv_cosim.vehicles.h100.stack.allocation import PseudoInverseAllocator, QpAllocator, thrust_to_command
from auv_cosim.vehicles.h100.configuration import analyse_matrix

FORWARD, REVERSE = 51.5, 40.2   # T200 at 16 V (SPEC 7.3)


def _rz(angle):
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _matrix(positions, directions):
    """An independent transcription of B = [d_i; r_i x d_i] for the tests."""
    return np.array([np.concatenate([d, np.cross(r, d)]) for r, d in zip(positions, directions)]).T


def _horizontal():
    positions = [_rz(a) @ np.array([0.156, 0.111, 0.085]) for a in (0.0, 5.05, 1.91, math.pi)]
    directions = [_rz(b) @ np.array([1.0, -1.0, 0.0]) / math.sqrt(2.0)
                  for b in (0.0, math.pi / 2, 3 * math.pi / 2, math.pi)]
    return positions, directions


def heavy_layout():
    """SPEC 7.3's 8-thruster BlueROV2 Heavy."""
    positions, directions = _horizontal()
    for a in (0.0, 4.15, 1.01, math.pi):
        positions.append(_rz(a) @ np.array([0.12, 0.218, 0.0]))
        directions.append(np.array([0.0, 0.0, -1.0]))
    return _matrix(positions, directions)


def six_layout():
    """The standard BlueROV2: 4 vectored horizontal + 2 vertical on the beam (rank 5)."""
    positions, directions = _horizontal()
    for y in (0.111, -0.111):
        positions.append(np.array([0.0, y, 0.0]))
        directions.append(np.array([0.0, 0.0, -1.0]))
    return _matrix(positions, directions)


def _feasible_wrenches(b, count, fraction, seed):
    """Wrenches the thrusters can produce: B F for F drawn within `fraction` of the limits."""
    rng = np.random.default_rng(seed)
    forces = rng.uniform(-fraction * REVERSE, fraction * FORWARD, size=(count, b.shape[1]))
    return forces @ b.T


def test_heavy_layout_reach_matches_spec_singular_values():
    reach = analyse_matrix(heavy_layout())
    assert reach.rank == 6 and reach.fully_actuated
    np.testing.assert_allclose(reach.singular_values, [2.00, 1.42, 1.42, 0.434, 0.377, 0.240], atol=5e-3)
    assert "fully actuated" in reach.describe()


def test_six_thruster_layout_has_rank_5_and_names_the_surge_pitch_direction():
    reach = analyse_matrix(six_layout())
    assert reach.rank == 5 and not reach.fully_actuated
    (direction,) = reach.unreachable
    # pitch tied to surge: the horizontal thrusters sit 0.085 m below O
    assert abs(direction[4]) > 0.99 and abs(direction[0]) > 0.05
    assert np.allclose(direction[[1, 2, 3, 5]], 0.0, atol=1e-9)
    assert "rank 5" in reach.describe() and "pitch" in reach.describe()


@pytest.mark.parametrize("allocator_class", [QpAllocator, PseudoInverseAllocator])
def test_feasible_wrench_reproduced_to_1e9(allocator_class):
    b = heavy_layout()
    allocator = allocator_class(b, FORWARD, REVERSE)
    # the pseudo-inverse is exact only while it saturates nothing: small wrenches for it
    fraction = 0.8 if allocator_class is QpAllocator else 0.15
    worst = 0.0
    for tau in _feasible_wrenches(b, 300, fraction, seed=1):
        result = allocator.allocate(tau)
        assert result.solver_ok
        worst = max(worst, float(np.max(np.abs(b @ result.forces - tau))))
    assert worst < 1e-9


def test_qp_reaches_wrenches_that_the_clipped_pseudo_inverse_bends():
    b = heavy_layout()
    qp, pinv = QpAllocator(b, FORWARD, REVERSE), PseudoInverseAllocator(b, FORWARD, REVERSE)
    bent = 0
    for tau in _feasible_wrenches(b, 200, 0.9, seed=2):
        assert qp.allocate(tau).unmet_norm < 1e-9
        bent += pinv.allocate(tau).unmet_norm > 1e-3
    assert bent > 20   # the baseline loses many of them; the QP none


@pytest.mark.parametrize("allocator_class", [QpAllocator, PseudoInverseAllocator])
def test_limits_never_exceeded_and_commands_within_one(allocator_class):
    b = heavy_layout()
    allocator = allocator_class(b, FORWARD, REVERSE, efficiency_belief=0.8)
    rng = np.random.default_rng(3)
    for scale in (1.0, 30.0, 300.0, 3000.0):
        for tau in rng.normal(size=(50, 6)) * scale:
            result = allocator.allocate(tau)
            assert np.all(result.forces <= 0.8 * FORWARD) and np.all(result.forces >= -0.8 * REVERSE)
            assert np.all(np.abs(result.commands) <= 1.0)


def test_unreachable_wrench_degrades_gracefully_and_is_reported():
    b = heavy_layout()
    allocator = QpAllocator(b, FORWARD, REVERSE)
    # 129.7 N is the largest surge force (SPEC 7.3): ask for twice that
    result = allocator.allocate([260.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    assert result.solver_ok and np.any(result.saturated)
    assert result.achieved[0] == pytest.approx(129.7, abs=0.5)    # all the surge there is
    np.testing.assert_allclose(result.achieved[1:], 0.0, atol=1e-6)  # and nothing else bent
    assert result.unmet[0] == pytest.approx(260.0 - result.achieved[0])
    # at the same time the other directions are still served exactly when within reach
    result = allocator.allocate([260.0, 0.0, 20.0, 0.0, 0.0, 1.0])
    assert result.achieved[2] == pytest.approx(20.0, abs=1e-6) and result.achieved[5] == pytest.approx(1.0, abs=1e-6)


def test_rank_5_layout_serves_the_reachable_part_and_reports_the_rest():
    b = six_layout()
    reach = analyse_matrix(b)
    allocator = QpAllocator(b, FORWARD, REVERSE)
    # reachable wrenches: exact
    for tau in _feasible_wrenches(b, 100, 0.7, seed=4):
        assert np.max(np.abs(allocator.allocate(tau).achieved - tau)) < 1e-9
    # a pure pitch moment is (almost) all unreachable: what is missing lies along the
    # unreachable direction, and nothing reachable is lost
    rng = np.random.default_rng(5)
    for tau in _feasible_wrenches(b, 50, 0.5, seed=6):
        request = tau + rng.normal() * reach.unreachable[0]
        result = allocator.allocate(request)
        assert result.solver_ok
        along = float(reach.unreachable[0] @ result.unmet)
        assert along == pytest.approx(float(reach.unreachable[0] @ request), abs=1e-9)
        # what the thrusters produce has no component along the unreachable direction
        assert abs(float(reach.unreachable[0] @ result.achieved)) < 1e-9


def test_failed_thruster_gets_nothing_and_the_rest_take_over():
    b = heavy_layout()
    forward = np.full(8, FORWARD)
    reverse = np.full(8, REVERSE)
    forward[2] = reverse[2] = 0.0
    allocator = QpAllocator(b, forward, reverse)
    for tau in _feasible_wrenches(b, 50, 0.3, seed=7):
        result = allocator.allocate(tau)
        assert result.forces[2] == 0.0 and result.commands[2] == 0.0
        assert result.unmet_norm < 1e-9   # 7 thrusters still span the 6 directions


def test_warm_start_resolves_a_slowly_moving_wrench_in_few_iterations():
    """Beyond the surge reach (DAQP solves each one: thrusters at their limits), the previous
    active set is the next one's start."""
    allocator = QpAllocator(heavy_layout(), FORWARD, REVERSE)
    iterations = []
    for k in range(100):
        result = allocator.allocate([200.0 + 0.01 * k, 5.0, -10.0, 0.5, 0.2, 1.0])
        assert np.any(result.saturated)
        iterations.append(result.iterations)
    assert iterations[0] > 2 and max(iterations[1:]) <= 2


@pytest.mark.parametrize("fraction", [0.3, 0.95, 2.0])
def test_least_norm_forces_within_the_limits_are_daqps_solution(fraction):
    """The shortcut of a rank-6 layout (least-norm forces within the limits: DAQP not called)
    gives DAQP's forces to rounding, and the same active set for the next solve."""
    b = heavy_layout()
    first, daqp_only = QpAllocator(b, FORWARD, REVERSE), QpAllocator(b, FORWARD, REVERSE, least_norm_first=False)
    shortcuts = 0
    for tau in _feasible_wrenches(b, 300, fraction, seed=11):
        a, d = first.allocate(tau), daqp_only.allocate(tau)
        shortcuts += a.iterations == 0
        if a.iterations == 0:  # taken only where no limit binds
            assert not np.any(a.saturated) and not np.any(d.saturated)
        np.testing.assert_allclose(a.forces, d.forces, rtol=0.0, atol=1e-9)
        assert first.get_state() == daqp_only.get_state()
        np.testing.assert_allclose(a.achieved, d.achieved, rtol=0.0, atol=1e-9)
    assert shortcuts > 0 if fraction < 1.0 else shortcuts < 300


@pytest.mark.parametrize("options", [
    dict(exact_penalty=1.0),                                                  # rho below the multipliers
    dict(slack_weights=[1e-3] * 6),                                           # every direction cheap to give up
    dict(exact_penalty=50.0, thruster_weights=[1, 2, 3, 4, 0.5, 0.7, 1.5, 9]),
    dict(thruster_weights=[1, 2, 3, 4, 0.5, 0.7, 1.5, 9], efficiency_belief=0.6),
])
def test_the_shortcut_is_daqps_solution_whatever_the_penalty(options):
    """With a penalty given (an ``exact_penalty`` or ``slack_weights`` small enough that the QP
    prefers to leave part of a reachable wrench unmet) the least-norm forces within the limits
    are not the QP's optimum: the shortcut must not take them then (it gave forces up to 33 N
    from DAQP's); the forces are DAQP's to 1e-9 N, within the limits."""
    b = heavy_layout()
    first = QpAllocator(b, FORWARD, REVERSE, **options)
    daqp_only = QpAllocator(b, FORWARD, REVERSE, least_norm_first=False, **options)
    for tau in _feasible_wrenches(b, 300, 0.5, seed=3):
        a, d = first.allocate(tau), daqp_only.allocate(tau)
        np.testing.assert_allclose(a.forces, d.forces, rtol=0.0, atol=1e-9)
        np.testing.assert_allclose(a.achieved, d.achieved, rtol=0.0, atol=1e-9)
        assert np.all(a.forces <= first.upper) and np.all(a.forces >= first.lower)


def test_command_inverts_the_thruster_law_at_the_believed_efficiency():
    forces = np.array([51.5, -40.2, 10.0, -5.0, 0.0])
    commands = thrust_to_command(forces, FORWARD, REVERSE, 1.0)
    np.testing.assert_allclose(commands, [1.0, -1.0, math.sqrt(10 / 51.5), -math.sqrt(5 / 40.2), 0.0])
    # the thruster law at efficiency eta_hat gives back the force
    eta = 0.7
    commands = thrust_to_command(forces * eta, FORWARD, REVERSE, eta)
    k = np.where(forces >= 0, FORWARD, REVERSE)
    np.testing.assert_allclose(eta * k * np.sign(commands) * commands ** 2, forces * eta, atol=1e-12)


@pytest.mark.parametrize("bad, message", [
    (dict(configuration=np.zeros((5, 8))), "6 x n"),
    (dict(max_forward=-1.0), "max_forward"),
    (dict(max_reverse=[1.0, 2.0]), "max_reverse"),
    (dict(efficiency_belief=0.0), "efficiency_belief"),
    (dict(slack_weights=[1, 1, 1, 1, 1, 0]), "slack_weights"),
])
def test_bad_configuration_is_refused_with_the_name(bad, message):
    kwargs = dict(configuration=heavy_layout(), max_forward=FORWARD, max_reverse=REVERSE)
    kwargs.update(bad)
    configuration = kwargs.pop("configuration")
    with pytest.raises(ValueError, match=message):
        QpAllocator(configuration, **kwargs)


def test_non_finite_wrench_is_refused_with_the_component_named():
    allocator = QpAllocator(heavy_layout(), FORWARD, REVERSE)
    with pytest.raises(ValueError, match="Z"):
        allocator.allocate([0.0, 0.0, math.nan, 0.0, 0.0, 0.0])


def test_same_requests_same_forces_bit_for_bit():
    requests = np.random.default_rng(8).normal(size=(40, 6)) * 40.0
    runs = []
    for _ in range(2):
        allocator = QpAllocator(heavy_layout(), FORWARD, REVERSE)
        runs.append(np.array([allocator.allocate(tau).forces for tau in requests]))
    assert np.array_equal(runs[0], runs[1])


def test_restored_allocator_continues_bit_for_bit():
    """The warm start lives in the allocator's state: a copy restored from it gives the same
    forces as the original, to the last bit, whatever the new one solved before."""
    requests = np.random.default_rng(9).normal(size=(120, 6)) * 60.0
    original = QpAllocator(heavy_layout(), FORWARD, REVERSE)
    for tau in requests[:60]:
        original.allocate(tau)
    state = original.get_state()
    ahead = [original.allocate(tau).forces for tau in requests[60:]]
    other = QpAllocator(heavy_layout(), FORWARD, REVERSE)
    for tau in requests[::-7]:
        other.allocate(tau)           # a different history
    other.set_state(state)
    assert all(np.array_equal(a, b) for a, b in zip(ahead, (other.allocate(tau).forces for tau in requests[60:])))


def test_forces_are_clipped_and_flagged_saturated_within_the_margin_of_a_limit():
    """_limited's definition, transcribed: each force clipped to [lower, upper], saturated when
    within the margin of a limit (a thruster without authority, lower == upper, never), the
    commands those of the clipped forces; forces clear of every limit (its first pass) and
    forces at, near and beyond them alike."""
    rng = np.random.default_rng(21)
    flagged = 0
    for forward, reverse in ((FORWARD, REVERSE), ([FORWARD] * 7 + [0.0], [REVERSE] * 7 + [0.0])):
        allocator = PseudoInverseAllocator(heavy_layout(), forward, reverse, efficiency_belief=0.9)
        lower, upper, margin = allocator.lower.tolist(), allocator.upper.tolist(), allocator._saturation_margin
        near = [lower[0], upper[0], lower[0] + 0.5 * margin, upper[0] - 0.5 * margin, lower[0] + 2 * margin,
                upper[0] - 2 * margin, 2 * lower[0], 2 * upper[0], 0.0]
        for k in range(300):
            forces = (rng.uniform(-0.8 * REVERSE, 0.8 * FORWARD, 8) if k % 2 else rng.choice(near, 8)).tolist()
            clipped, saturated, commands = allocator._limited(forces)
            expected = [min(max(f, lo), hi) for f, lo, hi in zip(forces, lower, upper)]
            assert clipped == expected
            assert saturated == [hi > lo and (c >= hi - margin or c <= lo + margin)
                                 for c, lo, hi in zip(expected, lower, upper)]
            assert commands == thrust_to_command(expected, allocator.max_forward, allocator.max_reverse, 0.9).tolist()
            flagged += any(saturated)
    assert 0 < flagged < 600
