"""The H100's controllers in plain Python, on the vehicle library: no feedback at zero error,
the signs of each axis, the LQR's schedule, and short closed loops (noiseless instruments) with
the vehicle library's derivative."""
import math

import numpy as np
import pytest
from scipy.integrate import ode

from auv_cosim.vehicles.h100.stack.belief import VehicleBelief
from auv_cosim.vehicles.h100.stack.control import CONTROLLERS, ControllerConfig, Lqr, make_controller
from auv_cosim.vehicles.h100.stack.guidance import Commands, GuidanceConfig, Reference
from auv_cosim.vehicles.h100.stack.instruments import H100Instruments, InstrumentConfig, Truth
from auv_cosim.vehicles.h100.stack.navigation import Estimate, Measurements
from auv_cosim.vehicles.h100.stack.stack import H100ControlStack
from auv_cosim.vehicles.h100 import H100Model, load_vehicle


@pytest.fixture(scope="module")
def vehicle():
    return load_vehicle()


@pytest.fixture(scope="module")
def belief(vehicle):
    return VehicleBelief(vehicle.params)


def _at_rest(depth=5.0, heading=0.0):
    return Estimate(pos=[0.0, 0.0, depth], euler=[0.0, 0.0, heading], nu=[0.0] * 6)


def _reference(pos=(0.0, 0.0, 5.0), heading=0.0):
    return Reference(list(pos), [0.0] * 3, [0.0] * 3, heading, 0.0, 0.0)


@pytest.mark.parametrize("name", CONTROLLERS)
def test_no_feedback_at_zero_error_only_the_model_feed_forward(belief, name):
    controller = make_controller(ControllerConfig(Controller=name), belief)
    est = _at_rest()
    tau = controller.wrench(est, _reference(), 0.1)
    np.testing.assert_allclose(tau, belief.motion_wrench(est.pos, est.euler, est.nu), atol=1e-9)
    # the vehicle is heavy in fresh water: the thrusters hold it up (NED: negative Z)
    assert tau[2] == pytest.approx(-(13.5 * 9.82 - 1000 * 9.82 * 0.0134), abs=1e-6)


def test_the_motion_wrench_is_minus_the_vehicle_librarys_generalized_force_bit_for_bit(belief):
    """The feed-forward written into kept arrays (dynamics.holding_wrench_into) against the
    library's generalized_force on the state of the pose, thrusters stopped: the same sums."""
    from auv_cosim.vehicles.h100 import dynamics
    from auv_cosim.vehicles.rotation import quaternion_from_euler

    rng = np.random.default_rng(12)
    for depth in (-0.05, 0.1, 5.0):            # out of the water, breaking the surface, submerged
        pos, euler, nu = [rng.normal(), rng.normal(), depth], rng.uniform(-0.5, 0.5, 3).tolist(), rng.normal(size=6)
        x = belief.model.initial_state()
        x[0:3], x[3:7], x[7:13] = pos, quaternion_from_euler(*euler), nu
        expected = -dynamics.generalized_force(0.0, x, belief.model.inputs(), belief.model.constants)[0]
        assert belief.motion_wrench(pos, euler, nu.tolist()) == expected.tolist()


@pytest.mark.parametrize("name", CONTROLLERS)
@pytest.mark.parametrize("heading", [0.0, 2.0])
def test_each_axis_pushes_toward_its_reference(belief, name, heading):
    c, s = math.cos(heading), math.sin(heading)
    base = make_controller(ControllerConfig(Controller=name), belief).wrench(_at_rest(heading=heading),
                                                                         _reference(heading=heading), 0.0)
    cases = [((0.5 * c, 0.5 * s, 5.0), heading, 0, +1),        # ahead of the vehicle: surge forward
             ((-0.5 * s, 0.5 * c, 5.0), heading, 1, +1),       # to starboard: sway to starboard
             ((0.0, 0.0, 5.5), heading, 2, +1),                # deeper: push down
             ((0.0, 0.0, 5.0), heading + 0.2, 5, +1)]          # heading to starboard: yaw right
    for pos, ref_heading, axis, sign in cases:
        controller = make_controller(ControllerConfig(Controller=name), belief)
        tau = controller.wrench(_at_rest(heading=heading), _reference(pos, ref_heading), 0.0)
        assert sign * (tau[axis] - base[axis]) > 0.5, (name, axis, tau - base)


def test_lqr_gain_is_recomputed_where_the_operating_point_changes(belief):
    lqr = Lqr(ControllerConfig(Controller="lqr"), belief)
    k_rest = lqr.gain(np.zeros(6))
    assert lqr.gain(np.array([0.01, 0, 0, 0, 0, 0])) is k_rest          # within the step: cached
    k_moving = lqr.gain(np.array([0.5, 0, 0, 0, 0, 0]))
    assert len(lqr.gains) == 2 and not np.allclose(k_moving, k_rest)
    # the quadratic damping makes the surge velocity gain smaller at speed (the plant damps more)
    assert k_moving[0, 6] < k_rest[0, 6]


def _closed_loop(vehicle, controller, mode, seconds, depth_command=None, current=(0.0, 0.0, 0.0)):
    """Noiseless instruments, the vehicle library integrated between 0.1 s control steps."""
    from auv_cosim.vehicles.environment import Environment
    plant = H100Model(vehicle.params, Environment(CurrentVelocity=current, SeaFloorDepth=30.0))
    stack = H100ControlStack(VehicleBelief(vehicle.params), GuidanceConfig(Mode=mode),
                             ControllerConfig(Controller=controller))
    inst = H100Instruments(InstrumentConfig.noiseless())
    x = plant.initial_state(Pos0=(0.0, 0.0, 5.0))

    def truth(x, u):
        o = plant.outputs(x, u)
        return Truth(pos=o["Pos"], euler=o["Euler"], omega=o["Omega"], specific_force=o["SpecificForce"],
                     local_vel=o["LocalVel"], depth=o["Depth"], altitude=o["Altitude"])

    def measure(r):
        return Measurements(r.euler, r.omega, r.velocity, r.dvl_valid, r.depth, r.usbl, r.usbl_fix_time,
                            r.usbl_fix_count)

    def commands(t):
        return Commands(depth=depth_command(t) if depth_command else 5.0, heading=0.0)

    u = plant.inputs()
    out = stack.initialize(measure(inst.initialize(truth(x, u))), commands(0.0))
    integrator = ode(lambda t, y, uu: plant.derivative(y, uu, t)).set_integrator("dopri5", rtol=1e-6, atol=1e-8)
    t, log = 0.0, []
    for _ in range(int(round(seconds / 0.1))):
        u = plant.inputs(commands=out.commands)
        integrator.set_initial_value(x, t).set_f_params(u)
        x = integrator.integrate(t + 0.1)
        t += 0.1
        out = stack.step(measure(inst.sample(truth(x, u), 0.1)), commands(t), 0.1)
        log.append((t, *x[0:3]))
    return np.array(log)


@pytest.mark.parametrize("name", CONTROLLERS)
def test_depth_step_of_one_metre_closed_loop(vehicle, name):
    log = _closed_loop(vehicle, name, "depth_heading", 12.0, depth_command=lambda t: 6.0 if t >= 1.0 else 5.0)
    t, depth = log[:, 0], log[:, 3]
    after = t >= 1.0
    overshoot = max(0.0, float(np.max(depth[after]) - 6.0))
    outside = np.nonzero(np.abs(depth - 6.0) > 0.02)[0]
    settling = t[outside[-1] + 1] - 1.0
    assert overshoot < 0.025 and settling < 5.0 and abs(depth[-1] - 6.0) < 0.01
    assert np.max(np.abs(log[:, 1:3])) < 0.02          # the horizontal position held meanwhile


@pytest.mark.parametrize("name", CONTROLLERS)
def test_station_keeping_in_a_current_closed_loop(vehicle, name):
    log = _closed_loop(vehicle, name, "hold", 40.0, current=(0.2, 0.0, 0.0))
    error = np.linalg.norm(log[:, 1:4] - [0.0, 0.0, 5.0], axis=1)
    assert error.max() < 0.2 and error[-50:].max() < 0.03
