"""Waypoint strings, line-of-sight geometry, waypoint switching, the yo-yo profile."""
import math

import pytest

from auv_cosim.vehicles.auv.stack.guidance import (
    LineOfSight,
    WaypointError,
    WaypointManager,
    YoyoGuidance,
    parse_waypoints,
)


# ---------------------------------------------------------------- waypoint strings
def test_parse_waypoints():
    assert parse_waypoints("100,0,5; 100,100,5;0,100, 5 ;") == [(100.0, 0.0, 5.0), (100.0, 100.0, 5.0), (0.0, 100.0, 5.0)]
    assert parse_waypoints(" -1.5e2 , 3 , 0 ") == [(-150.0, 3.0, 0.0)]
    assert parse_waypoints("", allow_empty=True) == []


@pytest.mark.parametrize("text, fragments", [
    ("", ["empty"]),
    ("   ;", ["empty"]),
    ("1,2", ["entry 1", "'1,2'", "2 value(s)", "expected 3"]),
    ("1,2,3; 4,5", ["entry 2", "'4,5'", "2 value(s)"]),
    ("1,2,3,4", ["entry 1", "4 value(s)"]),
    ("1,2,3;; 4,5,6", ["entry 2", "empty"]),
    ("1,2,3; 4,abc,6", ["entry 2", "east", "'abc'", "not a number"]),
    ("1,2,x", ["entry 1", "depth", "'x'"]),
    ("1,2,-5", ["entry 1", "depth -5", "negative"]),
    ("1,inf,5", ["entry 1", "east", "not finite"]),
    ("1,2,3 4,5,6", ["entry 1", "value(s)"]),
])
def test_malformed_waypoints_name_what_is_wrong(text, fragments):
    with pytest.raises(WaypointError) as info:
        parse_waypoints(text)
    msg = str(info.value)
    assert msg.startswith("Waypoints")
    for f in fragments:
        assert f in msg, (f, msg)


# ---------------------------------------------------------------- line of sight
def test_los_on_the_path_points_along_it():
    los = LineOfSight(10.0)
    for (p1, alpha) in (((100, 0), 0.0), ((0, 100), math.pi / 2), ((-100, 0), math.pi), ((0, -100), -math.pi / 2)):
        r = los((0.0, 0.0), p1, p1[0] * 0.3, p1[1] * 0.3)
        assert r.heading_ref == pytest.approx(alpha, abs=1e-12)
        assert r.cross_track == pytest.approx(0.0, abs=1e-12)
        assert r.along_track == pytest.approx(30.0)
        assert r.segment_length == pytest.approx(100.0)


def test_los_geometry_cross_track_and_heading():
    los = LineOfSight(10.0)
    # northbound path, vehicle 10 m east of it (to starboard): steer back west of north
    r = los((0.0, 0.0), (100.0, 0.0), 50.0, 10.0)
    assert r.cross_track == pytest.approx(10.0)
    assert r.heading_ref == pytest.approx(math.atan2(-10.0, 10.0))   # -45 deg
    # ... it aims at the point LookAhead down the path from its projection
    los_n, los_e = 50.0 + 10.0, 0.0
    assert r.heading_ref == pytest.approx(math.atan2(los_e - 10.0, los_n - 50.0))
    # eastbound path, vehicle north of it (to port): steer right (south of east)
    r = los((0.0, 0.0), (0.0, 100.0), 5.0, 40.0)
    assert r.cross_track == pytest.approx(-5.0)
    assert r.heading_ref == pytest.approx(math.pi / 2 + math.atan2(5.0, 10.0))
    # far off the path the heading tends to the perpendicular
    r = los((0.0, 0.0), (100.0, 0.0), 50.0, 1e6)
    assert r.heading_ref == pytest.approx(-math.pi / 2, abs=1e-4)


def test_los_heading_is_wrapped():
    los = LineOfSight(5.0)
    # southbound path (alpha = pi), vehicle 1 m east of it = to port: steer towards the west
    # of south, pi + atan(1/5), which is reported wrapped as -(pi - atan(1/5))
    r = los((0.0, 0.0), (-100.0, 0.0), -50.0, 1.0)
    assert r.cross_track == pytest.approx(-1.0)
    assert r.heading_ref == pytest.approx(-(math.pi - math.atan2(1.0, 5.0)), abs=1e-12)
    # vehicle west of it = to starboard: east of south, pi - atan(1/5)
    r = los((0.0, 0.0), (-100.0, 0.0), -50.0, -1.0)
    assert r.cross_track == pytest.approx(1.0)
    assert r.heading_ref == pytest.approx(math.pi - math.atan2(1.0, 5.0), abs=1e-12)


def test_los_lookahead_must_be_positive():
    with pytest.raises(ValueError, match="LookAhead"):
        LineOfSight(0.0)


# ---------------------------------------------------------------- waypoint switching
def test_switch_on_entering_the_acceptance_circle():
    m = WaypointManager([(100.0, 0.0, 5.0), (100.0, 100.0, 8.0)], 10.0, 5.0)
    m.update(0.0, 0.0)
    assert m.index == 0 and m.active_depth == 5.0
    m.update(94.9, 0.0)
    assert m.index == 0
    m.update(95.5, 0.5)                       # 4.5 m from the waypoint
    assert m.index == 1 and m.active_depth == 8.0
    r = m.update(96.0, 1.0)
    assert r.heading_ref == pytest.approx(math.atan2(-4.0, 10.0) + math.pi / 2)


def test_switch_on_passing_the_perpendicular_of_the_waypoint():
    m = WaypointManager([(100.0, 0.0, 5.0), (100.0, 100.0, 5.0)], 10.0, 2.0)
    m.update(0.0, 0.0)
    m.update(99.9, 20.0)                      # 20 m abeam, not past
    assert m.index == 0
    m.update(100.1, 20.0)                     # past the perpendicular through waypoint 0
    assert m.index == 1


def test_first_leg_starts_at_the_vehicle_and_mission_finishes():
    m = WaypointManager([(0.0, 50.0, 5.0)], 10.0, 5.0)
    r = m.update(10.0, 0.0)
    assert m.start == (10.0, 0.0)
    assert r.heading_ref == pytest.approx(math.atan2(50.0, -10.0))
    assert not m.finished
    assert m.update(1.0, 47.0) is None
    assert m.finished and m.index == 0


def test_several_waypoints_inside_the_circle_switch_in_one_update():
    m = WaypointManager([(1.0, 0.0, 5.0), (2.0, 0.0, 5.0), (50.0, 0.0, 5.0)], 10.0, 5.0)
    m.update(0.0, 0.0)
    assert m.index == 2


def test_waypoint_state_roundtrip():
    m = WaypointManager([(100.0, 0.0, 5.0), (100.0, 100.0, 5.0)], 10.0, 5.0)
    m.update(3.0, 4.0); m.update(97.0, 0.0)
    s = m.get_state()
    m2 = WaypointManager([(100.0, 0.0, 5.0), (100.0, 100.0, 5.0)], 10.0, 5.0)
    m2.set_state(s)
    assert m2.index == 1 and m2.start == (3.0, 4.0) and not m2.finished


# ---------------------------------------------------------------- yo-yo
def test_yoyo_switches_at_both_depths():
    y = YoyoGuidance(2.0, 10.0, 0.349)
    assert y.update(0.0) == (10.0, -0.349)            # starts diving (nose down = negative)
    assert y.update(9.99) == (10.0, -0.349)
    assert y.update(10.0) == (2.0, 0.349)             # reached the deepest: climb
    assert y.update(10.3) == (2.0, 0.349)             # overshoot below: still climbing
    assert y.update(2.01) == (2.0, 0.349)
    assert y.update(2.0) == (10.0, -0.349)            # reached the shallowest: dive
    assert y.update(1.5) == (10.0, -0.349)
    assert y.switches == 2


def test_yoyo_starting_below_the_deepest_climbs():
    y = YoyoGuidance(2.0, 10.0, 0.3)
    assert y.update(12.0) == (2.0, 0.3)


@pytest.mark.parametrize("args, name", [((5.0, 5.0, 0.3), "YoyoMaxDepth"), ((-1.0, 5.0, 0.3), "YoyoMinDepth"),
                                        ((1.0, 5.0, 0.0), "DiveAngle"), ((1.0, 5.0, 2.0), "DiveAngle")])
def test_yoyo_bad_parameters(args, name):
    with pytest.raises(ValueError, match=name):
        YoyoGuidance(*args)


def _fly_kinematic(integral_gain, seconds=400.0, current_east=0.3, speed=1.4, dt=0.1):
    """A vehicle that holds the reference heading exactly, in a uniform cross current."""
    manager = WaypointManager([(3000.0, 0.0, 5.0)], look_ahead=10.0, acceptance_radius=5.0,
                              integral_gain=integral_gain)
    north, east = 0.0, 0.0
    errors = []
    for _ in range(int(seconds / dt)):
        res = manager.update(north, east, speed, dt)
        north += dt * speed * math.cos(res.heading_ref)
        east += dt * (speed * math.sin(res.heading_ref) + current_east)
        errors.append(res.cross_track)
    return errors, manager


def test_plain_los_keeps_a_cross_track_offset_in_a_cross_current():
    errors, _ = _fly_kinematic(0.0)
    crab = math.asin(0.3 / 1.4)
    # steady state: atan(e / Delta) equals the crab angle
    assert errors[-1] == pytest.approx(10.0 * math.tan(crab), rel=0.02)


def test_integral_los_removes_the_offset():
    errors, manager = _fly_kinematic(0.25)
    assert abs(errors[-1]) < 0.01
    assert max(abs(e) for e in errors) < 3.0          # the transient stays small
    # the integral holds the crab into the current: k e_i = Delta tan(crab)
    crab = math.asin(0.3 / 1.4)
    assert 0.25 * manager.cross_track_integral == pytest.approx(10.0 * math.tan(crab), rel=0.02)
    state = manager.get_state()
    other = WaypointManager([(3000.0, 0.0, 5.0)], 10.0, 5.0, 0.25)
    other.set_state(state)
    assert other.cross_track_integral == manager.cross_track_integral


def test_integral_los_gain_must_not_be_negative():
    with pytest.raises(ValueError, match="LosIntegralGain"):
        WaypointManager([(1.0, 0.0, 0.0)], 10.0, 5.0, -0.1)
