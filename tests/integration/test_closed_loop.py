"""Closed loop: the control stack flying the vehicle, first as plain Python (auv_cosim.vehicles +
SensorSuite + ControlStack), then through fmus/Auv.fmu + AuvSensors.fmu + AuvControl.fmu with
fmpy.

Acceptance figures (SPEC 4 / seed 004) for a 1 m depth step at cruise (1.5 m/s):
steady error < 0.1 m, overshoot < 5 %, settling < 10 s, where
* overshoot = largest excursion of the true depth beyond the new reference, over the step;
* settling time = time from the step until the true depth enters, for good, the band
  reference +- 5 % of the step (+-0.05 m);
* steady error = |mean true depth - reference| over the last 6 s of the 30 s after the step
  (the last 10 s, or the last fifth of a shorter record).
They are computed from the vehicle's true depth, with the default (noisy) instruments, by
`auv_cosim.analyses.metrics.step_response`: the figures the depth_step analysis of a run's summary
reports (one definition for both).

Print the figures:  .venv/bin/python tests/integration/test_closed_loop.py
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from auv_cosim.vehicles.auv.stack.control import ControlConfig
from auv_cosim.vehicles.auv.stack.instruments import SensorConfig
from auv_cosim.analyses.metrics import step_response
from auv_cosim.vehicles.auv.stack.closed_loop import run_closed_loop

DT = 0.1
T_STEP = 30.0          # the vehicle settles at 10 m first (depth integrator trims buoyancy)
CRUISE = 1.5


def step_figures(t, y, t_step, y0, y1):
    """The step-response figures (auv_cosim.analyses.metrics) of ``y`` stepped from y0 to y1 at t_step."""
    after = t >= t_step
    return step_response(t[after] - t_step, y[after], y0, y1)


def meets_the_acceptance(m, settles=True):
    """SPEC 4 / seed 004: overshoot < 5 %, settling < 10 s, steady error < 0.1 m."""
    return (m["overshoot_percent"] < 5.0 and m["steady_state_error"] < 0.1
            and (not settles or (m["settling_time_s"] is not None and m["settling_time_s"] < 10.0)))


def depth_step(step=1.0, sensors=None, dt=DT):
    cfg = ControlConfig(GuidanceMode="hold")
    log = run_closed_loop(cfg, sensors if sensors is not None else SensorConfig(Seed=1),
                          t_end=T_STEP + 30.0, dt=dt,
                          commands=lambda t: dict(speed_cmd=CRUISE, heading_cmd=0.0,
                                                  depth_cmd=10.0 if t < T_STEP else 10.0 + step))
    return step_figures(log["t"], log["depth"], T_STEP, 10.0, 10.0 + step), log


def heading_change(degrees=90.0, sensors=None):
    ref = math.radians(degrees)
    cfg = ControlConfig(GuidanceMode="hold")
    log = run_closed_loop(cfg, sensors if sensors is not None else SensorConfig(Seed=1),
                          t_end=45.0, commands=lambda t: dict(speed_cmd=CRUISE, depth_cmd=10.0,
                                                              heading_cmd=0.0 if t < 5.0 else ref))
    t = log["t"]
    err = np.degrees(np.unwrap(log["heading"]) - ref)       # heading - reference
    after = t >= 5.0
    sign = 1.0 if degrees > 0 else -1.0
    overshoot = max(0.0, float(np.max(sign * err[after])))
    outside = np.nonzero(np.abs(err[after]) > 2.0)[0]
    settle = float(t[after][outside[-1] + 1] - 5.0) if len(outside) else 0.0
    return dict(overshoot_deg=overshoot, settling_2deg_s=settle,
                final_error_deg=float(abs(err[-1]))), log


# ------------------------------------------------------------------ plain Python
@pytest.mark.parametrize("sensors", [SensorConfig(Seed=1), SensorConfig.noiseless()],
                         ids=["default-instruments", "noiseless"])
def test_depth_step_meets_the_acceptance_figures(sensors):
    m, log = depth_step(1.0, sensors)
    assert m["overshoot_percent"] < 5.0, m
    assert m["settling_time_s"] is not None and m["settling_time_s"] < 10.0, m
    assert m["steady_state_error"] < 0.1, m
    # held before the step too
    before = log["depth"][(log["t"] > T_STEP - 10) & (log["t"] < T_STEP)]
    assert np.max(np.abs(before - 10.0)) < 0.05


def test_depth_step_upwards_and_large_steps():
    m, _ = depth_step(-1.0)
    assert meets_the_acceptance(m), m
    m, log = depth_step(5.0)            # saturates the pitch reference at DiveAngle
    assert meets_the_acceptance(m, settles=False), m
    assert np.min(log["pitch_ref"]) == pytest.approx(-ControlConfig().DiveAngle)


def test_depth_step_at_other_control_periods():
    for dt in (0.05, 0.2):
        m, _ = depth_step(1.0, SensorConfig.noiseless(), dt=dt)
        assert meets_the_acceptance(m), (dt, m)


@pytest.mark.parametrize("degrees", [90.0, -90.0])
def test_heading_change_settles_without_oscillation(degrees):
    m, log = heading_change(degrees)
    assert m["overshoot_deg"] < 2.0, m
    assert m["settling_2deg_s"] < 15.0, m
    assert m["final_error_deg"] < 0.5, m
    # no oscillation: once within 2 deg the heading error never leaves the band again and
    # the rudder does not swing from limit to limit
    t = log["t"]
    late = t > 5.0 + m["settling_2deg_s"]
    assert np.max(np.abs(log["rudder_yaw"][late])) < 0.2
    # depth held during the turn
    assert np.max(np.abs(log["depth"][t > 5.0] - 10.0)) < 0.3


def test_heading_change_across_north_goes_the_short_way():
    cfg = ControlConfig(GuidanceMode="hold")
    start = math.radians(170.0)
    from auv_cosim.vehicles.auv import AuvModel
    model = AuvModel()
    log = run_closed_loop(cfg, SensorConfig(Seed=2), t_end=25.0, x0=model.cruise_state(CRUISE, 10.0, start),
                          commands=lambda t: dict(depth_cmd=10.0, heading_cmd=math.radians(-170.0)))
    assert np.all(log["rudder_yaw"][:20] > 0.0)                 # starboard: through 180
    h = np.degrees(np.unwrap(log["heading"]))
    assert h[-1] == pytest.approx(190.0, abs=1.0)


SQUARE = "60,0,5; 60,60,6; 0,60,5; 0,0,5"


def test_waypoint_square_is_completed_and_the_vehicle_surfaces():
    cfg = ControlConfig(GuidanceMode="mission", Waypoints=SQUARE, LookAhead=10.0, AcceptanceRadius=5.0)
    from auv_cosim.vehicles.auv import AuvModel
    log = run_closed_loop(cfg, SensorConfig(Seed=3), t_end=400.0,
                          x0=AuvModel().cruise_state(CRUISE, depth=5.0),
                          stop=lambda t, y, o: o.mission_finished and y["Depth"] < 0.3)
    t, idx, fin = log["t"], log["waypoint_index"], log["finished"]
    assert fin[-1], "mission not finished"
    switches = np.nonzero(np.diff(idx))[0] + 1
    assert list(idx[switches]) == [1, 2, 3]                     # in order, none skipped
    wps = [tuple(map(float, w.split(","))) for w in SQUARE.split(";")]
    for k, w in enumerate(wps):                                 # each one actually reached
        reached = (idx == k + 1) if k < 3 else fin
        i = np.argmax(reached)
        assert math.hypot(log["north"][i] - w[0], log["east"][i] - w[1]) <= 5.0 + 0.3, k
    # each turn overshoots the next leg by about a turning radius (full rudder), then the
    # line of sight brings the vehicle back onto the line without oscillating
    for k in range(1, 4):
        leg = (idx == k) & ~fin
        tl = t[leg]
        xte = log["cross_track"]
        assert np.max(np.abs(xte[leg])) < 8.0, k
        assert np.max(np.abs(xte[leg & (t > tl[0] + 25.0)])) < 1.0, k
    # at the end: no thrust, and the positively buoyant vehicle surfaces
    assert np.all(log["thrust_power"][fin] == 0.0)
    assert log["depth"][-1] < 0.3


def test_yoyo_profile_in_closed_loop():
    cfg = ControlConfig(GuidanceMode="hold", DiveMode="yoyo", YoyoMinDepth=3.0, YoyoMaxDepth=12.0)
    log = run_closed_loop(cfg, SensorConfig(Seed=4), t_end=150.0, commands=lambda t: dict(heading_cmd=0.0))
    d, pr = log["depth"], log["pitch_ref"]
    flips = np.nonzero(np.diff(np.sign(pr)))[0]
    assert len(flips) >= 4
    assert np.max(d) == pytest.approx(12.0, abs=1.2)            # turns close to the boundaries
    assert np.min(d[log["t"] > 20]) == pytest.approx(3.0, abs=1.2)
    descending = pr < 0
    assert np.degrees(np.median(log["pitch"][descending])) == pytest.approx(-20.0, abs=2.0)


def test_zigzag_in_closed_loop():
    cfg = ControlConfig(GuidanceMode="zigzag")
    log = run_closed_loop(cfg, SensorConfig(Seed=5), t_end=60.0, commands=lambda t: dict(depth_cmd=10.0))
    flips = np.nonzero(np.diff(np.sign(log["rudder_yaw"])))[0]
    assert len(flips) >= 4
    h = np.degrees(log["heading"])
    assert 20.0 < np.max(h) < 30.0 and -30.0 < np.min(h) < -20.0      # 20/20 plus overshoot


# ------------------------------------------------------------------ through the three FMUs
@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    from tests.harness import build, unpack
    build("Auv", "AuvSensors", "AuvControl")
    return {n: unpack(n, tmp_path_factory.mktemp(n)) for n in ("Auv", "AuvSensors", "AuvControl")}


def fmu_stack(fmus):
    from tests.harness import Instance
    return (Instance(fmus["Auv"], "Auv", "vehicle"), Instance(fmus["AuvSensors"], "AuvSensors", "sensors"),
            Instance(fmus["AuvControl"], "AuvControl", "control"))


def test_depth_step_through_the_fmus(fmus):
    from tests.harness import cosimulate, initialize_stack
    vehicle, sensors, control = fmu_stack(fmus)
    try:
        commands = lambda t: dict(SpeedCommand=CRUISE, HeadingCommand=0.0,  # noqa: E731
                                  DepthCommand=10.0 if t < T_STEP else 11.0)
        initialize_stack(vehicle, sensors, control,
                         vehicle_parameters={"Pos0": (0.0, 0.0, 10.0), "LocalVel0": (CRUISE, 0.0, 0.0)},
                         sensor_parameters={"Seed": 1}, control_parameters={"GuidanceMode": "hold"},
                         commands=commands)
        rec = cosimulate(vehicle, sensors, control, T_STEP + 30.0, DT, commands=commands)
        t, depth = np.array([0.0] + rec["t"]), np.array([10.0] + rec["Depth"])
        m = step_figures(t, depth, T_STEP, 10.0, 11.0)
        assert meets_the_acceptance(m), m
        # the FMUs fly the same as the plain-Python loop (same seed, same Gauss-Seidel order)
        _, log = depth_step(1.0, SensorConfig(Seed=1))
        np.testing.assert_allclose(depth, log["depth"][:len(depth)], atol=1e-6)
        for inst in (vehicle, sensors, control):
            assert inst.errors() == [], inst.messages
    finally:
        for inst in (vehicle, sensors, control):
            inst.close()


def test_small_mission_through_the_fmus(fmus):
    from tests.harness import cosimulate, initialize_stack
    vehicle, sensors, control = fmu_stack(fmus)
    try:
        initialize_stack(vehicle, sensors, control,
                         vehicle_parameters={"Pos0": (0.0, 0.0, 3.0), "LocalVel0": (CRUISE, 0.0, 0.0)},
                         sensor_parameters={"Seed": 7},
                         control_parameters={"Waypoints": "30,0,3; 30,30,4", "AcceptanceRadius": 4.0})
        rec = cosimulate(vehicle, sensors, control, 70.0, DT)
        assert rec["MissionFinished"][-1]
        assert 1 in rec["WaypointIndex"]
        i = rec["MissionFinished"].index(True)
        assert math.hypot(rec["Pos[1]"][i] - 30.0, rec["Pos[2]"][i] - 30.0) <= 4.5
        assert rec["ThrustPower"][-1] == 0.0
    finally:
        for inst in (vehicle, sensors, control):
            inst.close()


def _s(seconds):
    return "never" if seconds is None else f"{seconds:.1f} s"


if __name__ == "__main__":
    print(f"depth step 10 -> 11 m at {CRUISE} m/s, control period {DT} s, band +-5 % of the step")
    for label, sensors in (("default instruments (Seed 1)", SensorConfig(Seed=1)),
                           ("noiseless instruments", SensorConfig.noiseless())):
        for step in (1.0, -1.0):
            m, _ = depth_step(step, sensors)
            print(f"  {label:30s} step {step:+.0f} m: overshoot {m['overshoot_percent']:.2f} %, "
                  f"settling {_s(m['settling_time_s'])}, steady error {m['steady_state_error']:.4f} m, "
                  f"rise (10-90 %) {_s(m['rise_time_10_90_s'])}")
    for deg in (90.0, -90.0):
        m, _ = heading_change(deg)
        print(f"  heading change {deg:+.0f} deg (default instruments): overshoot {m['overshoot_deg']:.2f} deg, "
              f"within 2 deg after {m['settling_2deg_s']:.1f} s, final error {m['final_error_deg']:.2f} deg")


def _cross_current_leg_rms(gain):
    """Cross-track rms on a 500 m leg across a 0.3 m/s current, after its first 100 s."""
    from auv_cosim.vehicles.auv import AuvParameters, AuvModel
    from auv_cosim.vehicles import Environment
    model = AuvModel(AuvParameters(), Environment(CurrentVelocity=(0.0, 0.3, 0.0)))
    cfg = ControlConfig(GuidanceMode="mission", Waypoints="500,0,10; 500,50,10; 0,50,10",
                        LookAhead=10.0, AcceptanceRadius=5.0, LosIntegralGain=gain)
    log = run_closed_loop(cfg, SensorConfig(Seed=3), t_end=900.0, model=model,
                          x0=model.cruise_state(CRUISE, depth=10.0))
    leg = log["waypoint_index"] == 2
    settled = leg & (log["t"] > log["t"][leg][0] + 100.0)
    assert settled.sum() > 1000                                  # the leg was flown
    return float(np.sqrt(np.mean(log["cross_track"][settled] ** 2)))


def test_integral_los_holds_the_line_in_a_cross_current():
    # plain LOS must crab through a cross-track error (atan(e/10 m) = 12 deg, e = 2.2 m);
    # integral LOS holds the line
    assert _cross_current_leg_rms(0.0) > 1.5
    assert _cross_current_leg_rms(ControlConfig().LosIntegralGain) < 0.3
