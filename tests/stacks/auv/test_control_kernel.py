"""The control stack's compiled step (auv_cosim/vehicles/auv/stack/control_kernel.py): the commands of the plain
Python it replaced (transcribed below as `PlainStack`, on the library's own PID, line of sight and
yo-yo), bit for bit, through every branch (each guidance and dive mode, waypoints reached by
distance and by passing them, a degenerate segment, the end of the mission, the loops saturated
and their integrators held, the bottom lock lost and regained, zig-zag reversals across +-pi, the
step length changing, dt = 0, positions on the acceptance circle where Python's hypot decides);
the kernel compiled equals its own plain-Python execution; the state round-trips; a bad input is
refused with its name and nothing advances; a freshly unzipped AuvControl.fmu compiles nothing,
whichever FMU of the survey stack brought auv_cosim.vehicles.auv.stack."""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from auv_cosim.vehicles.auv.stack import control_kernel as kernel
from auv_cosim.stacks.angles import angle_diff, wrap_pi
from auv_cosim.vehicles.auv.stack.control import ControlConfig, ControlInputs, ControlOutputs, ControlStack
from auv_cosim.vehicles.auv.stack.guidance import WaypointManager, YoyoGuidance, parse_waypoints
from auv_cosim.stacks.pid import PID
from auv_cosim.compiled.jit import JIT_ENABLED
from tests.plain_python import compiled_left, plain_python

ROOT = Path(__file__).resolve().parents[3]


class PlainStack:
    """ControlStack.step as plain Python before the kernel (commit 022604c), the oracle."""

    def __init__(self, c: ControlConfig):
        self.config = c
        self.mission = WaypointManager(parse_waypoints(c.Waypoints, allow_empty=c.GuidanceMode != "mission"),
                                       c.LookAhead, c.AcceptanceRadius, c.LosIntegralGain)
        self.yoyo = YoyoGuidance(c.YoyoMinDepth, c.YoyoMaxDepth, c.DiveAngle) if c.DiveMode == "yoyo" else None
        self.pid_speed = PID(c.SpeedKp, c.SpeedKi, c.SpeedKd, out_min=0.0, out_max=c.MaxPropulsionPower,
                             i_min=-c.MaxPropulsionPower, i_max=c.MaxPropulsionPower, tf=c.SpeedFilterTime,
                             i_band=c.SpeedIntegralBand)
        self.pid_heading = PID(c.HeadingKp, c.HeadingKi, c.HeadingKd, out_min=-c.MaxRudderYaw,
                               out_max=c.MaxRudderYaw, tf=c.HeadingFilterTime, wrap=True, i_band=c.HeadingIntegralBand)
        self.pid_pitch = PID(c.PitchKp, c.PitchKi, c.PitchKd, out_min=-c.MaxRudderDive, out_max=c.MaxRudderDive,
                             tf=c.PitchFilterTime)
        self.pid_depth = PID(c.DepthKp, c.DepthKi, c.DepthKd, out_min=-c.DiveAngle, out_max=c.DiveAngle,
                             tf=c.DepthFilterTime, i_band=c.DepthIntegralBand)
        self.out = ControlOutputs()
        self.zz_base, self.zz_sign, self.zz_switches, self.alt_depth_ref = None, 1.0, 0, None

    def step(self, inp, dt):
        inp.check()
        c, o = self.config, self.out
        finished = False
        rudder_yaw_override = None
        if c.GuidanceMode == "mission":
            res = self.mission.update(inp.north, inp.east, inp.speed, dt)
            finished = self.mission.finished
            o.waypoint_index = self.mission.index
            if res is not None:
                o.heading_ref = res.heading_ref
                o.cross_track_error = res.cross_track
            speed_ref = 0.0 if finished else c.CruiseSpeed
            depth_cmd = self.mission.active_depth
        elif c.GuidanceMode == "hold":
            speed_ref, depth_cmd = inp.speed_cmd, inp.depth_cmd
            o.heading_ref = wrap_pi(inp.heading_cmd)
            o.cross_track_error = 0.0
        else:
            speed_ref, depth_cmd = inp.speed_cmd, inp.depth_cmd
            if self.zz_base is None:
                self.zz_base = inp.heading
            dev = angle_diff(inp.heading, self.zz_base)
            if self.zz_sign > 0 and dev >= c.ZigZagHeading:
                self.zz_sign = -1.0
                self.zz_switches += 1
            elif self.zz_sign < 0 and dev <= -c.ZigZagHeading:
                self.zz_sign = 1.0
                self.zz_switches += 1
            o.heading_ref = self.zz_base
            rudder_yaw_override = self.zz_sign * c.ZigZagRudder
        o.mission_finished = finished
        o.speed_ref = speed_ref
        if finished:
            depth_ref, pitch_ref = 0.0, c.DiveAngle
        elif c.DiveMode == "yoyo":
            depth_ref, pitch_ref = self.yoyo.update(inp.depth)
        else:
            if c.DiveMode == "altitude":
                if inp.altitude_valid:
                    self.alt_depth_ref = max(0.0, inp.depth + inp.altitude - c.TargetAltitude)
                depth_ref = self.alt_depth_ref if self.alt_depth_ref is not None else depth_cmd
            else:
                depth_ref = depth_cmd
            pitch_ref = -self.pid_depth.update(depth_ref, inp.depth, dt)
        o.depth_ref, o.pitch_ref = depth_ref, pitch_ref
        if finished:
            o.thrust_power = 0.0
            o.rudder_yaw = 0.0
        else:
            ff = c.ThrustFeedForward * speed_ref * abs(speed_ref)
            o.thrust_power = self.pid_speed.update(speed_ref, inp.speed, dt, ff=ff)
            if rudder_yaw_override is not None:
                o.rudder_yaw = rudder_yaw_override
            else:
                o.rudder_yaw = self.pid_heading.update(o.heading_ref, inp.heading, dt)
        o.rudder_dive = -self.pid_pitch.update(pitch_ref, inp.pitch, dt)
        return o


def commands(o: ControlOutputs):
    return np.array([o.thrust_power, o.rudder_yaw, o.rudder_dive, o.speed_ref, o.heading_ref, o.depth_ref,
                     o.pitch_ref, o.cross_track_error, o.waypoint_index, float(o.mission_finished)])


def flight(rng, n, waypoints):
    """Inputs of a vehicle that flies towards the waypoints in turn, noisily, now and then right on
    the acceptance circle of the active one (5 m), with depths through the yo-yo's and the
    altitude mode's branches, headings across +-pi, the bottom lock coming and going."""
    north, east, target = 0.0, 0.0, 0
    for k in range(n):
        wn, we = waypoints[min(target, len(waypoints) - 1)][:2]
        dn, de = wn - north, we - east
        distance = math.hypot(dn, de)
        if distance > 1e-9:
            north += 1.5 * dn / distance + rng.normal(0, 0.3)
            east += 1.5 * de / distance + rng.normal(0, 0.3)
        if k % 13 == 7 and distance > 1e-9:    # exactly on (or next to) the acceptance circle
            north, east = wn - 5.0 * dn / distance, we - 5.0 * de / distance
            east = np.nextafter(east, rng.choice([-np.inf, np.inf]))
        if math.hypot(wn - north, we - east) < 6.0:
            target += 1
        yield ControlInputs(depth=float(rng.uniform(-1.0, 14.0)), pitch=float(rng.normal(0, 0.3)),
                            heading=float(rng.choice([rng.uniform(-math.pi, math.pi), math.pi - 0.01, -math.pi + 0.01])),
                            speed=float(rng.uniform(-0.3, 2.0)), altitude=float(rng.uniform(0.0, 40.0)),
                            altitude_valid=bool(rng.random() < 0.8), north=north, east=east,
                            speed_cmd=float(rng.uniform(0.0, 2.0)), heading_cmd=float(rng.uniform(-7.0, 7.0)),
                            depth_cmd=float(rng.uniform(0.0, 12.0)))


WAYPOINTS = "40,0,5; 40,0,5; 40,40,6; 0,40,4; 10,10,8"      # the second is degenerate
CONFIGS = [
    ControlConfig(Waypoints=WAYPOINTS),
    ControlConfig(Waypoints=WAYPOINTS, DiveMode="yoyo", YoyoMinDepth=2.0, YoyoMaxDepth=10.0, LosIntegralGain=0.0),
    ControlConfig(Waypoints=WAYPOINTS, DiveMode="altitude", TargetAltitude=5.0, LosIntegralGain=0.5,
                  SpeedKi=300.0, SpeedIntegralBand=10.0, MaxPropulsionPower=20.0),
    ControlConfig(GuidanceMode="hold", DiveMode="altitude", HeadingKi=2.0, HeadingIntegralBand=3.0, MaxRudderYaw=0.1),
    ControlConfig(GuidanceMode="hold", DiveMode="depth", PitchKi=0.0, DepthKd=0.0, DepthFilterTime=0.0),
    ControlConfig(GuidanceMode="zigzag", DiveMode="yoyo", ZigZagHeading=0.2),
    ControlConfig(GuidanceMode="zigzag", Waypoints="", DiveMode="depth"),
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.GuidanceMode}-{c.DiveMode}")
def test_the_compiled_step_commands_what_the_plain_python_commanded_bit_for_bit(config):
    rng = np.random.default_rng(29)
    compiled, plain = ControlStack(config), PlainStack(config)
    points = parse_waypoints(WAYPOINTS)
    for k, inp in enumerate(flight(rng, 700, points)):
        dt = 0.0 if k == 0 else ((0.1, 0.1, 0.2, 0.0, 0.05)[k % 5] if k > 400 else 0.1)
        a, b = commands(compiled.step(inp, dt)), commands(plain.step(inp, dt))
        assert a.tobytes() == b.tobytes(), (k, inp, a, b)
    if config.GuidanceMode == "mission":
        assert compiled.mission_finished, "the flight reaches the end of the mission"
    if config.GuidanceMode == "zigzag":
        assert compiled.zz_switches == plain.zz_switches > 2


def test_the_arrays_path_of_the_slave_commands_what_step_commands():
    rng = np.random.default_rng(4)
    by_class, by_arrays = ControlStack(CONFIGS[0]), ControlStack(CONFIGS[0])
    values, out = np.zeros(kernel.INPUTS_SIZE), np.zeros(kernel.OUTPUTS_SIZE)
    for k, inp in enumerate(flight(rng, 300, parse_waypoints(WAYPOINTS))):
        values[:] = (inp.depth, inp.pitch, inp.heading, inp.speed, inp.altitude, inp.north, inp.east,
                     inp.speed_cmd, inp.heading_cmd, inp.depth_cmd)
        o = by_class.step(inp, 0.1)
        by_arrays.step_into(values, inp.altitude_valid, out, 0.1)
        assert np.append(out, [by_arrays.waypoint_index, float(by_arrays.mission_finished)]).tobytes() \
            == commands(o).tobytes()


@pytest.mark.skipif(not JIT_ENABLED, reason="numba is not in use (AUV_NO_JIT or no numba): the kernel runs as "
                                            "plain Python, nothing to compare")
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.GuidanceMode}-{c.DiveMode}")
def test_the_kernel_compiled_equals_its_plain_python_execution(config):
    plain = plain_python(kernel.step_into)   # its helpers in Python too
    assert compiled_left(plain) == []
    rng = np.random.default_rng(8)
    stack = ControlStack(config)
    for k, inp in enumerate(flight(rng, 300, parse_waypoints(WAYPOINTS))):
        stack.step(inp, 0.1)          # a realistic state and segment to start from
        values = np.array([inp.depth, inp.pitch, inp.heading, inp.speed, inp.altitude, inp.north, inp.east,
                           inp.speed_cmd, inp.heading_cmd, inp.depth_cmd])
        segment = stack.segment.copy()
        if k % 3 == 0:
            segment[kernel.DISTANCE], segment[kernel.DISTANCE_KNOWN] = rng.uniform(0, 10), 1.0
        results = []
        for function in (kernel.step_into, plain):
            s, seg, out = stack.state.copy(), segment.copy(), np.full(kernel.OUTPUTS_SIZE, -7.0)
            status = function(values, inp.altitude_valid, out, seg, s, stack.constants.copy(), (0.1, 0.0)[k % 2],
                              bool(k % 4))
            results.append((status, s.tobytes(), seg.tobytes(), out.tobytes()))
        assert results[0] == results[1], k


@pytest.mark.parametrize("config", CONFIGS[:3] + CONFIGS[5:6], ids=lambda c: f"{c.GuidanceMode}-{c.DiveMode}")
def test_the_state_round_trips_bit_for_bit(config):
    rng = np.random.default_rng(12)
    inputs = list(flight(rng, 400, parse_waypoints(WAYPOINTS)))
    first = ControlStack(config)
    for inp in inputs[:150]:
        first.step(inp, 0.1)
    saved = json.loads(json.dumps(first.get_state()))
    second = ControlStack(config)
    second.set_state(saved)
    assert second.get_state() == first.get_state()
    for inp in inputs[150:]:
        assert commands(first.step(inp, 0.1)).tobytes() == commands(second.step(inp, 0.1)).tobytes()


@pytest.mark.parametrize("field, name", [("depth", "MeasuredDepth"), ("heading", "MeasuredHeading"),
                                         ("east", "NavEast"), ("depth_cmd", "DepthCommand"),
                                         ("altitude", "MeasuredAltitude")])
def test_a_bad_input_is_named_and_nothing_advances(field, name):
    stack = ControlStack(CONFIGS[2])
    good = ControlInputs(depth=3.0, speed=1.2, altitude=10.0, altitude_valid=True, north=1.0, east=2.0)
    stack.step(good, 0.0)
    stack.step(good, 0.1)
    before = stack.get_state()
    with pytest.raises(ValueError, match=name):
        stack.step(ControlInputs(**{**vars(good), field: math.nan}), 0.1)
    assert stack.get_state() == before


#: a fresh interpreter loads freshly unzipped FMUs in the given order (a module the host imported is
#: shared: auv_cosim.vehicles.auv.stack and auv_cosim.vehicles come from the first FMU that carries them) and steps the
#: control; how many compiled functions were loaded from a cache and how many compiled
SCRIPT = r"""
fmus = instantiate_all()
md, fmu = fmus["AuvControl"]
refs = {v.name: v.valueReference for v in md.modelVariables}
fmu.setupExperiment(startTime=0.0)
fmu.setString([refs["Waypoints"]], ["20,0,5; 20,20,5"])
fmu.enterInitializationMode()
fmu.exitInitializationMode()
for step in range(40):
    fmu.setReal([refs["NavNorth"], refs["MeasuredSpeed"]], [1.0 * step, 1.4])
    fmu.doStep(currentCommunicationPoint=0.1 * step, communicationStepSize=0.1)
"""


@pytest.mark.skipif(not JIT_ENABLED, reason="numba is not in use (AUV_NO_JIT or no numba): nothing is compiled")
@pytest.mark.parametrize("order", [("AuvControl",), ("Auv", "AuvControl"), ("AuvSensors", "AuvControl")],
                         ids=["alone", "after the vehicle", "after the instruments"])
def test_a_freshly_unzipped_control_fmu_compiles_nothing(order):
    pytest.importorskip("fmpy")
    from tests.harness import FMU_DIR, build, numba_cache_report

    build(*order)
    result = numba_cache_report(SCRIPT, "auv_cosim.vehicles.auv.stack.control_kernel", [FMU_DIR / f"{name}.fmu" for name in order])
    assert not result["kernel"].startswith(str(ROOT)), result   # the FMU's copy, not the checkout's
    assert result["hits"] > 0, result
    assert result["misses"] == {}, result
