"""The loop's hooks (auv_cosim/master/loop.py, docs/master.md "The loop"): an observer sees every
communication point in order, in blocks no longer than it asks for, and is closed however the
run ends; a pacer is asked before the steps from each point it may have to wait at and at the
end; neither
changes a bit of the results, with either backend."""
from __future__ import annotations

import json

import numpy as np
import pytest

from auv_cosim.master import native_loop, run
from auv_cosim.master.loop import ROWS_BLOCK, Observer
from master_helpers import REPO
from auv_cosim.master import find_scenario

pytestmark = pytest.mark.usefixtures("fmus_built")

DEPTH_STEP = (find_scenario("depth_step")).as_posix()


def _loops():
    return ["python"] + (["c"] if native_loop.available()[0] is not None else [])


class Watcher(Observer):
    def __init__(self, every: int = ROWS_BLOCK):
        self.every = every
        self.blocks: list[np.ndarray] = []
        self.started = self.closed = 0
        self.columns = None

    def start(self, plan, layout):
        self.started += 1
        self.columns = list(layout.columns)

    def rows(self, block):
        assert self.started == 1 and not self.closed
        self.blocks.append(block.copy())

    def close(self):
        self.closed += 1


class Metronome:
    """A pacer that notes the time of each point it is asked at (it never waits)."""

    def __init__(self, every: int):
        self.every = every
        self.asked: list[float] = []

    def pace(self, t: float) -> None:
        self.asked.append(t)


def _run(tmp_path, name, loop, stop_time=60.0, **kwargs):
    mapping = {"include": DEPTH_STEP, "stop_time": stop_time}
    return run(json.loads(json.dumps(mapping)), out_dir=tmp_path / name, plots=False, echo_messages=False,
               loop=loop, **kwargs)


@pytest.mark.parametrize("loop", _loops())
@pytest.mark.parametrize("every", [1, 7, ROWS_BLOCK])
def test_an_observer_sees_every_point_in_order_in_blocks_of_at_most_every(tmp_path, loop, every):
    plain = _run(tmp_path, "plain", loop)
    watcher = Watcher(every)
    watched = _run(tmp_path, "watched", loop, observers=(watcher,))
    assert watched.results_csv.read_bytes() == plain.results_csv.read_bytes()
    assert watcher.started == 1 and watcher.closed == 1
    assert watcher.columns[0] == "time"
    seen = np.vstack(watcher.blocks)
    assert np.array_equal(seen, watched.data)          # every point, the initial one first, in order
    assert len(seen) == plain.summary["steps"] + 1
    assert max(len(b) for b in watcher.blocks) <= every
    if every == 1:
        assert all(len(b) == 1 for b in watcher.blocks)


@pytest.mark.parametrize("loop", _loops())
def test_an_observer_is_closed_after_a_failed_run_with_every_row_it_made(tmp_path, loop):
    # a negative thrust power from t = 12.3 s: the vehicle refuses it in fmi2DoStep
    mapping = {"include": DEPTH_STEP, "stop_time": 40.0, "disconnect": ["vehicle.ThrustPower"],
               "signals": {"vehicle.ThrustPower": {"step": {"time": 12.3, "before": 30.0, "after": float("inf")}}}}
    watcher = Watcher(5)
    result = run(json.loads(json.dumps(mapping)), out_dir=tmp_path / "failed", plots=False, echo_messages=False,
                 loop=loop, observers=(watcher,))
    assert result.status == "failed" and watcher.closed == 1
    assert np.array_equal(np.vstack(watcher.blocks), result.data)


def test_an_observer_that_raises_ends_the_run_and_is_closed(tmp_path):
    """An observer that cannot write its file (an OSError: a full disk) ends the run as failed,
    its summary written; any other exception propagates. Either way it is closed."""
    class Broken(Watcher):
        def rows(self, block):
            super().rows(block)
            raise OSError("the disk is full")

    broken = Broken()
    res = _run(tmp_path, "broken", None, observers=(broken,))
    assert res.status == "failed" and "the disk is full" in res.reason
    assert res.summary_path.is_file()
    assert broken.closed == 1 and len(broken.blocks) >= 1

    class Buggy(Watcher):
        def rows(self, block):
            super().rows(block)
            raise RuntimeError("a bug")

    buggy = Buggy()
    with pytest.raises(RuntimeError, match="a bug"):
        _run(tmp_path, "buggy", None, observers=(buggy,))
    assert buggy.closed == 1


@pytest.mark.parametrize("loop", _loops())
@pytest.mark.parametrize("every", [1, 10])
def test_a_pacer_is_asked_at_least_every_so_many_steps(tmp_path, loop, every):
    plain = _run(tmp_path, "plain", loop, stop_time=30.0)
    pacer = Metronome(every)
    paced = _run(tmp_path, "paced", loop, stop_time=30.0, pacer=pacer)
    assert paced.results_csv.read_bytes() == plain.results_csv.read_bytes()
    times = np.array(pacer.asked)
    step = paced.summary["step_s"]
    assert times[0] == 0.0 and np.all(np.diff(times) > 0)   # from the first point on, each point once at most
    assert times[-1] == 30.0                                 # and the end: a paced run does not end early
    assert np.diff(times).max() <= every * step + 1e-9
    if every == 1:
        assert len(times) == paced.summary["steps"] + 1
    assert "realtime" not in paced.summary                  # a pacer without a summary() adds none
