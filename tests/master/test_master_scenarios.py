"""Every scenario runs through the CLI and its summary shows what the scenario exists for.
Long scenarios are shortened with --stop-time or a shorter mission (--set)."""
from __future__ import annotations

import math

import pytest

from master_helpers import REPO
from auv_cosim.master import find_scenario

pytestmark = pytest.mark.usefixtures("fmus_built")

SHORT_SURVEY = ("survey", "--stop-time", "400",
                "--set", "control.Waypoints=0,0,10; 120,0,10; 120,40,10; 0,40,10",
                "--set", "control.YoyoMaxDepth=15")


def test_survey_completes_its_waypoints_and_draws_the_plots(runs):
    r = runs(*SHORT_SURVEY)
    assert r.rc == 0, r
    s = r.summary
    assert s["status"] == "completed"
    assert s["reason"].startswith("stop condition met: control.MissionFinished == true"), s["reason"]
    assert s["mission_completed"] is True
    ctl = s["controls"]["control"]
    assert ctl["waypoints_reached"] == ctl["waypoint_count"] == 4
    assert s["simulated_time_s"] < 400
    assert s["distance_run_m"] > 300
    assert s["energy_used_J"] > 0
    for key in ("depth_error_m", "cross_track_error_m"):
        assert set(s[key]) >= {"mean_abs", "rms", "max"}, s[key]
    assert s["cross_track_error_m"]["rms"] < 2.5, s["cross_track_error_m"]   # measured 1.6 m, turns included
    assert s["real_time_factor"] > 0 and s["startup_time_s"] > 0 and s["wall_time_s"] > 0
    names = sorted(p.name for p in r.out.glob("*.png"))
    assert names == ["actuators.png", "attitude.png", "battery.png", "depth.png", "navigation.png", "track.png"]
    for p in r.out.glob("*.png"):
        data = p.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000, p
    # the short summary and where the results are
    assert "survey: completed" in r.stdout
    assert "results.csv" in r.stdout and "summary.json" in r.stdout and "track.png" in r.stdout
    # the CSV: time first, every output of every instance, one row per step plus the initial one
    header, rows = r.table()
    assert header[0] == "time"
    assert {"vehicle.Depth", "sensors.MeasuredDepth", "control.ThrustPower", "control.MissionFinished"} <= set(header)
    assert len(rows) == s["steps"] + 1 == s["rows"]
    assert float(rows[-1][0]) == pytest.approx(s["simulated_time_s"])


def test_the_default_survey_is_a_half_hour_lawn_mower():
    from auv_cosim.master.plan import build_plan
    from auv_cosim.master.scenario import load_scenario
    from auv_cosim.vehicles.auv.stack.guidance import parse_waypoints
    from auv_cosim.master.summary import param

    plan = build_plan(load_scenario(find_scenario("survey")))
    wps = parse_waypoints(param(plan, "control", "Waypoints"))
    legs = [math.dist(a[:2], b[:2]) for a, b in zip(wps, wps[1:])]
    lines = [d for d in legs if d > 400]
    assert len(lines) >= 4
    assert sum(legs) / param(plan, "control", "CruiseSpeed") >= 1800  # at least 30 minutes
    assert param(plan, "control", "DiveMode") == "yoyo"
    assert plan.order == ["control", "vehicle", "sensors"]


def test_current_makes_the_vehicle_crab_into_it(runs):
    r = runs("current", "--stop-time", "300", "--set", "control.Waypoints=0,0,10; 300,0,10", "--no-plots")
    assert r.rc == 0, r
    assert r.summary["mission_completed"] is True
    heading = r.column("vehicle.Heading")
    steady = heading[len(heading) // 2:]
    crab = math.degrees(sum(steady) / len(steady))
    # 0.3 m/s from the west at 1.4 m/s: about asin(0.3 / 1.4) = 12 degrees to the west of north
    assert -16.0 < crab < -8.0, crab


def test_depth_step_meets_the_acceptance_figures(runs):
    r = runs("depth_step", "--no-plots")
    assert r.rc == 0, r
    a = r.summary["analysis"]["depth_step"]
    assert (a["from_m"], a["to_m"], a["step_time_s"]) == (10.0, 11.0, 60.0)
    assert all(a["acceptance"].values()), a
    assert a["steady_state_error_m"] < 0.1 and a["overshoot_percent"] < 5.0 and a["settling_time_s"] < 10.0


def test_zigzag_reverses_the_rudder_and_reports_overshoots(runs):
    r = runs("zigzag", "--stop-time", "80", "--no-plots")
    assert r.rc == 0, r
    z = r.summary["analysis"]["zigzag"]
    assert z["reversals"] >= 4, z
    assert z["rudder_deg"] == pytest.approx(20.0, abs=0.1)
    assert 0.0 < z["first_overshoot_deg"] < 15.0, z
    assert z["second_overshoot_deg"] is not None


def test_turning_circle_gives_a_steady_diameter(runs):
    r = runs("turning_circle", "--stop-time", "170", "--no-plots")
    assert r.rc == 0, r
    tc = r.summary["analysis"]["turning_circle"]
    assert "error" not in tc and "warning" not in tc, tc
    assert 10.0 < tc["diameter_m"] < 60.0, tc
    assert tc["turns_fitted"] >= 1.0
    assert tc["fit_rms_residual_m"] < 0.05 * tc["diameter_m"], tc  # a circle, not a spiral
    assert tc["direction"] == "starboard"
    # the rudder came from the signal, not from the control
    assert set(r.column("vehicle.RudderYaw")) == {0.2}
    assert "vehicle.RudderYaw" not in " ".join(r.summary["connections"]["same_step"])


def test_disturbance_is_applied_and_rejected(runs):
    r = runs("disturbance", "--stop-time", "200", "--no-plots")
    assert r.rc == 0, r
    t = r.column("time")
    f = r.column("vehicle.ExternalForce[2]")
    assert max(abs(x) for x, ti in zip(f, t) if ti <= 60.0) == 0.0
    assert all(x == pytest.approx(5.0) for x, ti in zip(f, t) if 61.0 <= ti <= 150.0)
    late = [x for x, ti in zip(f, t) if ti > 151.0]
    assert max(late) > 8.0 and min(late) < 2.0  # the sinusoid on top of the step
    assert r.summary["cross_track_error_m"]["max"] < 3.0


def test_dead_vehicle_reaches_the_surface(runs):
    r = runs("free_drift", "--no-plots")
    assert r.rc == 0, r
    s = r.summary
    assert list(s["fmus"]) == ["vehicle"]  # the stack's sensors and control were removed
    assert "vehicle.Depth <= 0.1" in s["reason"]
    a = s["analysis"]["surfacing"]
    assert a["surfaced"] is True and a["initial_depth_m"] == pytest.approx(20.0)
    assert a["max_thrust_N"] == 0.0
    assert 60.0 < a["time_to_surface_s"] < 600.0


def test_battery_run_ends_flat_with_the_thruster_stopped(runs):
    r = runs("battery", "--set", "vehicle.InitialBattery=3000", "--set", "vehicle.Battery0=3000", "--no-plots")
    assert r.rc == 0, r
    s = r.summary
    assert s["status"] == "completed" and "vehicle.BatteryFraction <= 0" in s["reason"]
    b = s["analysis"]["battery"]
    assert b["battery_flat"] is True and b["thruster_stopped"] is True
    assert b["final_thrust_N"] == 0.0 and b["max_thrust_after_flat_N"] == 0.0
    assert 40.0 < b["flat_at_s"] < 120.0  # 3 kJ at about 45 W
    assert s["energy_used_J"] == pytest.approx(3000.0)
    assert r.column("vehicle.Thrust")[-1] == 0.0


@pytest.mark.parametrize("seed, words", [
    ("sensors.Seed", None),
    ("vehicle.Length", "'vehicle.Length' is a Real parameter, not an Integer parameter"),
    ("sensor.Seed", "unknown instance 'sensor'"),
    ("sensors.Sed", "has no variable 'Sed' (did you mean 'Seed'?)"),
    ("Seed", "noise_seed"),
])
def test_noise_seed_names_an_integer_parameter(tmp_path, fmus_built, seed, words):
    """The stack says which parameter seeds its noise (what a sweep's --seeds varies); the
    master checks it with the rest, before anything runs."""
    from auv_cosim.master.plan import build_plan
    from auv_cosim.master.scenario import ScenarioError, load_scenario

    f = tmp_path / "s.yaml"
    f.write_text(f"include: {(find_scenario('stacks/survey')).as_posix()}\nstop_time: 1\nnoise_seed: {seed}\n")
    if words is None:
        assert build_plan(load_scenario(f)).loaded.model.noise_seed == seed
        return
    with pytest.raises(ScenarioError) as e:
        build_plan(load_scenario(f))
    assert "s.yaml: noise_seed" in str(e.value) and words in str(e.value), str(e.value)


def test_the_stacks_noise_seed_goes_with_the_removed_sensors():
    from auv_cosim.master.scenario import load_scenario

    assert load_scenario(find_scenario("depth_step")).model.noise_seed == "sensors.Seed"
    assert load_scenario(find_scenario("free_drift")).model.noise_seed is None
