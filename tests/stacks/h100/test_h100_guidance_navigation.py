"""The H100's references (every mode, the reference model) and its navigation (dead reckoning
with delayed USBL fixes)."""
import math

import numpy as np
import pytest

from auv_cosim.vehicles.h100.stack.guidance import AxisFilter, Commands, Guidance, GuidanceConfig
from auv_cosim.vehicles.h100.stack.instruments import H100Instruments, InstrumentConfig, Truth
from auv_cosim.vehicles.h100.stack.navigation import Measurements, Navigation, NavigationConfig


def _fly(config, commands=Commands(depth=5.0), seconds=60.0, start=(1.0, 2.0, 5.0), heading=0.3):
    g = Guidance(config)
    refs = [g.initialize(start, heading, commands)]
    for _ in range(int(round(seconds / 0.1))):
        refs.append(g.step(commands, 0.1))
    return g, refs


def test_hold_keeps_the_initial_pose():
    _, refs = _fly(GuidanceConfig(Mode="hold"))
    for r in refs:
        assert r.pos == [1.0, 2.0, 5.0] and r.heading == 0.3 and r.vel == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("angle", [False, True])
def test_an_axis_at_rest_on_its_target_stays_bit_for_bit_and_leaves_it_when_the_target_moves(angle):
    """The reference model's shortcut at rest (station keeping): x, v, a stay exactly (0, 0),
    -0.0 becomes +0.0 as the update's additions make it; a target elsewhere, a target speed,
    or an unwrapped heading target (wrapped by the update) still move the axis."""
    axis = AxisFilter(1.5, 0.8, 1.5, angle=angle)
    for x in (0.3, -0.0):
        axis.reset(x)
        for _ in range(5):
            axis.step(x, 0.0, 0.1)
        assert axis.get_state() == [x, 0.0, 0.0] and math.copysign(1.0, axis.x) == 1.0
    axis.reset(0.3)
    axis.step(0.3, 0.1, 0.1)
    assert axis.v > 0.0 and axis.a > 0.0
    axis.reset(0.3)
    axis.step(0.5, 0.0, 0.1)
    assert axis.x > 0.3 and axis.v > 0.0
    axis.reset(4.0)
    axis.step(4.0, 0.0, 0.1)
    assert axis.x == (4.0 - 2.0 * math.pi if angle else 4.0)


def test_hold_position_and_heading_parameters_override_the_initial_pose():
    _, refs = _fly(GuidanceConfig(Mode="hold", HoldInitialPose=False, HoldPosition=(0.0, 0.0, 4.0), HoldHeading=1.0))
    assert refs[-1].pos == [0.0, 0.0, 4.0] and refs[-1].heading == 1.0


def test_depth_step_reference_is_smooth_without_overshoot():
    config = GuidanceConfig(Mode="depth_heading")
    g = Guidance(config)
    g.initialize((0.0, 0.0, 5.0), 0.0, Commands(depth=5.0, heading=0.0))
    depths = [g.step(Commands(depth=6.0, heading=0.0), 0.1).pos[2] for _ in range(100)]
    assert max(depths) <= 6.0 + 1e-9 and all(b >= a - 1e-12 for a, b in zip(depths, depths[1:]))
    # critically damped at ReferenceFrequency: within 1 % after about 6.6 / w s
    settle = next(k for k, d in enumerate(depths) if d > 5.99) * 0.1
    assert settle < 6.6 / config.ReferenceFrequency + 0.5


def test_heading_reference_turns_the_short_way():
    g = Guidance(GuidanceConfig(Mode="depth_heading"))
    g.initialize((0.0, 0.0, 5.0), 3.0, Commands(depth=5.0, heading=3.0))
    for _ in range(150):
        r = g.step(Commands(depth=5.0, heading=-3.0), 0.1)
    assert abs(abs(r.heading) - 3.0) < 0.01 and r.heading < 0      # through pi, not through 0


def test_waypoints_are_followed_at_track_speed_and_the_last_one_held():
    config = GuidanceConfig(Mode="waypoints", Waypoints="5,0,5; 5,5,6", TrackSpeed=0.3)
    g, refs = _fly(config, seconds=80.0, start=(0.0, 0.0, 5.0))
    speeds = [math.sqrt(sum(v * v for v in r.vel)) for r in refs[100:150]]
    assert np.allclose(speeds, 0.3, atol=0.01)
    assert refs[120].heading == pytest.approx(0.0, abs=0.02)           # first leg: north
    np.testing.assert_allclose(refs[-1].pos, [5.0, 5.0, 6.0], atol=1e-3)
    assert g.finished and refs[-1].heading == pytest.approx(math.pi / 2, abs=0.02)


def test_sshape_heading_follows_the_path_and_sway_keeps_it():
    config = GuidanceConfig(Mode="sshape", TrackSpeed=0.3, ManoeuvreAmplitude=1.0, ManoeuvrePeriod=30.0)
    _, refs = _fly(config, seconds=60.0, heading=0.0, start=(0.0, 0.0, 5.0))
    headings = np.array([r.heading for r in refs[100:]])
    expected = math.atan(1.0 * 2 * math.pi / 30.0 / 0.3)
    assert headings.max() == pytest.approx(expected, abs=0.05)
    _, refs = _fly(GuidanceConfig(Mode="sway", ManoeuvreAmplitude=1.0), seconds=60.0, heading=0.5)
    assert all(r.heading == pytest.approx(0.5) for r in refs)
    east = np.array([r.pos[1] - 2.0 for r in refs])
    north = np.array([r.pos[0] - 1.0 for r in refs])
    # sideways of heading 0.5: along (-sin, cos)
    assert np.max(np.abs(north * math.cos(0.5) + east * math.sin(0.5))) < 1e-9
    assert np.max(-north * math.sin(0.5) + east * math.cos(0.5)) == pytest.approx(1.0, abs=0.05)


def test_velocity_mode_moves_the_reference_in_body_axes():
    g = Guidance(GuidanceConfig(Mode="velocity"))
    commands = Commands(depth=5.0, heading=math.pi / 2, surge=0.2)
    g.initialize((0.0, 0.0, 5.0), math.pi / 2, commands)
    for _ in range(300):
        r = g.step(commands, 0.1)
    assert r.vel[1] == pytest.approx(0.2, abs=1e-3) and abs(r.vel[0]) < 1e-3   # east at 0.2 m/s


@pytest.mark.parametrize("kwargs, field", [
    (dict(Mode="circle"), "Mode"),
    (dict(Mode="waypoints", Waypoints=""), "Waypoints"),
    (dict(Mode="waypoints", Waypoints="1,2; 3,4,5"), "Waypoints"),
    (dict(TrackSpeed=-1.0), "TrackSpeed"),
    (dict(ReferenceFrequency=0.0), "ReferenceFrequency"),
])
def test_bad_guidance_parameter_is_refused_by_name(kwargs, field):
    with pytest.raises(ValueError, match=field):
        Guidance(GuidanceConfig(**kwargs))


def test_guidance_state_restore_continues_exactly():
    config = GuidanceConfig(Mode="waypoints", Waypoints="5,0,5; 5,5,6")
    g = Guidance(config)
    g.initialize((0.0, 0.0, 5.0), 0.0, Commands())
    for _ in range(50):
        g.step(Commands(), 0.1)
    saved = g.get_state()
    ahead = [g.step(Commands(), 0.1) for _ in range(30)]
    g.set_state(saved)
    assert [g.step(Commands(), 0.1) for _ in range(30)] == ahead


# ------------------------------------------------------------------------------ navigation
def _measure(readings):
    return Measurements(euler=readings.euler, omega=readings.omega, velocity=readings.velocity,
                        dvl_valid=readings.dvl_valid, depth=readings.depth, usbl=readings.usbl,
                        usbl_fix_time=readings.usbl_fix_time, usbl_fix_count=readings.usbl_fix_count)


def _track(t, speed=0.3, heading=0.4):
    """A vehicle running straight at `speed` on `heading`, level."""
    return Truth(pos=(speed * t * math.cos(heading), speed * t * math.sin(heading), 5.0),
                 euler=(0.0, 0.0, heading), local_vel=(speed, 0.0, 0.0), depth=5.0, altitude=20.0)


def test_dead_reckoning_follows_a_straight_run_and_fixes_keep_it_there():
    inst = H100Instruments(InstrumentConfig.noiseless(UsblLatency=0.5))
    nav = Navigation(NavigationConfig())
    nav.initialize(_measure(inst.initialize(_track(0.0))))
    for k in range(1, 600):
        est = nav.update(_measure(inst.sample(_track(0.1 * k), 0.1)), 0.1)
    truth = _track(59.9)
    assert math.dist(est.pos, truth.pos) < 1e-9


def test_delayed_fixes_remove_a_dvl_bias_drift_and_average_the_noise():
    config = InstrumentConfig(Seed=2, DvlBias=[0.01, 0.0, 0.0], UsblNoiseStd=0.1, UsblRangeNoise=0.0)
    inst = H100Instruments(config)
    nav = Navigation(NavigationConfig(UsblGain=0.05))
    nav.initialize(_measure(inst.initialize(_track(0.0))))
    errors = []
    for k in range(1, 3001):
        est = nav.update(_measure(inst.sample(_track(0.1 * k), 0.1)), 0.1)
        truth = _track(0.1 * k)
        errors.append(math.hypot(est.pos[0] - truth.pos[0], est.pos[1] - truth.pos[1]))
    late = np.array(errors[1000:])
    # dead reckoning alone would be 3 m off after 300 s; the fixes hold it near b T / g = 0.2 m
    assert late.max() < 0.45 and np.mean(late) < 0.3


def test_navigation_refuses_a_non_finite_measurement_by_name():
    nav = Navigation(NavigationConfig())
    nav.initialize(Measurements())
    with pytest.raises(ValueError, match=r"MeasuredVelocity\[1\]"):
        nav.update(Measurements(velocity=(math.inf, 0.0, 0.0)), 0.1)
