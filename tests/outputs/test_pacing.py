"""Real-time pacing (auv_cosim/outputs/pacing.py): never early, no drift, lateness and overruns
counted, with a fake clock; and on a short real run, through the command."""
from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from auv_cosim.outputs.pacing import RealTimePacer
from auv_cosim.master import find_scenario

REPO = Path(__file__).resolve().parents[2]


class FakeClock:
    """A wall clock that moves only when slept on (each sleep overshoots by ``overshoot``) or
    when the 'work' of a step is done (``work``)."""

    def __init__(self, overshoot: float = 0.0):
        self.now = 1000.0
        self.overshoot = overshoot
        self.slept = 0

    def clock(self) -> float:
        return self.now

    def sleep(self, dt: float) -> None:
        assert dt > 0
        self.slept += 1
        self.now += dt + self.overshoot

    def work(self, dt: float) -> None:
        self.now += dt


def _fly(pacer: RealTimePacer, clock: FakeClock, n: int, step: float, cost) -> list[tuple[float, float]]:
    """n steps of ``step`` paced, each costing cost(k) of wall time; (due, let go) of each point."""
    out = []
    for k in range(n + 1):
        t = k * step
        pacer.pace(t)
        out.append((pacer.due(t), clock.now))
        if k < n:
            clock.work(cost(k))
    return out


@pytest.mark.parametrize("factor", [1.0, 10.0, 0.5])
def test_never_early_and_on_time_when_the_steps_fit(factor):
    clock = FakeClock(overshoot=1e-4)
    pacer = RealTimePacer(factor, clock=clock.clock, sleep=clock.sleep)
    points = _fly(pacer, clock, 600, 0.1, lambda k: 0.2 * 0.1 / factor)   # each step takes 20 % of its slot
    assert all(let_go >= due for due, let_go in points)
    s = pacer.summary()
    assert s["points"] == 601 and s["overruns"] == 0
    assert s["wall_s"] == pytest.approx(60.0 / factor, abs=2e-4)
    assert s["lateness_median_s"] == pytest.approx(1e-4) and s["lateness_max_s"] == pytest.approx(1e-4)
    assert s["simulated_s"] == pytest.approx(60.0)


def test_lateness_does_not_accumulate():
    """A clock that overshoots every sleep by 1 ms, over 10,000 steps: a pacer that slept
    step/factor after each point would end 10 s late; this one ends 1 ms late."""
    clock = FakeClock(overshoot=1e-3)
    pacer = RealTimePacer(1.0, clock=clock.clock, sleep=clock.sleep)
    _fly(pacer, clock, 10_000, 0.1, lambda k: 0.01)
    s = pacer.summary()
    assert s["wall_s"] == pytest.approx(1000.0, abs=1.5e-3)
    assert s["lateness_max_s"] == pytest.approx(1e-3)


def test_a_stall_is_caught_up_and_counted_as_overruns():
    """One step of 0.35 s in slots of 0.1 s: the next point is 0.25 s late (an overrun), the
    following ones catch up without waiting (0.15 s, then 0.05 s late: overruns while later
    than a slot), then the pacer is on time again."""
    clock = FakeClock()
    pacer = RealTimePacer(1.0, clock=clock.clock, sleep=clock.sleep)
    cost = lambda k: 0.35 if k == 10 else 0.0   # noqa: E731
    _fly(pacer, clock, 30, 0.1, cost)
    late = pacer.lateness()
    assert late[:11] == pytest.approx(np.zeros(11))
    assert late[11:14] == pytest.approx([0.25, 0.15, 0.05])
    assert late[14:] == pytest.approx(np.zeros(len(late) - 14), abs=1e-12)
    s = pacer.summary()
    assert s["overruns"] == 2                  # 0.25 and 0.15 later than their 0.1 s slot; 0.05 within
    assert s["wall_s"] == pytest.approx(3.0)   # the run still ends on time
    assert s["lateness_p99_s"] == pytest.approx(np.percentile(late, 99))


@pytest.mark.parametrize("bad", [0.0, -1.0, math.nan, math.inf])
def test_a_factor_that_is_no_pace_is_refused(bad):
    with pytest.raises(ValueError, match="real-time factor"):
        RealTimePacer(bad)


@pytest.mark.usefixtures("fmus_built")
def test_a_paced_run_is_never_early_and_gives_the_same_results(tmp_path):
    """depth_step for 3 s at 20x: the paced stepping takes at least 0.15 s of wall time, every
    point let go at or after its due time, and results.csv is byte for byte the unpaced one."""
    from auv_cosim.master import run

    scenario = {"include": (find_scenario("depth_step")).as_posix(), "stop_time": 3.0}
    plain = run(json.loads(json.dumps(scenario)), out_dir=tmp_path / "plain", plots=False, echo_messages=False)
    pacer = RealTimePacer(20.0)
    paced = run(json.loads(json.dumps(scenario)), out_dir=tmp_path / "paced", plots=False, echo_messages=False,
                pacer=pacer)
    assert paced.results_csv.read_bytes() == plain.results_csv.read_bytes()
    rt = paced.summary["realtime"]
    assert rt["points"] == paced.summary["steps"] + 1        # every point and the end
    assert np.all(pacer.lateness() >= 0.0)
    assert rt["wall_s"] >= 3.0 / 20.0
    assert paced.summary["stepping_time_s"] >= 3.0 / 20.0
    on_disk = json.loads(paced.summary_path.read_text())["realtime"]
    assert set(on_disk) >= {"factor", "wall_s", "lateness_median_s", "lateness_p99_s", "overruns"}


def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "auv_cosim", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=300)


@pytest.mark.usefixtures("fmus_built")
def test_the_command_paces_and_refuses_a_bad_factor(tmp_path):
    bad = _cli("run", "depth_step", "--stop-time", "1", "--out", str(tmp_path / "bad"), "--realtime", "0")
    assert bad.returncode == 2 and "--realtime" in bad.stderr and not (tmp_path / "bad").exists()
    ok = _cli("run", "depth_step", "--stop-time", "2", "--no-plots", "--out", str(tmp_path / "ok"), "--realtime", "10")
    assert ok.returncode == 0, ok.stderr
    assert "paced at 10x real time" in ok.stdout and "99th percentile" in ok.stdout
    rt = json.loads((tmp_path / "ok" / "summary.json").read_text())["realtime"]
    assert rt["wall_s"] >= 0.2
