"""The H100's compiled control kernels (auv_cosim/vehicles/h100/stack/control_kernel.py): each computes what its
own plain-Python execution computes, bit for bit, on random inputs through every branch (the
speed limit, the pitch clamp, the clipping, a non-diagonal mass matrix, the feed-forward off,
dt = 0, the allocation's three outcomes); the quaternion is the vehicle library's; the
controllers and the allocation keep their state format; and a freshly unzipped control FMU,
loaded after the instruments' FMU as in the H100 stack, compiles nothing on its first steps
(the kernels' cache shipped in every FMU that carries auv_cosim.vehicles.auv.stack)."""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from auv_cosim.vehicles.h100.stack import control_kernel as kernels
from auv_cosim.compiled.jit import JIT_ENABLED
from tests.plain_python import compiled_left, plain_python
from auv_cosim.vehicles.h100.stack.control import CONTROLLERS

ROOT = Path(__file__).resolve().parents[3]

needs_numba = pytest.mark.skipif(not JIT_ENABLED, reason="numba is not in use (AUV_NO_JIT or no numba): the "
                                                         "kernels run as plain Python, nothing to compare")


def _both(kernel, *args):
    """(compiled result, compiled arrays, plain-Python result, plain-Python arrays) of the kernel on
    copies of the arguments."""
    def copies():
        return [a.copy() if isinstance(a, np.ndarray) else a for a in args]

    compiled_args, plain_args = copies(), copies()
    compiled = kernel(*compiled_args)
    python = plain_python(kernel)   # its helpers in Python too
    assert compiled_left(python) == []
    plain = python(*plain_args)
    return compiled, compiled_args, plain, plain_args


def _assert_bitwise(kernel, *args):
    compiled, compiled_args, plain, plain_args = _both(kernel, *args)
    assert np.array(compiled).tobytes() == np.array(plain).tobytes(), (kernel.__name__, compiled, plain)
    for a, b in zip(compiled_args, plain_args):
        if isinstance(a, np.ndarray):
            assert a.tobytes() == b.tobytes(), (kernel.__name__, a, b)
    return compiled


def _io(rng, scale=1.0):
    io = rng.normal(scale=scale, size=kernels.IO_SIZE)
    io[kernels.EST_EULER:kernels.EST_EULER + 3] = rng.uniform(-0.6, 0.6, 3)
    io[kernels.HEADING_ERROR] = rng.uniform(-math.pi, math.pi)
    return io


def _mass(rng, diagonal):
    m = np.diag(rng.uniform(10.0, 40.0, 6))
    if not diagonal:
        m[0, 4] = m[4, 0] = 1.3
        m[1, 3] = m[3, 1] = -0.7
    return m


@needs_numba
def test_the_quaternion_is_the_vehicle_librarys_bit_for_bit():
    from auv_cosim.vehicles.rotation import quaternion_from_euler

    rng = np.random.default_rng(1)
    for _ in range(200):
        roll, pitch, yaw = rng.uniform(-3.2, 3.2, 3)
        x = np.zeros(13)
        kernels.quaternion_into(roll, pitch, yaw, x)
        assert x[3:7].tobytes() == quaternion_from_euler(roll, pitch, yaw).tobytes()


@needs_numba
def test_the_pid_kernels_compute_what_their_python_computes():
    rng = np.random.default_rng(2)
    limited = unlimited = 0
    for trial in range(300):
        io = _io(rng, scale=0.3 if trial % 2 else 3.0)    # within, and far beyond, the speed limit
        gains = np.array([0.8, 2.0, 1.2, 0.8, 0.8])
        x, work = np.zeros(21), np.zeros(kernels.PID_WORK_SIZE)
        if _assert_bitwise(kernels.pid_outer, io, gains, -1.0, x, work):
            unlimited += 1
            kernels.pid_outer(io, gains, -1.0, x, work)
        else:   # the speed limit may bind: the caller's second call, with CPython's norm
            limited += 1
            kernels.pid_outer(io, gains, -1.0, x, work)
            horizontal = math.hypot(work[21], work[22])
            assert _assert_bitwise(kernels.pid_outer, io, gains, horizontal, x, work)
            kernels.pid_outer(io, gains, horizontal, x, work)
        loops = rng.normal(size=(6, kernels.LOOP_STATE_SIZE))
        loops[:, kernels.LOOP_HAS_PREV] = rng.integers(0, 2, 6)
        constants = np.abs(rng.normal(size=(6, kernels.LOOP_CONSTANTS_SIZE)))
        constants[:, kernels.LOOP_OUT_MIN] *= -1.0
        constants[:, kernels.LOOP_I_MIN] *= -1.0
        constants[:, kernels.LOOP_I_BAND] = rng.choice([math.inf, 0.5], 6)
        constants[:, kernels.LOOP_KI] *= rng.integers(0, 2, 6)
        constants[:, kernels.LOOP_LAG] = rng.uniform(0.0, 1.0, 6)
        for dt in (0.1, 0.0):
            _assert_bitwise(kernels.pid_inner, io, work, rng.normal(size=6), _mass(rng, trial % 3 != 0),
                            trial % 3 != 0, trial % 5 != 0, loops, constants, dt, np.zeros(6))
    assert limited > 20 and unlimited > 20, (limited, unlimited)


@needs_numba
def test_the_lqr_and_sliding_mode_kernels_compute_what_their_python_computes():
    rng = np.random.default_rng(3)
    clipped = 0
    for trial in range(300):
        io = _io(rng)
        if trial % 4 == 0:   # beyond the pitch clamp of T(Theta)
            io[kernels.EST_EULER + 1] = rng.choice([-1.0, 1.0]) * rng.uniform(1.56, 1.7)
        diagonal = trial % 3 != 0
        mass, limits, dt = _mass(rng, diagonal), rng.uniform(5.0, 60.0, 6), 0.1 if trial % 7 else 0.0
        x, work, integral, state = np.zeros(21), np.zeros(kernels.LQR_WORK_SIZE), rng.normal(size=4), np.zeros(16)
        _assert_bitwise(kernels.lqr_state, io, integral, dt, x, state, work)
        kernels.lqr_state(io, integral, dt, x, state, work)
        feedback = rng.normal(scale=30.0, size=6)
        _assert_bitwise(kernels.lqr_wrench, state, work, feedback, rng.normal(size=6), mass, diagonal,
                        trial % 5 != 0, limits, dt, integral, np.zeros(6))
        work = np.zeros(kernels.SMC_WORK_SIZE)
        integral = rng.normal(size=6)
        for with_integral in (True, False):
            _assert_bitwise(kernels.smc_surface, io, integral, 1.0, with_integral, dt, x, work)
        kernels.smc_surface(io, integral, 1.0, trial % 2 == 0, dt, x, work)
        tau = np.zeros(6)
        _assert_bitwise(kernels.smc_wrench, work, rng.normal(scale=20.0, size=6), mass, diagonal, 3.0,
                        np.array([5.0, 5.0, 5.0, 1.2, 1.2, 1.2]), 0.1, limits, dt, integral, tau)
        kernels.smc_wrench(work, rng.normal(scale=20.0, size=6), mass, diagonal, 3.0,
                           np.array([5.0, 5.0, 5.0, 1.2, 1.2, 1.2]), 0.1, limits, dt, integral.copy(), tau)
        clipped += bool(np.any(np.abs(tau) == limits))
    assert clipped > 20, clipped


@needs_numba
def test_the_allocation_kernels_compute_what_their_python_computes():
    rng = np.random.default_rng(4)
    outcomes = set()
    n = 8
    bounds = np.array([[-40.2, 51.5]] * n)
    unsaturated = bounds + np.array([1e-6, -1e-6])
    full_forward, full_reverse = np.full(n, 51.5), np.full(n, 40.2)
    full_reverse[3] = 0.0     # a thruster without reverse authority
    for trial in range(300):
        forces = rng.uniform(-45.0, 55.0, n) if trial % 2 else rng.uniform(-30.0, 30.0, n)
        if trial % 10 == 1:
            forces[2] = bounds[2, 1] - 1e-7    # within the saturation margin
        outcomes.add(_assert_bitwise(kernels.clear_commands, forces, bounds, unsaturated, full_forward,
                                     full_reverse, np.zeros(n)))
        _assert_bitwise(kernels.unmet_norm, rng.normal(size=6), rng.normal(size=6))
    assert outcomes == {0, 1, 2}, outcomes


def test_the_clear_commands_are_the_general_ways():
    """The allocation's compiled usual case against its general way (a list request), both
    allocators, requests clear of the limits and beyond them."""
    from auv_cosim.vehicles.h100.stack.allocation import PseudoInverseAllocator, QpAllocator
    from auv_cosim.vehicles.h100.stack.belief import VehicleBelief
    from auv_cosim.vehicles.h100 import load_vehicle

    params = load_vehicle().params
    belief = VehicleBelief(params)
    rng = np.random.default_rng(5)
    for cls in (QpAllocator, PseudoInverseAllocator):
        fast, general = (cls(belief.configuration, params.MaxThrustForward, params.MaxThrustReverse)
                         for _ in range(2))
        for scale in (10.0, 150.0):
            for _ in range(50):
                tau = rng.normal(scale=scale, size=6)
                a, b = fast.command(tau), general.command(tau.tolist())
                assert (a.commands, a.achieved, a.unmet_norm, a.saturated_count, a.solver_ok) == \
                       (b.commands, b.achieved, b.unmet_norm, b.saturated_count, b.solver_ok)
                assert fast.get_state() == general.get_state()


@pytest.mark.parametrize("name", list(CONTROLLERS))
def test_a_restored_controller_continues_bit_for_bit(name):
    """get_state / set_state around the kept arrays: a controller restored from another's state
    (as JSON would carry it) gives the same wrenches from then on."""
    from auv_cosim.vehicles.h100.stack.belief import VehicleBelief
    from auv_cosim.vehicles.h100.stack.control import ControllerConfig, make_controller
    from auv_cosim.vehicles.h100.stack.guidance import Reference
    from auv_cosim.vehicles.h100.stack.navigation import Estimate
    from auv_cosim.vehicles.h100 import load_vehicle

    belief = VehicleBelief(load_vehicle().params)
    rng = np.random.default_rng(6)

    def estimate():
        return Estimate(pos=rng.normal(scale=0.2, size=3).tolist(), euler=rng.normal(scale=0.05, size=3).tolist(),
                        nu=rng.normal(scale=0.05, size=6).tolist())

    ref = Reference([0.0, 0.0, 0.2], [0.0] * 3, [0.0] * 3, 0.1, 0.0, 0.0)
    first = make_controller(ControllerConfig(Controller=name), belief)
    for _ in range(20):
        first.wrench(estimate(), ref, 0.1)
    state = json.loads(json.dumps(first.get_state()))
    second = make_controller(ControllerConfig(Controller=name), belief)
    second.set_state(state)
    assert second.get_state() == first.get_state()
    for _ in range(20):
        est = estimate()
        assert first.wrench(est, ref, 0.1) == second.wrench(est, ref, 0.1)


#: a fresh interpreter loads freshly unzipped FMUs as the H100 stack does (the instruments first:
#: auv_cosim.vehicles.auv.stack is then theirs, shared by the control FMU) and steps the control FMU with each
#: controller and allocator; how many compiled functions were loaded from a cache and compiled
SCRIPT = r"""
def load(path, name):
    md = read_model_description(path)
    fmu = FMU2Slave(guid=md.guid, unzipDirectory=extract(path), modelIdentifier=md.coSimulation.modelIdentifier,
                    instanceName=name)
    return md, fmu

first = sys.argv[1:-1]
control_path = sys.argv[-1]
for path in first:
    md, fmu = load(path, "first")
    fmu.instantiate()
md, _ = load(control_path, "probe")
refs = {v.name: v.valueReference for v in md.modelVariables}
for k, (controller, allocator) in enumerate([("pid", "qp"), ("lqr", "qp"), ("smc", "qp"), ("pid", "pinv")]):
    _, fmu = load(control_path, f"control{k}")
    fmu.instantiate()
    fmu.setupExperiment(startTime=0.0)
    fmu.setString([refs["Controller"], refs["Allocator"]], [controller, allocator])
    fmu.enterInitializationMode()
    fmu.setReal([refs["MeasuredDepth"], refs["UsblPosition[3]"], refs["DepthCommand"]], [5.0, 5.0, 5.0])
    fmu.setInteger([refs["UsblFixCount"]], [1])
    fmu.exitInitializationMode()
    for step in range(5):
        fmu.setReal([refs["MeasuredVelocity[1]"], refs["UsblPosition[1]"]], [0.01 * step, 3.0 * step])
        fmu.doStep(currentCommunicationPoint=0.1 * step, communicationStepSize=0.1)
"""


@needs_numba
@pytest.mark.parametrize("first", [(), ("H100Sensors",)], ids=["control alone", "after the instruments"])
@pytest.mark.parametrize("control", ["H100Control", "H100Control_6"])
def test_a_freshly_unzipped_control_fmu_compiles_nothing(first, control):
    pytest.importorskip("fmpy")
    from tests.harness import FMU_DIR, build, numba_cache_report

    build(*first, control)
    result = numba_cache_report(SCRIPT, "auv_cosim.vehicles.h100.stack.control_kernel",
                                [FMU_DIR / f"{n}.fmu" for n in (*first, control)])
    # the kernels are those of the FMU loaded first (a module the host imported is shared)
    assert not result["kernel"].startswith(str(ROOT)), result
    assert result["hits"] > 0, result
    assert result["misses"] == {}, result


@needs_numba
def test_the_helpers_compute_what_their_python_computes():
    """The small kernels the others call (their plain-Python runs above call them compiled)."""
    rng = np.random.default_rng(7)
    for trial in range(200):
        r = np.zeros(9)
        roll, pitch, yaw = rng.uniform(-3.2, 3.2, 3)
        _assert_bitwise(kernels.rotation_into, roll, pitch, yaw, r)
        kernels.rotation_into(roll, pitch, yaw, r)
        v = rng.normal(size=3)
        _assert_bitwise(kernels.to_body_into, r, v[0], v[1], v[2], np.zeros(6), 3)
        _assert_bitwise(kernels.body_rates_into, *rng.normal(size=4), v[0], v[1], v[2], np.zeros(6), 3)
        _assert_bitwise(kernels.body_rates_into, *rng.normal(size=4), 0.0, 0.0, v[2], np.zeros(6), 0)
        _assert_bitwise(kernels.mass_times_one, _mass(rng, trial % 2 == 0), trial % 2 == 0, rng.normal(size=6),
                        int(rng.integers(0, 6)))
        _assert_bitwise(kernels.clip_into, rng.normal(scale=40.0, size=6), rng.uniform(5.0, 60.0, 6))
        _assert_bitwise(kernels.pose_into, _io(rng), np.zeros(13))
        _assert_bitwise(kernels.dead_reckoning, *rng.normal(size=2), roll, pitch, yaw, *rng.normal(size=3), 0.1)
        loop = rng.normal(size=kernels.LOOP_STATE_SIZE)
        loop[kernels.LOOP_HAS_PREV] = trial % 2
        constants = np.abs(rng.normal(size=kernels.LOOP_CONSTANTS_SIZE))
        constants[kernels.LOOP_OUT_MIN] *= -1.0
        constants[kernels.LOOP_I_MIN] *= -1.0
        _assert_bitwise(kernels.pid_update, loop, constants, *rng.normal(size=2), 0.1 if trial % 3 else 0.0,
                        rng.normal(), False)
