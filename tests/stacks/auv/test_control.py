"""The control stack without a vehicle: signs, limits, guidance modes, end of mission,
state save/restore, parameter errors."""
import json
import math

import pytest

from auv_cosim.vehicles.auv.stack.control import ControlConfig, ControlInputs, ControlStack


def hold(**kw):
    return ControlStack(ControlConfig(GuidanceMode="hold", **kw))


def test_heading_350_from_10_turns_to_port():
    """Reference 350 deg, heading 10 deg: 20 deg the short way, heading decreasing, negative
    yaw rate, negative RudderYaw."""
    s = hold()
    o = s.step(ControlInputs(heading=math.radians(10), heading_cmd=math.radians(350), speed=1.5), 0.1)
    assert o.heading_ref == pytest.approx(math.radians(-10))
    assert o.rudder_yaw < 0.0
    s = hold()
    o = s.step(ControlInputs(heading=math.radians(350), heading_cmd=math.radians(10), speed=1.5), 0.1)
    assert o.rudder_yaw > 0.0


def test_rudder_limits():
    s = hold()
    o = s.step(ControlInputs(heading=0.0, heading_cmd=math.radians(90), speed=1.5), 0.1)
    assert o.rudder_yaw == pytest.approx(s.config.MaxRudderYaw)
    o = s.step(ControlInputs(heading=0.0, heading_cmd=math.radians(-90), speed=1.5), 0.1)
    assert o.rudder_yaw == pytest.approx(-s.config.MaxRudderYaw)


def test_deeper_reference_pitches_nose_down_with_positive_rudder_dive():
    s = hold()
    o = s.step(ControlInputs(depth=10.0, depth_cmd=20.0, speed=1.5), 0.1)
    assert o.depth_ref == 20.0
    assert o.pitch_ref == pytest.approx(-s.config.DiveAngle)     # nose down, limited
    assert o.rudder_dive > 0.0                                   # positive = nose down
    assert o.rudder_dive <= s.config.MaxRudderDive
    s = hold()
    o = s.step(ControlInputs(depth=20.0, depth_cmd=10.0, speed=1.5), 0.1)
    assert o.pitch_ref == pytest.approx(s.config.DiveAngle)
    assert o.rudder_dive < 0.0


def test_pitch_loop_sign():
    """Nose above the reference: push the nose down with a positive RudderDive."""
    s = hold(DepthKp=0.0, DepthKi=0.0, DepthKd=0.0)
    o = s.step(ControlInputs(depth=10.0, depth_cmd=10.0, pitch=0.1, speed=1.5), 0.1)
    assert o.pitch_ref == 0.0 and o.rudder_dive > 0.0


def test_speed_loop_feed_forward_and_limits():
    c = ControlConfig(GuidanceMode="hold")
    s = ControlStack(c)
    o = s.step(ControlInputs(speed=1.5, speed_cmd=1.5), 0.1)
    assert o.thrust_power == pytest.approx(c.ThrustFeedForward * 1.5 ** 2)   # ~32.6 W
    o = s.step(ControlInputs(speed=0.0, speed_cmd=1.5), 0.1)
    assert o.thrust_power == c.MaxPropulsionPower
    o = s.step(ControlInputs(speed=3.0, speed_cmd=1.0), 0.1)
    assert o.thrust_power == 0.0
    o = s.step(ControlInputs(speed=0.0, speed_cmd=0.0), 0.1)
    assert o.thrust_power == 0.0


def test_mission_follows_waypoints_and_stops_at_the_end():
    s = ControlStack(ControlConfig(Waypoints="50,0,5; 50,50,7"))
    o = s.initialize(ControlInputs(north=0.0, east=0.0, depth=5.0, speed=1.5))
    assert (o.waypoint_index, o.heading_ref, o.depth_ref, o.speed_ref) == (0, 0.0, 5.0, 1.5)
    o = s.step(ControlInputs(north=47.0, east=0.0, depth=5.0, speed=1.5), 0.1)
    assert o.waypoint_index == 1 and o.depth_ref == 7.0
    # 3 m south of the eastbound leg = to starboard of it: steer left of east
    assert o.heading_ref == pytest.approx(math.pi / 2 - math.atan2(3.0, 10.0))
    o = s.step(ControlInputs(north=50.0, east=47.0, depth=7.0, speed=1.5), 0.1)
    assert o.mission_finished and o.waypoint_index == 1
    assert o.thrust_power == 0.0 and o.speed_ref == 0.0 and o.rudder_yaw == 0.0
    assert o.depth_ref == 0.0 and o.pitch_ref == pytest.approx(s.config.DiveAngle)
    assert o.rudder_dive < 0.0                                   # nose up: surface
    o = s.step(ControlInputs(north=52.0, east=49.0, depth=6.0, speed=1.0), 0.1)
    assert o.mission_finished and o.thrust_power == 0.0


def test_cross_track_error_output():
    s = ControlStack(ControlConfig(Waypoints="100,0,5"))
    s.initialize(ControlInputs())
    o = s.step(ControlInputs(north=30.0, east=-4.0), 0.1)
    assert o.cross_track_error == pytest.approx(-4.0)            # to port of a northbound leg
    assert o.heading_ref > 0.0                                   # steer to starboard


def test_zigzag_switches_rudder_at_the_heading_deviation():
    c = ControlConfig(GuidanceMode="zigzag", ZigZagRudder=0.3, ZigZagHeading=math.radians(20))
    s = ControlStack(c)
    base = math.radians(170)                                     # crosses +-180 deg
    o = s.initialize(ControlInputs(heading=base))
    assert o.rudder_yaw == 0.3 and o.heading_ref == base
    for h, expected in ((175, 0.3), (189.9, 0.3), (190.01, -0.3), (185, -0.3), (150.1, -0.3),
                        (149.99, 0.3), (170, 0.3), (190.5, -0.3)):
        o = s.step(ControlInputs(heading=math.radians(h) if h <= 180 else math.radians(h - 360)), 0.1)
        assert o.rudder_yaw == expected, h
    assert s.zz_switches == 3


def test_altitude_mode_holds_target_altitude_and_last_reference_without_lock():
    s = ControlStack(ControlConfig(GuidanceMode="hold", DiveMode="altitude", TargetAltitude=5.0))
    o = s.initialize(ControlInputs(depth=2.0, altitude_valid=False, depth_cmd=8.0))
    assert o.depth_ref == 8.0                                    # no lock yet: DepthCommand
    o = s.step(ControlInputs(depth=10.0, altitude=12.0, altitude_valid=True, depth_cmd=8.0), 0.1)
    assert o.depth_ref == pytest.approx(17.0)
    o = s.step(ControlInputs(depth=11.0, altitude=99.0, altitude_valid=False, depth_cmd=8.0), 0.1)
    assert o.depth_ref == pytest.approx(17.0)                    # lock lost: held


def test_yoyo_mode_pitch_reference():
    s = ControlStack(ControlConfig(GuidanceMode="hold", DiveMode="yoyo", YoyoMinDepth=2, YoyoMaxDepth=10))
    o = s.initialize(ControlInputs(depth=0.5))
    assert o.pitch_ref == pytest.approx(-0.349) and o.depth_ref == 10.0
    o = s.step(ControlInputs(depth=10.05), 0.1)
    assert o.pitch_ref == pytest.approx(0.349) and o.depth_ref == 2.0


def test_initialize_does_not_advance_integrators():
    s = hold(SpeedKi=10.0)
    s.initialize(ControlInputs(speed=1.0, speed_cmd=1.5, depth=5.0, depth_cmd=5.1))
    loops = s.get_state()["pid"]
    assert loops["pid_speed"]["integral"] == 0.0 and loops["pid_depth"]["integral"] == 0.0


def test_state_roundtrip_is_bit_for_bit():
    c = ControlConfig(Waypoints="30,0,5; 30,30,6; 0,30,5", DiveMode="depth")
    s = ControlStack(c)
    s.initialize(ControlInputs(depth=4.0, speed=1.2))

    def feed(k):
        return ControlInputs(depth=4.0 + 0.01 * k, pitch=0.001 * k, heading=0.01 * k, speed=1.4,
                             north=0.5 * k, east=0.05 * k)
    for k in range(50):
        s.step(feed(k), 0.1)
    saved = json.loads(json.dumps(s.get_state()))
    a = [vars(s.step(feed(k), 0.1)).copy() for k in range(50, 120)]
    s2 = ControlStack(c)
    s2.set_state(saved)
    b = [vars(s2.step(feed(k), 0.1)).copy() for k in range(50, 120)]
    assert a == b
    assert a[-1]["waypoint_index"] >= 1


@pytest.mark.parametrize("kw, name", [
    (dict(GuidanceMode="survey"), "GuidanceMode"), (dict(DiveMode="deep"), "DiveMode"),
    (dict(SpeedKp=-1.0), "SpeedKp"), (dict(MaxRudderYaw=0.0), "MaxRudderYaw"),
    (dict(DiveAngle=2.0), "DiveAngle"), (dict(LookAhead=0.0), "LookAhead"),
    (dict(Waypoints="1,2,3; 4,5"), "Waypoints entry 2"), (dict(Waypoints=""), "Waypoints is empty"),
    (dict(DiveMode="yoyo", YoyoMinDepth=10.0, YoyoMaxDepth=5.0), "YoyoMaxDepth"),
])
def test_bad_parameters_are_named(kw, name):
    with pytest.raises(ValueError, match=name):
        ControlStack(ControlConfig(**kw))


def test_hold_mode_accepts_empty_waypoints():
    ControlStack(ControlConfig(GuidanceMode="hold", Waypoints=""))


def test_nan_input_is_named():
    s = hold()
    with pytest.raises(ValueError, match="MeasuredHeading"):
        s.step(ControlInputs(heading=math.nan), 0.1)
