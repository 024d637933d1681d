"""The H100 scenarios of seed 004's disturbance and layout rows, through `auv-cosim run`
with the real FMUs: `h100_waves` (station keeping in JONSWAP seas) and `h100_six_thrusters`
(the rank-5 layout of 4 slanted + 2 longitudinal thrusters). Shortened runs: what is checked
is that the scenario does what its file says, not the 300 s figures (README, H100 control)."""
from __future__ import annotations

import numpy as np
import pytest

from tests.harness import build, master


@pytest.fixture(scope="module", autouse=True)
def h100_fmus():
    build("H100", "H100Sensors", "H100Control", "H100_6", "H100Control_6")


def _columns(run, *names):
    return [np.asarray(run.column(n)) for n in names]


def _position_error(run):
    pos = np.column_stack(_columns(run, *(f"vehicle.Pos[{i}]" for i in (1, 2, 3))))
    ref = np.column_stack(_columns(run, *(f"control.RefPosition[{i}]" for i in (1, 2, 3))))
    return np.linalg.norm(pos - ref, axis=1)


def test_waves_disturb_the_station_keeping_and_the_vehicle_holds(tmp_path):
    run = master("run", "h100_waves", "--stop-time", "40", "--no-plots", out=tmp_path / "waves")
    assert run.rc == 0, run
    elevation, depth = _columns(run, "vehicle.SurfaceElevation", "vehicle.Depth")
    assert 0.1 < np.std(elevation) < 0.5          # Hs 1 m: std Hs / 4 = 0.25 m
    assert np.ptp(depth) > 0.05                    # the orbital motion at 5 m moves the vehicle
    error = _position_error(run)
    assert error.max() < 0.5 and np.sqrt(np.mean(error ** 2)) < 0.25
    assert run.summary["status"] == "completed"
    # summary.json's H100 figures (auv_cosim/vehicles/h100/host/figures.py, through the master's registry) are these
    figures = run.summary["h100"]["control"]
    assert (figures["controller"], figures["mode"], figures["layout"]) == ("pid", "hold", {"thrusters": 8, "rank": 6})
    assert figures["position_rms_m"] == pytest.approx(np.sqrt(np.mean(error ** 2)), rel=1e-5)
    assert figures["position_max_m"] == pytest.approx(error.max(), rel=1e-5)
    assert "h100_waves" in run.stdout and "position error rms" in run.stdout


def test_six_thruster_layout_reports_what_it_cannot_do_and_flies_what_it_can(tmp_path):
    run = master("run", "h100_six_thrusters", "--stop-time", "30", out=tmp_path / "six")
    assert run.rc == 0, run
    header, _ = run.table()
    assert [h for h in header if h.startswith("vehicle.Thrust[")] == [f"vehicle.Thrust[{i}]" for i in range(1, 7)]
    assert [h for h in header if h.startswith("control.ThrusterCommand[")] == \
        [f"control.ThrusterCommand[{i}]" for i in range(1, 7)]
    summary = run.summary
    assert set(run.column("control.LayoutRank")) == {5.0}
    warnings = [m["message"] for m in summary["fmu_messages"]["first"] if m["instance"] == "vehicle"]
    assert any("rank 5 < 6" in m and "cannot produce 0.09 sway + 1 roll" in m for m in warnings), summary["fmu_messages"]
    step = summary["analysis"]["depth_step"]
    assert step["overshoot_percent"] < 2.5 and step["settling_time_s"] < 5.0 and step["steady_state_error_m"] < 0.05
    assert _position_error(run)[-50:].max() < 0.1   # the horizontal position held through the step
    assert {p.rsplit("/", 1)[-1] for p in summary["files"]["plots"]} >= {"track.png", "depth.png", "actuators.png",
                                                                         "thrusters.png", "errors.png"}
    # summary.json names the direction the layout cannot push (auv_cosim/vehicles/h100/host/figures.py, from the
    # vehicle's thruster parameters as the run had them), and the run's report says it
    layout = summary["h100"]["control"]["layout"]
    assert (layout["thrusters"], layout["rank"], layout["unreachable"]) == (6, 5, ["0.09 sway + 1 roll"])
    assert "rank 5: cannot produce 0.09 sway + 1 roll" in run.stdout
